"""Watch's charts: an alert group's games on a date axis, each point a link to its game.

Why drawn here as plain SVG (no script, no chart library): the page must read without
JavaScript and fetch nothing; a point is an ``<a>`` around a circle, so a click opens the
game. The games are the store's (:func:`referee.store.desk.search_games`) behind the
group's lead segment (a table, a dealer, a player; any other lead: every table) between
its first and last game's times; the height is what each game owes (above the axis to
players, below to the house).
"""

from __future__ import annotations

import html
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from markupsafe import Markup

from ..rules.money import fmt
from .backend import Backend

WIDTH, HEIGHT, LEFT, RIGHT, TOP, BOTTOM = 640, 170, 48, 16, 14, 34
#: The most games a chart draws (the newest, when more).
MOST = 300
FILTERS = ("table", "dealer", "player")


def _when(text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None


def group_games(backend: Backend, actor: str, lead: str, since: str | None, until: str | None) -> list[Any]:
    """The games behind a group with times (none when the group has no times); a read of
    each player listed, logged."""
    from ..store.desk import search_games

    start, end = _when(since), _when(until)
    if start is None or end is None:
        return []
    kind, _, value = lead.partition(" ")
    value = value if kind in FILTERS and value else ""
    with backend.stored() as stored, backend.refusing():
        hits = search_games(stored, table=value if kind == "table" else None,
                            dealer=value if kind == "dealer" else None, player=value if kind == "player" else None,
                            since=start, until=end + timedelta(seconds=1), limit=MOST)
    found = [h for h in hits if h.time is not None]
    backend.log(actor, "watch", [p for h in found for p in h.players])
    return found


def chart(hits: list[Any], label: str) -> Markup | None:
    """The games as points on a date axis (None without any)."""
    if not hits:
        return None
    times = [h.time.timestamp() for h in hits]
    values = [h.owed_to_player - h.owed_to_house for h in hits]
    low_t, high_t = min(times), max(times)
    span_t = (high_t - low_t) or 1.0
    top = max([abs(v) for v in values] + [Decimal(1)])
    inner_w, inner_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    mid = TOP + inner_h / 2

    def x(t: float) -> float:
        return LEFT + (t - low_t) / span_t * inner_w if high_t > low_t else LEFT + inner_w / 2

    def y(v: Decimal) -> float:
        return mid - float(v / top) * (inner_h / 2)

    parts = [f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{html.escape(label)}">',
             f'<line x1="{LEFT}" y1="{mid:.1f}" x2="{WIDTH - RIGHT}" y2="{mid:.1f}" class="axis"/>',
             f'<text x="{LEFT - 4}" y="{TOP + 8}" text-anchor="end" class="tick">+{fmt(top)}</text>',
             f'<text x="{LEFT - 4}" y="{HEIGHT - BOTTOM}" text-anchor="end" class="tick">-{fmt(top)}</text>']
    ticks = 5 if high_t > low_t else 1
    for i in range(ticks):
        t = low_t + span_t * i / 4 if high_t > low_t else low_t
        stamp = datetime.fromtimestamp(t, hits[0].time.tzinfo).strftime("%Y-%m-%d %H:%M")
        anchor = "middle" if ticks == 1 or 0 < i < ticks - 1 else ("start" if i == 0 else "end")
        parts.append(f'<line x1="{x(t):.1f}" y1="{HEIGHT - BOTTOM}" x2="{x(t):.1f}" y2="{HEIGHT - BOTTOM + 4}" '
                     'class="axis"/>'
                     f'<text x="{x(t):.1f}" y="{HEIGHT - 8}" text-anchor="{anchor}" class="tick">{stamp}</text>')
    for hit, t, v in zip(hits, times, values, strict=True):
        owed = fmt(abs(v))
        title = html.escape(f"{hit.game} · {hit.time.isoformat()} · {owed}")
        parts.append(f'<a href="/games/{html.escape(_path(hit.game))}"><circle cx="{x(t):.1f}" cy="{y(v):.1f}" r="4" '
                     f'class="{"owed" if v else "even"}"><title>{title}</title></circle></a>')
    parts.append("</svg>")
    return Markup("".join(parts))


def _path(game: str) -> str:
    from urllib.parse import quote

    return quote(game, safe="")
