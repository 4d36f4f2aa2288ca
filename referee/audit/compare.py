"""Comparing a round's record with its ruling: one finding per root cause.

Why "root cause": when the deal is void, every recorded payout is wrong as a
consequence; the auditor needs the one finding that says the deal was void
(V001), not five. Likewise a valid deal recorded as void gives V002 alone.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Protocol, assert_never

import msgspec

from ..models import codes
from ..models.codes import FindingCode
from ..models.common import Recorded
from ..rules.cards import Card, CardError, known_card, parse_card, seen_cards
from ..rules.hands import evaluate
from ..rules.money import fmt, signed
from ..rules.payout import Rule, Wager
from ..rules.settlement import Ruling
from .fast import SHARED_LINES

Emit = Callable[[FindingCode, str, str, Any, Any], None]


class Notation(Protocol):
    """How a log spells its cards when it is not format 2's notation: an export read
    through a mapping (``load.exports.normalize.CardReader``). A did-you-mean for a token
    that is no card is searched in the log's own notation and spelt as the log spells."""

    @property
    def alphabet(self) -> str:
        """The characters the notation's cards are written with."""
        ...

    def read(self, token: str) -> Card | None:
        """The card ``token`` spells, or None."""
        ...
_WAGERS = (("ante", codes.P001, "Ante result"), ("call", codes.P002, "Call result"),
           ("bonus", codes.P003, "bonus result"), ("net", codes.P004, "net result"),
           ("returned", codes.P007, "total returned"))


@dataclass(frozen=True, slots=True)
class VoidDetail:
    """Why a deal is void, said for the auditor, and the field (card) it is about."""

    reason: str
    field: str


def compare_record(model: Any, ruling: Ruling, emit: Emit, qualifier: str = "pair of 4s or better",
                   detail: VoidDetail | None = None, noun: str = "round") -> None:
    """A round's or seat's record (``model.recorded``) against its ruling. ``qualifier``:
    the profile's dealer qualifier in words (the K003 message names it); ``noun``, what
    a void deal is said not to count as ("round", "game"). Every check after the
    :func:`agrees` test compares a field of :data:`DECIDED` with the ruling's: a record
    that agrees on all of them has nothing to say (a check of another kind goes before it)."""
    recorded = model.recorded
    if ruling.outcome == "void":
        _compare_void(recorded, ruling, emit, detail, noun)
        return
    if recorded is None or agrees(recorded, ruling):
        return  # the one comparison a clean record costs: words are made only for a field that differs
    if recorded.void or recorded.outcome == "void":
        field = "recorded.void" if recorded.void else "recorded.outcome"
        emit(codes.V002, "the deal is correct but recorded as void", field, False, True)
        return
    _compare_hands(recorded, ruling, emit, qualifier)
    _compare_money(recorded, ruling, emit)


#: The recorded fields a valid deal's ruling decides, in :func:`truth`'s order (the
#: balance is the chain's to judge; ``void_reason`` is the table's own words).
DECIDED = ("void", "outcome", "player_hand", "dealer_hand", "dealer_qualified", "ante", "call", "bonus", "net",
           "returned")


def truth(ruling: Ruling) -> tuple[object, ...]:
    """What each of :data:`DECIDED` says of a valid deal, by its ruling: the one tuple a
    record is compared with, here and on the fast lane (``clean.make_entry``). Worked
    out once per memoised settlement: its lines (``fast.SHARED_LINES``, which keeps them
    alive: an id there is never another tuple's) are one key's, and the key holds
    everything the tuple says (the outcome, both categories, the qualification)."""
    lines = ruling.lines
    key = id(lines)
    known = _TRUTHS.get(key)
    if known is not None and SHARED_LINES.get(key) is lines:
        return known
    player, dealer = ruling.player_hand, ruling.dealer_hand
    said = (False, ruling.outcome, player.category if player else None, dealer.category if dealer else None,
            ruling.dealer_qualified, ruling.ante, ruling.call, ruling.bonus, ruling.net, ruling.returned)
    if SHARED_LINES.get(key) is lines:
        _TRUTHS[key] = said
    return said


