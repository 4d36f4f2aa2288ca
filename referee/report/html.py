"""``referee report``: the audit as one self-contained HTML file, for people who look.

Made with Jinja2 templates (``referee/templates``) and pygal charts rendered to inline
SVG (no script, no network when opened), in English or French through the same
gettext catalogue as ``explain``. Sessions are rendered as they close and written to
a spool file, then the head (integrity block and summary, known only at the end) and
the spool are joined: a 100,000-round audit is never held twice in memory. Long
sessions are summarised: the ledger table keeps its first and last rounds and every
round with a finding, the chart at most ``MAX_POINTS`` points, the rulings at most
``MAX_DETAILS`` rounds.
"""

from __future__ import annotations

import html
import math
import re
import shutil
import tempfile
from collections import deque
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TextIO

from ..analysis.distributions import z_for
from ..audit.codes import CODES
from ..audit.explain import ExplainError, explain
from ..audit.results import Finding, InputInfo, RoundResult, SessionInfo, SessionResult, Summary
from ..i18n import Messages
from ..rules.money import fmt, signed
from .base import Reporter
from .ruling import RulingText
from .text import HEADERS, ledger_row

MAX_POINTS = 2000
MAX_DETAILS = 300
MAX_DIVERGENT = 300
HEAD_ROWS = TAIL_ROWS = 200
FULL_LEDGER = 1000
#: Across the whole report: past these, each further session shows only its first and
#: last few rounds and those with findings, and a thinner chart, so that a 100,000-round
#: audit stays a file a browser opens in a few seconds.
ROW_BUDGET = 5000
POINT_BUDGET = 20000
COMPACT_ROWS = 10
COMPACT_POINTS = 200
RED_CARD = re.compile(r"\b(10|[2-9TJQKA])([♥♦])")


def _environment(messages: Messages) -> Any:
    try:
        import jinja2
    except ImportError:  # pragma: no cover - the report extra is missing
        raise ReportUnavailable("the HTML report needs Jinja2 and pygal: pip install 'referee[report]'") from None
    env = jinja2.Environment(loader=jinja2.PackageLoader("referee", "templates"), autoescape=True,
                             extensions=["jinja2.ext.i18n"], trim_blocks=False)
    env.install_gettext_translations(messages.catalogue, newstyle=True)  # type: ignore[attr-defined]
    return env


class ReportUnavailable(Exception):
    """An optional dependency of the HTML report is missing (exit 2)."""


@dataclass(slots=True)
class _Session:
    """What one open session keeps: bounded whatever its length."""

    info: SessionInfo
    index: int
    ordinal: int = 0
    stride: int = 1
    points: list[tuple[int, float, float | None]] = field(default_factory=list)
    divergent: list[tuple[int, int | None, str]] = field(default_factory=list)
    divergent_more: int = 0
    head: list[dict[str, Any]] = field(default_factory=list)
    tail: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=TAIL_ROWS))
    flagged: list[dict[str, Any]] = field(default_factory=list)
    details: list[dict[str, Any]] = field(default_factory=list)
    details_more: int = 0
    anchors: dict[tuple[int | None, int], str] = field(default_factory=dict)


