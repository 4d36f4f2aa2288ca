"""``referee report``: the audit as one self-contained HTML file, for people who look.

Made with Jinja2 templates (``referee/templates``) and pygal charts rendered to inline
SVG (no script, no network when opened), in English or French through the same
gettext catalogue as ``explain``. Sessions are rendered as they close and written to
a spool file, then the head (integrity block and summary, known only at the end) and
the spool are joined: a 100,000-round audit is never held twice in memory. The head
opens with the verdict (pass or fail, errors and warnings per session, what is owed
each way: the sum of each round's bottom line, audit/owed.py) and an index of
the sessions. The chart marks the rounds whose record parts from the rules in money
(a finding on a recorded amount or balance: one per root cause, so the rounds after a
wrong payout, whose balances carry it, are not marked). Long
sessions are summarised: the ledger table keeps its first and last rounds and every
round with a finding, the chart at most ``MAX_POINTS`` points, the rulings at most
``MAX_DETAILS`` rounds. What this page shares with ``referee recall`` (the templates'
environment, the report's words, cards as SVG, a disputed round's block) is in
:mod:`referee.report.pages`.
"""

from __future__ import annotations

import math
import re
import shutil
import tempfile
import uuid
from collections import deque
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any, TextIO

from ..analysis.distributions import z_for
from ..audit.explain import ExplainError, explain
from ..audit.games import GameResult
from ..audit.owed import bottom_line
from ..audit.results import Finding, InputInfo, RoundResult, SessionInfo, SessionResult, Summary
from ..escape import visible
from ..i18n import N_, Messages
from ..models.codes import CODES
from ..output import TEXT_ERRORS
from ..rules.money import fmt, signed
from .base import Reporter, parts_from_rules
from .pages import (
    RulingBlock,
    disputed_game,
    disputed_seats,
    environment,
    game_block,
    r_,
    ruling_block,
    seat_ruling,
    status_words,
)
from .ruling_words import CATEGORY_WORDS
from .table import PLAYER_HEADERS, player_rows, seat_owed, table_totals
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
#: A live table's balance chart draws a line per player up to this many players; past
#: it the chart would be unreadable, and a sentence points to the players' table.
MAX_CHART_PLAYERS = 12
#: Words of the ledger's cells, marked for the catalogue (context ``report``).
CELL_WORDS = [N_(w) for w in ("call", "fold", "yes", "no", "ok", "void", "not ruled", "win", "lose", "push",
                              "error", "warning", "info", "player", "bank", "draw")]
COLUMN_WORDS = [N_(w) for w in (*HEADERS, *PLAYER_HEADERS, "session", "time", "game", "player id", "stakes", "outcome")]