_TRUTHS: dict[int, tuple[object, ...]] = {}


#: Where the :data:`DECIDED` fields are in a ``Recorded`` (all but ``void_reason`` and
#: ``balance``), to read them as one tuple.
_AT = tuple(Recorded.__struct_fields__.index(name) for name in DECIDED)
assert (0, *range(2, 11)) == _AT
_astuple = msgspec.structs.astuple


def agrees(recorded: Recorded, ruling: Ruling) -> bool:
    """Whether every decided field the record gives equals the ruling's (a field not
    recorded agrees: :func:`fields_agree`): then :func:`compare_record` finds nothing,
    and says nothing. A record that gives every field is compared as one tuple; one
    that leaves the same fields of the same settlement out is remembered as agreeing."""
    values = _astuple(recorded)
    given = (values[0], *values[2:11])
    expected = truth(ruling)
    if given == expected:
        return True
    lines = ruling.lines
    key = (id(lines), given)  # a record that leaves out the same fields of the same settlement, agreeing again
    if key in _AGREED and SHARED_LINES.get(key[0]) is lines:
        return True
    if not fields_agree(given, expected):
        return False
    if len(_AGREED) < _KEPT and SHARED_LINES.get(key[0]) is lines:
        _AGREED.add(key)
    return True


def fields_agree(given: tuple[object, ...], expected: tuple[object, ...], absent: object = None) -> bool:
    """The test of every finding a valid deal's record can have against its ruling (V002,
    P001-P004, P006, P007, K001-K003): each field of :data:`DECIDED` the record gives
    (``absent``: how a field not given reads) equals the ruling's :func:`truth`. The full
    audit (:func:`agrees`) and the fast lane (``clean.make_entry``, on a record's struct,
    ``absent`` UNSET) both ask it; a field that differs is worded by the comparisons
    below, which may still accept it (a fold's five-card hand)."""
    return given == expected or all(value is absent or value == want
                                    for value, want in zip(given, expected, strict=True))


#: The decided fields of records that agree with a memoised settlement while leaving
#: some out (by the settlement's lines, as :data:`_TRUTHS`): at most ``_KEPT``.
_AGREED: set[tuple[int, tuple[object, ...]]] = set()
_KEPT = 20_000


def check_cancelled(recorded: Recorded | None, emit: Emit) -> None:
    """G003: a cancelled game refunds every stake; a seat recorded as settled is wrong."""
    if recorded is None:
        return
    paid = [name for name in ("ante", "call", "bonus", "net") if getattr(recorded, name)]
    if recorded_as_paid(recorded):
        said = recorded.outcome or f"{paid[0]} {fmt(getattr(recorded, paid[0]))}"
        emit(codes.G003, f"the game was cancelled but the seat is recorded as settled ({said}): every stake is "
             "refunded", "recorded", "cancelled", "settled")


def settled_as_valid(recorded: Recorded | None) -> bool:
    """Whether the record says the round was settled as a valid deal (not void, an
    outcome other than void, or an amount won or lost): for a void deal, V001."""
    return recorded is not None and (recorded.void is False or recorded_as_paid(recorded))


def recorded_as_paid(recorded: Recorded | None) -> bool:
    """Whether the record gives an outcome other than void or an amount won or lost: a
    void deal settled (V001, with ``void: false`` too) or a cancelled game paid (G003)."""
    return recorded is not None and (
        (recorded.outcome is not None and recorded.outcome != "void")
        or any(getattr(recorded, name) for name in ("ante", "call", "bonus", "net")))


