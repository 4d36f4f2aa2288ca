"""Settlement under each profile: every rule of RULES.md (issue 2, item 4)."""

# The amounts are Decimals compared with int literals on purpose (Decimal(3) == 3 is exact and
# reads like the rule book); mypy's strict equality would flag every such tuple.
# mypy: disable-error-code="comparison-overlap"

from decimal import Decimal as D

import pytest

from referee import Deal, load_profile, settle
from referee.rules.category import Category
from referee.rules.payout import Rule, Wager
from referee.rules.settlement import Ruling


def deal(player: str, flop: str, turn: str | None = None, river: str | None = None,
         dealer: str | None = None, decision: str = "call", ante: str = "1", bonus: str = "0") -> Deal:
    return Deal(ante=D(ante), player=player.split(), flop=flop.split(), decision=decision,  # type: ignore[arg-type]
                turn=turn, river=river, dealer=dealer.split() if dealer else None, bonus=D(bonus))


WORKED = deal("A♥ K♦", "A♠ 7♦ 4♣", "9♥", "2♠", "Q♠ Q♣")


def test_worked_example_section_09() -> None:
    r = settle(load_profile("vivo"), WORKED)
    assert r.outcome == "win" and r.dealer_qualified is True
    assert r.player_hand is not None and r.player_hand.description == "pair of aces, kickers K 9 7"
    assert r.dealer_hand is not None and r.dealer_hand.description == "pair of queens, kickers A 9 7"
    assert (r.ante, r.call, r.net, r.returned) == (1, 2, 3, 6)


def test_fold_loses_the_ante() -> None:
    r = settle(load_profile("vivo"), deal("2c 7d", "Js 8s 4h", decision="fold"))
    assert (r.outcome, r.ante, r.call, r.net, r.returned) == ("fold", -1, 0, -1, 0)


def test_losing_after_a_call_is_minus_three() -> None:
    r = settle(load_profile("vivo"), deal("2c 7d", "Js 8s 4h", "Kd", "3c", "Jh Jd"))
    assert (r.outcome, r.net, r.returned) == ("lose", -3, 0)


def test_board_plays_for_both_push() -> None:
    r = settle(load_profile("vivo"), deal("2c 3d", "Ts Js Qd", "Kc", "Ah", "4h 5h"))
    assert (r.outcome, r.dealer_qualified, r.net, r.returned) == ("push", True, 0, 3)


def test_board_royal_is_a_push() -> None:
    r = settle(load_profile("vivo"), deal("2c 3d", "Th Jh Qh", "Kh", "Ah", "4s 5s"))
    assert r.dealer_qualified is True and r.outcome == "push" and (r.ante, r.call, r.net) == (0, 0, 0)
    assert r.returned == 3


def test_unqualified_dealer_pays_the_ante_table_and_returns_the_call() -> None:
    r = settle(load_profile("vivo"), deal("Ah 9h", "2h 5h Kd", "Jh", "3c", "7c 8d"))
    assert r.dealer_qualified is False and r.player_hand is not None and r.player_hand.category == "flush"
    assert (r.outcome, r.ante, r.call, r.net, r.returned) == ("win", 2, 0, 2, 5)


def test_royal_flush_paid_100_to_1_when_the_dealer_does_not_qualify() -> None:
    r = settle(load_profile("vivo"), deal("Ah Kh", "Qh Jh Th", "2c", "3d", "7s 9d"))
    assert r.dealer_qualified is False and (r.ante, r.call, r.net) == (100, 0, 100)


def test_unqualified_dealer_losing_hand_still_pays_the_ante() -> None:
    r = settle(load_profile("vivo"), deal("2c 7d", "Js 8s 4h", "Kd", "3c", "Ah 6d"))
    assert r.dealer_qualified is False and r.dealer_hand is not None and r.player_hand is not None
    assert r.dealer_hand > r.player_hand and (r.outcome, r.ante, r.call) == ("win", 1, 0)


