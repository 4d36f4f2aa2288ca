"""The fast lane: a JSON Lines round proven clean is audited without building a model,
a ruling or a result, from the same session state as the full audit.

Why: on a clean log nearly every round is plain, and its whole audit is a handful of
comparisons against a settlement already made for another round with the same facts.
The lane takes a round only when it can prove that the full audit
(:meth:`referee.audit.checker.SessionAudit.audit_round`) would give it no finding and
move the session's state in one known way; anything else goes to the full audit,
unchanged, so the report cannot tell which path a round took.

A round is proven clean when:

* the reader decoded it with msgspec (``referee.load.plain``: exact amounts, every key
  once) and every string in it is a card spelling or a known word;
* its number is one the numbering accepts next, no number is held, the previous round
  was not a deal the table voided;
* its nine cards are known and distinct (:func:`~referee.rules.hands.evaluate_known`);
* its :class:`LaneEntry`, keyed on everything its settlement and its record's checks
  depend on (decision, stakes as written, both categories, qualification, the
  comparison of the hands, the bonus hand, and every recorded field but the balance),
  is clean: the stake checks find nothing and every recorded field equals the ruling's
  (the strict reading of :func:`~referee.audit.compare.compare_record`);
* its recorded balance follows from the single anchor of the balance chain (by the
  nets the table recorded or by the rules, which are equal here), and the funds check
  and the fixed-stake check pass against the session's state.

The entry is made once from the real :func:`~referee.rules.settlement.settle` and the
real checks. ``REFEREE_FAST=verify`` runs the full audit on every round the lane takes
and raises if the two differ in anything: result, findings, or state.
"""

from __future__ import annotations

from copy import deepcopy
from decimal import Decimal
from operator import itemgetter
from types import SimpleNamespace
from typing import Any, Literal

from msgspec.structs import astuple

from ..load.plain import UNSET, FastRecorded, FastRound
from ..load.records import PlainRound
from ..models.codes import FindingCode
from ..models.common import MAX_AMOUNT, MAX_ROUND
from ..models.rounds import Round
from ..rules.cards import SPELLINGS
from ..rules.hands import HandValue, evaluate, evaluate_known
from ..rules.profile import Profile
from ..rules.settlement import Cards, Deal, Line, Ruling, settle
from .fast import MEMO_LIMIT, FastPathMismatch, memo_for, plain_amount, plain_round
from .ledger import Anchor, BalanceState, advance, reanchor
from .results import RoundResult
from .session_header import check_stake_units

ZERO = Decimal(0)
_MISSING: Any = object()
_new = tuple.__new__
MAX_INT = int(MAX_AMOUNT)


class LaneEntry:
    """One settlement and what every clean round with its key shares: the ruling's
    lines and sums, the amounts the checks need, and per-reporter views (a reporter
    may keep there what it writes of this settlement, once)."""

    __slots__ = (
        "ante",
        "bonus",
        "call_stake",
        "clean",
        "dealer_category",
        "decision",
        "lines",
        "needed",
        "net",
        "outcome",
        "player_category",
        "qualified",
        "returned",
        "ruling",
        "staked",
        "views",
    )

    def __init__(self, ruling: Ruling, clean: bool, ante: Decimal, bonus: Decimal, decision: str) -> None:
        self.ruling = ruling
        self.clean = clean
        self.lines: tuple[Line, ...] = ruling.lines
        self.outcome = ruling.outcome
        self.net = ruling.net
        self.staked = ruling.staked
        self.returned = ruling.returned
        self.call_stake = ruling.call_stake
        self.ante = ante
        self.bonus = bonus
        self.decision = decision
        self.needed = ante + bonus + ruling.call_stake
        self.player_category = ruling.player_hand.category if ruling.player_hand else None
        self.dealer_category = ruling.dealer_hand.category if ruling.dealer_hand else None
        self.qualified = ruling.dealer_qualified
        self.views: dict[str, Any] = {}