class HtmlReporter(Reporter):
    machine = True

    def __init__(self, out: TextIO, *, color: bool = False, quiet: bool = False, strict: bool = False,
                 lang: str = "en") -> None:
        super().__init__(out, color=color, quiet=quiet, strict=strict)
        self.messages = Messages(lang)
        self.env = _environment(self.messages)
        import pygal  # noqa: F401 - fail early when the extra is missing

    def start(self) -> None:
        self.spool = tempfile.TemporaryFile("w+", encoding="utf-8")  # noqa: SIM115 - closed in finish
        self.problems: list[Finding] = []
        self.sessions = 0
        self.session: _Session | None = None
        self.details = 0
        self.rows_written = 0
        self.points_written = 0
        self.per_ante = [0, 0.0, 0.0]  # n, sum, sum of squares of net per Ante
        self.started = datetime.now(UTC)

    def session_opened(self, info: SessionInfo) -> None:
        self.session = _Session(info, self.sessions)
        self.sessions += 1

    def round(self, result: RoundResult) -> None:
        s = self.session
        if s is None:  # pragma: no cover - rounds always follow a session
            return
        s.ordinal += 1
        anchor = f"s{s.index}-r{s.ordinal}"
        s.anchors[(result.number, result.line)] = anchor
        ruling = result.ruling
        if ruling is not None and ruling.outcome != "void" and ruling.ante_stake:
            x = float(ruling.net / ruling.ante_stake)
            self.per_ante[0] += 1
            self.per_ante[1] += x
            self.per_ante[2] += x * x
        self._point(s, result)
        bad = [f for f in result.findings if f.severity != "info"]
        row = {"anchor": anchor, "ordinal": s.ordinal, "cells": ledger_row(result), "flagged": bool(bad)}
        if len(s.head) < HEAD_ROWS:
            s.head.append(row)
        else:
            if len(s.tail) == TAIL_ROWS and s.tail[0]["flagged"]:
                s.flagged.append(s.tail[0])
            s.tail.append(row)
        if bad:
            self._detail(s, result, anchor)

    def _point(self, s: _Session, result: RoundResult) -> None:
        recorded = result.recorded_balance
        marked = False
        if recorded is not None and recorded != result.balance:
            if len(s.divergent) < MAX_DIVERGENT:
                s.divergent.append((s.ordinal, result.number, s.anchors[(result.number, result.line)]))
                marked = True
            else:
                s.divergent_more += 1
        if s.ordinal % s.stride == 0 or marked:
            s.points.append((s.ordinal, float(result.balance), None if recorded is None else float(recorded)))
            if len(s.points) >= 2 * MAX_POINTS:
                s.points = s.points[1::2]
                s.stride *= 2

    def _detail(self, s: _Session, result: RoundResult, anchor: str) -> None:
        if self.details >= MAX_DETAILS:
            s.details_more += 1
            return
        try:
            text = RulingText(explain(result, s.info), self.messages).text()
        except ExplainError as err:
            text = str(err)
        self.details += 1
        s.details.append({"anchor": f"{anchor}-ruling", "number": result.number, "line": result.line,
                          "codes": " ".join(sorted({f.code for f in result.findings})), "text": _cards(text)})
        s.anchors[(result.number, result.line)] = f"{anchor}-ruling"

    def session_closed(self, result: SessionResult) -> None:
        s = self.session
        if s is None:  # pragma: no cover
            return
        rows = _ledger(s, compact=self.rows_written + min(s.ordinal, FULL_LEDGER) > ROW_BUDGET)
        self.rows_written += len(rows)
        if self.points_written + len(s.points) > POINT_BUDGET and len(s.points) > COMPACT_POINTS:
            step = math.ceil(len(s.points) / COMPACT_POINTS)
            marks = {x for x, _, _ in s.divergent}
            s.points = [p for i, p in enumerate(s.points) if i % step == 0 or p[0] in marks]
        self.points_written += len(s.points)
        shown = {r["anchor"] for r in rows}
        findings = []
        for f in sorted(result.findings, key=lambda f: f.line):
            anchor = s.anchors.get((f.round, f.line)) or next(
                (a for (n, _), a in s.anchors.items() if n == f.round and f.round is not None), None)
            if anchor is not None and not anchor.endswith("-ruling") and anchor not in shown:
                anchor = None
            findings.append({"round": f.round, "line": f.line, "code": f.code, "severity": f.severity,
                             "message": f.message, "anchor": anchor})
        ledger = result.ledger
        m = self.messages
        line = m("Counted rounds {counted}, void {void}, invalid {invalid}; staked {staked}, returned "
                 "{returned}, net {net}; closing balance {closing}.").format(
            counted=ledger.counted_rounds, void=ledger.void_rounds, invalid=ledger.invalid_rounds,
            staked=fmt(ledger.staked), returned=fmt(ledger.returned), net=signed(ledger.net),
            closing=fmt(ledger.closing_balance))
        self.spool.write(self.env.get_template("session.html.j2").render(
            anchor=f"s{s.index}", info=s.info, ledger_line=line, chart=_chart(s, m),
            divergent=[{"number": n, "anchor": a} for _, n, a in s.divergent], divergent_more=s.divergent_more,
            findings=findings, details=s.details, details_more=s.details_more, headers=HEADERS, rows=rows,
            omitted=s.ordinal - len(rows)))
        self.session = None

    def problem(self, finding: Finding) -> None:
        self.problems.append(finding)

    def finish(self, summary: Summary, inputs: list[InputInfo]) -> None:
        n, total, squares = self.per_ante
        per_ante = "n/a"
        if n > 1:
            mean = total / n
            sd = math.sqrt(max(squares - n * mean * mean, 0.0) / (n - 1))
            half = z_for(0.99) * sd / math.sqrt(n)
            per_ante = f"{mean:+.3%} (99%: [{mean - half:+.3%}, {mean + half:+.3%}])"
        by_code = [{"code": c, "name": CODES[c].name if c in CODES else "", "severity": CODES[c].severity
                    if c in CODES else "", "count": k} for c, k in sorted(summary.by_code.items())]
        head = self.env.get_template("report.html.j2").render(
            lang=self.messages.language, version=_version(), audited_at=self.started.strftime("%Y-%m-%d %H:%M:%S UTC"),
            profiles=[{"origin": o, "sha256": h} for o, h in sorted(summary.profiles.items())], inputs=inputs,
            summary=summary, staked=fmt(summary.staked), returned=fmt(summary.returned), net=signed(summary.net),
            rtp=f"{summary.returned / summary.staked:.3%}" if summary.staked else "n/a", per_ante=per_ante,
            by_code=by_code, problems=self.problems)
        self.out.write(head)
        self.spool.seek(0)
        shutil.copyfileobj(self.spool, self.out)
        self.spool.close()
        self.out.write("</body>\n</html>\n")