def test_strong_hand_against_a_qualified_dealer() -> None:
    r = settle(load_profile("vivo"), deal("9h 9d", "9c 9s 4h", "Kd", "3c", "4c 4d"))
    assert r.player_hand is not None and r.player_hand.category == "four_of_a_kind"
    assert (r.ante, r.call, r.net) == (10, 2, 12)


def test_caribbean_even_money_when_the_dealer_does_not_qualify() -> None:
    r = settle(load_profile("caribbean"), deal("Ah 9h", "2h 5h Kd", "Jh", "3c", "7c 8d"))
    assert (r.outcome, r.ante, r.call, rule(r, Wager.ANTE)) == ("win", 1, 0, Rule.EVEN_MONEY)
    r2 = settle(load_profile("caribbean"), deal("Ah 9h", "2h 5h Kd", "Jh", "3c", "7c 7d"))
    assert (r2.ante, r2.call) == (2, 2)  # paytable and even money against a qualified dealer


def test_bonus_100_call_is_returned_and_bonus_settled_on_the_deal() -> None:
    profile = load_profile("bonus-100")
    r = settle(profile, deal("A♥ K♦", "A♠ 7♦ 4♣", "9♥", "2♠", "Q♠ Q♣", bonus="1"))
    assert (r.ante, r.call, r.bonus, r.net) == (1, 0, 7, 8)  # pair of aces: 7:1; Call returned
    folded = settle(profile, deal("A♥ A♦", "A♠ A♣ 4♣", decision="fold", bonus="2"))
    assert (folded.ante, folded.bonus) == (-1, 80)  # four of a kind 40:1; a fold does not forfeit


def test_bonus_aa_fold_forfeits_and_tiers() -> None:
    profile = load_profile("bonus-aa")
    folded = settle(profile, deal("A♥ A♦", "A♠ A♣ 4♣", decision="fold", bonus="1"))
    assert (folded.ante, folded.bonus, rule(folded, Wager.BONUS)) == (-1, -1, Rule.FORFEITED)
    flush = settle(profile, deal("2h 9h", "4h Jh Kh", "3c", "5d", "7c 7d", bonus="1"))
    assert flush.bonus == 25
    kings = settle(profile, deal("Kh Kd", "4h Jc 8s", "3c", "5d", "7c 7d", bonus="1"))
    assert kings.bonus == -1 and rule(kings, Wager.BONUS) is Rule.BONUS_MISSED  # a pair below aces loses
    aces = settle(profile, deal("Ah Ad", "4h Jc 8s", "3c", "5d", "7c 7d", bonus="1"))
    assert aces.bonus == 7


def test_bonus_stake_under_a_profile_without_bonus_is_returned() -> None:
    r = settle(load_profile("vivo"), deal("A♥ K♦", "A♠ 7♦ 4♣", "9♥", "2♠", "Q♠ Q♣", bonus="1"))
    assert (r.bonus, rule(r, Wager.BONUS), r.returned) == (0, Rule.NOT_OFFERED, 7)


@pytest.mark.parametrize(("d", "kind"), [
    (deal("Ah Jk", "As 7d 4c", "9h", "2s", "Qs Qc"), "bad_card"),
    (deal("1c Kd", "As 7d 4c", "9h", "2s", "Qs Qc"), "bad_card"),
    (deal("Ah Kd", "Ah 7d 4c", "9h", "2s", "Qs Qc"), "duplicate_card"),
    (deal("Ah Kd", "As 7d 4c", "9h", "2s", "Qs Ah"), "duplicate_card"),
    (deal("Ah Kd Kc", "As 7d 4c", "9h", "2s", "Qs Qc"), "wrong_count"),
    (deal("Ah Kd", "As 7d", "9h", "2s", "Qs Qc"), "wrong_count"),
    (deal("Ah Kd", "As 7d 4c", "9h", None, "Qs Qc"), "incomplete_call"),
    (deal("Ah Kd", "As 7d 4c", "9h", "2s", None), "incomplete_call"),
    (deal("Ah Kd", "As 7d 4c", "9h", "2s", "Qs ??"), "incomplete_call"),
])
def test_void_deals_return_every_stake(d: Deal, kind: str) -> None:
    r = settle(load_profile("vivo"), d)
    assert r.outcome == "void" and r.void is not None and r.void.kind == kind
    assert r.net == 0 and r.returned == r.staked == 3


