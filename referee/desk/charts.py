"""Watch's charts: each alert group's control chart, the monitor's own.

Why the monitor's drawing (:func:`referee.monitor.html.cell_chart`), not one of the desk's:
a group is a cell of the monitor that fell outside its band, and the chart that shows why
is the one ``monitor --format html`` draws for it: the running net observed against the
exact expectation and its band, over the group's window, by date when every game has a
time (else by game). One drawing, so the two never disagree. The seats are the group's
lead segment's only (a table's or a player's: :data:`referee.monitor.reading.SEGMENTS`),
read and valued as the monitor reads and values them; the band is at the z the group was
raised at (its stored band's ``|z| > ...``); each point of the observed line opens its
game. A group of another lead (a dealer's, a profile's, every table's), a deal test's, or
one whose seats can no longer be read, has no chart here (``monitor --format html`` draws
it from the whole store).
"""

from __future__ import annotations

import re
from typing import Any

from markupsafe import Markup

from .backend import Backend

#: The bets a control chart is drawn for (a deal test has none).
CHARTED_BETS = ("ante+call", "bonus")
_Z = re.compile(r"\|z\| > ([0-9]+(?:\.[0-9]+)?)")


def band_z(band: str | None) -> float | None:
    """The z of a group's stored band (``... |z| > 3.72 each ...``), None when it says none."""
    found = _Z.search(band or "")
    return float(found.group(1)) if found else None


def group_chart(backend: Backend, actor: str, group: Any, band: str | None) -> Markup | None:
    """The control chart of ``group`` (an :class:`~referee.desk.shapes.AlertOut`), or None
    (see the module's docstring). A player's chart is a read of that player's records,
    logged."""
    from ..monitor.cells import WINDOWS
    from ..monitor.html import cell_chart
    from ..monitor.reading import SEGMENTS, Unreadable, seats
    from ..monitor.valuing import value
    from ..profiles import kept_profiles
    from ..rules.hands import HandError

    kind, _, segment = str(group.lead).partition(" ")
    if kind not in SEGMENTS or not segment or group.bet not in CHARTED_BETS or group.window not in WINDOWS:
        return None
    bet = "paid" if group.basis == "paid" and group.bet == "ante+call" else str(group.bet)
    with backend.stored() as stored, backend.refusing(), stored.reading():
        try:
            found = seats(stored.conn, segment=(kind, segment))
            if not found:
                return None
            with kept_profiles(stored.profiles(stored.sources())):
                valuation = value(found)
        except (Unreadable, HandError):  # changed after it was stored: Watch lists the sources' verification
            return None
    svg = cell_chart(found, kind, segment, bet, str(group.window), valuation.scale, valuation.scale2, band_z(band),
                     link=_path)
    if kind == "player":
        backend.log(actor, "watch", [segment])
    return Markup(svg)


def _path(game: str) -> str:
    from urllib.parse import quote

    return f"/games/{quote(game, safe='')}"
