"""The seat facts of a store, read without replaying anything (``docs/store.md``,
"For monitor: the seat facts"): one query for the seats kept as rows, one for the
clean rounds packed in runs. The store is opened read-only (:class:`~referee.store.read.Stored`)."""

from __future__ import annotations

import json
from collections.abc import Callable
from operator import attrgetter
from typing import Any

from ..store import DAMAGED, schema
from .cells import KEYS
from .facts import Seat, unpack_known

#: A seat's profile when its session names none.
DEFAULT_PROFILE = "builtin:vivo"
#: Where a read starts and ends: (the last seat row's id, the last run's id), both included
#: in the read that ends there and left out of the one that starts there.
Marks = tuple[int, int]


class Unreadable(Exception):
    """A stored seat that does not read as one (its row or run changed after it was
    stored): said as such, with ``store verify`` to name it, never an internal error."""


#: The segments whose seats can be read alone (:func:`seats`' ``segment``): every kind of
#: the monitor's cells. The SQL reads a table's (its sessions'), a player's (their rows,
#: and their runs through ``run_keys``), a dealer's (their games' rows, and their runs
#: through ``dealer_games``) and a profile's (its sessions') alone; a stake band's, or
#: every seat, from every row and run (a run's seats have stakes of every band).
SEGMENTS = ("all", "table", "dealer", "profile", "stake", "player")


def seats(conn: Any, after: Marks = (0, 0), upto: Marks | None = None,
          segment: tuple[str, str] | None = None) -> list[Seat]:
    """Every counted seat of the store (those stored after ``after`` and up to ``upto``
    when given: the monitor's cache reads what it has not seen; only a segment's, a kind
    of :data:`SEGMENTS` and its value, when given), in the store's order, newest last. A
    bounded read of a segment's newest seats (the desk's Watch draws one segment's
    control chart without reading the whole store) is :func:`referee.monitor.window.newest`'s."""
    return placed(conn, 0, segment, after, upto)


def placed(conn: Any, start: int, segment: tuple[str, str] | None, after: Marks = (0, 0), upto: Marks | None = None,
           keep: Callable[[str], bool] | None = None) -> list[Seat]:
    """The counted seats :func:`seats` reads, from the seat ``start`` on (0: all; a run
    that reaches it is read whole: :func:`window.newest` cuts), each placed at its game's
    first seat read. ``keep``: a player's seats only are made of a run's (its other seats
    only place their games, as the whole store places them)."""
    try:
        rows_where, runs_where = only(segment)
        if start:  # the rows from their ids' range (one range: SQLite walks the first bound it is given)
            import sqlalchemy as sa

            r = schema.runs
            runs_where = sa.and_(r.c.first_seat + r.c.rounds > start, *(() if runs_where is None else (runs_where,)))
        out = _rows(conn, max(after[0], start - 1), None if upto is None else upto[0], rows_where) + _runs(
            conn, after[1], None if upto is None else upto[1], runs_where, keep)
    except DAMAGED as err:
        raise Unreadable(f"{type(err).__name__}: {err}") from None
    out.sort(key=_ORDER)  # each seat at its own id: the store's order, rows and runs alike
    first: dict[object, int] = {}
    last: object = None
    at = 0
    moved = False
    for seat in out:  # a game's seats at its first seat read (its deal tested there), in rows or in runs
        key = seat.game
        if key is last:  # the next seat of the game just met (a run's seats share one key a game)
            seat.order, seat.deal = at, False
            continue
        if key[0] == "seat":
            last = None  # a seat between two of a game's: that game's next seat is looked up (and sorted)
            continue
        placed = first.get(key)
        if placed is None:
            first[key] = at = seat.order
            last = key
        else:
            seat.order, seat.deal = placed, False
            last, at, moved = key, placed, True
    if moved:  # else each seat is in its place already (a game's seats one after the other, placed at its first)
        out.sort(key=_ORDER)
    if segment is not None:  # read with their games' other seats (placed as the whole store places them), then left
        kind, value = segment
        key_of = KEYS[kind]
        out = [seat for seat in out if key_of(seat) == value]
    return out