def test_fold_may_omit_turn_river_and_dealer() -> None:
    r = settle(load_profile("vivo"), deal("2c 7d", "Js 8s 4h", decision="fold", dealer="?? ??"))
    assert r.outcome == "fold" and r.dealer_hand is None and r.dealer_qualified is None


def test_the_two_of_clubs_is_a_card_like_any_other() -> None:
    """Card('2c') is the integer 0: no code may test cards for truth."""
    r = settle(load_profile("bonus-aa"), deal("Ah Ad", "2c 2d 8s", "3c", "5d", "7c 7d", bonus="1"))
    assert r.bonus_hand is not None and r.bonus_hand.category == "two_pair" and r.bonus == 7
    assert r.player_hand is not None and r.player_hand.category == "two_pair"


def test_fractional_stakes_are_exact() -> None:
    r = settle(load_profile("vivo"), deal("Ah 9h", "2h 5h Kd", "Jh", "3c", "7c 8d", ante="0.1"))
    assert r.ante == D("0.2") and r.returned == D("0.5")


def rule(ruling: Ruling, wager: Wager) -> Rule | None:
    line = ruling.line(wager)
    return line.rule if line is not None else None


def test_one_line_a_wager_staked() -> None:
    """The lines are the record: a fold has no Call line, a bonus line only when staked,
    and the totals are the lines' sums."""
    vivo = load_profile("vivo")
    folded = settle(vivo, deal("2c 7d", "Js 8s 4h", decision="fold"))
    assert [(ln.wager, ln.stake, ln.result, ln.rule) for ln in folded.lines] == [(Wager.ANTE, 1, -1, Rule.FOLDED)]
    won = settle(vivo, deal("A♥ K♦", "A♠ 7♦ 4♣", "9♥", "2♠", "Q♠ Q♣"))
    assert [(ln.wager, ln.rule, ln.odds, ln.category) for ln in won.lines] == [
        (Wager.ANTE, Rule.ANTE_PAYTABLE, 1, Category.PAIR), (Wager.CALL, Rule.CALL_ODDS, 1, None)]
    assert won.net == sum(ln.result for ln in won.lines) == 3 and won.staked == 3 and won.returned == 6
    lost = settle(vivo, deal("2c 7d", "Js 8s 4h", "Kd", "3c", "Jh Jd"))
    assert [ln.rule for ln in lost.lines] == [Rule.DEALER_WINS, Rule.DEALER_WINS] and lost.net == -3
    returned = settle(load_profile("bonus-100"), deal("A♥ K♦", "A♠ 7♦ 4♣", "9♥", "2♠", "Q♠ Q♣"))
    assert rule(returned, Wager.CALL) is Rule.CALL_RETURNED_ON_WIN and returned.call == 0
    void = settle(vivo, deal("Ah Kd", "Ah 7d 4c", "9h", "2s", "Qs Qc", bonus="1"))
    assert [(ln.wager, ln.rule) for ln in void.lines] == [(w, Rule.VOID) for w in Wager]


def test_a_new_profile_value_changes_the_lines_only_through_the_payout_rules() -> None:
    """What settles a wager is payout.main_terms: a profile that returns the Call and pays
    the Ante even money is settled, valued and worded by the same terms."""
    from referee.rules.payout import Ending, main_terms

    custom = load_profile("vivo").model_copy(update={"call_win_odds": D(0)})
    ante, call = main_terms(custom, Ending.WIN, Category.FLUSH)
    assert (ante.rule, ante.net, call.rule, call.net) == (Rule.ANTE_PAYTABLE, 2, Rule.CALL_RETURNED_ON_WIN, 0)
    r = settle(custom, deal("Ah 5h", "2h 7h 9h", "Jc", "3s", "Qc Qd"))
    assert (r.ante, r.call, rule(r, Wager.CALL)) == (2, 0, Rule.CALL_RETURNED_ON_WIN)
