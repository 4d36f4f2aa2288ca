"""A ruling in words (English or French): ``referee explain``, ``hand``, recall and the report.

Every sentence is a catalogue message (``referee/locale``), filled from the facts of
:mod:`referee.audit.explain`; :mod:`referee.report.ruling_json` carries the same facts
as fields, so a script and a floor manager read the same ruling.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from decimal import Decimal
from typing import Any, assert_never

from ..audit.explain import Explanation, Side
from ..audit.owed import BottomLine
from ..i18n import N_, Messages
from ..models.codes import CODES, FindingCode
from ..models.common import Recorded
from ..profiles import profile_label
from ..rules.cards import RANK_NAMES, RANK_PLURALS, RANKS, SUIT_SYMBOLS, Card, CardError, parse_card, rank_char
from ..rules.category import Category
from ..rules.hands import HandValue, describe
from ..rules.money import fmt, signed
from ..rules.payout import Rule, Wager
from ..rules.profile import HandThreshold, Topic, in_language
from ..rules.settlement import Line
from ..rules.tiebreak import Step, TieBreak
from .finding_titles import TITLES
from .void_words import group_words, void_reason_words

CATEGORY_WORDS: dict[str, str] = {  # keyed by Category (a str: plain names find it too)
    Category.ROYAL_FLUSH: N_("royal flush"), Category.STRAIGHT_FLUSH: N_("straight flush"),
    Category.FOUR_OF_A_KIND: N_("four of a kind"), Category.FULL_HOUSE: N_("full house"),
    Category.FLUSH: N_("flush"), Category.STRAIGHT: N_("straight"), Category.THREE_OF_A_KIND: N_("three of a kind"),
    Category.TWO_PAIR: N_("two pair"), Category.PAIR: N_("pair"), Category.HIGH_CARD: N_("high card"),
}
ROLE_WORDS = {
    "category": N_("Category"), "quads": N_("Four of a kind"), "trips": N_("Three of a kind"),
    "pair": N_("Pair"), "high_pair": N_("High pair"), "low_pair": N_("Low pair"), "kicker": N_("Kicker {n}"),
    "top_card": N_("Top card"), "card": N_("Card {n}"),
}
WAGER_WORDS = {Wager.ANTE: N_("Ante"), Wager.CALL: N_("Call"), Wager.BONUS: N_("Bonus")}
VOID_WORDS = {
    "bad_card": N_("a card that is not one of the 52"),
    "duplicate_card": N_("the same card dealt twice"),
    "wrong_count": N_("a wrong number of cards"),
    "incomplete_call": N_("a call without turn, river and dealer cards"),
}
# What a finding's field is, for "The record" (a field not listed is shown as named).
FIELD_WORDS = {
    "recorded.ante": N_("the Ante's result"), "recorded.call": N_("the Call's result"),
    "recorded.bonus": N_("the bonus's result"), "recorded.net": N_("the net result"),
    "recorded.returned": N_("the total returned"), "recorded.balance": N_("the balance"),
    "recorded.outcome": N_("the outcome"), "recorded.player_hand": N_("the player's hand"),
    "recorded.dealer_hand": N_("the dealer's hand"), "recorded.dealer_qualified": N_("the dealer's qualification"),
    "recorded.void": N_("the void"), "recorded": N_("the settlement"), "round": N_("the round number"),
    "ante": N_("the Ante stake"), "call": N_("the Call stake"), "bonus": N_("the bonus stake"),
}
# Fields a French ruling names in words where English shows the record's own name
# (issue 27: "V001 void-settled : dealer[0] : la table a enregistré réglée").
FIELD_NAMES = {"wallet": N_("the wallet"), "game": N_("the game"), "turn": N_("the turn card"),
               "river": N_("the river card")}
CARD_FIELD = re.compile(r"(player|flop|dealer)\[(\d+)\]\Z")
# Recorded and expected values that are words, not amounts.
VALUE_WORDS = {
    "win": N_("a win"), "lose": N_("a loss"), "push": N_("a push"), "fold": N_("a fold"), "void": N_("void"),
    "settled": N_("settled"), "cancelled": N_("cancelled"),
}
QUALIFIED_WORDS = {True: N_("qualified"), False: N_("not qualified")}
VOID_FLAG_WORDS = {True: N_("void"), False: N_("not void")}
# Rank names are marked here so that the catalogue carries them (hands.describe asks for them).
_RANK_MESSAGES = [N_(w) for w in (*RANK_NAMES, *RANK_PLURALS)] + [N_("of " + w) for w in RANK_PLURALS]


def card_text(token: object, m: Messages | None = None) -> str:
    """A card with its suit symbol, its rank as the ruling's words write it: ``10♠``
    (not ``T♠``), French ``R♦`` for the king."""
    card = token if isinstance(token, Card) or token is None else parse_card(token)
    if card is None:
        return "??"
    return (m.rank(card.rank) if m is not None else rank_char(card.rank)) + SUIT_SYMBOLS[card.suit]


def cards_text(cards: Iterable[object], m: Messages | None = None) -> str:
    return " ".join(card_text(c, m) for c in cards)


def token_text(token: str, m: Messages) -> str:
    """A card as recorded: written like the others when it is one, else as it was."""
    try:
        card = parse_card(token)
    except CardError:
        return token
    return card_text(card, m)


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


def topic_of(rule: Rule) -> Topic | None:
    """The passage of the profile's rules that a wager settled by ``rule`` quotes."""
    match rule:
        case Rule.ANTE_PAYTABLE:
            return Topic.PAYTABLE
        case Rule.EVEN_MONEY | Rule.CALL_RETURNED:
            return Topic.NOT_QUALIFIED
        case Rule.CALL_ODDS | Rule.CALL_RETURNED_ON_WIN:
            return Topic.WIN
        case Rule.PUSH:
            return Topic.TIE
        case Rule.DEALER_WINS:
            return Topic.LOSE
        case Rule.FOLDED:
            return Topic.FOLD
        case Rule.BONUS_PAYTABLE | Rule.BONUS_MISSED:
            return Topic.BONUS
        case Rule.FORFEITED:
            return Topic.BONUS_FOLD
        case Rule.NOT_OFFERED:
            return None
        case Rule.VOID:
            return Topic.VOID
        case Rule.CANCELLED:  # the table's decision: no document of the rules speaks of it
            return None
        case _:
            assert_never(rule)