#: A seat's order: read with its own id, then placed at its game's first seat.
_ORDER = attrgetter("order")


def start_of(conn: Any, newest: int, rows_where: Any = None, runs_where: Any = None) -> int:
    """Where a bounded read starts (0: at the first seat, the segment has fewer seats):
    the later of the first seat of the run at which the newest runs hold ``newest`` seats
    and the ``newest``-th newest counted seat row's id. Both are at or before the
    ``newest``-th newest seat of rows and runs together, so the read from there holds it
    and every seat after it; and at most ``newest`` rows and the runs after the cut (one
    more: the run it cuts). Each an index walk back from the newest: the runs along
    ``ix_runs_first``, then the rows along their ids, from the runs' start only (seat
    rows are the few games with findings: a table's runs bound how far back they are read)."""
    import sqlalchemy as sa

    s, se, g, r = schema.seats, schema.sessions, schema.games, schema.runs
    runs = (sa.select(r.c.first_seat, r.c.rounds).select_from(r.join(se, se.c.id == r.c.session_id))
            .order_by(r.c.first_seat.desc()))
    if runs_where is not None:
        runs = runs.where(runs_where)
    held, from_runs = 0, 0
    walked = conn.execution_options(yield_per=100).execute(runs)
    try:
        for first, count in walked:
            held += count
            if held >= newest:
                from_runs = int(first)
                break
    finally:
        walked.close()
    rows = (sa.select(s.c.id).select_from(s.join(se, se.c.id == s.c.session_id).outerjoin(g, g.c.id == s.c.game_id))
            .where(s.c.kind == "counted", s.c.id >= from_runs).order_by(s.c.id.desc())
            .offset(max(0, newest - 1)).limit(1))
    if rows_where is not None:
        rows = rows.where(rows_where)
    return max(int(conn.execute(rows).scalar() or 0), from_runs)


def _whole(*amounts: object) -> None:
    """Stored millionths are integers; anything else was put there after they were stored."""
    for amount in amounts:
        if type(amount) is not int:
            raise TypeError(f"a stored amount is {amount!r}, not a whole number of millionths")


def only(segment: tuple[str, str] | None) -> tuple[Any, Any]:
    """The conditions on seat rows and on runs that read one segment's seats (None: all)."""
    if segment is None:
        return None, None
    import sqlalchemy as sa

    s, se, g, r, k, d = schema.seats, schema.sessions, schema.games, schema.runs, schema.run_keys, schema.dealer_games
    kind, value = segment
    if kind not in SEGMENTS:
        raise ValueError(f"no segment {kind!r} read alone: one of {', '.join(SEGMENTS)}")
    if kind == "table":
        return sa.or_(g.c.tbl == value, sa.and_(g.c.tbl.is_(None), se.c.tbl == value)), se.c.tbl == value
    if kind == "player":  # the rows of the player's games, their other seats too (a game is placed at its first)
        mine = s.alias("mine")
        return (sa.or_(s.c.game_id.in_(sa.select(mine.c.game_id).where(mine.c.player == value)),
                       s.c.player == value, sa.and_(s.c.player.is_(None), se.c.player == value)),
                sa.or_(se.c.player == value, r.c.id.in_(sa.select(k.c.run_id).where(k.c.kind == "player",
                                                                                   k.c.value == value))))
    if kind == "dealer":  # a game row's seats, and the runs that hold a game the dealer dealt, each looked up
        # by its key as the walk back reaches it (a dealer of years is in most runs of their tables; ``|| ''``:
        # SQLite without statistics took the dealer's index, all their games for each run)
        return g.c.dealer == value, sa.exists().where(d.c.run_id == r.c.id, (d.c.dealer + "") == value)
    if kind == "profile":  # a seat's profile is its session's (none given: the built-in one)
        origin = se.c.origin == value if value != DEFAULT_PROFILE else sa.or_(se.c.origin == value,
                                                                               se.c.origin.is_(None))
        return origin, origin
    return None, None  # a stake band's, or every seat: from every row and run


