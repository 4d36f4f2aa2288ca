"""``referee recall``: a round and the ones before it, from many logs, at the desk.

Regulators ask that the last game and the nine before it can be recalled with their
outcome, stakes, wins and balances. Recall streams the audit of every input (the
same events ``check`` reports, so the rulings and running balances are the audit's)
and keeps only a window of the last ``K`` rounds of the stream it is asked about:
a month of logs is never held.

Recall works on *round views* (:class:`RoundView`): the facts of one round whatever
the log's format (session, round number, game id, time, player, ruling, record,
balance). :func:`round_views` makes them from the audit's events: a format-1 round is
one view, a format-2 game one view per seat (:func:`seat_views`).

``--last K`` counts games, not views (:func:`games`): a format-1 round is a game of one
seat, a live table's game is every seat of it that is asked about (all of them; with
``--player``, the player's, one unless they hold several), so that the window is the game
asked for and the ``K - 1`` games before it, never a game cut partway (AGCO 13.1.1: the
last game and the nine before it).
"""

from __future__ import annotations

import itertools
import mmap
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from .audit.owed import wallet_net
from .audit.results import Finding, InputInfo, RoundResult, SessionInfo
from .audit.stream import Options
from .load.inputs import Source
from .models.common import Recorded
from .pipeline import events
from .report.text import round_status
from .rules.money import signed
from .rules.settlement import Ruling

DEFAULT_LAST = 10
#: Every session opened gets its own key, even across calls (two sessions may share an id).
_KEYS = itertools.count(1)
#: Sessions named in a message when a query is ambiguous.
NAMED_SESSIONS = 8


@dataclass(frozen=True, slots=True)
class RoundView:
    """One round as recall shows it, whatever the format of its log."""

    session: str
    #: Unique per session opened in this recall (two sessions may share an id).
    session_key: int
    number: int | None
    game: str | None
    time: datetime | None
    player: str | None
    decision: str | None
    ruling: Ruling | None
    recorded: Recorded | None
    balance: Decimal
    recorded_balance: Decimal | None
    status: str
    file: str
    line: int
    findings: tuple[Finding, ...] = ()
    #: What the full ruling is explained from (format 1: the session and the round's audit;
    #: a live table's seat: its :class:`SeatDetail`, when the session is known).
    detail: Any = None
    #: A seat of a live table's game (format 2): the seats of one game are recalled together.
    live: bool = False
    #: What the seat's wallet moved (credits, cancels and refunds less debits), when it has one.
    wallet: Decimal | None = None
    #: Where the recorded balance first left the rules' chain, when it is off here: that
    #: row's (round number, game id), set by :class:`Selector` from the rows before.
    off_since: tuple[int | None, str | None] | None = None

    @property
    def off(self) -> Decimal | None:
        """How far the recorded balance is from the rules' chain (None: not recorded)."""
        return None if self.recorded_balance is None else self.recorded_balance - self.balance


@dataclass(frozen=True, slots=True)
class SeatDetail:
    """What a live table's seat is explained from (``explain --game G --player P``'s
    ruling): its session, its game's audit and its own."""

    info: SessionInfo
    game: Any
    seat: Any


GameKey = tuple[int, str | None, int | None]


def game_key(v: RoundView) -> GameKey | None:
    """The game a live table's seat belongs to (its session opened and its game id, or its
    number when it has no id); None for a round of format 1, a game of its own."""
    return (v.session_key, v.game, None if v.game is not None else v.number) if v.live else None


def games(rows: Iterable[RoundView]) -> list[list[RoundView]]:
    """Rows by game: a round of format 1 alone, the seats of a live table's game (one after
    the other, as the audit gives them) together; a game recorded twice on lines one after
    the other is one game."""
    out: list[list[RoundView]] = []
    for v in rows:
        key = game_key(v)
        if out and key is not None and game_key(out[-1][-1]) == key:
            out[-1].append(v)
        else:
            out.append([v])
    return out


@dataclass(frozen=True, slots=True)
class Query:
    """What the desk asks: whose rounds, which one, and how many up to it."""

    player: str | None = None
    session: str | None = None
    round: int | None = None
    game: str | None = None
    at: datetime | None = None
    last: int = DEFAULT_LAST

    def words(self) -> str:
        """The query in words, for the answer's heading and the not-found message."""
        target = (f"round {self.round}" if self.round is not None else f"game {self.game}" if self.game is not None
                  else f"the last round at or before {self.at.isoformat()}" if self.at is not None
                  else "the last round")
        whose = "".join([f" of player {self.player}" if self.player is not None else "",
                         f" in session {self.session}" if self.session is not None else ""])
        return target + whose