class CleanRound(tuple[Any, ...]):
    """A round the lane audited: what a reporter needs of it, and the way back to the
    full :class:`~referee.audit.results.RoundResult` (:meth:`result`) for readers that
    want one. A tuple (made in a fifth of a slotted object's time: one a round), read
    by name."""

    __slots__ = ()

    number: int = property(itemgetter(0))  # type: ignore[assignment]
    line: int = property(itemgetter(1))  # type: ignore[assignment]
    entry: LaneEntry = property(itemgetter(2))  # type: ignore[assignment]
    balance: Decimal = property(itemgetter(3))  # type: ignore[assignment]
    recorded_balance: Decimal | None = property(itemgetter(4))  # type: ignore[assignment]
    fast: FastRound = property(itemgetter(5))  # type: ignore[assignment]
    player: HandValue = property(itemgetter(6))  # type: ignore[assignment]
    dealer: HandValue = property(itemgetter(7))  # type: ignore[assignment]
    bonus_hand: HandValue | None = property(itemgetter(8))  # type: ignore[assignment]
    file: str = property(itemgetter(9))  # type: ignore[assignment]
    session: str = property(itemgetter(10))  # type: ignore[assignment]

    @property
    def recorded_net(self) -> Decimal | None:
        recorded = self.fast.recorded
        net = UNSET if recorded is UNSET else recorded.net
        return None if net is UNSET else Decimal(net)

    def result(self) -> RoundResult:
        """The result the full audit gives this round, field for field."""
        record = plain_round(as_dict(self.fast))
        assert record is not None
        card = SPELLINGS.__getitem__
        f = self.fast
        cards = Cards(tuple(map(card, f.player)), tuple(map(card, f.flop)), card(f.turn), card(f.river),  # type: ignore[arg-type]
                      tuple(map(card, f.dealer)))  # type: ignore[arg-type]
        e = self.entry
        ruling = Ruling(e.outcome, cards, e.lines, None, self.player, self.dealer, self.bonus_hand, e.qualified)
        return RoundResult(self.number, self.file, self.line, self.session, record, ruling, [], self.balance,
                           self.recorded_balance)


class CleanRounds(list[CleanRound]):
    """Consecutive rounds the fast lane audited clean, in file order (one event for many)."""


def as_dict(fast: FastRound | FastRecorded) -> dict[str, Any]:
    """The struct as the reader's mapping would hold it (absent keys left out)."""
    out: dict[str, Any] = {}
    for name, value in zip(fast.__struct_fields__, astuple(fast), strict=True):
        if value is UNSET:
            continue
        out[name] = as_dict(value) if isinstance(value, FastRecorded) else value
    return out


class LaneMemo:
    """Lane entries by key, for one profile (bounded like the settlement memo)."""

    __slots__ = ("entries", "floor", "profile")

    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        self.floor = profile.dealer_qualifier.floor()  # the dealer qualifies from this hand value up
        self.entries: dict[tuple[Any, ...], LaneEntry | None] = {}

    def entry(self, key: tuple[Any, ...], fast: FastRound) -> LaneEntry | None:
        """The entry of ``key``, made from this round when new; None when the round's
        stakes or words are not plain (kept too: the full audit takes them)."""
        found: LaneEntry | None = self.entries.get(key, _MISSING)
        if found is _MISSING:
            found = _make_entry(self.profile, fast)
            if len(self.entries) < MEMO_LIMIT:
                self.entries[key] = found
        return found


def lane_memo_for(profile: Profile, origin: object, sha256: str) -> LaneMemo:
    """One lane memo per profile, shared by its sessions (:func:`~referee.audit.fast.memo_for`)."""
    return memo_for(profile, origin, sha256, LaneMemo)


def _make_entry(profile: Profile, fast: FastRound) -> LaneEntry | None:
    """Settle this round for real and decide, once for every round of its key, whether
    the stake checks and the comparison with the record are silent."""
    model = plain_round(as_dict(fast))
    if model is None:
        return None
    ruling = settle(profile, Deal(model.ante, model.player, model.flop, model.decision, model.turn, model.river,
                                  model.dealer, model.bonus))
    if ruling.outcome == "void":  # pragma: no cover - nine known distinct cards never void
        return None
    return LaneEntry(ruling, _checks_silent(profile, model, ruling) and _record_agrees(fast.recorded, ruling),
                     model.ante, model.bonus, model.decision)


def _checks_silent(profile: Profile, model: Round, ruling: Ruling) -> bool:
    """The stake checks that depend on the stakes alone (S008, S001, S006) find nothing."""
    found: list[FindingCode] = []
    check_stake_units(model.ante, model.bonus, model.call, profile.stake_increment,
                      lambda code, *_: found.append(code))
    if model.call is not None and model.call != ruling.call_stake:
        return False
    if model.bonus and profile.bonus is None:
        return False
    return not found