def _rows(conn: Any, after: int = 0, upto: int | None = None, where: Any = None) -> list[Seat]:
    import sqlalchemy as sa

    s, st, se, g = schema.seats, schema.settlements, schema.sessions, schema.games
    query = (sa.select(s.c.id, s.c.time_us, s.c.player, s.c.known, s.c.player_value, s.c.dealer_value,
                       s.c.bonus_value, st.c.outcome, st.c.ante_u, st.c.main_staked_u, st.c.main_net_u,
                       st.c.bonus_staked_u, st.c.bonus_net_u, st.c.lines, s.c.record, s.c.session_id, se.c.origin,
                       se.c.tbl.label("session_tbl"),
                       se.c.player.label("session_player"), g.c.id.label("game_row"), g.c.tbl, g.c.game,
                       g.c.dealer, g.c.second)
             .select_from(s.join(st, st.c.id == s.c.settlement_id).join(se, se.c.id == s.c.session_id)
                          .outerjoin(g, g.c.id == s.c.game_id))
             .where(s.c.kind == "counted", s.c.id > after).order_by(s.c.id))
    if upto is not None:
        query = query.where(s.c.id <= upto)
    if where is not None:
        query = query.where(where)
    out: list[Seat] = []
    said = Said(conn)
    unpacked: dict[int | None, tuple[int, ...] | None] = {}  # a shared hand's seats share their five cards
    for (row, time_us, player, known, player_value, dealer_value, bonus_value, outcome, ante_u, staked_u, net_u,
         bonus_u, bonus_net_u, lines, record, session_id, origin, session_tbl, session_player, game_row, tbl, game,
         dealer, second) in conn.execute(query):
        if ante_u is None or staked_u is None or net_u is None:
            continue  # an amount that is not a whole number of millionths: not summed
        _whole(ante_u, staked_u, net_u, bonus_u or 0)
        table = tbl if tbl is not None else session_tbl
        if game_row is None:
            key: tuple[object, ...] = ("seat", row)
        else:
            key = ("game", table, game) if game is not None else ("row", game_row)
        if known in unpacked:
            cards = unpacked[known]
        else:
            cards = unpacked[known] = unpack_known(known)
        out.append(Seat(  # its order and whether its deal is tested: its own, until seats() places its game
            order=row, game=key, time_us=time_us, table=table, dealer=dealer, profile=origin or DEFAULT_PROFILE,
            player=player if player is not None else session_player, ante_u=ante_u, staked_u=staked_u, net_u=net_u,
            bonus_u=bonus_u or 0, called=outcome != "fold", known=cards, bonus_value=bonus_value,
            deal=game_row is not None and not second, player_value=player_value, dealer_value=dealer_value,
            row=row, paid_u=paid_main(record, lines, bonus_net_u) if said(session_id) else None))
    return out


def paid_main(record: str | None, lines: str, bonus_net_u: int | None) -> int | None:
    """What a stored seat row was paid on the main game, in millionths (``Seat.paid_u``):
    what it was paid in all, read from its stored record as ``check`` reads it
    (``audit.owed.seat_paid``: its wallet's moves, else its record's net, return or
    wagers' results), less the Bonus net the rules give. None when nothing says what it
    was paid, or an amount is not a whole number of millionths."""
    from ..audit.owed import seat_paid
    from ..models.common import Recorded
    from ..models.decode import convert
    from ..models.table import WalletMove
    from ..store import codec

    if record is None:
        return None
    data = codec.loads(record)
    if not isinstance(data, dict):
        raise TypeError("a stored record is not an object")
    recorded, moves = data.get("recorded"), data.get("wallet")
    paid = seat_paid(None if recorded is None else convert(recorded, Recorded),
                     None if moves is None else [convert(m, WalletMove) for m in moves],
                     codec.lines_of(lines))
    if paid is None:
        return None
    paid_u = codec.micro(paid)
    bonus = bonus_net_u or 0
    _whole(bonus)
    return None if paid_u is None else paid_u - bonus