#: Who is owed: a plural message each (gettext's ngettext), for the French verb agrees
#: with its amount ("1 est dû", "15 sont dus"); in English an amount takes "is" (15 EUR
#: is owed), so both English forms are the same sentence.
PARTY_OWED = {"player": (N_("The table paid {table}; the rules give {rules}; {amount} is owed to the player."),) * 2,
              "house": (N_("The table paid {table}; the rules give {rules}; {amount} is owed to the house."),) * 2}
BALANCE_FAVOURS = {
    "player": N_("The recorded balance {recorded} does not follow from the last recorded balance: that balance "
                 "plus the rules' nets since gives {expected}; the difference of {amount} favours the player."),
    "house": N_("The recorded balance {recorded} does not follow from the last recorded balance: that balance "
                "plus the rules' nets since gives {expected}; the difference of {amount} favours the house."),
}


def money_words(text: str, currency: str | None) -> str:
    """An amount as a bottom line says it: with the session's currency when it has one."""
    return text if currency is None else f"{text} {currency}"


def bottom_words(bottom: BottomLine, m: Messages) -> str:
    """The bottom line in words: what the table paid, what the rules give and who is owed
    what; then, when the recorded balance does not follow, which balance the rules give
    and whom the difference favours. Every reader (explain, recall, the report) says
    this same text (the reasoning: docs/ledger.md, "Who is owed"). Every amount carries
    the session's currency when it has one."""
    cur = bottom.currency
    words = {"rules": money_words(signed(bottom.rules), cur),
             "table": "" if bottom.paid is None else money_words(signed(bottom.paid), cur),
             "amount": money_words(fmt(abs(bottom.owed)), cur)}
    if bottom.paid is None:
        said = m("The record does not say what the table paid; the rules give {rules}.")
    elif bottom.owed_to is not None:
        said = m.plural(*PARTY_OWED[bottom.owed_to], bottom.owed)
    elif bottom.balance is not None:  # paid right: "nobody is owed anything" would hide the balance
        said = m("The table paid {table}, as the rules give.")
    else:
        said = m("The table paid {table}; the rules give {rules}; nobody is owed anything.")
    text = said.format(**words)
    off = bottom.balance
    if off is not None:
        text += " " + m(BALANCE_FAVOURS[off.favours]).format(
            recorded=money_words(fmt(off.recorded), cur), expected=money_words(fmt(off.expected), cur),
            amount=money_words(fmt(off.difference), cur))
    return text