@dataclass(slots=True)
class _Session:
    """What one open session keeps: bounded whatever its length."""

    info: SessionInfo
    index: int
    ordinal: int = 0
    stride: int = 1
    x: int = 0
    points: list[tuple[int, int, float, float | None]] = field(default_factory=list)
    divergent: list[tuple[int, int | None, str]] = field(default_factory=list)
    divergent_more: int = 0
    head: list[dict[str, Any]] = field(default_factory=list)
    tail: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=TAIL_ROWS))
    flagged: list[dict[str, Any]] = field(default_factory=list)
    details: list[dict[str, Any]] = field(default_factory=list)
    details_more: int = 0
    anchors: dict[tuple[int | None, int], str] = field(default_factory=dict)
    #: A live table's games drawn with their rulings: game id to the ruling's anchor.
    game_anchors: dict[str, str] = field(default_factory=dict)
    owed_player: Decimal = Decimal(0)
    owed_house: Decimal = Decimal(0)
    #: A live table's running balance per player: (game number or ordinal, computed, recorded).
    balances: dict[str, list[tuple[int, float, float | None]]] = field(default_factory=dict)
    games: int = 0
    #: A live table's amounts owed per player: [to the player, to the house].
    owed_by_player: dict[str, list[Decimal]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class _Game:
    """One game of a live table as the page keeps it: its number, and per seat the
    player, the net per Ante, what is owed and the balances after it."""

    number: int | None
    seats: tuple[tuple[str, float | None, Decimal, float, float | None], ...]
    #: The whole game when a seat of it has a finding (its disputed seats are drawn), else None.
    flagged: GameResult | None = None


@dataclass(frozen=True, slots=True)
class _Round:
    """One round as the page keeps it; ``flagged`` is the whole round when it has a
    finding (its ruling is explained), else None."""

    number: int | None
    line: int
    balance: Decimal
    recorded_balance: Decimal | None
    per_ante: float | None
    cells: list[Any]
    #: What the rules give minus what the table paid (audit/owed.py), and whether the
    #: record parts from the rules in money (``parts_from_rules``).
    owed: Decimal
    parts: bool
    flagged: RoundResult | None


class HtmlReporter(Reporter):
    machine = True

    def __init__(self, out: TextIO, *, color: bool = False, quiet: bool = False, strict: bool = False,
                 lang: str = "en") -> None:
        super().__init__(out, color=color, quiet=quiet, strict=strict)
        self.messages = Messages(lang)
        self.env = environment(self.messages)
        import pygal  # noqa: F401 - fail early when the extra is missing

    def start(self) -> None:
        self.spool = tempfile.TemporaryFile("w+", encoding="utf-8", errors=TEXT_ERRORS)  # noqa: SIM115 - closed in finish
        self.problems: list[Finding] = []
        self.sessions = 0
        self.session: _Session | None = None
        self.index: list[dict[str, Any]] = []
        self.details = 0
        self.rows_written = 0
        self.points_written = 0
        self.per_ante = [0, 0.0, 0.0]  # n, sum, sum of squares of net per Ante
        self.started = datetime.now(UTC)

    def session_opened(self, info: SessionInfo) -> None:
        self.session = _Session(info, self.sessions)
        self.sessions += 1

    def round_payload(self, result: RoundResult) -> _Round:
        """What the page keeps of a round (small, picklable under ``--jobs``); the whole
        round only when it has a finding, whose ruling is explained."""
        ruling = result.ruling
        per_ante = None
        if ruling is not None and ruling.outcome != "void" and ruling.ante_stake:
            per_ante = float(ruling.net / ruling.ante_stake)
        bad = any(f.severity != "info" for f in result.findings)
        bottom = bottom_line(result)
        return _Round(result.number, result.line, result.balance, result.recorded_balance, per_ante,
                      ledger_row(result), bottom.owed if bottom is not None else Decimal(0), parts_from_rules(result),
                      result if bad else None)

    def game_payload(self, result: GameResult) -> _Game:
        """What the page keeps of a live table's game (small, picklable under ``--jobs``)."""
        seats = []
        for seat in result.seats:
            if seat.player_id is None or seat.record is None:
                continue
            ruling = seat.ruling
            per_ante = None
            if ruling is not None and ruling.outcome != "void" and ruling.ante_stake:
                per_ante = float(ruling.net / ruling.ante_stake)
            recorded = None if seat.recorded_balance is None else float(seat.recorded_balance)
            seats.append((seat.player_id, per_ante, seat_owed(seat), float(seat.balance), recorded))
        return _Game(result.number, tuple(seats), disputed_game(result))

    def take_game(self, payload: _Game) -> None:
        """A game's seats: each adds to the net per Ante, to what is owed each way (per
        seat: a player's money is theirs) and to its player's balance line."""
        s = self.session
        if s is None:  # pragma: no cover - games always follow a session
            return
        s.games += 1
        x = payload.number if payload.number is not None else s.games
        if payload.flagged is not None:
            self._game_detail(s, payload.flagged)
        for player, per_ante, due, balance, recorded in payload.seats:
            if per_ante is not None:
                self.per_ante[0] += 1
                self.per_ante[1] += per_ante
                self.per_ante[2] += per_ante * per_ante
            mine = s.owed_by_player.setdefault(player, [Decimal(0), Decimal(0)])
            if due > 0:
                s.owed_player += due
                mine[0] += due
            else:
                s.owed_house -= due
                mine[1] -= due
            points = s.balances.setdefault(player, [])
            if len(s.balances) <= MAX_CHART_PLAYERS:
                points.append((x, balance, recorded))
                if len(points) > 2 * MAX_POINTS:
                    points[:] = points[::2]

    def take_round(self, result: _Round) -> None:
        s = self.session
        if s is None:  # pragma: no cover - rounds always follow a session
            return
        s.ordinal += 1
        anchor = f"s{s.index}-r{s.ordinal}"
        s.anchors[(result.number, result.line)] = anchor
        if result.per_ante is not None:
            x = result.per_ante
            self.per_ante[0] += 1
            self.per_ante[1] += x
            self.per_ante[2] += x * x
        self._point(s, result)
        bad = result.flagged
        row = {"anchor": anchor, "ordinal": s.ordinal, "cells": _words(result.cells, self.messages),
               "flagged": bad is not None}
        if len(s.head) < HEAD_ROWS:
            s.head.append(row)
        else:
            if len(s.tail) == TAIL_ROWS and s.tail[0]["flagged"]:
                s.flagged.append(s.tail[0])
            s.tail.append(row)
        if bad is not None:
            self._detail(s, bad, anchor)

    def _point(self, s: _Session, result: _Round) -> None:
        """One point of the chart at the round's number (a void deal and its replay share
        it); marked only where the record parts from the rules (see the module's note)."""
        recorded = result.recorded_balance
        due = result.owed
        if due > 0:
            s.owed_player += due
        else:
            s.owed_house -= due
        s.x = result.number if result.number is not None else s.x
        marked = False
        if result.parts:
            if len(s.divergent) < MAX_DIVERGENT:
                s.divergent.append((s.ordinal, result.number, s.anchors[(result.number, result.line)]))
                marked = True
            else:
                s.divergent_more += 1
        if s.ordinal % s.stride == 0 or marked:
            s.points.append((s.ordinal, s.x, float(result.balance), None if recorded is None else float(recorded)))
            if len(s.points) >= 2 * MAX_POINTS:
                s.points = s.points[1::2]
                s.stride *= 2

    def _detail(self, s: _Session, result: RoundResult, anchor: str) -> None:
        if self.details >= MAX_DETAILS:
            s.details_more += 1
            return
        block: RulingBlock | dict[str, str]
        try:
            block = ruling_block(explain(result, s.info), self.messages)
        except ExplainError as err:
            block = {"error": str(err)}
        self.details += 1
        s.details.append({"anchor": f"{anchor}-ruling", "number": result.number, "line": result.line,
                          "codes": " ".join(sorted({f.code for f in result.findings})), **block})
        s.anchors[(result.number, result.line)] = f"{anchor}-ruling"

    def _game_detail(self, s: _Session, game: GameResult) -> None:
        """A live table's game with findings: its shared cards once, each disputed seat's
        own cards and ruling (``explain --game G --player P``'s); at most ``MAX_DETAILS``
        seats in the whole report."""
        seats = disputed_seats(game)
        if self.details >= MAX_DETAILS:
            s.details_more += 1
            return
        self.details += len(seats)
        anchor = f"s{s.index}-g{s.games}-ruling"
        block = game_block((seat_ruling(s.info, game, seat) for seat in seats), self.messages)
        codes = sorted({f.code for seat in seats for f in (*game.findings, *seat.findings)})
        s.details.append({"anchor": anchor, "game": game.game, "number": game.number, "line": game.line,
                          "codes": " ".join(codes), **block})
        if game.game is not None:
            s.game_anchors.setdefault(game.game, anchor)

    def session_closed(self, result: SessionResult) -> None:
        s = self.session
        if s is None:  # pragma: no cover
            return
        rows = _ledger(s, compact=self.rows_written + min(s.ordinal, FULL_LEDGER) > ROW_BUDGET)
        self.rows_written += len(rows)
        if self.points_written + len(s.points) > POINT_BUDGET and len(s.points) > COMPACT_POINTS:
            step = math.ceil(len(s.points) / COMPACT_POINTS)
            marks = {o for o, _, _ in s.divergent}
            s.points = [p for i, p in enumerate(s.points) if i % step == 0 or p[0] in marks]
        self.points_written += len(s.points)
        shown = {r["anchor"] for r in rows}
        m = self.messages
        findings = []
        for f in sorted(result.findings, key=lambda f: f.line):
            anchor = s.anchors.get((f.round, f.line)) or next(
                (a for (n, _), a in s.anchors.items() if n == f.round and f.round is not None),
                None) or (s.game_anchors.get(f.game) if f.game is not None else None)
            if anchor is not None and not anchor.endswith("-ruling") and anchor not in shown:
                anchor = None
            findings.append({"round": f.round, "game": f.game, "line": f.line, "code": f.code, "severity": f.severity,
                             "severity_word": r_(m, f.severity), "message": f.message, "anchor": anchor})
        ledger = result.ledger
        line = m("Counted rounds {counted}, void {void}, invalid {invalid}; staked {staked}, returned "
                 "{returned}, net {net}; closing balance {closing}.").format(
            counted=ledger.counted_rounds, void=ledger.void_rounds, invalid=ledger.invalid_rounds,
            staked=fmt(ledger.staked), returned=fmt(ledger.returned), net=signed(ledger.net),
            closing=fmt(ledger.closing_balance))
        severities = [f.severity for f in result.findings]
        self.index.append({
            "anchor": f"s{s.index}", "id": s.info.id, "file": s.info.file, "errors": severities.count("error"),
            "warnings": severities.count("warning"), "owed_player": s.owed_player, "owed_house": s.owed_house,
            "closing": fmt(ledger.closing_balance),
            "recorded_closing": "" if ledger.recorded_closing_balance is None else fmt(ledger.recorded_closing_balance),
        })
        players: list[list[Any]] = []
        chart, chart_note = "", ""
        if result.info.format == 2:  # a live table (format 2): its players and totals
            line = table_totals(result, m)
            zero = [Decimal(0), Decimal(0)]
            players = [[*row[:-1], r_(m, row[-1]), *map(fmt, s.owed_by_player.get(p.player_id, zero))]
                       for row, p in zip(player_rows(result), result.players, strict=True)]
            chart, chart_note = _players_chart(s, m)
        else:
            chart = _chart(s, m)
        self.spool.write(self.env.get_template("session.html.j2").render(
            players=players, chart_note=chart_note,
            player_headers=[*(r_(m, h) for h in PLAYER_HEADERS), r_(m, "owed to the player"),
                            r_(m, "owed to the house")],
            anchor=f"s{s.index}", info=s.info, ledger_line=line, chart=chart,
            divergent=[{"number": n, "anchor": a} for _, n, a in s.divergent], divergent_more=s.divergent_more,
            findings=findings, details=s.details, details_more=s.details_more,
            headers=[r_(m, h) for h in HEADERS], rows=rows, omitted=s.ordinal - len(rows)))
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
        m = self.messages
        by_code = [{"code": c, "name": CODES[c].name if c in CODES else "", "severity": CODES[c].severity
                    if c in CODES else "", "severity_word": r_(m, CODES[c].severity) if c in CODES else "", "count": k}
                   for c, k in sorted(summary.by_code.items())]
        owed_player = sum((s["owed_player"] for s in self.index), Decimal(0))
        owed_house = sum((s["owed_house"] for s in self.index), Decimal(0))
        index = [{**s, "owed_player": fmt(s["owed_player"]), "owed_house": fmt(s["owed_house"])} for s in self.index]
        head = self.env.get_template("report.html.j2").render(
            lang=self.messages.language, version=_version(), audited_at=self.started.strftime("%Y-%m-%d %H:%M:%S UTC"),
            profiles=[{"origin": o, "sha256": h} for o, h in sorted(summary.profiles.items())], inputs=inputs,
            custom_profiles=[{"name": name, "origin": o, "sha256": h}
                             for o, (name, h) in sorted(summary.custom_profiles.items())],
            summary=summary, staked=fmt(summary.staked), returned=fmt(summary.returned), net=signed(summary.net),
            rtp=f"{summary.returned / summary.staked:.3%}" if summary.staked else "n/a", per_ante=per_ante,
            by_code=by_code, problems=self.problems, passed=summary.exit_code(self.strict) == 0,
            errors=summary.by_severity.get("error", 0), warnings=summary.by_severity.get("warning", 0),
            owed_player=fmt(owed_player), owed_house=fmt(owed_house), index=index)
        self.out.write(head)
        self.spool.seek(0)
        shutil.copyfileobj(self.spool, self.out)
        self.spool.close()
        self.out.write("</body>\n</html>\n")


def _words(cells: list[Any], m: Messages) -> list[Any]:
    """A ledger row in the reader's language (the text report's row, word by word)."""
    out = list(cells)
    for i in (1, 4):
        out[i] = r_(m, out[i]) if out[i] else out[i]
    for i in (2, 3):
        key = str(out[i]).replace(" ", "_")
        out[i] = m(CATEGORY_WORDS[key]) if key in CATEGORY_WORDS else out[i]
    out[-1] = status_words(str(out[-1]), m)
    return out


def _version() -> str:
    from .. import __version__

    return __version__


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


def _players_chart(s: _Session, m: Messages) -> tuple[str, str]:
    """A live table's running balance: a line per player by game (as computed; the
    recorded balances are in the players' table), or no chart and a sentence saying why
    (no player, or too many to read), never an empty plot."""
    if not s.balances:
        return "", m("No seat was audited: no balance to draw.")
    if len(s.balances) > MAX_CHART_PLAYERS:
        return "", m("{players} players: too many for one chart (at most {most}); their balances are in the "
                     "players' table.").format(players=len(s.balances), most=MAX_CHART_PLAYERS)
    import pygal

    chart = pygal.XY(style=_style(), js=[], disable_xml_declaration=True, show_dots=True, dots_size=2, width=960,
                     height=320, x_title=r_(m, "game"), y_title=m("balance"), legend_at_bottom=True,
                     truncate_legend=-1, explicit_size=False, print_values=False, show_x_guides=False,
                     x_value_formatter=lambda x: f"{x:.0f}")
    for player, points in s.balances.items():
        chart.add(visible(player), [(x, b) for x, b, _ in points])  # a name a person reads
    return _svg(chart, s), ""


#: The date pygal writes into each chart (``<!--Generated with pygal 3.1.3 (etree)
#: ©Kozea 2012-2026 on 2026-12-06-->``): the day it was drawn.
_DRAWN_ON = re.compile(r"(<!--Generated with pygal [^<>]*?) on \d{4}-\d\d-\d\d-->")


def _svg(chart: Any, s: _Session) -> str:
    """The chart's SVG, the same every run: pygal draws a random id for each chart
    (``uuid4()``; its SVG's ``id="chart-..."``, which its styles are scoped by) and
    writes the day it drew it in a comment, so that two reports of the same files
    differed in more than their audit time. Here the id is made from the session's place
    in the report (unique in the page; pygal has no option for it, its ``uuid`` attribute
    is what it renders) and the day is left out."""
    chart.uuid = str(uuid.uuid5(uuid.NAMESPACE_URL, f"referee-report:session:{s.index}"))
    return _DRAWN_ON.sub(r"\1-->", str(chart.render(is_unicode=True)), count=1)


def _style() -> Any:
    from pygal.style import Style

    return Style(background="transparent", plot_background="transparent", foreground="#8b949e",
                 foreground_strong="#8b949e", foreground_subtle="#8b949e",
                 colors=("#0b72d9", "#d97b0b", "#d1242f", "#1a7f37", "#8250df", "#bf3989"),
                 font_family="system-ui, sans-serif")


def _chart(s: _Session, m: Messages) -> str:
    """The running balance by round number, as computed and as recorded, with the rounds
    where the record parts from the rules marked (on the recorded line)."""
    import pygal
    from pygal.style import Style

    style = Style(background="transparent", plot_background="transparent", foreground="#8b949e",
                  foreground_strong="#8b949e", foreground_subtle="#8b949e", colors=("#0b72d9", "#d97b0b", "#d1242f"),
                  font_family="system-ui, sans-serif")
    chart = pygal.XY(style=style, js=[], disable_xml_declaration=True, show_dots=False, width=960, height=320,
                     x_title=r_(m, "round"), y_title=m("balance"), legend_at_bottom=True, truncate_legend=-1,
                     explicit_size=False, print_values=False, show_x_guides=False,
                     x_value_formatter=lambda x: f"{x:.0f}")
    chart.add(m("as computed"), [(x, b) for _, x, b, _ in s.points])
    chart.add(m("as recorded"), [(x, r) if r is not None else None for _, x, _, r in s.points])
    marks = {o for o, _, _ in s.divergent}
    divergences: list[Any] = [(x, b if r is None else r) for o, x, b, r in s.points if o in marks] or [None]
    chart.add(m("record parts from the rules"), divergences,
              stroke=False, show_dots=True, dots_size=4)
    return _svg(chart, s)