def _compare_void(recorded: Recorded | None, ruling: Ruling, emit: Emit, detail: VoidDetail | None,
                  noun: str) -> None:
    reason = detail.reason if detail else ruling.void_reason or "malformed deal"
    if settled_as_valid(recorded):
        if detail is not None:
            emit(codes.V001, f"{reason}; recorded as valid: all stakes are returned", detail.field, "void", "settled")
            return
        field = "recorded.void" if recorded is not None and recorded.void is not None else "recorded"
        emit(codes.V001, f"void deal ({reason}) recorded as valid: all stakes are returned (§07)",
             field, "void", "settled")
        return
    if detail is not None:
        emit(codes.V003, f"{reason}; stakes returned, {noun} not counted", detail.field, None, None)
    else:
        emit(codes.V003, f"void deal: {reason}; stakes returned, {noun} not counted (§07)", "round", None, None)
    if recorded is not None:
        _compare_money(recorded, ruling, emit)


def void_detail(model: Any, ruling: Ruling, notation: Notation | None = None) -> VoidDetail | None:
    """For a token that is not a card: its own field, §07, and the card one obvious
    edit would give (a transcription slip), when there is exactly one, spelt in the
    log's ``notation`` (format 2's when None). For a card dealt twice: the field of its
    second occurrence."""
    if ruling.void is None or ruling.void.kind not in ("bad_card", "duplicate_card"):
        return None
    groups: list[tuple[str, list[str]]] = [("player", list(model.player)), ("flop", list(model.flop))]
    for name in ("turn", "river"):
        token = getattr(model, name)
        if token is not None:
            groups.append((name, [token]))
    if model.dealer is not None:
        groups.append(("dealer", list(model.dealer)))
    if ruling.void.kind == "duplicate_card":
        return _second_occurrence(groups, ruling.void.reason)
    dealt: set[Card] = set()
    bad: tuple[str, int, str] | None = None
    for name, tokens in groups:
        for i, token in enumerate(tokens):
            try:
                card = parse_card(token)
            except CardError:
                if bad is None:
                    bad = (name, i, token)
                continue
            if card is not None:
                dealt.add(card)
    if bad is None:  # pragma: no cover - a bad_card void always has a bad token
        return None
    name, index, token = bad
    field = name if name in ("turn", "river") else f"{name}[{index}]"
    where = name if name in ("turn", "river") else f"{name} card {index + 1}"
    fix = one_edit_card(token, dealt, notation)
    slip = f"a transcription slip for {fix}?" if fix is not None else "perhaps a transcription slip"
    return VoidDetail(f"{where} {token!r} is not one of the 52 cards ({slip}): the deal is void under §07", field)


def _second_occurrence(groups: list[tuple[str, list[str]]], reason: str) -> VoidDetail | None:
    seen: set[Card] = set()
    for name, tokens in groups:
        for i, card in seen_cards(tokens):
            if card in seen:
                field = name if name in ("turn", "river") else f"{name}[{i}]"
                return VoidDetail(f"{reason}: the deal is void under §07", field)
            seen.add(card)
    return None  # pragma: no cover - a duplicate_card void always has a second occurrence


_ALPHABET = "23456789TJQKAcdhs♣♦♥♠01"


def one_edit_card(token: str, dealt: set[Card], notation: Notation | None = None) -> str | None:
    """The one card (not already dealt) that a single edit of ``token`` spells (a
    character deleted, replaced, inserted, or two swapped), as the suggestion writes it;
    None when zero or several. In format 2 it is the card's own spelling (``Ah``); in an
    export's ``notation`` it is the edited token, so it is spelt as the export spells
    (``AHH`` -> ``AH``), the first in order when two edits spell the card."""
    alphabet = _ALPHABET if notation is None else notation.alphabet + token
    edits = {token[:i] + token[i + 1:] for i in range(len(token))}
    edits |= {token[:i] + c + token[i + 1:] for i in range(len(token)) for c in alphabet}
    edits |= {token[:i] + c + token[i:] for i in range(len(token) + 1) for c in alphabet}
    edits |= {token[:i] + token[i + 1] + token[i] + token[i + 2:] for i in range(len(token) - 1)}
    read = known_card if notation is None else notation.read
    found: dict[Card, list[str]] = {}
    for edit in edits:
        card = read(edit)
        if card is not None and card not in dealt:
            found.setdefault(card, []).append(edit)
    if len(found) != 1:
        return None
    [(card, spelt)] = found.items()
    return str(card) if notation is None else min(spelt)