def _runs(conn: Any, after: int = 0, upto: int | None = None, where: Any = None,
          keep: Callable[[str], bool] | None = None) -> list[Seat]:
    """The fast lane's clean rounds (format 1: no table, dealer or time) and a live
    table's clean games, unpacked (``keep``: of a live table's, the seats of the players
    it keeps only, each placed at its game's first seat already)."""
    runs, settled = stored_runs(conn, after, upto, where)
    out: list[Seat] = []
    said = Said(conn)
    figured = {i: _settled(row) for i, row in settled.items()}  # a settlement's figures, once a store
    valued = _every_hand(runs)
    at = 0
    for run in runs:
        ids = json.loads(run.settlements)
        if run.games is None:
            found = _rounds(run, [settled[i] for i in ids])
        else:
            found = _games(run, [figured[i] for i in ids], keep, valued, at)
            at += int(run.games)
        if not said(run.session_id):
            for seat in found:
                seat.paid_u = None
        out += found
    return out


def stored_runs(conn: Any, after: int = 0, upto: int | None = None, where: Any = None
                ) -> tuple[list[Any], dict[int, Any]]:
    """The stored runs (after the run ``after``, up to ``upto``, those ``where`` picks), in
    the store's order, with their settlements' rows by id (amounts checked whole)."""
    import sqlalchemy as sa

    r, se, st = schema.runs, schema.sessions, schema.settlements
    query = (sa.select(r, se.c.origin, se.c.tbl, se.c.player.label("session_player"))
             .select_from(r.join(se, se.c.id == r.c.session_id)).where(r.c.id > after).order_by(r.c.first_seat))
    if upto is not None:
        query = query.where(r.c.id <= upto)
    if where is not None:
        query = query.where(where)
    runs = conn.execute(query).all()
    ids = sorted({i for run in runs for i in json.loads(run.settlements)})
    settled: dict[int, Any] = {}
    for start in range(0, len(ids), 500):
        part = ids[start:start + 500]
        for row in conn.execute(sa.select(st.c.id, st.c.outcome, st.c.ante_u, st.c.main_staked_u, st.c.main_net_u,
                                          st.c.bonus_staked_u, st.c.bonus_cat).where(st.c.id.in_(part))):
            settled[row.id] = row
            if row.ante_u is not None and row.main_staked_u is not None and row.main_net_u is not None:
                _whole(row.ante_u, row.main_staked_u, row.main_net_u, row.bonus_staked_u or 0)
    return runs, settled


class Said:
    """Whether a session's seats say what they were paid: its every seat recorded the net
    it was paid (its ledger's recorded nets as many as its seats, counted, void and
    invalid), looked up once a session.

    Why a session's, not a seat's: a run of clean games keeps each seat's settlement, not
    its record (that is in the kept bytes); the audit found whatever it recorded of its pay
    equal to the rules' net (else it would not be clean), but not whether it recorded any.
    A session whose every seat recorded its net says it for its runs' seats too; any other
    session's seats are taken to say nothing of their pay (left out of the paid basis,
    counted), never assumed paid, and its seat rows alike, so that a seat reads the same
    whether it is kept in a run or as a row (a store of rows only gives the same report)."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn
        self.known: dict[int, bool] = {}

    def __call__(self, session: int) -> bool:
        found = self.known.get(session)
        if found is None:
            import sqlalchemy as sa

            se = schema.sessions
            ledger = self.conn.execute(sa.select(se.c.ledger).where(se.c.id == session)).scalar()
            found = self.known[session] = ledger is not None and every_net_recorded(json.loads(ledger))
        return found


def every_net_recorded(ledger: dict[str, Any]) -> bool:
    """Whether a session's ledger recorded a net for each of its seats."""
    seats = sum(int(ledger.get(k) or 0) for k in ("counted_rounds", "void_rounds", "invalid_rounds"))
    return int(ledger.get("recorded_nets") or 0) >= seats