def _version() -> str:
    from .. import __version__

    return __version__


def _cards(text: str) -> str:
    """Escape a ruling's text and colour hearts and diamonds red."""
    return RED_CARD.sub(r'<span class="red">\1\2</span>', html.escape(text))


def _ledger(s: _Session, compact: bool) -> list[dict[str, Any]]:
    keep = [*s.head, *s.flagged, *s.tail]
    if compact:
        keep = [r for r in keep if r["flagged"] or r["ordinal"] <= COMPACT_ROWS
                or r["ordinal"] > s.ordinal - COMPACT_ROWS]
    rows = sorted({r["ordinal"]: r for r in keep}.values(), key=lambda r: r["ordinal"])
    if s.ordinal <= FULL_LEDGER and len(rows) == s.ordinal:
        return [{**r, "gap": False} for r in rows]
    out = []
    for i, r in enumerate(rows):
        gap = i + 1 < len(rows) and rows[i + 1]["ordinal"] != r["ordinal"] + 1
        out.append({**r, "gap": gap})
    return out


def _chart(s: _Session, m: Messages) -> str:
    import pygal
    from pygal.style import Style

    style = Style(background="transparent", plot_background="transparent", foreground="#8b949e",
                  foreground_strong="#8b949e", foreground_subtle="#8b949e", colors=("#0b72d9", "#d97b0b", "#d1242f"),
                  font_family="system-ui, sans-serif")
    chart = pygal.XY(style=style, js=[], disable_xml_declaration=True, show_dots=False, width=960, height=320,
                     x_title=m("round (in order)"), y_title=m("balance"), legend_at_bottom=True, truncate_legend=-1,
                     explicit_size=False, print_values=False, show_x_guides=False)
    chart.add(m("as computed"), [(x, b) for x, b, _ in s.points])
    chart.add(m("as recorded"), [(x, r) if r is not None else None for x, _, r in s.points])
    marks = {x for x, _, _ in s.divergent}
    divergences: list[Any] = [(x, b) for x, b, _ in s.points if x in marks] or [None]
    chart.add(m("record parts from the rules"), divergences,
              stroke=False, show_dots=True, dots_size=4)
    return str(chart.render(is_unicode=True))