def _compare_hands(recorded: Recorded, ruling: Ruling, emit: Emit, qualifier: str) -> None:
    if recorded.outcome is not None and recorded.outcome != ruling.outcome:
        emit(codes.P006, f"outcome recorded {recorded.outcome}, the rules give {ruling.outcome}",
             "recorded.outcome", ruling.outcome, recorded.outcome)
    hands = (("player_hand", codes.K001, ruling.player_hand), ("dealer_hand", codes.K002, ruling.dealer_hand))
    for name, code, hand in hands:
        value = getattr(recorded, name)
        if value is None or hand is None:
            continue
        if value != hand.category and not (name == "player_hand" and value == _hand_at_fold(ruling)):
            who = name.split("_")[0]
            emit(code, f"{who} hand recorded {value}, the rules give {hand.category} ({hand.description})",
                 f"recorded.{name}", hand.category, value)
    if (recorded.dealer_qualified is not None and ruling.dealer_qualified is not None
            and recorded.dealer_qualified != ruling.dealer_qualified):
        said = "qualified" if recorded.dealer_qualified else "not qualified"
        truth = "qualifies" if ruling.dealer_qualified else "does not qualify"
        why = ruling.dealer_hand.description if ruling.dealer_hand else ""
        emit(codes.K003, f"dealer recorded {said}, but with {why} the dealer {truth} ({qualifier}, §05)",
             "recorded.dealer_qualified", ruling.dealer_qualified, recorded.dealer_qualified)


def _hand_at_fold(ruling: Ruling) -> str | None:
    """A fold that records turn and river: the hand the player folded (two cards and
    the flop) is as right a ``player_hand`` as the seven-card one (docs/ledger.md)."""
    if ruling.outcome != "fold" or ruling.cards.turn is None:
        return None
    cards = [c for c in (*ruling.cards.player, *ruling.cards.flop) if c is not None]
    return evaluate(cards).category if len(cards) == 5 else None


def _compare_money(recorded: Recorded, ruling: Ruling, emit: Emit) -> None:
    for name, code, label in _WAGERS:
        value: Decimal | None = getattr(recorded, name)
        if value is None:
            continue
        truth: Decimal = getattr(ruling, name)
        if value != truth:
            emit(code, f"{label} recorded {signed(value)}, the rules give {signed(truth)} "
                 f"({_rule_words(ruling, name)})", f"recorded.{name}", truth, value)


def _rule_words(ruling: Ruling, name: str) -> str:
    if name in ("net", "returned"):
        return f"outcome {ruling.outcome}"
    line = ruling.line(Wager(name))
    return rule_words(line.rule) if line is not None else "no stake"


def rule_words(rule: Rule) -> str:
    """The rule in the few words of a ``check`` finding; mypy checks that every rule has some."""
    match rule:
        case Rule.ANTE_PAYTABLE:
            return "Ante paytable"
        case Rule.EVEN_MONEY:
            return "even money"
        case Rule.CALL_ODDS:
            return "Call odds"
        case Rule.CALL_RETURNED | Rule.CALL_RETURNED_ON_WIN:
            return "returned"
        case Rule.PUSH:
            return "push"
        case Rule.DEALER_WINS | Rule.BONUS_MISSED:
            return "lost"
        case Rule.FOLDED:
            return "fold loses the Ante"
        case Rule.FORFEITED:
            return "fold forfeits the bonus"
        case Rule.BONUS_PAYTABLE:
            return "bonus paytable"
        case Rule.NOT_OFFERED:
            return "no bonus in this profile: returned"
        case Rule.VOID:
            return "void: returned"
        case Rule.CANCELLED:
            return "cancelled: refunded"
        case _:
            assert_never(rule)
