"""Auditing: each round re-ruled and compared with what the table recorded.

The checker consumes raw records (from ``referee.load``) and yields events for the
reporters, in file order: a :class:`SessionInfo` when a session opens, a
:class:`RoundResult` per round, a :class:`SessionResult` when it closes, a
:class:`Finding` for a problem outside any session, and an :class:`InputInfo` when a
file is done. Nothing is held but the current session's running state.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from pydantic import TypeAdapter, ValidationError

from ..load.inputs import Source
from ..load.plain import fast_mapping
from ..load.plain import mode as fast_mode
from ..load.readers import read as read_input
from ..load.reading import Reading
from ..load.records import (
    GameRecord,
    LoadProblem,
    MappedRound,
    OversizedList,
    PlainRound,
    Record,
    RoundRecord,
    SeatRecord,
    SessionRecord,
    line_at,
)
from ..models import codes
from ..models.codes import FindingCode
from ..models.common import MAX_ROUND, RECORDED_FIELDS, Money, closest, suggest
from ..models.rounds import ROUND_FIELDS, SESSION_FIELDS, Round, Session
from ..rules.money import fmt, plain
from ..rules.profile import Profile
from ..rules.settlement import Deal, Ruling, settle
from . import lane
from .compare import compare_record, settled_as_valid, void_detail
from .fast import FastPathMismatch, SettleMemo, memo_for, plain_round, verify_model, verify_ruling
from .lane import CleanRound, CleanRounds
from .ledger import (
    BalanceState,
    HeldNumber,
    Numbering,
    advance,
    judge,
    lose_track,
    number_or_hold,
    number_round,
    reanchor,
    replay_after_swap,
    stake_check,
    swapped,
)
from .ledger import opening as ledger_opening
from .results import Finding, InputInfo, Ledger, RoundResult, SessionInfo, SessionResult
from .session_header import Held, SessionOpening, check_stake_units, place_last, release_held
from .table import GameResult, TableAudit, misplaced, settle_formats

Event = SessionInfo | RoundResult | SessionResult | Finding | InputInfo | GameResult | CleanRounds
ZERO = Decimal(0)


_DIGITS = re.compile(r"\s*(\d{1,12})\s*")


def round_number(data: Any) -> int | None:
    """The number a round record gives itself: an integer, or the digits of a quoted
    number (``"2"``: an H001 on the field, but the round keeps its number and place)."""
    value = data.get("round") if isinstance(data, dict) else None
    if type(value) is int:
        return value if 0 <= value <= MAX_ROUND else None  # out of range: its H001 says so
    if isinstance(value, str):
        found = _DIGITS.fullmatch(value)
        return int(found.group(1)) if found and int(found.group(1)) <= MAX_ROUND else None
    return None


def _same(a: Any, b: Any) -> bool:
    """Equal and of the same types all through: ``round: true`` is not a copy of
    ``round: 1`` (Python's ``True == 1``). Called only on records already equal."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return all(_same(value, b[key]) for key, value in a.items())
    if isinstance(a, list):
        return all(_same(x, y) for x, y in zip(a, b, strict=True))
    return True


@dataclass(slots=True)
class Options:
    """What the command line can change about an audit."""

    profile: str | None = None
    keep_raw: bool = False
    #: Clean rounds of the fast lane travel in :class:`CleanRounds` batches (for the
    #: reporters' pipeline); otherwise each becomes a :class:`RoundResult` event.
    batches: bool = False


class SessionAudit(SessionOpening[Session]):
    """The running state of one session: numbering, stakes, balances, ledger."""

    def __init__(self, record: SessionRecord, options: Options) -> None:
        err = self._open(record, options.profile, self._validate_header)
        if err is not None:
            self._profile_failed(err, record)
        self.info = SessionInfo(
            self.id, self.file, record.line,
            self.loaded.profile.name if self.loaded else None,
            self.loaded.origin if self.loaded else None,
            self.loaded.sha256 if self.loaded else None,
            record.index,
            _player(self.header),
        )
        opening = self.header.opening_balance if self.header and self.header.opening_balance is not None else ZERO
        self.ledger = Ledger(opening_balance=opening, closing_balance=opening)
        self.balance = opening  # by the rules
        # As the table kept it: anchored by the opening balance, else by the first recorded one.
        # The fast lane keeps its single anchor as (balance, round) until someone reads the chain.
        self.lane_anchor: tuple[Decimal, int] | None = None
        self.chain_state = ledger_opening(self.header.opening_balance if self.header else None)
        self.numbering = Numbering()
        self.held: Held[RoundResult] | None = None
        self.released: list[RoundResult] = []
        #: The table's balance chain of a held round that may be the early one of two
        #: swapped rounds: judged once the next number says (``_Deferred``).
        self.deferred: _Deferred | None = None
        #: A swap found: the early round's chain, judged after the late one's.
        self.after: _Deferred | None = None
        #: The late one of two swapped rounds was void: its number while its replay may
        #: come next (played before the early round too), and the swap's results, in file
        #: order, kept until then (``after`` waits with them).
        self.late_replay: int | None = None
        self.swap_unit: list[RoundResult] = []
        #: The early round's number meanwhile: a void one may be replayed once the swap closes.
        self.unit_early: HeldNumber | None = None
        self.stake: Decimal | None = None
        self.antes: dict[Decimal, int] = {}
        #: The Ante of the last round whose stakes were checked (a change of stake is found once).
        self.last_ante: Decimal | None = None
        self.last_data: Any = None
        self.last_result: RoundResult | CleanRound | None = None
        self.last_plain: PlainRound | None = None  # the lane's last round, read in full only if needed
        self.table_voided_number: int | None = None
        #: Valid deals the table recorded void (V002), replayed or not (``_played``).
        self.valid_voided = 0
        self.keep_raw = options.keep_raw
        # The fast path (audit/fast.py): off, on, or verify (both paths, compared).
        self.fast = None if fast_mode() == "off" else fast_mode()
        self.memo = memo_for(self.loaded.profile, self.loaded.origin, self.loaded.sha256, SettleMemo) \
            if self.fast and self.loaded else None
        self.lane = lane.lane_memo_for(self.loaded.profile, self.loaded.origin, self.loaded.sha256) \
            if self.fast and self.loaded and not self.keep_raw else None
        # What the lane asks of the session on every round, asked once.
        self.lane_fixed = bool(self.loaded and self.loaded.profile.fixed_stakes)
        self.lane_funds = bool(self.loaded and self.loaded.profile.call_requires_funds and self.header is not None
                               and self.header.opening_balance is not None)

    @property
    def chain(self) -> BalanceState:
        """The balance chain as the table kept it (``docs/ledger.md``)."""
        if self.lane_anchor is not None:
            balance, number = self.lane_anchor
            self.chain_state = reanchor(BalanceState(), balance, False, number)
            self.lane_anchor = None
        return self.chain_state

    @chain.setter
    def chain(self, state: BalanceState) -> None:
        self.chain_state = state
        self.lane_anchor = None

    def audit_plain(self, record: PlainRound) -> CleanRound | list[RoundResult]:
        """A round the fast decode read: on the lane when it is provably clean, else
        through the full audit (the reader's own reading of the line)."""
        clean = lane.decide(self, record) if self.lane is not None else None
        if clean is not None and self.fast != "verify":
            lane.commit(self, clean, record)
            return clean
        full = record.full()
        if not isinstance(full, RoundRecord):
            raise FastPathMismatch(f"line {record.line}: the fast decode read a line the reader refuses")
        before = lane.snapshot(self) if clean is not None else None
        results = self.audit_round(full)
        if clean is not None:
            lane.verify(self, clean, results, before, record)
        return results

    def _validate_header(self, record: SessionRecord) -> Session | None:
        try:
            return Session.model_validate(record.data)
        except ValidationError as err:
            found = validation_findings(err, record.data, self.file, record.line, None, "session", SESSION_FIELDS)
            for finding in found:
                self._add(finding)
            return None

    def audit_round(self, record: RoundRecord) -> list[RoundResult]:
        """The results this record releases, in order: a round whose number is off is
        held back until the next round's number decides its finding (ledger.settle_held)."""
        result = self._audit_round(record)
        out, self.released = self.released, []
        if (self.held is None or self.held.result is not result) and not any(r is result for r in self.swap_unit):
            out.append(result)
        return out

    def take_released(self) -> list[RoundResult]:
        out, self.released = self.released, []
        return out

    def flush(self) -> list[RoundResult]:
        """At the session's end: a held round's default verdict stands."""
        self._close_swap()
        self._settle(None)
        return self.take_released()

    def _number(self, result: RoundResult, data: Any, n: int | None, repeated: bool, voided: bool) -> None:
        """Number a round (after settling a held one with this number). The late one of
        two swapped rounds is out of order at once: not held, so no number that follows
        can make it read as misnumbered and hide a skip after it. When the late one is
        void, the round after it may be its replay, played before the early one too."""
        if self.late_replay is not None:
            if n == self.late_replay:  # the late round's replay (or a copy): the early one's balance after it
                if voided or repeated:
                    self.swap_unit.append(result)  # void again (or the same record): its replay may come next
                else:
                    self.late_replay = None  # the swap closes once this round is audited (_then_swapped)
            else:
                self._close_swap()
        early = self._settle(None if repeated else n)
        found, held = number_or_hold(self.numbering, n, repeated, voided)
        if early is not None and held is not None:  # the late one of two swapped rounds: out of order, whatever follows
            found, held = held.default, None
        if early is not None:
            if voided and n is not None and self.after is not None:  # its replay may come next: all wait
                self.late_replay, self.unit_early = n, early
                self.swap_unit, self.released = [*self.released, result], []
            else:
                replay_after_swap(self.numbering, early)
        if found is not None:
            _Emitter(self, result, data)(found.code, found.message, "round", found.expected, n)
        if held is not None:
            self.held = Held(held, result, _Emitter(self, result, data), len(result.findings), len(self.findings))

    def _settle(self, following: int | None) -> HeldNumber | None:
        """The held round's finding, put where number findings go among its own (first).
        Its deferred balance is judged now, or, when the next round is the one it was
        swapped with, right after that round's own (the table's chain in play order).
        When it was: the held round's number (the early one of two swapped)."""
        if self.held is None:
            return None
        held, self.held = self.held, None
        swap = swapped(held.number, following)
        before = len(held.result.findings), len(self.findings)
        self.released.append(release_held(held, self.numbering, following, self.findings, swap))
        deferred, self.deferred = self.deferred, None
        if deferred is not None and swap:
            self.after = deferred
        elif deferred is not None:
            # the number finding just inserted before it moves its place by one
            deferred.shift(len(held.result.findings) - before[0], len(self.findings) - before[1])
            self._judge_chain(deferred)
        return held.number if swap else None

    def _then_swapped(self) -> None:
        """After the late one of two swapped rounds: the early one's balance (after the
        late one's replay, when it was void and a replay may follow)."""
        if self.late_replay is None:
            self._close_swap()

    def _close_swap(self) -> None:
        """The early one of two swapped rounds: its balance judged, the swap's results
        released (before the round being read)."""
        self.late_replay = None
        after, self.after = self.after, None
        if after is not None:
            self._judge_chain(after)
        if self.unit_early is not None:  # the early round was played last: a void one's replay may come
            replay_after_swap(self.numbering, self.unit_early)
            self.unit_early = None
        if self.swap_unit:
            self.released = [*self.swap_unit, *self.released]
            self.swap_unit = []

    def _audit_round(self, record: RoundRecord) -> RoundResult:
        data = record.data
        number = round_number(data)
        result = RoundResult(number, record.source, record.line, self.id, raw=data if self.keep_raw else None)
        if self.last_plain is not None:  # the previous round took the lane: its mapping, read if needed
            if isinstance(data, dict) and data.get("round") != self.last_plain.fast.round:
                self.last_data = None  # another number: not a copy, whatever the rest says
            else:
                previous = self.last_plain.full()
                self.last_data = previous.data if isinstance(previous, RoundRecord) else None
            self.last_plain = None
        repeated = (data is not None and data == self.last_data and isinstance(data, dict)
                    and _same(data, self.last_data))
        self.last_data = data
        if repeated:
            last = self.last_result
            if isinstance(last, CleanRound):
                last = self.last_result = last.result()
            result.copy_of = last.copy_of or last if last is not None else None
            self.last_result = result
            return self._repeated(result, number)
        self.last_result = result
        model = self._validate_round(data, record.line, number, result)
        profile = self.profile
        if model is None or profile is None:
            return self._unruled(result, data, number)
        result.record = model
        ruling = self.memo.settle(model) if self.memo is not None else None
        if ruling is None:
            ruling = settle(profile, Deal(model.ante, model.player, model.flop, model.decision, model.turn,
                                          model.river, model.dealer, model.bonus))
        elif self.fast == "verify":
            verify_ruling(ruling, profile, model)
        result.ruling = ruling
        emit = _Emitter(self, result, data)
        recorded = model.recorded
        table_void = recorded is not None and (recorded.void is True or recorded.outcome == "void")
        if self.table_voided_number is not None and model.round == self.table_voided_number:
            self.ledger.table_voided += 1  # the replay of a valid deal the table voided: counted once
        self.table_voided_number = model.round if table_void and ruling.outcome != "void" else None
        self.valid_voided += self.table_voided_number is not None
        self._number(result, data, model.round, False, ruling.outcome == "void" or table_void)
        self._check_stakes(model, profile, ruling, emit)
        compare_record(model, ruling, emit, profile.dealer_qualifier.words(), void_detail(model, ruling))
        self._check_balance(model, ruling, table_void, emit)
        self._then_swapped()
        result.balance = self.balance
        result.recorded_balance = recorded.balance if recorded else None
        result.table_void = table_void
        self.ledger.add(result)
        return result

    def _repeated(self, result: RoundResult, number: int | None) -> RoundResult:
        """A record repeated verbatim: one S003; not ruled, counted or chained again."""
        result.repeated = True
        result.balance = self.balance
        self._number(result, None, number, True, False)
        self.ledger.add(result)
        return result

    def _validate_round(self, data: Any, line: int, number: int | None, result: RoundResult) -> Round | None:
        """The round as a model, or None. A bad optional field (in ``recorded``, ``time``,
        ``meta``) is a finding on that field and is left out: the round is still ruled."""
        if self.fast:  # a plain record is built directly, as validation would (audit/fast.py)
            model = plain_round(data)
            if model is not None:
                if self.fast == "verify":
                    verify_model(model, data)
                return model
        try:
            return Round.model_validate(data)
        except ValidationError as err:
            for finding in validation_findings(err, data, self.file, line, number, "", ROUND_FIELDS):
                result.findings.append(self._add(finding))
            cleaned = _without_optional_errors(data, err)
            if cleaned is None:
                return None
            try:
                return Round.model_validate(cleaned)
            except ValidationError:
                return None

    def _unruled(self, result: RoundResult, data: Any, number: int | None) -> RoundResult:
        """A round that cannot be ruled keeps its number; its recorded balance, when
        readable, still anchors the table's chain."""
        recorded = data.get("recorded") if isinstance(data, dict) else None
        self._number(result, data, number, False, _recorded_void(recorded))
        net, balance = unruled_nets(recorded)
        self.chain = advance(self.chain, net, None)
        if balance is not None:
            self.chain = reanchor(self.chain, balance, False, number)
        self._then_swapped()
        result.balance = self.balance
        self.ledger.add(result)
        return result

    def unreadable_round(self, problem: LoadProblem) -> None:
        """A JSON Lines round line that cannot be read but whose number can: it is
        present (numbering, count), its nets unknown."""
        if self.late_replay is not None:
            self._close_swap()
        early = self._settle(problem.round_number)
        found = number_round(self.numbering, problem.round_number, False, False)
        if early is not None:
            replay_after_swap(self.numbering, early)
        if found is not None:
            self._add(Finding(found.code, f"round {problem.round_number}: {found.message}", problem.source,
                              problem.line, problem.round_number, "round", found.expected, problem.round_number))
        self.chain = lose_track(self.chain)
        self._then_swapped()
        self.ledger.invalid_rounds += 1

    def _check_stakes(self, model: Round, profile: Profile, ruling: Ruling, emit: _Emitter) -> None:
        check_stake_units(model.ante, model.bonus, model.call, profile.stake_increment, emit)
        if model.call is not None and model.call != ruling.call_stake:
            if model.decision == "fold":
                emit(codes.S001, f"Call stake {fmt(model.call)} on a fold: a fold places no Call stake",
                     "call", ZERO, model.call)
            else:
                emit(codes.S001, f"Call stake {fmt(model.call)} is not {fmt(profile.call_multiple)} × Ante "
                     f"{fmt(model.ante)}", "call", ruling.call_stake, model.call)
        if profile.fixed_stakes:
            self._check_fixed_ante(model, profile, emit)
        if model.bonus and profile.bonus is None:
            emit(codes.S006, f"bonus stake {fmt(model.bonus)} under profile {profile.name}, which has no bonus; "
                 "it is returned", "bonus", ZERO, model.bonus)
        self._check_funds(model, profile, ruling, emit)

    def _check_fixed_ante(self, model: Round, profile: Profile, emit: _Emitter) -> None:
        """One odd Ante is one S002: the session's stake is the Ante most of its rounds
        so far used (the first Ante until another is used by more rounds)."""
        self.stake, finding = stake_check(self.antes, self.stake, model.ante, self.last_ante)
        self.last_ante = model.ante
        if finding is not None:
            emit(codes.S002, f"Ante {fmt(model.ante)} differs from the session's {fmt(finding)}; "
                 f"profile {profile.name} fixes stakes", "ante", finding, model.ante)

    def _check_funds(self, model: Round, profile: Profile, ruling: Ruling, emit: _Emitter) -> None:
        """S007 only when no reading of the balance covers the call: neither the rules'
        balance nor the table's (an earlier wrong payment is its own finding). A void
        deal risks nothing and is not checked."""
        header = self.header
        if (not profile.call_requires_funds or model.decision != "call" or ruling.outcome == "void"
                or header is None or header.opening_balance is None):
            return
        needed = model.ante + model.bonus + ruling.call_stake
        table = self.chain.table_balance
        best = self.balance if table is None else max(self.balance, table)
        if best < needed:
            kept = f" (as the table kept it {fmt(table)})" if table is not None and table != self.balance else ""
            emit(codes.S007, f"the call needs {fmt(needed)} in stakes but the balance is {fmt(self.balance)}{kept}",
                 "decision", needed, best)

    def _check_balance(self, model: Round, ruling: Ruling, table_void: bool, emit: _Emitter) -> None:
        recorded = model.recorded
        self.balance += ruling.net
        table_net: Decimal | None = ruling.net
        if recorded is not None and recorded.net is not None:
            table_net = recorded.net
        elif table_void:
            table_net = ZERO
        elif ruling.outcome == "void" and settled_as_valid(recorded):
            table_net = None  # a void deal the table paid, and how much is not recorded (V001)
        work = _Deferred(model.round, table_net, ruling.net, recorded.balance if recorded is not None else None,
                         emit, len(emit.result.findings), len(self.findings),
                         settled_void=ruling.outcome == "void" and table_net != ruling.net)
        held = self.held
        if held is not None and held.result is emit.result and model.round == held.number.expected + 1:
            self.deferred = work  # k+1 where k was expected: if k comes next, they were swapped
        else:
            self._judge_chain(work)

    def _judge_chain(self, work: _Deferred) -> None:
        """One round's nets on the table's chain, and its recorded balance judged on it."""
        self.chain = advance(self.chain, work.table_net, work.ruled_net)
        if work.recorded is None:
            return
        # What the table paid a void deal is unknown: its balance cannot be checked (its own
        # finding, V001, says the deal was paid); it anchors the chain, the rules' beside it.
        broken = judge(self.chain, work.recorded) if work.table_net is not None else None
        if broken is not None:
            work.emit(codes.P005, broken.message(), "recorded.balance", broken.expected, work.recorded)
            place_last(work.emit.result.findings, work.at_result, self.findings, work.at_session)
        self.chain = reanchor(self.chain, work.recorded, broken is not None, work.number, keep=work.settled_void)

    def close(self) -> SessionResult:
        """The session's ledger and findings; ``S005`` against the agreement the session
        states (``rounds_agreed``; none stated, none checked: docs/ledger.md)."""
        agreed = self.header.rounds_agreed if self.header and self.header.rounds_agreed else None
        played = _played(self.ledger, self.valid_voided)
        if agreed is not None and self.profile is not None and not played[0] <= agreed <= played[1]:
            counted = played[1] if agreed > played[1] else played[0]
            # "played", not "counted": the summary's "counted" are the ruled rounds alone
            unruled = f", {self.ledger.invalid_rounds} of them not ruled" if self.ledger.invalid_rounds else ""
            void = self.ledger.void_rounds
            voided = f" ({_rounds(void, 'void ')} {'does' if void == 1 else 'do'} not count)" if void else ""
            self._add(Finding(codes.S005, f"{_rounds(counted)} played{unruled}, {agreed} agreed{voided}",
                              self.file, self.info.line, expected=agreed, recorded=counted))
        return SessionResult(self.info, self.ledger, self.findings)


def _played(ledger: Ledger, valid_voided: int) -> tuple[int, int]:
    """How many rounds the session played, as a range: a round that could not be ruled
    was still played (its own finding says why it was not ruled), so one bad record is
    not also a wrong count; a void deal does not count (§07). A valid deal the table
    voided (V002) counts by the rules and not by the table: replayed, the replay stands
    for it; not replayed, either reading is the table's count (the V002 is the one
    finding of that root cause, not also a wrong count)."""
    most = ledger.counted_rounds + ledger.invalid_rounds - ledger.table_voided
    return most - (valid_voided - ledger.table_voided), most


def _rounds(n: int, kind: str = "") -> str:
    return f"{n} {kind}round{'s' * (n != 1)}"


def _player(header: Session | None) -> str | None:
    """Format 1 has no player field: a session's ``meta.player`` names one, if present."""
    meta = header.meta if header is not None else None
    player = meta.get("player") if meta else None
    return None if player is None else str(player)


@dataclass(slots=True)
class _Deferred:
    """A round's part in the table's balance chain, to be judged later (see
    ``SessionAudit.deferred``), and where a finding of it goes among the round's own
    findings and the session's (where it would have gone, judged at once)."""

    number: int
    table_net: Decimal | None  # None: a void deal the table paid, how much not recorded
    ruled_net: Decimal
    recorded: Decimal | None
    emit: _Emitter  # of the round (``emit.result``)
    at_result: int
    at_session: int
    #: A void deal the table paid (V001): the rules' chain from before stays beside it.
    settled_void: bool = False

    def shift(self, result: int, session: int) -> None:
        self.at_result += result
        self.at_session += session


class _Emitter:
    """Adds findings for one round, with the line of the field each is about."""

    __slots__ = ("data", "result", "session")

    def __init__(self, session: SessionAudit, result: RoundResult, data: Any) -> None:
        self.session = session
        self.result = result
        self.data = data

    def __call__(self, code: FindingCode, message: str, field: str, expected: Any, recorded: Any) -> None:
        line = line_at(self.data, field_path(field), self.result.line)
        number = self.result.number
        text = f"round {number}: {message}" if number is not None else message
        self.result.findings.append(self.session._add(
            Finding(code, text, self.result.file, line, number, field, plain(expected), plain(recorded))))


def field_path(field: str) -> tuple[str | int, ...]:
    """``flop[2]`` -> ``("flop", 2)``; ``recorded.net`` -> ``("recorded", "net")``."""
    path: list[str | int] = []
    for part in field.replace("[", ".[").split("."):
        if part.startswith("[") and part.endswith("]") and part[1:-1].isdigit():
            path.append(int(part[1:-1]))
        elif part:
            path.append(part)
    return tuple(path)


_OPTIONAL = ("recorded", "time", "meta")


def _without_optional_errors(data: Any, err: ValidationError) -> dict[str, Any] | None:
    """The round without the optional fields that failed, or None when a field the
    ruling needs failed (then the round cannot be ruled)."""
    if not isinstance(data, dict):
        return None
    drop_top: set[str] = set()
    drop_recorded: set[str] = set()
    for error in err.errors(include_url=False):
        loc = tuple(error["loc"])
        if not loc or loc[0] not in _OPTIONAL:
            return None
        if loc[0] == "recorded" and len(loc) > 1 and isinstance(data.get("recorded"), dict):
            drop_recorded.add(str(loc[1]))
        else:
            drop_top.add(str(loc[0]))
    cleaned = {k: v for k, v in data.items() if k not in drop_top}
    if drop_recorded and "recorded" in cleaned:
        cleaned["recorded"] = {k: v for k, v in cleaned["recorded"].items() if k not in drop_recorded}
    return cleaned


_MONEY: TypeAdapter[Decimal] = TypeAdapter(Money)


def _recorded_void(recorded: Any) -> bool:
    """Whether a record that failed validation still says the table voided the deal."""
    return isinstance(recorded, dict) and (recorded.get("void") is True or recorded.get("outcome") == "void")


def unruled_nets(recorded: Any) -> tuple[Decimal | None, Decimal | None]:
    """What the table's chain can still take from a record that failed validation (a
    round in format 1, a seat in format 2): its net (0 when it says the deal was void,
    None when unreadable) and its balance, each when itself a valid amount."""
    net = _readable_money(recorded, "net")
    if net is None and _recorded_void(recorded):
        net = ZERO
    return net, _readable_money(recorded, "balance")


def _readable_money(recorded: Any, name: str) -> Decimal | None:
    """A recorded amount of a round that failed validation, when it is itself valid."""
    if not isinstance(recorded, dict) or name not in recorded or isinstance(recorded[name], bool):
        return None
    try:
        return _MONEY.validate_python(recorded[name])
    except ValidationError:
        return None


def validation_findings(err: ValidationError, data: Any, file: str, line: int, number: int | None,
                        prefix: str, known: tuple[str, ...]) -> list[Finding]:
    """One clear finding per pydantic error: the path, what is wrong, what was expected."""
    findings = []
    where = f"round {number}: " if number is not None else ("session: " if prefix else "")
    errors = err.errors(include_url=False)
    misspelt = _misspelt(errors, known)
    for error in errors:
        loc = tuple(error["loc"])
        path = ".".join(str(p) if not isinstance(p, int) else f"[{p}]" for p in loc).replace(".[", "[")
        path = f"{prefix}.{path}" if prefix and path else (prefix or path)
        kind = error["type"]
        at = line_at(data, loc, line)
        if kind == "missing" and loc in misspelt.values():
            continue  # the unknown key beside it is the one finding
        if kind == "extra_forbidden":
            fields = _fields_at(loc, known)
            meant = misspelt.get(loc)
            hint = (f"; did you mean {meant[-1]!r}? (without it, {meant[-1]!r} is missing)" if meant
                    else suggest(str(loc[-1]), fields))
            findings.append(Finding(codes.H002, f"{where}unknown field {path!r}{hint}", file, at, number, path))
            continue
        findings.append(Finding(codes.H001, f"{where}{path or 'record'}: {_explain(error)}", file, at, number, path,
                                recorded=_short(error.get("input"))))
    return findings


def _fields_at(loc: tuple[Any, ...], known: tuple[str, ...]) -> tuple[str, ...]:
    return RECORDED_FIELDS if len(loc) > 1 and loc[0] == "recorded" else known


def _misspelt(errors: list[Any], known: tuple[str, ...]) -> dict[tuple[Any, ...], tuple[Any, ...]]:
    """Unknown keys that ``suggest`` reads as a required field missing beside them
    (``desicion`` for ``decision``), each with the field: one slip of the hand, one
    finding (the unknown key's), not also the field's absence."""
    missing = {tuple(e["loc"]) for e in errors if e["type"] == "missing"}
    found: dict[tuple[Any, ...], tuple[Any, ...]] = {}
    for error in errors:
        loc = tuple(error["loc"])
        if error["type"] != "extra_forbidden" or not isinstance(loc[-1], str):
            continue
        close = closest(loc[-1], _fields_at(loc, known))
        meant = (*loc[:-1], close) if close is not None else None
        if meant in missing and meant not in found.values():
            found[loc] = meant
    return found


def _explain(error: Any) -> str:
    kind = error["type"]
    value = error.get("input")
    got = f"got {_short(value)!r}" if not isinstance(value, (dict, list)) else f"got a {type(value).__name__}"
    if kind == "missing":
        return "required field is missing"
    if isinstance(value, OversizedList):
        return f"a list of {value.count:,} items, longer than any list of a hand history (at most 52 cards)"
    if kind == "string_type" and not isinstance(value, (dict, list)):
        return f"expected a card or text such as 'Ah' or '10♥', {got}"
    if kind == "int_type" and isinstance(value, str) and _DIGITS.fullmatch(value):
        return f"a number, not text: write {value.strip()} without quotes; {got}"
    if kind == "model_type" or kind == "dict_type":
        return f"expected a mapping, {got}"
    if kind in ("literal_error", "enum") and isinstance(value, str):
        choices = re.findall(r"'([^']*)'", str(error.get("ctx", {}).get("expected", "")))
        if choices:
            return f"{got}{suggest(value.strip().lower().replace(' ', '_').replace('-', '_'), choices)}"
    if kind in _EXPECTED:  # in the words a profile's problems use, not pydantic's ("Input should be ...")
        return f"{_EXPECTED[kind]}, {got}"
    return f"{error['msg']}; {got}"


_EXPECTED = {"decimal_parsing": "expected a number", "decimal_type": "expected a number",
             "int_parsing": "expected a whole number", "int_type": "expected a whole number",
             "int_from_float": "expected a whole number", "bool_parsing": "expected true or false",
             "bool_type": "expected true or false"}


def _short(value: Any) -> Any:
    if isinstance(value, OversizedList):
        return repr(value)
    if isinstance(value, str) and len(value) > 60:
        return value[:57] + "..."
    if isinstance(value, (dict, list)):
        return f"<{type(value).__name__} of {len(value)}>"
    if isinstance(value, Decimal):
        return str(value)
    return value


def audit_records(records: Iterable[Record], options: Options) -> Iterator[Event]:
    """Audit a stream of records (one file's or a chunk's) in order; format-2 sessions
    (games and seats) go to :class:`referee.audit.table.TableAudit`."""
    current: SessionAudit | TableAudit | None = None
    batch = CleanRounds()
    for record in settle_formats(records):
        plain = _plain(record, current)
        if plain is not None:
            done = current.audit_plain(plain)  # type: ignore[union-attr]
            if type(done) is CleanRound:
                if not options.batches:
                    yield done.result()
                    continue
                batch.append(done)
                if len(batch) >= BATCH:
                    yield batch
                    batch = CleanRounds()
                continue
            if batch:
                yield batch
                batch = CleanRounds()
            yield from done
            continue
        if type(record) is PlainRound:  # not in a format-1 session: read as the reader reads it
            record = record.full()
        assert not isinstance(record, PlainRound)
        if batch:
            yield batch
            batch = CleanRounds()
        if isinstance(current, TableAudit) and isinstance(record, (GameRecord, SeatRecord, RoundRecord)):
            yield from current.take(record)
        elif isinstance(record, RoundRecord):
            if current is None:  # pragma: no cover - loaders open a session first
                continue
            yield from current.audit_round(record)  # type: ignore[union-attr]
        elif isinstance(record, SessionRecord):
            if current is not None:
                yield from _close(current)
            current = TableAudit(record, options) if record.format == 2 else SessionAudit(record, options)
            yield current.info
        elif isinstance(record, (GameRecord, SeatRecord)):
            finding = misplaced(record)
            if current is not None:
                current._add(finding)
            else:  # pragma: no cover - loaders open a session first
                yield finding
        elif isinstance(record, LoadProblem) and record.ends_session:
            # An unreadable session line: what follows belongs to no session, not to the last one.
            if current is not None:
                yield from _close(current)
                current = None
            yield Finding(record.code, record.message, record.source, record.line)
        else:
            yield from _problem(record, current)
    if batch:
        yield batch
    if current is not None:
        yield from _close(current)


_new = tuple.__new__
def _plain(record: Record, current: SessionAudit | TableAudit | None) -> PlainRound | None:
    """The record as the fast lane takes it, when it may: a JSON Lines round the fast
    decode read, or a document's round (YAML, JSON) whose mapping has the struct's
    types, in a format-1 session with the lane on."""
    if type(current) is not SessionAudit:
        return None
    if type(record) is PlainRound:
        return record
    if type(record) is RoundRecord and current.lane is not None and isinstance(record.data, dict):
        fast = fast_mapping(record.data)
        if fast is not None:
            return _new(MappedRound, (record.source, record.line, record, fast))
    return None


#: Clean rounds a batch holds at most (a batch is one event, one pickle under ``--jobs``).
BATCH = 1000


def _close(current: SessionAudit | TableAudit) -> Iterator[Event]:
    if isinstance(current, TableAudit):
        yield from current.close()
    else:
        yield from current.flush()
        yield current.close()


def _problem(problem: LoadProblem, current: SessionAudit | TableAudit | None) -> Iterator[Event]:
    finding = Finding(problem.code, problem.message, problem.source, problem.line, problem.round_number)
    if current is not None and not problem.fatal:
        current._add(finding)
        if problem.round_number is not None and isinstance(current, SessionAudit):
            current.unreadable_round(problem)
            yield from current.take_released()
    else:
        yield finding


def audit_reading(reading: Reading, options: Options) -> Iterator[Event]:
    """Audit one input in one pass, then say what it was (digest, size, readable)."""
    yield from audit_records(read_input(reading), options)
    yield InputInfo(reading.name, reading.kind, reading.size, reading.sha256, not reading.fatal)


def audit_source(source: Source, options: Options) -> Iterator[Event]:
    """Audit one input (see :func:`audit_reading`)."""
    return audit_reading(Reading(source), options)
