"""A ruling in words (English or French) and as JSON: ``referee explain`` and ``hand``.

Every sentence is a catalogue message (``referee/locale``), filled from the facts of
:mod:`referee.audit.explain`; the JSON carries the same facts as fields, so a script
and a floor manager read the same ruling.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from ..audit.codes import CODES
from ..audit.explain import Explanation, Side, Wager
from ..i18n import N_, Messages
from ..rules.cards import RANK_NAMES, RANK_PLURALS, RANKS, Card, rank_char
from ..rules.evaluator import CATEGORY_NAMES
from ..rules.hands import HandValue, describe
from ..rules.money import fmt, plain, signed
from ..rules.profile import HandThreshold
from ..rules.tiebreak import Step, TieBreak

CATEGORY_WORDS = {
    "royal_flush": N_("royal flush"), "straight_flush": N_("straight flush"),
    "four_of_a_kind": N_("four of a kind"), "full_house": N_("full house"), "flush": N_("flush"),
    "straight": N_("straight"), "three_of_a_kind": N_("three of a kind"), "two_pair": N_("two pair"),
    "pair": N_("pair"), "high_card": N_("high card"),
}
ROLE_WORDS = {
    "category": N_("Category"), "quads": N_("Four of a kind"), "trips": N_("Three of a kind"),
    "pair": N_("Pair"), "high_pair": N_("High pair"), "low_pair": N_("Low pair"), "kicker": N_("Kicker {n}"),
    "top_card": N_("Top card"), "card": N_("Card {n}"),
}
WAGER_WORDS = {"ante": N_("Ante"), "call": N_("Call"), "bonus": N_("Bonus")}
VOID_WORDS = {
    "bad_card": N_("a card that is not one of the 52"),
    "duplicate_card": N_("the same card dealt twice"),
    "wrong_count": N_("a wrong number of cards"),
    "incomplete_call": N_("a call without turn, river and dealer cards"),
}
# Rank names are marked here so that the catalogue carries them (hands.describe asks for them).
_RANK_MESSAGES = [N_(w) for w in (*RANK_NAMES, *RANK_PLURALS)] + [N_("of " + w) for w in RANK_PLURALS]


def cards_text(cards: Iterable[Card | None]) -> str:
    return " ".join("??" if c is None else c.symbol for c in cards)


def hand_words(hand: HandValue, m: Messages) -> str:
    return describe(hand.value, m, m.rank, ", ")


def threshold_words(threshold: HandThreshold, m: Messages) -> str:
    if threshold.rank is None:
        return m("{category} or better").format(category=m(CATEGORY_WORDS[threshold.category]))
    of_ranks = m("of " + RANK_PLURALS[RANKS.index(threshold.rank)])
    if threshold.category == "pair":
        return m("a pair {of_ranks} or better").format(of_ranks=of_ranks)
    return m("{category} {of_ranks} or better").format(category=m(CATEGORY_WORDS[threshold.category]),
                                                        of_ranks=of_ranks)


class RulingText:
    """Builds the text of one explanation, line by line."""

    def __init__(self, ex: Explanation, m: Messages) -> None:
        self.ex, self.m = ex, m
        self.lines: list[str] = []

    def text(self) -> str:
        ex, m = self.ex, self.m
        r = ex.ruling
        self.say(m("Round {number}, session {session} ({file}, line {line})").format(
            number=ex.number, session=ex.session, file=ex.file, line=ex.line))
        self.cards()
        if r.outcome == "void":
            self.void()
        elif r.outcome == "fold":
            self.heading(m("Decision"))
            self.say("  " + m("The player folds: the Ante is lost and the round ends (§02, §05)."))
        else:
            self.hands()
            self.qualification()
            self.comparison()
        self.settlement()
        self.heading(m("Rules applied"))
        self.say("  " + m("{sections}; profile {profile} ({source}), sha256 {sha256}").format(
            sections=", ".join(ex.sections), profile=ex.profile.name, source=ex.profile.source or ex.profile_origin,
            sha256=ex.profile_sha256))
        self.record()
        return "\n".join(self.lines) + "\n"

    def say(self, line: str) -> None:
        self.lines.append(line)

    def heading(self, title: str) -> None:
        self.lines.extend(["", title])

    def cards(self) -> None:
        m, c, r = self.m, self.ex.ruling.cards, self.ex.ruling
        self.heading(m("Cards as dealt"))
        if r.outcome == "void":
            self.say("  " + m("As recorded (the deal is void, so not read as cards):"))
            for label, tokens in self.ex.recorded_cards:
                self.say("  " + m("{label}: {cards}").format(label=m(label), cards=" ".join(tokens)))
        else:
            rows = [(m("Player"), c.player), (m("Flop"), c.flop), (m("Turn"), (c.turn,) if c.turn is not None else ()),
                    (m("River"), (c.river,) if c.river is not None else ()), (m("Dealer"), c.dealer)]
            width = max(len(label) for label, _ in rows)
            for label, group in rows:
                self.say(f"  {label:<{width}}  {cards_text(group) if group else '—'}")
        stakes = ", ".join(f"{m(WAGER_WORDS[w.name])} {fmt(w.stake)}" for w in self.ex.wagers)
        decision = m("Call") if r.call_stake else m("Fold")
        self.say("  " + m("Decision: {decision}; stakes: {stakes}").format(decision=decision, stakes=stakes))

    def void(self) -> None:
        m, r = self.m, self.ex.ruling
        assert r.void is not None
        self.heading(m("Void deal (§07)"))
        self.say("  " + m("The deal is incorrect: {what}.").format(what=m(VOID_WORDS[r.void.kind])))
        self.say("  " + m("Detail: {reason}").format(reason=r.void.reason))
        self.say("  " + m("Every stake is returned; the round is not counted and is dealt again."))

    def side(self, label: str, side: Side) -> None:
        m = self.m
        self.say("  " + m("{side}: {hand}: {cards}").format(
            side=label, hand=hand_words(side.hand, m), cards=cards_text(side.play.best_five)))  # type: ignore[arg-type]
        used = len(side.play.private)
        if used == 0:
            playing = m("the board plays (no private card)")
        elif used == 1:
            playing = m("1 private card plays: {cards}").format(cards=cards_text(side.play.private))  # type: ignore[arg-type]
        else:
            playing = m("2 private cards play: {cards}").format(cards=cards_text(side.play.private))  # type: ignore[arg-type]
        self.say("    " + playing)

    def hands(self) -> None:
        m, ex = self.m, self.ex
        self.heading(m("Best five of seven (§03)"))
        if ex.player is not None:
            self.side(m("Player"), ex.player)
        if ex.dealer is not None:
            self.side(m("Dealer"), ex.dealer)

    def qualification(self) -> None:
        m, ex = self.m, self.ex
        self.heading(m("Qualification (§05)"))
        if ex.dealer is None:
            return
        words = dict(hand=hand_words(ex.dealer.hand, m), threshold=threshold_words(ex.profile.dealer_qualifier, m))
        if ex.ruling.dealer_qualified:
            self.say("  " + m("The dealer qualifies: {hand} is {threshold}.").format(**words))
        else:
            self.say("  " + m("The dealer does not qualify ({threshold} needed): {hand}.").format(**words))
            self.say("  " + m("The hands are not compared: the Ante is paid and the Call returned (§05)."))

    def comparison(self) -> None:
        m, tb = self.m, self.ex.comparison
        if tb is None:
            return
        self.heading(m("Comparison (§04)"))
        for line in comparison_lines(tb, m):
            self.say("  " + line)
        ex = self.ex
        if tb.winner == "tie" and ex.player and ex.dealer and not ex.player.play.private and not ex.dealer.play.private:
            self.say("  " + m("The board plays for both: a tie (§03)."))
        if tb.winner == "player":
            self.say("  " + m("The dealer qualifies but loses."))
        elif tb.winner == "dealer":
            self.say("  " + m("The qualified dealer wins."))

    def settlement(self) -> None:
        m, ex = self.m, self.ex
        self.heading(m("Settlement"))
        for wager in ex.wagers:
            self.say("  " + m("{wager} {stake}: {result}: {why}").format(
                wager=m(WAGER_WORDS[wager.name]), stake=fmt(wager.stake), result=result_words(wager, m),
                why=self.why(wager)))
        r = ex.ruling
        self.say("  " + m("Net {net}; total returned with the stakes {returned}.").format(
            net=signed(r.net), returned=fmt(r.returned)))

    def why(self, w: Wager) -> str:
        m, ex = self.m, self.ex
        category = m(CATEGORY_WORDS[w.category]) if w.category else ""
        odds = fmt(w.odds) if w.odds is not None else ""
        if w.rule == "paytable":
            return m("Ante paytable, {category} {odds}:1 (§06)").format(category=category, odds=odds)
        if w.rule == "even_money":
            return m("even money: the dealer does not qualify")
        if w.rule == "call_odds":
            return m("the Call pays {odds}:1 when the player beats a qualified dealer").format(odds=odds)
        if w.rule == "returned":
            if ex.ruling.dealer_qualified:
                return m("the profile returns the Call when the player beats a qualified dealer")
            return m("the dealer does not qualify")
        if w.rule == "push":
            return m("exact tie: the stake is returned")
        if w.rule == "lost" and w.name == "bonus":
            minimum = ex.profile.bonus.minimum if ex.profile.bonus else None
            below = threshold_words(minimum, m) if minimum else ""
            return m("the player's five cards are not {minimum}").format(minimum=below)
        if w.rule == "lost":
            return m("the qualified dealer wins")
        if w.rule == "folded":
            return m("lost by the fold")
        if w.rule == "forfeited":
            return m("the fold forfeits the bonus")
        if w.rule == "bonus_paytable":
            name = ex.profile.bonus.name if ex.profile.bonus else ""
            return m("{name} paytable, {category} {odds}:1").format(name=name, category=category, odds=odds)
        if w.rule == "not_offered":
            return m("the profile has no bonus")
        return m("the deal is void: every stake is returned")

    def record(self) -> None:
        m, ex = self.m, self.ex
        self.heading(m("The record"))
        if not ex.findings:
            self.say("  " + m("The record agrees with the ruling (or records nothing more to check)."))
            return
        for f in ex.findings:
            self.say("  " + finding_words(f.code, f.field, f.recorded, f.expected, f.message, m))


RESULT_FIELDS = ("ante", "call", "bonus", "net")


def result_words(w: Wager, m: Messages) -> str:
    if w.net > 0:
        return m("wins {amount}").format(amount=fmt(w.net))
    if w.net < 0:
        return m("loses {amount}").format(amount=fmt(-w.net))
    return m("returned")


def finding_words(code: str, field: str | None, recorded: Any, expected: Any, message: str, m: Messages) -> str:
    title = f"{code} {CODES[code].name}" if code in CODES else code
    if recorded is not None or expected is not None:
        text = m("{finding}: {field} recorded {recorded}, the rules give {expected}").format(
            finding=title, field=field or "", recorded=_value(recorded, field), expected=_value(expected, field))
    else:
        text = title
    return text + (f" ({message})" if m.language == "en" else "")


def _value(value: Any, field: str | None) -> str:
    """A recorded or expected value; results (not stakes or balances) with their sign."""
    result = field is not None and field.startswith("recorded.") and field.rsplit(".", 1)[1] in RESULT_FIELDS
    if isinstance(value, int | float | Decimal) and not isinstance(value, bool):
        amount = Decimal(str(value))
        return signed(amount) if result else fmt(amount)
    if value is None:
        return "—"
    return str(value)


def step_value(step: Step, side: int, m: Messages) -> str:
    value = step.first if side == 0 else step.second
    if step.role == "category":
        return m(CATEGORY_WORDS[CATEGORY_NAMES[value]])
    if step.role in ("kicker", "card", "top_card"):
        return m.rank(value)
    return m(RANK_PLURALS[value])


def comparison_lines(tb: TieBreak, m: Messages, first: str | None = None, second: str | None = None) -> list[str]:
    """One line a step: equal steps say so, the deciding one says who wins.

    ``first`` and ``second`` say who wins on either side ("the player wins").
    """
    lines = []
    for step in tb.steps:
        role = m(ROLE_WORDS[step.role]).format(n=step.index)
        if step.decides:
            winner = (first or m("the player wins")) if tb.winner == "player" else (second or m("the dealer wins"))
            lines.append(m("{role}: {player} against {dealer}: {winner}.").format(
                role=role, player=step_value(step, 0, m), dealer=step_value(step, 1, m), winner=winner))
        else:
            lines.append(m("{role}: {value} for both.").format(role=role, value=step_value(step, 0, m)))
    if tb.winner == "tie":
        lines.append(m("Exact tie: the same ranks in the same roles; suits never rank and the sixth and "
                       "seventh cards never count (§03, §04). Ante and Call are returned."))
    return lines


def hand_json(side: Side | None) -> dict[str, Any] | None:
    if side is None:
        return None
    return {
        "category": side.hand.category, "description": side.hand.description,
        "best_five": [str(c) for c in side.play.best_five],
        "private_cards_playing": [str(c) for c in side.play.private],
        "board_plays": not side.play.private,
    }


def tie_break_json(tb: TieBreak | None) -> dict[str, Any] | None:
    if tb is None:
        return None
    steps = []
    for s in tb.steps:
        if s.role == "category":
            player: Any = CATEGORY_NAMES[s.first]
            dealer: Any = CATEGORY_NAMES[s.second]
        else:
            player, dealer = rank_char(s.first), rank_char(s.second)
        steps.append({"role": s.role, "index": s.index, "player": player, "dealer": dealer, "decides": s.decides})
    return {"steps": steps, "winner": tb.winner}


def explanation_json(ex: Explanation, m: Messages) -> dict[str, Any]:
    r = ex.ruling
    c = r.cards
    return {
        "file": ex.file, "line": ex.line, "session": ex.session, "round": ex.number,
        "language": m.language,
        "profile": {"name": ex.profile.name, "origin": ex.profile_origin, "sha256": ex.profile_sha256},
        "cards": None if r.outcome == "void" else {
            "player": [str(x) if x is not None else "??" for x in c.player],
            "flop": [str(x) if x is not None else "??" for x in c.flop],
            "turn": None if c.turn is None else str(c.turn), "river": None if c.river is None else str(c.river),
            "dealer": [str(x) if x is not None else "??" for x in c.dealer],
        },
        "outcome": r.outcome,
        "void": None if r.void is None else {"kind": r.void.kind, "reason": r.void.reason},
        "player": hand_json(ex.player), "dealer": hand_json(ex.dealer),
        "dealer_qualified": r.dealer_qualified,
        "qualifier": ex.profile.dealer_qualifier.words(),
        "comparison": tie_break_json(ex.comparison),
        "wagers": [{"wager": w.name, "stake": plain(w.stake), "net": plain(w.net), "rule": w.rule,
                    "odds": plain(w.odds), "category": w.category} for w in ex.wagers],
        "net": plain(r.net), "staked": plain(r.staked), "returned": plain(r.returned),
        "sections": list(ex.sections),
        "findings": [{"code": f.code, "field": f.field, "recorded": plain(f.recorded), "expected": plain(f.expected),
                      "message": f.message} for f in ex.findings],
        "text": RulingText(ex, m).text(),
    }


def hand_report(groups: list[list[str]], m: Messages) -> tuple[str, dict[str, Any]]:
    """``referee hand``: one or two hands in words and as JSON."""
    from ..rules.hands import evaluate
    from ..rules.tiebreak import tie_break

    hands = [evaluate(g) for g in groups]
    labels = [m("First hand"), m("Second hand")] if len(hands) == 2 else [m("Hand")]
    lines: list[str] = []
    entries = []
    for label, group, hand in zip(labels, groups, hands, strict=False):
        five = hand.best_five_of(group)
        lines.append(m("{side}: {hand}: {cards}").format(side=label, hand=hand_words(hand, m), cards=cards_text(five)))
        lines.append("  " + m("category: {category}").format(category=m(CATEGORY_WORDS[hand.category])))
        entries.append({"cards": list(group), "category": hand.category, "description": hand.description,
                        "best_five": [str(c) for c in five]})
    doc: dict[str, Any] = {"hands": entries}
    if len(hands) == 2:
        tb = tie_break(hands[0], hands[1])
        lines.extend(comparison_lines(tb, m, m("the first hand wins"), m("the second hand wins")))
        winner = {"player": "first", "dealer": "second", "tie": "tie"}[tb.winner]
        doc["winner"] = winner
        doc["comparison"] = tie_break_json(tb)
    return "\n".join(lines) + "\n", doc
