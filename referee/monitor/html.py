"""``monitor --format html``: one self-contained page, a control chart a segment.

The conventions of ``referee report``'s page (the ``report`` extra): Jinja2 templates of
the package (``monitor.html.j2``, the shared ``_style.html.j2``), pygal charts rendered
to inline SVG, no script and nothing fetched when the page is opened.
"""

from __future__ import annotations

import itertools
import re
import shlex
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from .. import __version__
from ..escape import on_page
from .facts import Seat, when
from .groups import AlertGroup, GroupedAlert
from .output import BET_WORDS, band_words, deal_row, github_line, group_words, summary, table_row
from .run import Verdict
from .series import Point, members, running

#: Players get a chart only when one of their cells alerts (a casino has thousands).
CHARTED = ("all", "table", "dealer", "profile", "stake")
WIDEST = "last 100,000 games"


class HtmlUnavailable(Exception):
    """Jinja2 or pygal is missing (the ``report`` extra)."""


def page(v: Verdict, seats: list[Seat], shown: str, groups: list[AlertGroup] | None = None) -> str:
    try:
        import jinja2
        import pygal  # noqa: F401
    except ImportError:
        raise HtmlUnavailable("monitor --format html needs Jinja2 and pygal: pip install 'referee[report]'") from None
    env = jinja2.Environment(loader=jinja2.PackageLoader("referee", "templates"), autoescape=True,
                             finalize=on_page)  # invisible characters in a name escaped
    alerting = {(j.cell.kind, j.cell.segment, j.cell.summed_as) for j in v.cells if j.alert}  # repeats too
    charts = []
    for kind, segment, bet in dict.fromkeys((j.cell.kind, j.cell.segment, j.cell.summed_as) for j in v.cells
                                            if j.cell.tested and j.same_as is None):
        if kind not in CHARTED and (kind, segment, bet) not in alerting:
            continue
        words = "Ante+Call paid" if bet == "paid" else BET_WORDS[bet]
        charts.append({"title": f"{kind} {segment}, {words}",
                       "svg": jinja2_markup(cell_chart(seats, kind, segment, bet, WIDEST, v.scale, v.scale2, v.band.z,
                                                       v.newest_us))})
    return str(env.get_template("monitor.html.j2").render(
        version=__version__, store=shown, seats=f"{v.seats:,}", games=f"{v.games:,}",
        newest=when(v.newest_us) or "no game has a time", band=band_words(v.band), summary=summary(v),
        alerts=[github_line(j, v) for j in v.every_alert], z=f"{v.band.z:.2f}", charts=charts,
        groups=[_group(g, shown) for g in groups or []],
        headers=["segment", "value", "bet", "window", "games", "seats", "staked", "RTP", "expected", "z", "outside"],
        rows=[{"alert": j.alert, "cells": table_row(j)} for j in v.cells if j.same_as is None],
        deal_headers=["segment", "value", "window", "test", "deals", "statistic", "p", "outside"],
        deal_rows=[{"alert": j.alert, "cells": deal_row(j)} for j in v.deals if j.same_as is None]))


def jinja2_markup(svg: str) -> Any:
    import markupsafe

    return markupsafe.Markup(svg)


def _group(g: AlertGroup, shown: str) -> dict[str, object]:
    """A group on the page: its words, the segments under it, and the command lines that
    show its first and last games (``recall`` the game and the nine before it, ``explain``
    its ruling), ready to paste."""
    commands = []
    for game in dict.fromkeys(x for x in (g.first_game, g.last_game) if x is not None):
        commands.append(f"referee recall --store {shlex.quote(shown)} --game {shlex.quote(game)}")
        commands.append(f"referee explain --store {shlex.quote(shown)} --game {shlex.quote(game)}")
    return {"words": group_words(g), "lead": g.lead, "segments": list(g.segments[1:]), "commands": commands,
            "alerts": [_alert_words(a) for a in g.alerts]}


def _alert_words(a: GroupedAlert) -> str:
    """One alert of a group, on a line: its segment, bet, window and figure."""
    if a.test == "rtp":
        figure = f"RTP z {a.z:+.2f} ({a.basis} basis)" if a.z is not None else "RTP"
    else:
        figure = f"{a.test} p {a.p:.2g}" if a.p is not None else a.test
    return f"{a.segment}, {a.bet}, {a.window}: {figure}"