def _rounds(run: Any, picks: list[Any]) -> list[Seat]:
    """A run of format-1 rounds."""
    from ..rules.hands import evaluate

    out: list[Seat] = []
    for i in range(run.rounds):
        row = picks[int.from_bytes(run.picks[2 * i:2 * i + 2], "little")]
        if row.ante_u is None or row.main_staked_u is None or row.main_net_u is None:
            continue
        known = tuple(run.cards[9 * i:9 * i + 5])
        bonus = row.bonus_staked_u or 0
        out.append(Seat(
            order=run.first_seat + i, game=("seat", run.first_seat + i), time_us=None, table=run.tbl,
            dealer=None, profile=run.origin or DEFAULT_PROFILE, player=run.session_player, ante_u=row.ante_u,
            staked_u=row.main_staked_u, net_u=row.main_net_u, bonus_u=bonus, called=row.outcome != "fold",
            known=known, bonus_value=evaluate(list(known)).value if bonus else None, row=-run.id,
            paid_u=row.main_net_u))
    return out


def _games(run: Any, settled: list[tuple[int, int, int, int, bool, bool] | None],
           keep: Callable[[str], bool] | None = None, valued: tuple[list[int], list[int], list[int]] | None = None,
           at: int = 0) -> list[Seat]:
    """A run of a live table's clean games (``referee.store.tableruns``): each seat as its
    row had it (its hands its game's cards evaluated, its bonus hand's where its
    settlement has one; the five known cards one tuple a game, as its rows share them).
    Why the loops are written so: they are a first run's reading, a seat each (issue 47):
    a settlement's figures (``settled``, by pick: :func:`_settled`) are taken from its
    row once a store, not once a seat, and a game's five-card Bonus hand evaluated only
    when a seat of it has one."""
    from ..rules.hands import evaluate, evaluate_indexes
    from ..store.tableruns import NONE, Packed

    packed = Packed(run)
    out: list[Seat] = []
    append = out.append
    origin = run.origin or DEFAULT_PROFILE
    table = run.tbl
    players, dealers, names = packed.players, packed.dealers, packed.dealer_names
    seat_picks, player_picks, offsets, cards = packed.picks, packed.player_picks, packed.offsets, packed.cards
    first_seat, row_of = packed.first_seat, -run.id
    for game, (number, second, when) in enumerate(zip(packed.games, packed.second, packed.times, strict=True)):
        c = cards[9 * game:9 * game + 9]
        known = (c[0], c[1], c[2], c[3], c[4])
        bonus: int | None = None
        if valued is None:
            player = evaluate((c[0], c[1], c[2], c[3], c[4], c[5], c[6])).value
            dealer = evaluate((c[7], c[8], c[2], c[3], c[4], c[5], c[6])).value
        else:
            player, dealer = valued[0][at + game], valued[1][at + game]
        key = ("game", table, number)
        time_us = None if when == NONE else when
        by, deal = names[dealers[game]], not second
        if keep is not None:
            _kept(append, packed, game, settled, keep, (key, time_us, table, by, origin, known, deal, player, dealer))
            continue
        for place in range(offsets[game], offsets[game + 1]):
            figures = settled[seat_picks[place]]
            if figures is None:
                continue
            ante, staked, net, bonus_u, called, has_bonus = figures
            if has_bonus and bonus is None:
                bonus = evaluate_indexes(known).value if valued is None else valued[2][at + game]
            append(Seat(first_seat + place, key, time_us, table, by, origin, players[player_picks[place]], ante,
                        staked, net, bonus_u, called, known, bonus if has_bonus else None, deal, player, dealer,
                        row_of, paid_u=net))
    return out