def _record_agrees(recorded: FastRecorded | Any, ruling: Ruling) -> bool:
    """Every recorded field but the balance equals the ruling's, strictly (a fold's
    five-card ``player_hand`` is left to the full audit: it depends on the flop)."""
    if recorded is UNSET:
        return True
    truth: dict[str, Any] = {
        "void": False, "outcome": ruling.outcome, "dealer_qualified": ruling.dealer_qualified,
        "player_hand": ruling.player_hand.category if ruling.player_hand else None,
        "dealer_hand": ruling.dealer_hand.category if ruling.dealer_hand else None,
        "ante": ruling.ante, "call": ruling.call, "bonus": ruling.bonus, "net": ruling.net,
        "returned": ruling.returned,
    }
    for name in FastRecorded.__struct_fields__[:-1]:
        value = getattr(recorded, name)
        if value is UNSET:
            continue
        expected = truth[name]
        if type(value) is str:  # a word: equal to the ruling's, it is one the models accept
            if value != expected:
                return False
        elif type(value) is bool:
            if value is not expected:
                return False
        elif plain_amount(value, -MAX_AMOUNT) is None or value != expected:
            return False
    return True


def decide(session: Any, record: PlainRound) -> CleanRound | None:
    """The round's audit if the lane can prove it clean, else None. Pure: the session's
    state is not touched (:func:`commit` does that)."""
    fast: FastRound = record.fast
    n = fast.round
    numbering = session.numbering
    if (session.held is not None or session.table_voided_number is not None or session.late_replay is not None
            or n not in numbering.accept
            or n > MAX_ROUND):
        return None
    dealer, turn, river = fast.dealer, fast.turn, fast.river
    if dealer is UNSET or turn is UNSET or river is UNSET:
        return None
    flop = fast.flop
    if len(flop) != 3:
        return None
    hands = evaluate_known(fast.player, dealer, (flop[0], flop[1], flop[2], turn, river))
    if hands is None:
        return None
    player, dealer_hand = hands
    memo: LaneMemo = session.lane
    profile = memo.profile
    pv, dv = player.value, dealer_hand.value
    bonus = fast.bonus
    bonus_key: tuple[Any, ...] = ()
    bonus_hand = None
    if bonus is not UNSET and bonus and profile.bonus is not None:
        bonus_hand = evaluate((fast.player[0], fast.player[1], flop[0], flop[1], flop[2]))
        bonus_key = (bonus_hand.category, profile.bonus.minimum.passes(bonus_hand.value))
    stakes = (fast.ante, fast.call, bonus)
    if Decimal in map(type, stakes):  # stakes as written: a ruling keeps them so
        stakes = tuple(s if type(s) is int else str(s) for s in stakes)  # type: ignore[assignment]
    recorded = fast.recorded
    recorded_key = None if recorded is UNSET else astuple(recorded)[:-1]
    key = (fast.decision, stakes, player.category, dealer_hand.category, dv >= memo.floor,
           1 if pv > dv else 0 if pv == dv else -1, bonus_key, recorded_key)
    entry: LaneEntry | None = memo.entries.get(key, _MISSING)
    if entry is _MISSING:
        entry = memo.entry(key, fast)
    if entry is None or not entry.clean:
        return None
    recorded_balance = None
    if recorded is not UNSET:
        raw_balance = recorded.balance
        if raw_balance is not UNSET:
            if type(raw_balance) is int:
                if not -MAX_INT <= raw_balance <= MAX_INT:
                    return None
            elif plain_amount(raw_balance, -MAX_AMOUNT) is None:
                return None
            recorded_balance = Decimal(raw_balance)
        if Decimal in map(type, recorded_key) and not _recorded_amounts_ok(recorded_key):  # type: ignore[arg-type]
            return None
    net = entry.net
    before = session.balance
    lane_anchor = session.lane_anchor
    if lane_anchor is not None:  # the usual case: the last round's recorded balance, nothing since
        anchor: tuple[Decimal, Decimal, Decimal] | None = (lane_anchor[0], ZERO, ZERO)
        if recorded_balance is not None and lane_anchor[0] + net != recorded_balance:
            return None
    else:
        found = _anchor(session.chain_state.anchors)
        if found is False:
            return None
        anchor = found
        if recorded_balance is not None and anchor is not None:
            a_balance, table_since, ruled_since = anchor
            if a_balance + table_since + net != recorded_balance and a_balance + ruled_since + net != recorded_balance:
                return None
    if session.lane_funds and entry.decision == "call":  # S007's test (checker ``_check_funds``)
        table = None if anchor is None else anchor[0] + anchor[1]
        if (before if table is None else max(before, table)) < entry.needed:
            return None
    if session.lane_fixed and session.stake is not None and entry.ante != session.stake:
        return None
    return _new(CleanRound, (n, record.line, entry, before + net, recorded_balance, fast, player, dealer_hand,
                             bonus_hand, record.source, session.id))


