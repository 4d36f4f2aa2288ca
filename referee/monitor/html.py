"""``monitor --format html``: one self-contained page, a control chart a segment.

The conventions of ``referee report``'s page (the ``report`` extra): Jinja2 templates of
the package (``monitor.html.j2``, the shared ``_style.html.j2``), pygal charts rendered
to inline SVG, no script and nothing fetched when the page is opened.
"""

from __future__ import annotations

import re
from typing import Any

from .. import __version__
from ..escape import on_page
from .facts import Seat
from .output import BET_WORDS, band_words, deal_row, github_line, summary, table_row, when
from .run import Verdict
from .series import Point, members, running

#: Players get a chart only when one of their cells alerts (a casino has thousands).
CHARTED = ("all", "table", "dealer", "profile", "stake")
WIDEST = "last 100,000 games"


class HtmlUnavailable(Exception):
    """Jinja2 or pygal is missing (the ``report`` extra)."""


def page(v: Verdict, seats: list[Seat], shown: str) -> str:
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
        points = running(members(seats, kind, segment, bet, WIDEST, v.newest_us), bet, v.scale, v.scale2)
        words = "Ante+Call paid" if bet == "paid" else BET_WORDS[bet]
        charts.append({"title": f"{kind} {segment}, {words}", "svg": jinja2_markup(_chart(points, v.band.z))})
    return str(env.get_template("monitor.html.j2").render(
        version=__version__, store=shown, seats=f"{v.seats:,}", games=f"{v.games:,}",
        newest=when(v.newest_us) or "no game has a time", band=band_words(v.band), summary=summary(v),
        alerts=[github_line(j, v) for j in v.every_alert], z=f"{v.band.z:.2f}", charts=charts,
        headers=["segment", "value", "bet", "window", "games", "seats", "staked", "RTP", "expected", "z", "outside"],
        rows=[{"alert": j.alert, "cells": table_row(j)} for j in v.cells if j.same_as is None],
        deal_headers=["segment", "value", "window", "test", "deals", "statistic", "p", "outside"],
        deal_rows=[{"alert": j.alert, "cells": deal_row(j)} for j in v.deals if j.same_as is None]))


def jinja2_markup(svg: str) -> Any:
    import markupsafe

    return markupsafe.Markup(svg)


def _chart(points: list[Point], z: float) -> str:
    import pygal
    from pygal.style import Style

    style = Style(background="transparent", plot_background="transparent", foreground="#8b949e",
                  foreground_strong="#8b949e", foreground_subtle="#8b949e",
                  colors=("#0b72d9", "#d97b0b", "#8b949e", "#8b949e"), font_family="system-ui, sans-serif")
    chart = pygal.XY(style=style, js=[], disable_xml_declaration=True, show_dots=False, width=960, height=320,
                     x_title="games", y_title="net", legend_at_bottom=True, truncate_legend=-1,
                     explicit_size=False, print_values=False, show_x_guides=False,
                     x_value_formatter=lambda x: f"{x:,.0f}")
    chart.add("observed", [(p.games, p.observed) for p in points])
    chart.add("expected", [(p.games, p.expected) for p in points])
    chart.add("band", [(p.games, p.expected + z * p.sd) for p in points], stroke_style={"dasharray": "4, 4"})
    # the band's lower edge: no title, no legend entry of its own (it was an unlabelled grey box)
    chart.add(None, [(p.games, p.expected - z * p.sd) for p in points], stroke_style={"dasharray": "4, 4"})
    # pygal leaves its configuration as an inline script even without its scripts: dropped
    return _SCRIPT.sub("", str(chart.render(is_unicode=True)))


_SCRIPT = re.compile(r"<script\b.*?</script>", re.S)