def cell_chart(seats: list[Seat], kind: str, segment: str, bet: str, window: str, scale: int, scale2: int,
               z: float | None, newest: int | None = None, link: Callable[[str], str] | None = None,
               words: Callable[[str], str] | None = None) -> str:
    """A cell's control chart (its seats among ``seats``, valued over ``scale`` and
    ``scale2``; the band at ``z`` when given): the one drawing of ``monitor --format html``
    and of the desk's Watch, which gives ``link`` (a game's id to the address of its
    page: each point of the observed line then opens its game) and ``words`` (its
    legend's and axes' words, :data:`CHART_WORDS`, in its reader's language)."""
    held = members(seats, kind, segment, bet, window, newest)
    points = running(held, bet, scale, scale2)
    links = None
    if link is not None:
        ids = game_ids(held)
        links = [None if ids[p.games - 1] is None else link(str(ids[p.games - 1])) for p in points]
    return _chart(points, z, game_times(held), links, words or str)


def game_ids(held: list[Seat]) -> list[str | None]:
    """Each game's id in ``held``, in the order of :func:`game_times` (None: a format-1
    round, which is no game of a table)."""
    out: list[str | None] = []
    last: object = None
    for s in held:
        if s.game != last or not out:
            key = s.game
            out.append(str(key[2]) if isinstance(key, tuple) and key[0] == "game" else None)
            last = s.game
    return out


def game_times(held: list[Seat]) -> list[int | None]:
    """Each game's time in ``held`` (a cell's seats, oldest first), in the order
    ``series.running`` counts the games: its point ``games = n`` is the n-th."""
    out: list[int | None] = []
    last: object = None
    for s in held:
        if s.game != last or not out:
            out.append(s.time_us)
            last = s.game
        elif out[-1] is None:
            out[-1] = s.time_us
    return out


#: The words a chart draws (its legend and its axes' titles): what ``words`` says in another language.
CHART_WORDS = ("net", "time (UTC)", "games", "observed", "expected", "band")


def _chart(points: list[Point], z: float | None, times: list[int | None] | None = None,
           links: list[str | None] | None = None, words: Callable[[str], str] = str) -> str:
    """The control chart: over the games, or over their dates when every game has a time
    and they follow each other in time (a segment of tables stored one after the other
    does not: its running sums are in store order, and a date axis would fold them back).
    The band at ``z`` when given; each observed point a link when ``links`` are given."""
    import pygal
    from pygal.style import Style

    at = [None if times is None else times[p.games - 1] for p in points]
    dated = bool(at) and all(t is not None for t in at) and all(
        a <= b for a, b in itertools.pairwise(at) if a is not None and b is not None)

    style = Style(background="transparent", plot_background="transparent", foreground="#8b949e",
                  foreground_strong="#8b949e", foreground_subtle="#8b949e",
                  colors=("#0b72d9", "#d97b0b", "#8b949e", "#8b949e"), font_family="system-ui, sans-serif")
    options: dict[str, Any] = dict(style=style, js=[], disable_xml_declaration=True, show_dots=False, width=960,
                                   height=320, y_title=words("net"), legend_at_bottom=True, truncate_legend=-1,
                                   explicit_size=False, print_values=False, show_x_guides=False)
    x: list[Any]
    if dated:
        chart = pygal.DateTimeLine(x_title=words("time (UTC)"), x_label_rotation=20,
                                   x_value_formatter=lambda d: d.strftime("%Y-%m-%d %H:%M"), **options)
        x = [datetime.fromtimestamp((t or 0) / 1e6, UTC).replace(tzinfo=None) for t in at]
    else:
        chart = pygal.XY(x_title=words("games"), x_value_formatter=lambda v: f"{v:,.0f}", **options)
        x = [p.games for p in points]
    observed: list[Any] = [(at, p.observed) for at, p in zip(x, points, strict=True)]
    if links is None:
        chart.add(words("observed"), observed)
    else:  # a dot a point, each opening its game
        dots = [value if href is None else {"value": value, "xlink": {"href": href, "target": "_self"}}
                for value, href in zip(observed, links, strict=True)]
        chart.add(words("observed"), dots, show_dots=True, dots_size=2.5)
    chart.add(words("expected"), [(at, p.expected) for at, p in zip(x, points, strict=True)])
    if z is not None:
        chart.add(words("band"), [(at, p.expected + z * p.sd) for at, p in zip(x, points, strict=True)],
                  stroke_style={"dasharray": "4, 4"})
        # the band's lower edge: no title, no legend entry of its own (it was an unlabelled grey box)
        chart.add(None, [(at, p.expected - z * p.sd) for at, p in zip(x, points, strict=True)],
                  stroke_style={"dasharray": "4, 4"})
    # pygal leaves its configuration as an inline script even without its scripts: dropped
    return _SCRIPT.sub("", str(chart.render(is_unicode=True)))


_SCRIPT = re.compile(r"<script\b.*?</script>", re.S)