@dataclass(slots=True)
class Match:
    """The rounds recalled for one target: the window ending with it."""

    rows: list[RoundView]
    target: int  # how many rows at the end are the target (a void deal and its replay share a number)


@dataclass(slots=True)
class Recall:
    """The answer: the windows found and what was searched."""

    query: Query
    matches: list[Match]
    files: int = 0
    skipped_files: int = 0
    #: Files not audited because later files already held the last rounds asked for.
    unneeded_files: int = 0
    sessions: int = 0
    rounds: int = 0
    seen: dict[str, int] = field(default_factory=dict)
    #: Inputs that could not be read in full (exit 2).
    unreadable: list[str] = field(default_factory=list)
    #: ``recall --store``: the store searched (its indexes, not the files).
    store: str | None = None
    #: ``recall --store``: what was searched, in the words every recall from it uses
    #: (set by the store's recall, which may read the report's words: this module may not).
    searched: str | None = None
    #: ``recall --store``: the stored records read that changed after they were stored
    #: (their digests no longer match; exit 1, each said on standard error).
    changed: list[str] = field(default_factory=list)


class RecallError(Exception):
    """Nothing found, or a question with several answers (exit 2); the message says what was searched."""


def round_views(sources: Iterable[Source], options: Options,
                unreadable: list[str] | None = None) -> Iterator[RoundView | SessionInfo]:
    """The views of format 1's rounds, from the audit's events, with each session's
    opening (so that a caller counts sessions even when they hold no round).

    Format 2 (games and seats): a view per seat of each game, with ``game`` and
    ``player`` set; the selection is the same.
    """
    from .audit.games import GameResult, round_view

    info: SessionInfo | None = None
    key = 0
    for event in events(sources, options):
        if isinstance(event, SessionInfo):
            info = event
            key = next(_KEYS)
            yield event
        elif isinstance(event, GameResult) and event.format == 1 and info is not None:
            yield view_of(round_view(event), info, key)
        elif isinstance(event, InputInfo) and not event.readable and unreadable is not None:
            unreadable.append(event.file)
        elif isinstance(event, GameResult):
            yield from seat_views(event, key, info)


def seat_views(game: Any, key: int, info: SessionInfo | None = None) -> Iterator[RoundView]:
    """Format 2: a view per seat of a game (its player's ruling and balance; the game's
    own findings on every seat). The full ruling of a seat is ``explain --game``'s: with
    the session's ``info``, a view carries what it is explained from (the page draws it)."""
    record = game.record
    when = (record.settled or record.started) if record is not None else None
    for seat in game.seats:
        findings = (*game.findings, *seat.findings)
        seat_record = seat.record
        yield RoundView(
            session=game.session, session_key=key, number=game.number, game=game.game, time=when,
            player=seat.player_id, decision=seat_record.decision if seat_record is not None else None,
            ruling=seat.ruling, recorded=seat_record.recorded if seat_record is not None else None,
            balance=seat.balance, recorded_balance=seat.recorded_balance,
            status=_seat_status(seat, findings), file=seat.file, line=seat.line, findings=findings, live=True,
            wallet=wallet_net(seat),
            detail=None if info is None else SeatDetail(info, game, seat))


def _seat_status(seat: Any, findings: tuple[Finding, ...]) -> str:
    codes = " ".join(sorted({f.code for f in findings}))
    if codes:
        return codes
    if seat.recorded_balance is not None and seat.recorded_balance != seat.balance:
        return f"bal. off {signed(seat.recorded_balance - seat.balance)}"
    return "cancelled" if seat.cancelled else "not ruled" if seat.ruling is None else (
        "void" if seat.ruling.outcome == "void" else "ok")


def view_of(result: RoundResult, info: SessionInfo, key: int) -> RoundView:
    record = result.record
    meta = record.meta if record is not None and record.meta else {}
    game = meta.get("game")
    player = meta.get("player", info.player)
    return RoundView(
        session=result.session, session_key=key, number=result.number,
        game=None if game is None else str(game), time=record.time if record is not None else None,
        player=None if player is None else str(player), decision=record.decision if record is not None else None,
        ruling=result.ruling, recorded=record.recorded if record is not None else None, balance=result.balance,
        recorded_balance=result.recorded_balance, status=round_status(result), file=result.file, line=result.line,
        findings=tuple(result.findings), detail=(info, result),
    )