def _kept(append: Callable[[Seat], None], packed: Any, game: int,
          settled: list[tuple[int, int, int, int, bool, bool] | None], keep: Callable[[str], bool],
          facts: tuple[Any, ...]) -> None:
    """A game's seats of the players ``keep`` keeps (:func:`_games`), each at the game's
    first seat and its deal tested at that seat only, as :func:`placed` places a game read
    whole."""
    from ..rules.hands import evaluate_indexes

    key, time_us, table, by, origin, known, deal, player, dealer = facts
    places = range(packed.offsets[game], packed.offsets[game + 1])
    first = packed.first_seat + next((at for at in places if settled[packed.picks[at]] is not None), places.start)
    for place in places:
        who = packed.players[packed.player_picks[place]]
        figures = settled[packed.picks[place]]
        if figures is None or not keep(who):
            continue
        ante, staked, net, bonus_u, called, has_bonus = figures
        bonus = evaluate_indexes(known).value if has_bonus else None
        append(Seat(first, key, time_us, table, by, origin, who, ante, staked, net, bonus_u, called, known, bonus,
                    deal and packed.first_seat + place == first, player, dealer, -packed.id, paid_u=net))


#: Fewer live-table games than this are evaluated one by one: the batch's tables cost about
#: 0.1 s to make (a 31 MB seven-card table among them), three evaluations a game 4.5 µs.
BATCH_GAMES = 40_000


def _every_hand(runs: list[Any], least: int = BATCH_GAMES) -> tuple[list[int], list[int], list[int]] | None:
    """Every live table's run's hands valued at once (:func:`_hand_values`), the runs one
    after the other; None (every game then evaluated one by one, a damaged run refused as
    before, where it was): fewer games than ``least``, or a run whose cards are not its
    games', do not read, or hold a card past 51 or twice in a game."""
    try:
        tabled = [run for run in runs if run.games is not None]
        cards = [bytes(run.cards) for run in tabled]
        games = [int(run.games) for run in tabled]
    except (TypeError, ValueError):
        return None
    if sum(games) < least or not all(len(c) == 9 * g for c, g in zip(cards, games, strict=True)):
        return None
    return _hand_values(b"".join(cards), sum(games))


def _hand_values(cards: bytes, games: int) -> tuple[list[int], list[int], list[int]] | None:
    """A run's games' hand values at once (``rules.batch``, NumPy): the player's seven
    cards, the dealer's, the five known (the Bonus hand), each ``evaluate``'s value.
    Why: a first run evaluated three hands a game one by one (1.3 s at 500,000 seats,
    issue 47). None, the games then evaluated one by one as before (and a damaged run's
    cards refused by ``evaluate``, its own words): no game, a card index past 51 or a
    game holding a card twice, or no NumPy (the desk reads seats without the monitor's
    extra)."""
    try:
        import numpy as np

        from ..rules.batch import evaluate_batch
    except ImportError:  # pragma: no cover - the store extra brings NumPy
        return None
    if not games or len(cards) < 9 * games:
        return None
    c = np.frombuffer(cards, np.uint8, 9 * games).reshape(games, 9).astype(np.intp)
    if not dealt_once(c):
        return None
    return (evaluate_batch(c[:, :7], check=False).tolist(),
            evaluate_batch(c[:, [7, 8, 2, 3, 4, 5, 6]], check=False).tolist(),
            evaluate_batch(c[:, :5], check=False).tolist())


def dealt_once(c: Any) -> bool:
    """Every game's nine card indexes (a row of ``c``) under 52 and none twice: what the
    hands valued at once need (``evaluate`` refuses the others in its own words)."""
    import numpy as np

    if c.size and int(c.max()) > 51:
        return False
    bits = np.left_shift(1, c, dtype=np.int64)
    return not (np.bitwise_or.reduce(bits, axis=1) != bits.sum(axis=1)).any()


def _settled(row: Any) -> tuple[int, int, int, int, bool, bool] | None:
    """A stored settlement's figures as a seat takes them: Ante, staked, net, Bonus
    stake, whether it called, whether it has a Bonus hand (None: an amount is not a whole
    number of millionths, the seat is not summed)."""
    if row.ante_u is None or row.main_staked_u is None or row.main_net_u is None:
        return None
    return (row.ante_u, row.main_staked_u, row.main_net_u, row.bonus_staked_u or 0, row.outcome != "fold",
            row.bonus_cat is not None)
