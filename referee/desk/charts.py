"""Watch's charts: each alert group's control chart, the monitor's own.

Why the monitor's drawing (:func:`referee.monitor.html.cell_chart`), not one of the desk's:
a group is a cell of the monitor that fell outside its band, and the chart that shows why
is the one ``monitor --format html`` draws for it: the running net observed against the
exact expectation and its band, over the group's window, by date when every game has a
time (else by game). One drawing, so the two never disagree. The seats are the group's
lead segment's only (a table's, a dealer's, a profile's, a stake band's, a player's, or
every seat: :data:`referee.monitor.reading.SEGMENTS`), and of those only the newest
:data:`WATCH_SEATS` (:func:`referee.monitor.window.newest`: a bounded read, as a table of
millions of seats would make the page take minutes; whole games, exactly that many seats
when the limit falls between two games; the page says how many games and seats it draws,
and ``monitor --format html`` draws the whole window), read and valued as the monitor
reads and values them; the band is at the z the group was raised at (its stored band's
``|z| > ...``); each point of the observed line opens its game. A deal test's group, or
one whose seats can no longer be read, has no chart here (``monitor --format html`` draws
it from the whole store).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup

from .backend import Backend

#: The bets a control chart is drawn for (a deal test has none).
CHARTED_BETS = ("ante+call", "bonus")
#: The most seats a chart reads: the segment's newest (:func:`referee.monitor.reading.seats`'
#: ``newest``). Why 10,000: the narrowest window (the last 1,000 games) of a table of up to
#: seven seats a game, read, valued and drawn in 0.6 to 0.7 s of CPU on a store of 10 million
#: seats (the whole of a table there: 9.4 s and 447 MiB a chart; ``bench/RESULTS.md``).
WATCH_SEATS = 10_000
_Z = re.compile(r"\|z\| > ([0-9]+(?:\.[0-9]+)?)")


@dataclass(frozen=True, slots=True)
class Chart:
    """A group's chart and what it draws: ``games`` of the group's window, the newest;
    ``seats``: the segment's newest seats read (:data:`WATCH_SEATS` at most, whole games);
    ``cut`` when older seats of the segment, of the window too, were not read."""

    svg: Markup
    games: int
    window: str
    cut: bool
    seats: int = 0


def band_z(band: str | None) -> float | None:
    """The z of a group's stored band (``... |z| > 3.72 each ...``), None when it says none."""
    found = _Z.search(band or "")
    return float(found.group(1)) if found else None


def group_chart(backend: Backend, actor: str, group: Any, band: str | None,
                words: Callable[[str], str] | None = None) -> Chart | None:
    """The control chart of ``group`` (an :class:`~referee.desk.shapes.AlertOut`) over the
    segment's newest :data:`WATCH_SEATS` seats, or None (see the module's docstring). A player's
    chart is a read of that player's records, logged. ``words``: its legend and axes in
    the page's language (:data:`referee.monitor.html.CHART_WORDS`)."""
    from ..monitor.cells import WINDOWS
    from ..monitor.html import cell_chart, game_times
    from ..monitor.reading import SEGMENTS, Unreadable
    from ..monitor.series import members
    from ..monitor.valuing import value
    from ..monitor.window import newest
    from ..profiles import kept_profiles
    from ..rules.hands import HandError

    kind, _, segment = str(group.lead).partition(" ")
    if kind not in SEGMENTS or not segment or group.bet not in CHARTED_BETS or group.window not in WINDOWS:
        return None
    bet = "paid" if group.basis == "paid" and group.bet == "ante+call" else str(group.bet)
    with backend.stored() as stored, backend.refusing(), stored.reading():
        try:
            read = newest(stored.conn, (kind, segment), WATCH_SEATS)
            found = read.seats
            if not found:
                return None
            with kept_profiles(stored.profiles(stored.sources())):
                valuation = value(found)
        except (Unreadable, HandError):  # changed after it was stored: Watch lists the sources' verification
            return None
    window = str(group.window)
    svg = cell_chart(found, kind, segment, bet, window, valuation.scale, valuation.scale2, band_z(band), link=_path,
                     words=words)
    times = game_times(members(found, kind, segment, bet, window, None))
    if kind == "player":
        backend.log(actor, "watch", [segment])
    return Chart(Markup(svg), len(times), window, read.cut and not _whole(window, times, found), len(found))


def _whole(window: str, times: list[int | None], read: list[Any]) -> bool:
    """Whether a cut read still holds the whole of ``window``: as many games as a count
    window counts, or a game read from before a calendar window's start (its newest
    game's time less its span)."""
    from ..monitor.cells import CALENDAR_WINDOWS, COUNT_WINDOWS, WINDOWS

    at = WINDOWS.index(window)
    if at < len(COUNT_WINDOWS):
        return len(times) >= COUNT_WINDOWS[at]
    span = CALENDAR_WINDOWS[at - len(COUNT_WINDOWS)][1]
    newest = max((t for t in times if t is not None), default=None)
    oldest = read[0].time_us if read else None
    return newest is not None and oldest is not None and oldest <= newest - span


def _path(game: str) -> str:
    from urllib.parse import quote

    return f"/games/{quote(game, safe='')}"