class RulingText:
    """Builds the text of one explanation, line by line: the bottom line first, then the
    cards, the hands and the rules, each part quoting the words of the rule it applies."""

    def __init__(self, ex: Explanation, m: Messages) -> None:
        self.ex, self.m = ex, m
        self.lines: list[str] = []
        self.quoted: set[tuple[str, str]] = set()

    def text(self) -> str:
        ex, m = self.ex, self.m
        r = ex.ruling
        if ex.game is not None:
            self.say(m("Game {game}, player {player}, session {session} ({file}, line {line})").format(
                game=ex.game, player=ex.player_id, session=ex.session, file=ex.file, line=ex.line))
        else:
            self.say(m("Round {number}, session {session} ({file}, line {line})").format(
                number=ex.number, session=ex.session, file=ex.file, line=ex.line))
        self.heading(m("Bottom line"))
        self.say("  " + bottom_words(ex.bottom, m))
        self.cards()
        if r.outcome == "void":
            self.void()
        elif r.outcome == "fold":
            self.heading(m("Decision"))
            self.say("  " + m("The player folds: the Ante is lost and the round ends."))
        else:
            self.hands()
            self.qualification()
            self.comparison()
        self.settlement()
        self.heading(m("Rules applied"))
        self.say("  " + m("profile {profile} ({source}), sha256 {sha256}").format(
            profile=profile_label(ex.profile.name, ex.profile_origin) or ex.profile.name,
            source=in_language(ex.profile.source, m.language) or ex.profile_origin, sha256=ex.profile_sha256))
        self.record()
        return "\n".join(self.lines) + "\n"

    def say(self, line: str) -> None:
        self.lines.append(line)

    def heading(self, title: str) -> None:
        self.lines.extend(["", title])

    def quote(self, topic: Topic | None) -> None:
        """The profile's words for ``topic``, once a ruling; nothing if it has none."""
        passage = self.ex.profile.rules.get(topic) if topic is not None else None
        if passage is None:
            return
        text, language = passage.quote(self.m.language)
        cite = passage.where(self.m.language)
        if (cite, text) in self.quoted:
            return
        self.quoted.add((cite, text))
        quoted = f"« {text} »" if language == "fr" else f"\"{text}\""
        if language != self.m.language:
            quoted += " " + self.m("(in French)" if language == "fr" else "(in English)")
        self.say("  " + self.m("{cite}: {quote}").format(cite=cite, quote=quoted))

    def cards(self) -> None:
        m, c, r = self.m, self.ex.ruling.cards, self.ex.ruling
        self.heading(m("Cards as dealt"))
        if r.outcome == "void":
            self.say("  " + m("As recorded (the game was cancelled, so they settle nothing):" if r.cancelled
                              else "As recorded (the deal is void, so not read as cards):"))
            for label, tokens in self.ex.recorded_cards:
                self.say("  " + m("{label}: {cards}").format(
                    label=m(label), cards=" ".join(token_text(t, m) for t in tokens)))
        else:
            rows = [(m("Player"), c.player), (m("Flop"), c.flop), (m("Turn"), (c.turn,) if c.turn is not None else ()),
                    (m("River"), (c.river,) if c.river is not None else ()), (m("Dealer"), c.dealer)]
            width = max(len(label) for label, _ in rows)
            for label, group in rows:
                self.say(f"  {label:<{width}}  {cards_text(group, m) if group else '—'}")
        stakes = ", ".join(f"{m(WAGER_WORDS[line.wager])} {fmt(line.stake)}" for line in r.lines)
        decision = m("Call") if r.call_stake else m("Fold")
        self.say("  " + m("Decision: {decision}; stakes: {stakes}").format(decision=decision, stakes=stakes))

    def void(self) -> None:
        m, r = self.m, self.ex.ruling
        assert r.void is not None
        if r.cancelled:
            self.cancelled()
            return
        self.heading(m("Void deal"))
        self.say("  " + m("The deal is incorrect: {what}.").format(what=m(VOID_WORDS[r.void.kind])))
        self.say("  " + m("Detail: {reason}").format(reason=void_reason_words(r.void.reason, m)))
        self.say("  " + m("Every stake is returned; the round is not counted and is dealt again."))

    def cancelled(self) -> None:
        """A cancelled game: every stake refunded, and what the table did instead, in its
        record and its wallet (the findings, below, say where they differ)."""
        m, ex = self.m, self.ex
        self.heading(m("Cancelled game"))
        self.say("  " + m("The table cancelled the game: every stake is refunded and the game is not counted; "
                          "the rules give 0 to every seat."))
        self.say("  " + recorded_words(ex.recorded, m))
        if ex.wallet is None:
            self.say("  " + m("No wallet moves are recorded for the seat."))
        else:
            moves = m("Wallet moves: debits {debits}, credits {credits}, cancels and refunds {refunds}.")
            self.say("  " + moves.format(debits=fmt(ex.wallet.debits), credits=fmt(ex.wallet.credits),
                                         refunds=fmt(ex.wallet.refunds)))

    def side(self, label: str, side: Side) -> None:
        m = self.m
        self.say("  " + m("{side}: {hand}: {cards}").format(
            side=label, hand=hand_words(side.hand, m), cards=cards_text(side.play.best_five, m)))
        used = len(side.play.private)
        if used == 0:
            playing = m("the board plays (no private card)")
        elif used == 1:
            playing = m("1 private card plays: {cards}").format(cards=cards_text(side.play.private, m))
        else:
            playing = m("2 private cards play: {cards}").format(cards=cards_text(side.play.private, m))
        self.say("    " + playing)

    def hands(self) -> None:
        m, ex = self.m, self.ex
        self.heading(m("Best five of seven"))
        if ex.player is not None:
            self.side(m("Player"), ex.player)
        if ex.dealer is not None:
            self.side(m("Dealer"), ex.dealer)
        self.quote(Topic.BEST_FIVE)

    def qualification(self) -> None:
        m, ex = self.m, self.ex
        self.heading(m("Qualification"))
        if ex.dealer is None:
            return
        words = dict(hand=hand_words(ex.dealer.hand, m), threshold=threshold_words(ex.profile.dealer_qualifier, m))
        if ex.ruling.dealer_qualified:
            self.say("  " + m("The dealer qualifies: {hand} is {threshold}.").format(**words))
        else:
            self.say("  " + m("The dealer does not qualify ({threshold} needed): {hand}.").format(**words))
            self.say("  " + m("The hands are not compared: the Ante is paid and the Call returned."))
        self.quote(Topic.QUALIFICATION)

    def comparison(self) -> None:
        m, tb = self.m, self.ex.comparison
        if tb is None:
            return
        self.heading(m("Comparison"))
        for line in comparison_lines(tb, m):
            self.say("  " + line)
        ex = self.ex
        if tb.winner == "tie" and ex.player and ex.dealer and not ex.player.play.private and not ex.dealer.play.private:
            self.say("  " + m("The board plays for both: a tie."))
        if tb.winner == "player":
            self.say("  " + m("The dealer qualifies but loses."))
        elif tb.winner == "dealer":
            self.say("  " + m("The qualified dealer wins."))
        self.quote(Topic.RANKING)

    def settlement(self) -> None:
        m, r = self.m, self.ex.ruling
        self.heading(m("Settlement"))
        for line in r.lines:
            self.say("  " + m("{wager} {stake}: {result}: {why}").format(
                wager=m(WAGER_WORDS[line.wager]), stake=fmt(line.stake), result=result_words(line, m),
                why=self.why(line)))
        self.say("  " + m("Net {net}; total returned with the stakes {returned}.").format(
            net=signed(r.net), returned=fmt(r.returned)))
        for line in r.lines:
            self.quote(topic_of(line.rule))

    def why(self, line: Line) -> str:
        """The rule in words: one sentence a rule, and mypy checks that none is missing."""
        m, ex = self.m, self.ex
        category = m(CATEGORY_WORDS[line.category]) if line.category else ""
        odds = fmt(line.odds) if line.odds is not None else ""
        match line.rule:
            case Rule.ANTE_PAYTABLE:
                return m("Ante paytable, {category} {odds}:1").format(category=category, odds=odds)
            case Rule.EVEN_MONEY:
                return m("even money: the dealer does not qualify")
            case Rule.CALL_ODDS:
                return m("the Call pays {odds}:1 when the player beats a qualified dealer").format(odds=odds)
            case Rule.CALL_RETURNED:
                return m("the dealer does not qualify")
            case Rule.CALL_RETURNED_ON_WIN:
                return m("the profile returns the Call when the player beats a qualified dealer")
            case Rule.PUSH:
                return m("exact tie: the stake is returned")
            case Rule.BONUS_MISSED:
                minimum = ex.profile.bonus.minimum if ex.profile.bonus else None
                below = threshold_words(minimum, m) if minimum else ""
                return m("the player's five cards are not {minimum}").format(minimum=below)
            case Rule.DEALER_WINS:
                return m("the qualified dealer wins")
            case Rule.FOLDED:
                return m("lost by the fold")
            case Rule.FORFEITED:
                return m("the fold forfeits the bonus")
            case Rule.BONUS_PAYTABLE:
                name = ex.profile.bonus.name if ex.profile.bonus else ""
                return m("{name} paytable, {category} {odds}:1").format(name=name, category=category, odds=odds)
            case Rule.NOT_OFFERED:
                return m("the profile has no bonus")
            case Rule.VOID:
                return m("the deal is void: every stake is returned")
            case Rule.CANCELLED:
                return m("the game was cancelled: every stake is refunded")
            case _:
                assert_never(line.rule)

    def record(self) -> None:
        m, ex = self.m, self.ex
        self.heading(m("The record"))
        if not ex.findings:
            self.say("  " + m("The record agrees with the ruling (or records nothing more to check)."))
            return
        for f in ex.findings:
            self.say("  " + finding_words(f.code, f.field, f.recorded, f.expected, f.message, m))


