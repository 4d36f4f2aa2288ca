"""The words a ruling is made of, each on its own: a card, a hand, a threshold, an amount,
the bottom line, what the table recorded, a finding, a field, a value, a tie-break's steps.

Each is a catalogue message (``referee/locale``) or a small function of one fact and the
reader's :class:`~referee.i18n.Messages`, knowing nothing of a whole ruling. The JSON
ruling and ``referee hand`` (``report/ruling_json.py``), the HTML report
(``report/pages.py``, ``report/html.py``) and recall (``report/recall.py``) say these
words too, so they live apart from :class:`~referee.report.ruling.RulingText`, which
puts them in order for one round (``report/ruling.py``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from ..audit.owed import BottomLine
from ..i18n import N_, Messages
from ..models.codes import CODES
from ..models.common import Recorded
from ..rules.cards import RANK_NAMES, RANK_PLURALS, RANKS, SUIT_SYMBOLS, Card, CardError, parse_card, rank_char
from ..rules.category import Category
from ..rules.hands import HandValue, describe
from ..rules.money import fmt, signed
from ..rules.payout import Wager
from ..rules.profile import HandThreshold
from ..rules.settlement import Line
from ..rules.tiebreak import Step, TieBreak
from .void_words import group_words

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
#: A state as a finding's recorded or expected value (catalogue context ``finding``):
#: a noun phrase where the language needs one, so that "the table recorded {recorded},
#: the rules give {expected}" is a sentence whatever the state (French "la table a
#: enregistré un règlement, les règles donnent une partie révoquée", not "enregistré
#: réglée"). English says the state's word, as before.
STATE_CONTEXT = "finding"
STATE_WORDS = {"settled": N_("settled"), "cancelled": N_("cancelled"), "void": N_("void"),
               "not void": N_("not void"), "qualified": N_("qualified"), "not qualified": N_("not qualified")}
#: A cancelled game's seat recorded ``void`` (the record's word for a seat nothing
#: settled): said with the cancelled game's own word (catalogue context ``cancelled``;
#: French "révoquée", the one word for a cancelled game, never "annulée": a void deal's).
CANCELLED_CONTEXT = "cancelled"
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


def paid_words(bottom: BottomLine, m: Messages) -> str:
    """What the table paid: one amount where the record and the wallet agree (or only one
    says), else both, each labelled, the wallet's first (the money that moved, what is
    owed is reckoned from): "+1 EUR by the wallet (recorded +2 EUR)"."""
    cur = bottom.currency
    if bottom.paid is None:
        return ""
    if bottom.wallet is None or bottom.recorded is None or bottom.wallet == bottom.recorded:
        return money_words(signed(bottom.paid), cur)
    return m("{wallet} by the wallet (recorded {recorded})").format(
        wallet=money_words(signed(bottom.wallet), cur), recorded=money_words(signed(bottom.recorded), cur))


def bottom_words(bottom: BottomLine, m: Messages) -> str:
    """The bottom line in words: what the table paid, what the rules give and who is owed
    what; then, when the recorded balance does not follow, which balance the rules give
    and whom the difference favours. Every reader (explain, recall, the report) says
    this same text (the reasoning: docs/ledger.md, "Who is owed"). Every amount carries
    the session's currency when it has one."""
    cur = bottom.currency
    words = {"rules": money_words(signed(bottom.rules), cur), "table": paid_words(bottom, m),
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


RESULT_FIELDS = ("ante", "call", "bonus", "net")
#: A record's amounts as ``recorded_words`` says them, in order: wagers' results and the
#: net signed, the total returned and the balance as they are.
RECORDED_AMOUNTS = {"ante": N_("Ante {amount}"), "call": N_("Call {amount}"), "bonus": N_("bonus {amount}"),
                    "net": N_("net {amount}"), "returned": N_("returned {amount}"),
                    "balance": N_("balance {amount}")}


def recorded_words(recorded: Recorded | None, m: Messages, cancelled: bool = False) -> str:
    """What the table recorded for a round or seat, in one sentence: its outcome and its
    amounts ("The table recorded the seat as a win: net +3, balance 107."); at a
    ``cancelled`` game, a seat recorded void in the cancelled game's word."""
    outcome = None if recorded is None else recorded.outcome or ("void" if recorded.void else None)
    amounts = ", ".join(
        m(words).format(amount=signed(value) if name in RESULT_FIELDS else fmt(value))
        for name, words in RECORDED_AMOUNTS.items()
        if recorded is not None and (value := getattr(recorded, name)) is not None)
    if outcome is not None:
        said = m("The table recorded the seat as {outcome}: {amounts}." if amounts
                 else "The table recorded the seat as {outcome}.")
        word = (m.catalogue.pgettext(CANCELLED_CONTEXT, outcome) if cancelled and outcome == "void"
                else value_words(outcome, "recorded.outcome", m))
        return said.format(outcome=word, amounts=amounts)
    if amounts:
        return m("The table recorded for the seat: {amounts}.").format(amounts=amounts)
    return m("The table recorded no result for the seat.")


def result_words(line: Line, m: Messages) -> str:
    if line.result > 0:
        return m("wins {amount}").format(amount=fmt(line.result))
    if line.result < 0:
        return m("loses {amount}").format(amount=fmt(-line.result))
    return m("returned")


def finding_words(code: str, field: str | None, recorded: Any, expected: Any, message: str, m: Messages,
                  player: bool = False) -> str:
    """One finding, once: its code and, where the record and the rules disagree on a
    value, the two values in words; else (in English) the finding's message. For the
    ``player`` (``explain --for player``): no code, no slug, no record path, the same
    words in every language (the values in words, else the finding's title)."""
    title = f"{code} {CODES[code].name}" if code in CODES else code
    if recorded is not None or expected is not None:
        what = field_words(field, m, player)
        values = {"field": what, "recorded": value_words(recorded, field, m, stated=True),
                  "expected": value_words(expected, field, m, stated=True)}
        if player:
            return capital(m("{field}: the table recorded {recorded}, the rules give {expected}.").format(**values))
        said = m("{finding}: {field}: the table recorded {recorded}, the rules give {expected}.")
        hint = message.find("did you mean")  # an input slip's suggestion (H001, H002), in English
        slip = f" ({message[hint:]})" if hint >= 0 and m.language == "en" else ""
        return said.format(**{**values, "recorded": values["recorded"] + slip}, finding=title)
    known = CODES[code].title if code in CODES else None
    if player:
        return capital(m(known)) + "." if known is not None else m("The record differs from the rules.")
    if m.language == "en":
        return f"{title} ({message})"
    return m("{finding}: {title}").format(finding=title, title=m(known)) if known is not None else title


def capital(text: str) -> str:
    """A sentence's first letter in capitals (``le résultat`` → ``Le résultat``)."""
    return text[:1].upper() + text[1:]


def field_words(field: str | None, m: Messages, player: bool = False) -> str:
    """A finding's field in words; a field with no words is shown as named, in English
    only (a French ruling, and the player's in any language, name a card by its place:
    "la carte 2 du flop", "card 1 of the dealer")."""
    if field in FIELD_WORDS:
        return m(FIELD_WORDS[field])
    if (m.language == "en" and not player) or field is None:
        return field or ""
    card = CARD_FIELD.match(field)
    if card is not None:
        return m("card {n} of the {group}").format(n=int(card[2]) + 1, group=group_words(card[1], m))
    return m(FIELD_NAMES[field]) if field in FIELD_NAMES else field


def value_words(value: Any, field: str | None, m: Messages, stated: bool = False) -> str:
    """A recorded or expected value in words: results (not stakes or balances) with their
    sign, categories and outcomes named, yes/no facts said (never ``True``); ``stated``:
    a finding's value, a state said as :data:`STATE_WORDS` says it."""
    if isinstance(value, bool):
        flags = QUALIFIED_WORDS if field == "recorded.dealer_qualified" else VOID_FLAG_WORDS
        if stated:
            return m.catalogue.pgettext(STATE_CONTEXT, flags[value])
        return m(flags[value])
    if stated and isinstance(value, str) and value in STATE_WORDS:
        return m.catalogue.pgettext(STATE_CONTEXT, STATE_WORDS[value])
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
    lines: list[str] = []
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