def _recorded_amounts_ok(values: tuple[Any, ...]) -> bool:
    """A recorded Decimal is checked on every round (``-0`` and ``0`` share a key)."""
    return all(type(value) is not Decimal or plain_amount(value, -MAX_AMOUNT) is not None for value in values)


def _anchor(anchors: tuple[Anchor, ...]) -> tuple[Decimal, Decimal, Decimal] | Literal[False] | None:
    """The chain's single anchor (balance, table nets since, ruled nets since); None
    when nothing anchors it yet; False when it has several anchors or a lost chain
    (after a break: the full audit judges that)."""
    if not anchors:
        return None
    if len(anchors) != 1:
        return False
    a = anchors[0]
    if a.table is None or a.ruled is None:
        return False
    return a.balance, a.table, a.ruled


def commit(session: Any, clean: CleanRound, record: PlainRound) -> None:
    """Move the session's state as the full audit would for this clean round."""
    n = clean.number
    numbering = session.numbering
    numbering.accept = (n + 1,)
    numbering.used.add(n)
    numbering.replay = None
    session.last_plain = record  # the next full audit reads it for its copy check
    session.last_result = clean
    entry = clean.entry
    if session.lane_fixed:
        antes = session.antes
        antes[entry.ante] = antes.get(entry.ante, 0) + 1
        session.stake = session.last_ante = entry.ante
    session.balance = clean.balance
    recorded = clean.fast.recorded
    if clean.recorded_balance is not None:
        session.lane_anchor = (clean.recorded_balance, n)
    else:  # the table's net as it wrote it (equal to the ruled one, perhaps spelled 3.0)
        table_net = entry.net if recorded is UNSET or recorded.net is UNSET else Decimal(recorded.net)
        session.chain = advance(session.chain, table_net, entry.net)
    ledger = session.ledger
    outcomes = ledger.outcomes
    outcome = entry.outcome
    outcomes[outcome] = outcomes.get(outcome, 0) + 1
    ledger.counted_rounds += 1
    ledger.staked += entry.staked
    ledger.returned += entry.returned
    ledger.net += entry.net
    ledger.closing_balance = clean.balance
    if recorded is not UNSET:
        ledger.add_recorded(None if recorded.net is UNSET else recorded.net, clean.recorded_balance)


def snapshot(session: Any) -> Any:
    """The state :func:`commit` moves, copied (``REFEREE_FAST=verify`` only)."""
    return SimpleNamespace(
        numbering=deepcopy(session.numbering), balance=session.balance, chain=session.chain,
        lane_anchor=None, ledger=deepcopy(session.ledger), stake=session.stake, antes=dict(session.antes),
        last_ante=session.last_ante,
        lane_fixed=session.lane_fixed, last_plain=None, last_result=None)


def _numbers(numbering: Any) -> tuple[Any, ...]:
    """The numbering's state as values (a copied set may iterate in another order)."""
    return numbering.accept, numbering.replay, sorted(numbering.used)


def verify(session: Any, clean: CleanRound, results: list[RoundResult], before: Any, record: PlainRound) -> None:
    """Under ``REFEREE_FAST=verify``: the full audit of a round the lane would have
    taken must give what the lane gives (one result, no finding) and leave the session
    where :func:`commit` would have."""
    where = f"line {clean.line}"
    if len(results) != 1:
        raise FastPathMismatch(f"{where}: the lane took a round the full audit holds or releases with others")
    full, mine = results[0], clean.result()
    fields = ("number", "file", "line", "session", "record", "ruling", "findings", "balance", "recorded_balance",
              "repeated", "table_void")
    for name in fields:
        a, b = getattr(mine, name), getattr(full, name)
        if a != b or repr(a) != repr(b):
            raise FastPathMismatch(f"{where}: {name}: lane {a!r}, full audit {b!r}")
    commit(before, clean, record)
    if before.lane_anchor is not None:
        before.chain = reanchor(BalanceState(), before.lane_anchor[0], False, before.lane_anchor[1])
    state = (_numbers(session.numbering), session.balance, session.chain, session.ledger, session.stake,
             session.antes, session.last_ante)
    expected = (_numbers(before.numbering), before.balance, before.chain, before.ledger, before.stake, before.antes,
                before.last_ante)
    for name, a, b in zip(("numbering", "balance", "chain", "ledger", "stake", "antes", "last_ante"), expected, state,
                          strict=True):
        if a != b or repr(a) != repr(b):
            raise FastPathMismatch(f"{where}: state {name}: lane {a!r}, full audit {b!r}")