RESULT_FIELDS = ("ante", "call", "bonus", "net")
#: A record's amounts as ``recorded_words`` says them, in order: wagers' results and the
#: net signed, the total returned and the balance as they are.
RECORDED_AMOUNTS = {"ante": N_("Ante {amount}"), "call": N_("Call {amount}"), "bonus": N_("bonus {amount}"),
                    "net": N_("net {amount}"), "returned": N_("returned {amount}"),
                    "balance": N_("balance {amount}")}


def recorded_words(recorded: Recorded | None, m: Messages) -> str:
    """What the table recorded for a round or seat, in one sentence: its outcome and its
    amounts ("The table recorded the seat as a win: net +3, balance 107.")."""
    outcome = None if recorded is None else recorded.outcome or ("void" if recorded.void else None)
    amounts = ", ".join(
        m(words).format(amount=signed(value) if name in RESULT_FIELDS else fmt(value))
        for name, words in RECORDED_AMOUNTS.items()
        if recorded is not None and (value := getattr(recorded, name)) is not None)
    if outcome is not None:
        said = m("The table recorded the seat as {outcome}: {amounts}." if amounts
                 else "The table recorded the seat as {outcome}.")
        return said.format(outcome=value_words(outcome, "recorded.outcome", m), amounts=amounts)
    if amounts:
        return m("The table recorded for the seat: {amounts}.").format(amounts=amounts)
    return m("The table recorded no result for the seat.")