class Selector:
    """Keeps the last ``K`` games of the stream asked about (a round of format 1, the seats
    asked about of a live table's game) and the windows that end with a target; memory is
    ``K`` games (and the matches), whatever the input."""

    def __init__(self, query: Query) -> None:
        self.q = query
        #: The last games, each its rows (views) asked about.
        self.window: deque[list[RoundView]] = deque(maxlen=query.last)
        self.key: int | None = None
        self.matches: list[Match] = []
        self.pending: Match | None = None
        self.best_time: datetime | None = None
        self.seen: dict[str, int] = {}
        self.rounds = 0
        self.sessions = 0
        #: Per session and player, by how much the recorded balance is off the rules' chain
        #: and the row where it came to be off by that (while it is off).
        self.departed: dict[tuple[int, str | None], tuple[Decimal, tuple[int | None, str | None] | None]] = {}
        #: Players (per session) whose rows are fed from partway into a streak off the
        #: chain (a store looks back only so far): where it began is not known.
        self.unknown: set[tuple[int, str | None]] = set()

    def wanted(self, v: RoundView) -> bool:
        q = self.q
        return (q.session is None or v.session == q.session) and (q.player is None or v.player == q.player)

    def feed(self, v: RoundView) -> None:
        self.rounds += 1
        if not self.wanted(v):
            return
        if v.session not in self.seen and len(self.seen) < NAMED_SESSIONS:
            self.seen[v.session] = 0
        if v.session in self.seen:
            self.seen[v.session] += 1
        v = self.departure(v)
        if self.q.player is None and v.session_key != self.key:
            self.window.clear()  # a session's window never reaches into another session
            self.pending = None
        self.key = v.session_key
        key = game_key(v)
        if key is not None and self.window and game_key(self.window[-1][-1]) == key:
            self.window[-1].append(v)  # another seat of the same game
        else:
            self.window.append([v])
        q = self.q
        if q.round is not None or q.game is not None:
            if (v.number == q.round) if q.round is not None else (v.game == q.game):
                if self.pending is not None:  # another seat of the game, or the replay of a void deal
                    self.pending.rows = self.rows()
                    self.pending.target = min(self.pending.target + 1, len(self.pending.rows))
                else:
                    self.pending = Match(self.rows(), 1)
                    self.matches.append(self.pending)
            else:
                self.pending = None
        elif q.at is not None:
            when = _aware(v.time)
            if when is not None and when <= q.at and (self.best_time is None or when >= self.best_time):
                self.best_time = when
                self.matches = [self.last_game()]

    def departure(self, v: RoundView) -> RoundView:
        """The row, with where its player's recorded balance left the rules' chain by
        what it is off here, when it is off (a row that records no balance keeps the
        streak; one back on the chain ends it; one off by another amount starts another,
        its own finding saying why). Why here: the row that departed may be far before
        the window, so every row fed is followed, one entry per player off the chain."""
        off = v.off
        key = (v.session_key, v.player)
        if off is None:
            return v
        if off == 0:
            self.departed.pop(key, None)
            return v
        known = self.departed.get(key)
        if known is None or known[0] != off:
            begun = None if known is None and key in self.unknown else (v.number, v.game)
            known = self.departed[key] = (off, begun)
        return v if known[1] is None else replace(v, off_since=known[1])

    def rows(self) -> list[RoundView]:
        """The rows of the games in the window."""
        return [v for game in self.window for v in game]

    def last_game(self) -> Match:
        """The window as it is, its last game the target (every seat of it asked about)."""
        return Match(self.rows(), len(self.window[-1]))

    def finish(self) -> list[Match]:
        q = self.q
        if q.round is None and q.game is None and q.at is None and self.window:
            return [self.last_game()]
        return self.matches


def _aware(when: datetime | None) -> datetime | None:
    """Times without a zone are read as UTC, so that any two compare."""
    if when is None or when.tzinfo is not None:
        return when
    return when.replace(tzinfo=UTC)


