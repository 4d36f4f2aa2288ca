"""``recall --store``'s views: the rounds found, rebuilt from the stored rows and runs
as :mod:`referee.recall` builds them from files.

Why apart from the search (:mod:`referee.store.recall_find`): it takes seat ids and
gives round views, reading back whatever they were stored as (a row of its own, a run of
clean rounds, a run of a live table's games, whose records are lines of the kept bytes)
with recall's own functions (``view_of``, ``seat_views``), so that a recalled round is
the one a recall over the files shows.
"""

from __future__ import annotations

import hashlib
import json
import zlib
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from ..models.decode import convert
from ..recall import RoundView, seat_views, view_of
from . import codec, digest, schema, tableruns
from .read import Stored, origin_of
from .verify import describe, plain


class Loader:
    """Round views rebuilt from stored rows, with recall's own functions."""

    def __init__(self, stored: Stored) -> None:
        self.stored = stored
        self.conn = stored.conn
        self.infos: dict[int, Any] = {}
        self.settled: dict[int, Any] = {}
        self.chunks: dict[tuple[int, int], tuple[int, list[bytes]]] = {}
        #: The views built so far, by seat id (the search reads a window's games back
        #: before it knows it has them all; the answer reads them again).
        self.known: dict[int, RoundView] = {}
        #: The stored records read that no longer match their digests (changed after they
        #: were stored), in words: recall says so rather than show them as they were.
        self.changed: list[str] = []
        self.checked: set[tuple[str, int]] = set()
        #: The game rows read, by id (checked): a game's seats share one.
        self.game_rows: dict[int, Any] = {}

    def intact(self, table: str, row: Any, seats: tuple[str, ...] | None = None) -> Any:
        """``row``, its digest recomputed as ``store verify`` does (once a row): a row
        changed after it was stored is noted in :attr:`changed`. A game's covers its seats'
        digests (``seats``, in id order, when already read)."""
        key = (table, row.id)
        if key in self.checked:
            return row
        self.checked.add(key)
        m = row._mapping
        values = digest.covered(table, tuple(plain(m[c]) for c in digest.columns(table)))
        if table == "games":
            import sqlalchemy as sa

            s = schema.seats
            if seats is None:
                seats = tuple(self.conn.execute(sa.select(s.c.digest).where(s.c.game_id == row.id)
                                                .order_by(s.c.id)).scalars())
            values = (*values, seats)
        if digest.of(values) != m["digest"]:
            self.changed.append(f"{describe(table, m)} changed after it was stored")
        return row

    def views(self, ids: list[int]) -> Iterable[RoundView]:
        """The views of these seats, in their order (a seat id is a round of format 1
        or a seat of format 2; a run's rounds are expanded)."""
        found = self.by_id(ids)
        return [found[i] for i in ids if i in found]

    def by_id(self, ids: list[int]) -> dict[int, RoundView]:
        """The views of these seats by id (those already built are not built again)."""
        import sqlalchemy as sa

        s, r = schema.seats, schema.runs
        found = self.known
        new = [i for i in ids if i not in found]
        for start in range(0, len(new), 500):
            part = new[start:start + 500]
            rows = list(self.conn.execute(sa.select(s).where(s.c.id.in_(part))))
            self._games({int(row.game_id) for row in rows if row.game_id is not None})
            self.settlements([int(row.settlement_id) for row in rows if row.settlement_id is not None])
            for row in rows:
                found[row.id] = self._seat(self.intact("seats", row))
        rest = [i for i in new if i not in found]
        for seat_id in rest:
            if seat_id in found:
                continue
            run = self.conn.execute(sa.select(r).where(r.c.first_seat <= seat_id).order_by(r.c.first_seat.desc())
                                    .limit(1)).first()
            if run is None or seat_id >= run.first_seat + run.rounds:
                continue
            self.intact("runs", run)
            wanted = {i - run.first_seat for i in rest if run.first_seat <= i < run.first_seat + run.rounds}
            views = self._run(run, wanted) if run.games is None else self._table_run(run, wanted)
            for i, view in views:
                found[run.first_seat + i] = view
        return {i: found[i] for i in ids if i in found}

    def _games(self, ids: set[int]) -> None:
        """The game rows of ``ids`` not read yet, and their seats' digests, in two queries
        (a query a seat was most of a page of games on a server), each checked."""
        import sqlalchemy as sa

        g, s = schema.games, schema.seats
        wanted = sorted(i for i in ids if i not in self.game_rows)
        for start in range(0, len(wanted), 500):
            part = wanted[start:start + 500]
            seats: dict[int, list[str]] = {}
            for row in self.conn.execute(sa.select(s.c.game_id, s.c.digest).where(s.c.game_id.in_(part))
                                         .order_by(s.c.id)):
                seats.setdefault(int(row.game_id), []).append(row.digest)
            for row in self.conn.execute(sa.select(g).where(g.c.id.in_(part))):
                self.game_rows[int(row.id)] = self.intact("games", row, tuple(seats.get(int(row.id), [])))

    # -- sessions and settlements -------------------------------------------------------

    def info(self, session_id: int) -> Any:
        import sqlalchemy as sa

        from .rows import SessionInfo

        known = self.infos.get(session_id)
        if known is not None:
            return known
        se, so = schema.sessions, schema.sources
        row = self.intact("sessions", self.conn.execute(
            sa.select(se, so.c.name.label("source_name")).join(so, so.c.id == se.c.source_id)
            .where(se.c.id == session_id)).one())
        args = (row.ident, row.source_name, row.line, row.profile, origin_of(row.origin), row.profile_sha256, row.idx,
                row.player)
        info = SessionInfo(*args, format=row.format, table=row.tbl, currency=row.currency)
        self.infos[session_id] = info
        return info

    def settlement(self, settlement_id: int) -> Any:
        import sqlalchemy as sa

        known = self.settled.get(settlement_id)
        if known is None:
            st = schema.settlements
            known = self.settled[settlement_id] = self.intact("settlements", self.conn.execute(
                sa.select(st).where(st.c.id == settlement_id)).one())
        return known

    def settlements(self, ids: list[int]) -> list[Any]:
        """Settlements by id, those not read yet in one query (a run of games may use a few
        hundred: one query each was most of a recall)."""
        import sqlalchemy as sa

        st = schema.settlements
        wanted = sorted({i for i in ids if i not in self.settled})
        for start in range(0, len(wanted), 500):
            for row in self.conn.execute(sa.select(st).where(st.c.id.in_(wanted[start:start + 500]))):
                self.settled[row.id] = self.intact("settlements", row)
        return [self.settled[i] for i in ids]

    def ruling(self, settlement_id: int | None, cards: Any, values: tuple[int | None, ...]) -> Any:
        from ..rules.hands import HandValue
        from ..rules.settlement import Ruling, Void

        if settlement_id is None:
            return None
        st = self.settlement(settlement_id)
        player, dealer, bonus = (None if v is None else HandValue.of(v) for v in values)
        return Ruling(st.outcome, cards, codec.lines_of(st.lines),
                      None if st.void_kind is None else Void(st.void_kind, st.void_reason), player, dealer, bonus,
                      None if st.qualified is None else bool(st.qualified))

    # -- a row of its own -----------------------------------------------------------------

    def _seat(self, row: Any) -> RoundView:
        info = self.info(row.session_id)
        if row.game_id is not None:
            return self._table_seat(row, info)
        return view_of(self.result(row, info), info, row.session_id)

    def result(self, row: Any, info: Any) -> Any:
        """A format-1 round's :class:`~referee.audit.results.RoundResult`, as audited."""

        from ..audit.results import RoundResult
        from ..models.rounds import Round
        from .rows import REPEATED, TABLE_VOID, findings_of

        record = None if row.record is None else convert(codec.loads(row.record), Round)
        ruling = self.ruling(row.settlement_id, _cards(row.cards), (row.player_value, row.dealer_value,
                                                                     row.bonus_value))
        result = RoundResult(row.number, info.file, row.line, info.id, record, ruling, findings_of(row.findings),
                             Decimal(row.balance), codec.amount(row.recorded_balance),
                             repeated=bool(row.flags & REPEATED), table_void=bool(row.flags & TABLE_VOID))
        if row.copy_line is not None:
            result.copy_of = self._first_record(row.session_id, row.copy_line, info)
        return result

    def _first_record(self, session_id: int, line: int, info: Any) -> Any:
        """The result of the record a verbatim copy repeats: a row, or a round of a run."""
        import sqlalchemy as sa

        s, r = schema.seats, schema.runs
        first = self.conn.execute(sa.select(s).where(s.c.session_id == session_id, s.c.line == line)).first()
        if first is not None:
            return self.result(self.intact("seats", first), info)
        run = self.conn.execute(sa.select(r).where(r.c.session_id == session_id, r.c.first_line <= line)
                                .order_by(r.c.first_line.desc()).limit(1)).first()
        if run is None or line >= run.first_line + run.rounds:
            return None
        self.intact("runs", run)
        for _, result in self._run_results(run, {line - run.first_line}):
            return result
        return None

    def _table_seat(self, row: Any, info: Any) -> RoundView:
        import sqlalchemy as sa

        from ..models.table import Game, Seat
        from .rows import CANCELLED, COPY, GameResult, SeatResult, findings_of

        g = schema.games
        game = self.game_rows.get(int(row.game_id))
        if game is None:
            game = self.intact("games", self.conn.execute(sa.select(g).where(g.c.id == row.game_id)).one())
        record = None if game.record is None else convert(codec.loads(game.record), Game)
        seat = SeatResult(row.player, info.file, row.line,
                          None if row.record is None else convert(codec.loads(row.record), Seat),
                          self.ruling(row.settlement_id, _cards(row.cards),
                                      (row.player_value, row.dealer_value, row.bonus_value)),
                          bool(row.flags & CANCELLED), findings_of(row.findings), Decimal(row.balance),
                          codec.amount(row.recorded_balance), copy=bool(row.flags & COPY))
        result = GameResult(game.game, game.number, info.file, game.line, info.id, 2, game.status, record,
                            seats=[seat], findings=findings_of(game.findings))
        return next(iter(seat_views(result, row.session_id, info)))

    # -- a run of clean rounds ----------------------------------------------------------------

    def _run(self, run: Any, wanted: set[int]) -> Iterable[tuple[int, RoundView]]:
        info = self.info(run.session_id)
        for i, result in self._run_results(run, wanted):
            yield i, view_of(result, info, run.session_id)

    def _run_results(self, run: Any, wanted: set[int]) -> Iterable[tuple[int, Any]]:
        """The results of the run's rounds numbered ``wanted`` (from 0), as the lane gave them."""
        from ..audit.results import RoundResult

        info = self.info(run.session_id)
        settled = self.settlements(json.loads(run.settlements))
        nets = [sum((Decimal(line[2]) for line in json.loads(st.lines)), Decimal(0)) for st in settled]
        balance = Decimal(run.start_balance)
        last = max(wanted)
        for i in range(last + 1):
            pick = int.from_bytes(run.picks[2 * i:2 * i + 2], "little")
            balance += nets[pick]
            if i not in wanted:
                continue
            record = self._record(run.source_id, info.file, run.first_line + i)
            cards = run.cards[9 * i:9 * i + 9]
            ruling = self._lane_ruling(settled[pick], cards)
            recorded = record.recorded.balance if record is not None and record.recorded is not None else None
            yield i, RoundResult(run.first_number + i, info.file, run.first_line + i, info.id, record, ruling, [],
                                 balance, recorded)

    # -- a run of a live table's clean games ---------------------------------------------

    def _table_run(self, run: Any, wanted: set[int]) -> Iterable[tuple[int, RoundView]]:
        """The views of a run's seats at ``wanted`` (places from 0): each seat's game and
        record read from the kept bytes (its game's line, its own seat line), its balance
        from its player's before the run and the nets since, its ruling from its
        settlement and its game's cards: the rows the full audit would have stored."""
        packed = tableruns.Packed(run)
        info = self.info(run.session_id)
        nets = [tableruns.net(st.lines) for st in self.settlements(packed.settlements)]
        balances = packed.balances(nets, max(wanted))
        games: dict[int, tuple[Any, Any, Any, tuple[int | None, ...]]] = {}
        for place in sorted(wanted):
            seat = packed.seat(place)
            if seat.game not in games:
                games[seat.game] = self._packed_game(packed, seat.game, info.file)
            yield place, self._packed_seat(packed, seat, games[seat.game], balances[place], info)

    def _packed_game(self, packed: tableruns.Packed, game: int, name: str
                     ) -> tuple[Any, Any, Any, tuple[int | None, ...]]:
        """A game of a run: its line as read, its record as validated, its cards and the
        values of the shared hand, the dealer's and the bonus hand (the first five cards)."""
        from msgspec import UNSET
        from msgspec.structs import astuple

        from ..load.table import GAME_STRUCT_FIELDS, PlainGameRecord
        from ..models.table import Game
        from ..rules.cards import DECK
        from ..rules.hands import evaluate
        from ..rules.settlement import Cards

        read = self._line_record(packed.source_id, name, packed.lines[game])
        if isinstance(read, PlainGameRecord):  # as the lane (and the full audit of a plain line) read it
            fields = zip(GAME_STRUCT_FIELDS, astuple(read.plain), strict=True)
            record = convert({key: value for key, value in fields if value is not UNSET and key != "seats"}, Game)
        else:  # as the full audit reads a line the fast decoder does not
            record = convert({k: v for k, v in read.data.items() if k != "seats"}, Game)
        c = [DECK[i] for i in packed.game_cards(game)]
        board = [c[2], c[3], c[4], c[5], c[6]]
        values = (evaluate([c[0], c[1], *board]).value, evaluate([c[7], c[8], *board]).value,
                  evaluate(c[:5]).value)
        return read, record, Cards((c[0], c[1]), (c[2], c[3], c[4]), c[5], c[6], (c[7], c[8])), values

    def _line_record(self, source_id: int, name: str, line: int) -> Any:
        """A game or seat line of a stored source as the reader gives it (a plain one decoded
        by the fast decoder, any other by the general reader)."""
        from ..load.readers.jsonl import records
        from ..load.records import GameRecord, SeatRecord

        for record in records(name, [self.line(source_id, line)], line, have_session=True):
            if isinstance(record, (GameRecord, SeatRecord)):
                return record
        raise AssertionError(f"the line at {name}:{line} is no longer the one audited")

    def _packed_seat(self, packed: tableruns.Packed, seat: tableruns.Seat, game: tuple[Any, Any, Any, Any],
                     balance: Decimal, info: Any) -> RoundView:
        from msgspec import to_builtins

        from ..audit.clean import recorded_balance
        from ..load.table import PlainGameRecord, PlainSeatRecord
        from ..models.table import Seat
        from .rows import GameResult, SeatResult

        read, record, cards, (player, dealer, bonus) = game
        if seat.place < 0:
            read = self._line_record(packed.source_id, info.file, seat.line)
        if isinstance(read, (PlainGameRecord, PlainSeatRecord)):
            struct = read.plain.seats[seat.place] if seat.place >= 0 else read.plain.seat
            model = convert(to_builtins(struct, builtin_types=(Decimal,)), Seat)
            recorded = recorded_balance(struct.recorded)
        else:
            model = convert(read.data["seats"][seat.place] if seat.place >= 0 else read.data["seat"], Seat)
            recorded = None if model.recorded is None else model.recorded.balance
        settlement_id = packed.settlements[seat.pick]
        hit = self.settlement(settlement_id).bonus_cat is not None
        result = SeatResult(seat.player, info.file, seat.line, model,
                            self.ruling(settlement_id, cards, (player, dealer, bonus if hit else None)), False, [],
                            balance, None if recorded is None or recorded is False else recorded, copy=False)
        game_id = packed.games[seat.game]
        view = GameResult(game_id, packed.number(seat.game), info.file, packed.lines[seat.game], info.id, 2,
                          "settled", record, seats=[result], findings=[])
        return next(iter(seat_views(view, packed.session_id, info)))

    def _lane_ruling(self, st: Any, cards: bytes) -> Any:
        """A clean round's ruling, as the fast lane made it (its hands from its cards)."""
        from ..rules.cards import DECK
        from ..rules.hands import evaluate
        from ..rules.settlement import Cards, Ruling

        c = [DECK[i] for i in cards]
        ruled = Cards((c[0], c[1]), (c[2], c[3], c[4]), c[5], c[6], (c[7], c[8]))
        board = [c[2], c[3], c[4], c[5], c[6]]
        bonus = evaluate([c[0], c[1], c[2], c[3], c[4]]) if st.bonus_cat is not None else None
        return Ruling(st.outcome, ruled, codec.lines_of(st.lines), None, evaluate([c[0], c[1], *board]),
                      evaluate([c[7], c[8], *board]), bonus, None if st.qualified is None else bool(st.qualified))

    def _record(self, source_id: int, name: str, line: int) -> Any:
        """A JSON Lines round's record, read from the stored bytes (its own line)."""
        from ..load.readers.jsonl import records
        from ..load.records import PlainRound, RoundRecord
        from ..models.rounds import Round

        raw = self.line(source_id, line)
        for record in records(name, [raw], line, have_session=True):
            if isinstance(record, PlainRound):
                record = record.full()
            if isinstance(record, RoundRecord):
                return convert(record.data, Round)
        return None

    def line(self, source_id: int, line: int) -> bytes:
        import sqlalchemy as sa

        c = schema.chunks
        row = self.conn.execute(sa.select(c.c.seq, c.c.first_line).where(c.c.source_id == source_id,
                                                                         c.c.first_line <= line)
                                .order_by(c.c.seq.desc()).limit(1)).one()
        key = (source_id, row.seq)
        cached = self.chunks.get(key)
        if cached is None:
            piece = self.conn.execute(sa.select(c.c.data, c.c.sha256).where(c.c.source_id == source_id,
                                                                            c.c.seq == row.seq)).one()
            data = zlib.decompress(piece.data)
            if hashlib.sha256(data).hexdigest() != piece.sha256:
                self.changed.append(f"the bytes of source {source_id}, piece {row.seq}, changed after they were stored")
            cached = self.chunks[key] = (row.first_line, data.split(b"\n"))
        first, lines = cached
        return lines[line - first] + b"\n"


def _cards(text: str | None) -> Any:
    from ..rules.cards import DECK
    from ..rules.settlement import Cards

    if text is None:
        return None
    player, flop, turn, river, dealer = json.loads(text)

    def group(items: list[int | None]) -> tuple[Any, ...]:
        return tuple(None if i is None else DECK[i] for i in items)

    return Cards(group(player), group(flop), None if turn is None else DECK[turn],
                 None if river is None else DECK[river], group(dealer))