def result_words(line: Line, m: Messages) -> str:
    if line.result > 0:
        return m("wins {amount}").format(amount=fmt(line.result))
    if line.result < 0:
        return m("loses {amount}").format(amount=fmt(-line.result))
    return m("returned")


def finding_words(code: str, field: str | None, recorded: Any, expected: Any, message: str, m: Messages) -> str:
    """One finding, once: its code and, where the record and the rules disagree on a
    value, the two values in words; else (in English) the finding's message."""
    title = f"{code} {CODES[code].name}" if code in CODES else code
    if recorded is not None or expected is not None:
        what = field_words(field, m)
        said = m("{finding}: {field}: the table recorded {recorded}, the rules give {expected}.")
        hint = message.find("did you mean")  # an input slip's suggestion (H001, H002), in English
        slip = f" ({message[hint:]})" if hint >= 0 and m.language == "en" else ""
        return said.format(finding=title, field=what, recorded=value_words(recorded, field, m) + slip,
                           expected=value_words(expected, field, m))
    if m.language == "en":
        return f"{title} ({message})"
    known = TITLES.get(FindingCode(code))
    return m("{finding}: {title}").format(finding=title, title=m(known)) if known is not None else title


def field_words(field: str | None, m: Messages) -> str:
    """A finding's field in words; a field with no words is shown as named, in English
    only (a French ruling names a card by its place: "la carte 2 du flop")."""
    if field in FIELD_WORDS:
        return m(FIELD_WORDS[field])
    if m.language == "en" or field is None:
        return field or ""
    card = CARD_FIELD.match(field)
    if card is not None:
        return m("card {n} of the {group}").format(n=int(card[2]) + 1, group=group_words(card[1], m))
    return m(FIELD_NAMES[field]) if field in FIELD_NAMES else field


def value_words(value: Any, field: str | None, m: Messages) -> str:
    """A recorded or expected value in words: results (not stakes or balances) with their
    sign, categories and outcomes named, yes/no facts said (never ``True``)."""
    if isinstance(value, bool):
        flags = QUALIFIED_WORDS if field == "recorded.dealer_qualified" else VOID_FLAG_WORDS
        return m(flags[value])
    result = field is not None and field.startswith("recorded.") and field.rsplit(".", 1)[1] in RESULT_FIELDS
    if isinstance(value, int | float | Decimal):
        amount = Decimal(str(value))
        return signed(amount) if result else fmt(amount)
    if value is None:
        return "—"
    if isinstance(value, str) and value in Category.__members__.values():
        return m(CATEGORY_WORDS[Category(value)])
    if isinstance(value, str) and value in VALUE_WORDS:
        return m(VALUE_WORDS[value])
    if isinstance(value, str) and m.language == "fr":  # the record's own words, quoted as written
        return f"« {value} »"
    return str(value)


def step_value(step: Step, side: int, m: Messages) -> str:
    value = step.first if side == 0 else step.second
    if step.role == "category":
        return m(CATEGORY_WORDS[Category.at(value)])
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