def parse_time(text: str) -> datetime:
    """``--at``: ISO 8601 (``2026-11-29T21:30``, ``2026-11-29 21:30:05+01:00``); no zone means UTC."""
    when = _aware(datetime.fromisoformat(text.strip().replace("Z", "+00:00")))
    assert when is not None
    return when


def recall(sources: list[Source], query: Query, options: Options | None = None) -> Recall:
    """Stream every input and return the windows the query asks for, or raise
    :class:`RecallError` saying what was searched."""
    needle = query.session or query.player or query.game
    searched = [s for s in sources if needle is None or _mentions(s, needle)]
    found = Recall(query, [], len(sources), len(sources) - len(searched))
    if query.round is None and query.game is None and query.at is None and needle is not None:
        _latest(searched, query, options or Options(), found)
    else:
        selector = _run(searched, query, options or Options(), found)
        found.matches = selector.finish()
    _check(found)
    return found


def _run(sources: list[Source], query: Query, options: Options, found: Recall) -> Selector:
    selector = Selector(query)
    for item in round_views(sources, options, found.unreadable):
        if isinstance(item, SessionInfo):
            selector.sessions += 1
        else:
            selector.feed(item)
    found.sessions += selector.sessions
    found.rounds += selector.rounds
    for name, count in selector.seen.items():
        if name in found.seen or len(found.seen) < NAMED_SESSIONS:
            found.seen[name] = found.seen.get(name, 0) + count
    return selector


def _latest(sources: list[Source], query: Query, options: Options, found: Recall) -> None:
    """The last rounds of a player or a session: the files are read from the last, and
    earlier files only while the rounds found are fewer than asked (a session never
    spans files, so a later file's rounds never depend on an earlier file's); the games
    are counted (a game never spans files either)."""
    found_games: list[list[RoundView]] = []
    for done, source in enumerate(reversed(sources), start=1):
        windows = _run([source], query, options, found).finish()
        if windows:
            found_games = games(windows[-1].rows) + found_games
        if len(found_games) >= query.last or (found_games and query.player is None):
            found.unneeded_files = len(sources) - done
            break
    if found_games:
        kept = found_games[-query.last:]
        found.matches = [Match([v for game in kept for v in game], len(kept[-1]))]


def _check(found: Recall) -> None:
    q = found.query
    where = (f"searched {found.files} file{'s' * (found.files != 1)}"
             + (f", {found.skipped_files} not mentioning {q.session or q.player or q.game!r}"
                if found.skipped_files else "")
             + (f", {found.unneeded_files} earlier not needed" if found.unneeded_files else "")
             + f": {found.sessions} session{'s' * (found.sessions != 1)}, "
               f"{found.rounds:,} round{'s' * (found.rounds != 1)}")
    if found.searched is not None:  # what a store holds, said as every recall from it says it
        where = found.searched
    if not found.matches:
        hint = ""
        if q.player is not None and not found.seen:
            hint = ("; no player in them has that id (a live table writes it as player_id, a log of single "
                    "rounds in its session's meta: {player: ...}, or a round's)")
        elif q.game is not None:
            hint = ("; no game in them has that id (a live table writes it as game, a log of single rounds in a "
                    "round's meta: {game: ...})")
        raise RecallError(f"{q.words()}: not found ({where}){hint}")
    if q.session is None:
        if q.round is not None or q.game is not None:
            names = sorted({v.session for m in found.matches for v in m.rows[len(m.rows) - m.target:]})
        else:
            names = sorted(found.seen) if q.player is None else []
        if len(names) > 1:
            raise RecallError(f"{q.words()}: the inputs hold several sessions ({', '.join(names[:NAMED_SESSIONS])}"
                              f"{', ...' if len(names) >= NAMED_SESSIONS else ''}); choose one with --session"
                              f"{'' if q.player else ' or --player'} ({where})")


def _mentions(source: Source, needle: str) -> bool:
    """Whether a file's bytes hold ``needle`` at all: a file that never mentions the
    session, player or game asked about cannot hold its rounds, so it is not audited.
    Stdin and names with characters a log may escape are always audited."""
    if source.path is None or not needle.isascii() or any(c in needle for c in "\\\"'\n"):
        return True
    try:
        with open(source.path, "rb") as fh:
            if fh.seek(0, 2) == 0:
                return True
            with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as data:
                return data.find(needle.encode()) >= 0
    except (OSError, ValueError):
        return True  # let the audit report what is wrong with it
