"""Format 1 into the audit: each round a game of one seat.

A round is, for the rules, a game with one seat: the session's player, the round's
own two cards, the round's number as the game's sequence, and the round's record as
the seat's. Here a round record is validated as format 1 defines it (its findings worded
as format 1 words them: ``round 3: ...``), and given to the one audit
(:class:`~referee.audit.session.SessionAudit`) as such a game. What only format 1 has is
here too: a record repeated verbatim (one ``S003``, not ruled again), and a JSON Lines
round line that cannot be read but shows its number (present, nets unknown).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec
from msgspec import UNSET
from pydantic import ValidationError

from ..load.plain import plain_data
from ..load.records import LoadProblem, PlainRound, RoundRecord, SessionRecord
from ..models.common import MAX_ROUND
from ..models.decode import convert
from ..models.rounds import ROUND_FIELDS, SESSION_FIELDS, Round, Session
from ..rules.hands import HandValue, evaluate_known
from .clean import CleanGame
from .duplicates import Content, is_copy
from .games import GameResult, SeatResult
from .lane import take_seat
from .ledger import in_order
from .places import Emitter, round_place
from .results import Finding
from .session import GameIn, Header, Options, SeatIn, SessionAudit
from .validation import named_profile, round_number, session_header, validation_findings, without_optional_errors

_new = tuple.__new__
PLAYER = ""  # the key of format 1's one player


class RoundDeal:
    """A round's deal as the audit reads a game's: no shared hand (the seat plays the
    round's own two cards), the board, the dealer's cards; always settled."""

    __slots__ = ("dealer", "flop", "player", "river", "round", "status", "turn")

    def __init__(self, model: Round) -> None:
        #: The round itself, which :meth:`~referee.audit.seats.Rulings.seat` settles as its deal.
        self.round = model
        self.player = None
        self.flop, self.turn, self.river, self.dealer = model.flop, model.turn, model.river, model.dealer
        self.status = "settled"


class RoundsIntake:
    """One format-1 session: its rounds into the audit, one game each."""

    def __init__(self, record: SessionRecord, options: Options) -> None:
        findings: list[Finding] = []
        header = _header(record, findings)
        self.session = SessionAudit(record, options, header, findings, 1, (PLAYER,))
        #: Its records digested as read, when it has an id of its own (one named after its
        #: file is no session to find again): ``S010``/``S011`` compare them.
        self.content = Content(record.data) if header is not None else None
        self.keep_raw = options.keep_raw
        self.last_data: Any = None
        #: The previous round's result (a lane's clean game until someone asks for more).
        self.last_result: GameResult | CleanGame | None = None
        #: The lane's last round, read in full only if the next record may be its copy.
        self.last_plain: PlainRound | None = None

    @property
    def info(self) -> Any:
        return self.session.info

    def take_plain(self, record: PlainRound) -> CleanGame | Sequence[GameResult | CleanGame]:
        """A round the fast decode read: on the lane when it is provably clean (after the
        games its number released: a held round it settled), else through the full audit
        (the reader's own reading of the line)."""
        if self.content is not None:
            self.content.fast(record.fast)
        clean = self._lane(record) if self.session.lane is not None else None
        if clean is not None:
            return clean
        if type(record) is PlainRound and not self.keep_raw:
            # a JSON Lines line (all of it on one line) mapped from its struct, as the reader would: read once
            data = plain_data(record.fast, record.line)
            try:
                model = msgspec.convert(data, Round, strict=True)
            except ValueError:
                pass  # words for what is wrong: the reader's own reading, as below
            else:
                return self.audit(RoundRecord(record.source, record.line, data), model)
        full = record.full()
        if not isinstance(full, RoundRecord):
            from .fast import FastPathMismatch

            raise FastPathMismatch(f"line {record.line}: the fast decode read a line the reader refuses")
        return self.audit(full)

    def _lane(self, record: PlainRound) -> CleanGame | list[GameResult | CleanGame] | None:
        """The round on the lane when its place is plain (as :func:`~.lane.game_plain`
        has it for a game of one seat with no id) and its nine cards are known and
        distinct; written out here, not through ``game_plain`` and ``deal_hands``: this
        is the one hot loop of a clean format-1 log, and each call costs. A round held
        for its number (the one before) is settled first (:meth:`_after_held`)."""
        s = self.session
        fast = record.fast
        n = fast.round
        seq = s.seq
        if (n > MAX_ROUND or seq.held is not None or seq.late is not None or s.table_voided_number is not None
                or n not in seq.numbering.accept):
            return self._after_held(record) if seq.held is not None else None
        flop, turn, river, dealer, player = fast.flop, fast.turn, fast.river, fast.dealer, fast.player
        if dealer is UNSET or turn is UNSET or river is UNSET or flop is UNSET or player is UNSET or len(flop) != 3:
            return None
        hands = evaluate_known(player, dealer, (flop[0], flop[1], flop[2], turn, river))
        if hands is None:
            return None
        if s.fast == "verify":
            from .verify import verified_round

            return verified_round(self, record, hands)
        return self.lane_round(record, hands)

    def _after_held(self, record: PlainRound) -> list[GameResult | CleanGame] | None:
        """The round after one held for its number: this round's number settles it, as
        the full audit's ``Sequence.begin`` would first (:meth:`~.sequence.Sequence.settle_by`;
        not when this round may be its copy, the same number, or its swapped partner),
        then the round on the lane, the held round released before it. None when the
        lane does not take it (the full audit then finds nothing left to settle)."""
        seq = self.session.seq
        n = record.fast.round
        assert seq.held is not None
        if n > MAX_ROUND or n == seq.held.number.number or not seq.settle_by(n):
            return None
        clean = self._lane(record)
        if clean is None:
            return None
        released, seq.released = seq.released, []
        return [*released, *(clean if isinstance(clean, list) else [clean])]

    def lane_round(self, record: PlainRound, hands: tuple[HandValue, HandValue]) -> CleanGame | None:
        """The round on the lane (its game's numbering plain, its hands known): its one
        seat through :func:`~.lane.take_seat` (the round's struct stands for the deal),
        then the game's effects (:func:`~.lane.commit_game`, written out)."""
        s = self.session
        fast = record.fast
        n = fast.round
        seat = take_seat(s, s.lane, fast, fast.player, hands, fast, record.line, PLAYER, None, record, 0, None,
                         (n, None))
        if seat is None:
            return None
        in_order(s.seq.numbering, n)
        counts = s.counts
        counts.games += 1
        counts.counted += 1
        counts.seats += 1
        clean = _new(CleanGame, (n, record.line, record.source, s.id, None, fast, (seat,), hands[1], None, 1, None,
                                 None))
        self.last_plain = record  # the next full audit reads it for its copy check
        self.last_result = clean
        return clean

    def take(self, record: RoundRecord) -> list[GameResult]:
        """A round read in full (digested, then :meth:`audit`)."""
        if self.content is not None:
            self.content.data(record.data)
        return self.audit(record)

    def audit(self, record: RoundRecord, model: Round | None = None) -> list[GameResult]:
        """A round read in full: validated (unless its struct ``model`` is already made
        from it), then audited as a game of one seat."""
        data = record.data
        number = round_number(data)
        s = self.session
        result = GameResult(None, number, record.source, record.line, s.id, 1, raw=data if self.keep_raw else None)
        place = round_place(number)
        game_emit = Emitter(s, result.findings, data, record.line, place)
        seat = SeatResult(None, record.source, record.line)
        result.seats.append(seat)
        seat_in = SeatIn(seat, None, data, Emitter(s, seat.findings, data, record.line, place), PLAYER)
        if self._copy(data, result):  # its S003 is at the record's own line
            game_emit.data = None
            return s.audit_game(GameIn(result, None, number, True, None, game_emit, [seat_in], repeated=True))
        if model is None:
            model = self._validate(data, record.line, number, game_emit)
        seat.record = seat_in.model = model
        deal = RoundDeal(model) if model is not None else None
        return s.audit_game(GameIn(result, None, number, True, deal, game_emit, [seat_in], model))

    def _copy(self, data: Any, result: GameResult) -> bool:
        """Whether the record is the previous one again (one S003, not ruled or counted
        again); keeps what the next record is compared with."""
        if self.last_plain is not None:  # the previous round took the lane: its mapping, read if needed
            if isinstance(data, dict) and data.get("round") != self.last_plain.fast.round:
                self.last_data = None  # another number: not a copy, whatever the rest says
            else:
                previous = self.last_plain.full()
                self.last_data = previous.data if isinstance(previous, RoundRecord) else None
            self.last_plain = None
        repeated = is_copy(data, self.last_data)
        self.last_data = data
        last = self.last_result
        if repeated:
            if isinstance(last, CleanGame):
                last = self.last_result = last.result()
            result.repeated = True
            result.copy_of = (last.copy_of or last) if last is not None else None
        self.last_result = result
        return repeated

    def _validate(self, data: Any, line: int, number: int | None, emit: Emitter) -> Round | None:
        """The round as its struct, decoded once and strictly (the did-you-mean validation
        only when that fails: :func:`~referee.models.decode.convert`), or None. A bad
        optional field (in ``recorded``, ``time``, ``meta``) is a finding on that field and
        is left out: the round is still ruled."""
        try:
            return convert(data, Round)
        except ValidationError as err:
            s = self.session
            for finding in validation_findings(err, data, s.file, line, number, "", ROUND_FIELDS):
                emit.findings.append(s.add(finding))
            cleaned = without_optional_errors(data, err)
            if cleaned is None:
                return None
            try:
                return convert(cleaned, Round)
            except ValidationError:
                return None

    def problem(self, problem: LoadProblem) -> None:
        """A JSON Lines round line that cannot be read but whose number can: present
        (numbering, the count), its nets unknown. Any problem of a round's line is part
        of what the session holds (:class:`Content`)."""
        if self.content is not None:
            self.content.other((problem.code, problem.message, problem.round_number))
        if problem.round_number is not None:
            self.session.unreadable(problem.round_number, problem.line, problem.source)


def _header(record: SessionRecord, findings: list[Finding]) -> Header | None:
    """The session header as format 1 has it (H001 for what is wrong with it)."""
    header = session_header(record, Session, SESSION_FIELDS, findings)
    if header is None:
        return None
    meta = header.meta
    player = meta.get("player") if meta else None
    openings = {PLAYER: header.opening_balance} if header.opening_balance is not None else {}
    return Header(header.id, named_profile(header), header.rounds_agreed, openings,
                  None if player is None else str(player))
