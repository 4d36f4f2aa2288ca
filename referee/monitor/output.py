"""The monitor's verdict as text, JSON or GitHub annotations (HTML: :mod:`.html`)."""

from __future__ import annotations

import json

from tabulate import tabulate

from ..escape import escape_data, escape_property, printable
from .bands import Band
from .cells import MIN_GAMES, MIN_TERMS, Cell
from .facts import when
from .groups import AlertGroup
from .randomness import MIN_DEALS
from .run import Judged, JudgedDeal, Verdict

BET_WORDS = {"ante+call": "Ante+Call", "bonus": "Bonus"}
HEADERS = ["segment", "value", "bet", "window", "games", "seats", "staked", "RTP", "expected", "z", "outside"]
DEAL_HEADERS = ["segment", "value", "window", "test", "deals", "statistic", "p", "outside"]


def band_words(b: Band) -> str:
    how = {"sidak": "Šidák", "bonferroni": "Bonferroni", "none": "no correction"}[b.correction]
    return (f"{b.name}% family band over {b.tests} test{'s' * (b.tests != 1)} ({how}): "
            f"|z| > {b.z:.2f} each (p < {b.per_test:.2g})")


def _num(x: float | None, spec: str) -> str:
    return "" if x is None else format(x, spec)


def _mark(j: Judged | JudgedDeal) -> str:
    return "ALERT" if j.alert else ("99.9%" if j.outside_999 else ("99%" if j.outside_99 else ""))


def bet_words(c: Cell) -> str:
    """The bet in words, and the basis when it is what was paid (``Ante+Call paid``)."""
    return BET_WORDS[c.bet] + (" paid" if c.basis == "paid" else "")


def table_row(j: Judged) -> list[str]:
    c = j.cell
    return [c.kind, printable(c.segment), bet_words(c), c.window, f"{c.games:,}", f"{c.seats:,}",
            f"{float(c.staked):,.2f}",
            _num(c.observed_rtp, ".4%"), _num(c.expected_rtp, ".4%"), _num(c.z, "+.2f") or f"not tested: {c.reason}",
            _mark(j)]


def deal_row(j: JudgedDeal) -> list[str]:
    t = j.test
    if t.dof is not None:
        what = f"chi2 {t.statistic:.2f}, {t.dof} dof"
    elif t.statistic is not None:
        what = f"{_num(t.observed, '.4%')} against {_num(t.expected, '.4%')}, z {t.statistic:+.2f}"
    else:
        what = ""
    return [t.kind, printable(t.segment), t.window, t.test, f"{t.deals:,}", what,
            _num(t.p, ".4f") if t.p is not None else f"not tested: {t.reason}", _mark(j)]


def text(v: Verdict, shown: str, groups: list[AlertGroup] | None = None) -> str:
    newest = f"newest {when(v.newest_us)}" if v.newest_us is not None else "no game has a time"
    if v.since_us is not None or v.until_us is not None:
        newest += f" (the games from {when(v.since_us) or 'the first'} to {when(v.until_us) or 'the last'})"
    lines = [f"monitor of store {shown}: {v.seats:,} seats, {v.games:,} games, {newest}",
             f"band: {band_words(v.band)}", paid_words(v)]
    if groups:
        lines += [f"alert groups (by cause, most severe first): {len(groups)}",
                  *(printable(f"  {n}. {group_words(g)}") for n, g in enumerate(groups, 1)), ""]
    lines += [tabulate([table_row(j) for j in v.cells if j.same_as is None], headers=HEADERS, disable_numparse=True)]
    if v.deals:
        lines += ["", "the deal:", tabulate([deal_row(j) for j in v.deals if j.same_as is None],
                                            headers=DEAL_HEADERS, disable_numparse=True)]
    if v.alerting:
        lines += ["", "alerts:", *(f"  {printable(github_line(j, v, band=False))}" for j in v.every_alert)]
    lines.append(summary(v))
    return "\n".join(lines) + "\n"


def group_words(g: AlertGroup) -> str:
    """A group in words: its lead alert, where its games are, the segments under it."""
    bet = "deal" if g.bet == "deal" else BET_WORDS.get(g.bet, g.bet)
    what = (f"RTP z {_num(g.z, '+.2f')}" if g.test == "rtp" else f"{g.test} p {_num(g.p, '.2g')}")
    basis = f"{g.basis} basis" if g.test == "rtp" else "the deal"
    where = ""
    if g.first_game is not None:
        where = f"; games {g.first_game} to {g.last_game}"
    if g.since is not None:
        where += f" ({g.since} to {g.until})"
    under = [s for s in g.segments[1:]]
    shown = ", ".join(under[:ALSO_SHOWN]) + (f" and {len(under) - ALSO_SHOWN} more" if len(under) > ALSO_SHOWN else "")
    n = len(g.alerts)
    return (f"{g.lead}, {bet}, {g.window}: {what} ({basis}, {g.games:,} games{where}); "
            f"{n} alert{'s' * (n != 1)}" + (f", with {shown}" if under else ""))


def paid_words(v: Verdict) -> str:
    """What the paid basis holds, in words: its seats left out (no record of their pay),
    and what is owed each way over every seat (the widest ``all`` cell, when made)."""
    left = (f"{v.paid_unknown:,} seat{'s' * (v.paid_unknown != 1)} with no record of what "
            f"{'they were' if v.paid_unknown != 1 else 'it was'} paid, left out" if v.paid_unknown
            else "every seat says what it was paid")
    widest = [j.cell for j in v.cells if j.cell.kind == "all" and j.cell.basis == "rules"
              and j.cell.owed_player is not None]
    owed = ""
    if widest:
        c = max(widest, key=lambda c: c.seats)
        over = (f"owed over the {c.window}, by the seats that say what they were paid" if v.paid_unknown
                else f"owed over the {c.window}")
        owed = f"; {over}: {c.owed_player:,.2f} to players, {c.owed_house:,.2f} to the house"
        if v.paid_unknown:  # never a total that reads as all: check rules every seat
            owed += " (the seats left out are not in it: check --store states what each is owed)"
    return f"paid basis (what the seats were paid, Ante+Call): {left}{owed}"


def summary(v: Verdict) -> str:
    n = len(v.alerts) + len(v.deal_alerts)
    if n:
        return f"{n} alert{'s' * (n != 1)}"
    return "no alert: every test within the band" if v.band.tests else NOTHING_TESTED


#: The verdict when no cell and no deal test could be made: not a pass (exit 2).
NOTHING_TESTED = (f"nothing tested: no cell has {MIN_GAMES:,} games (and {MIN_TERMS:,} calls, or Bonus stakes) and "
                  f"no deal test {MIN_DEALS:,} deals yet")

#: How many of the cells a test repeats an alert names in words (the JSON's ``also`` has all).
ALSO_SHOWN = 6


def also_words(j: Judged | JudgedDeal) -> str:
    """The segments and windows of the very same seats as ``j``'s, in words ('' if none)."""
    if not j.also:
        return ""
    shown = "; ".join(j.also[:ALSO_SHOWN])
    more = len(j.also) - ALSO_SHOWN
    return f"; the same seats as {shown}" + (f" and {more} more" if more > 0 else "")


def cell_json(j: Judged) -> dict[str, object]:
    c = j.cell
    return {"segment": c.kind, "value": c.segment, "bet": c.bet, "window": c.window, "games": c.games,
            "seats": c.seats, "staked": str(c.staked), "observed_rtp": c.observed_rtp,
            "expected_rtp": c.expected_rtp, "z": c.z, "jump": c.jump, "p": j.p, "outside_99": j.outside_99,
            "outside_99_9": j.outside_999, "alert": j.alert, "same_as": j.same_as, "also": list(j.also),
            "skewness": c.skewness, "terms": c.terms, "not_tested": c.reason, "basis": c.basis,
            "owed_to_player": None if c.owed_player is None else str(c.owed_player),
            "owed_to_house": None if c.owed_house is None else str(c.owed_house), "paid_unknown": c.paid_unknown}


def deal_json(j: JudgedDeal) -> dict[str, object]:
    t = j.test
    return {"segment": t.kind, "value": t.segment, "window": t.window, "test": t.test, "deals": t.deals,
            "observed_rate": t.observed, "expected_rate": t.expected, "statistic": t.statistic, "dof": t.dof,
            "p": t.p, "not_tested": t.reason, "outside_99": j.outside_99, "outside_99_9": j.outside_999,
            "alert": j.alert, "same_as": j.same_as, "also": list(j.also)}


def to_json(v: Verdict, shown: str, groups: list[AlertGroup] | None = None) -> str:
    b = v.band
    data = {"store": shown, "seats": v.seats, "games": v.games, "newest": when(v.newest_us),
            "since": when(v.since_us), "until": when(v.until_us),
            "band": {"name": b.name, "correction": b.correction, "tests": b.tests, "family_alpha": b.alpha,
                     "per_test_alpha": b.per_test, "z": b.z},
            "cells": [cell_json(j) for j in v.cells], "deal_tests": [deal_json(j) for j in v.deals],
            "paid_unknown": v.paid_unknown, "alerts": len(v.alerts) + len(v.deal_alerts),
            "alert_groups": [g.to_json() for g in groups or []]}
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def github_line(j: Judged | JudgedDeal, v: Verdict, band: bool = True) -> str:
    """An alert in words (the annotation's message, the text's and the page's list),
    naming every segment and window of the same seats."""
    why = f"; {band_words(v.band)}" if band else ""
    if isinstance(j, Judged):
        c = j.cell
        owed = (f", owed {c.owed_player:,.2f} to players and {c.owed_house:,.2f} to the house"
                if c.owed_player is not None and (c.owed_player or c.owed_house) else "")
        return (f"{c.kind} {c.segment}, {bet_words(c)}, {c.window}: RTP {_num(c.observed_rtp, '.4%')} against "
                f"{_num(c.expected_rtp, '.4%')} expected, z {_num(c.z, '+.2f')} ({c.seats:,} seats{owed}{why}"
                f"{also_words(j)})")
    t = j.test
    return (f"{t.kind} {t.segment}, {t.window}: {t.test} p {_num(t.p, '.2g')} ({t.deals:,} deals{why}"
            f"{also_words(j)})")


def github(v: Verdict, shown: str, groups: list[AlertGroup] | None = None) -> str:
    """GitHub annotations: one ``::error`` a cause (an alert group, most severe first: its
    lead, games and the segments under it), then each alert as a ``::warning`` naming its
    group (one error a root cause, as ``check``'s findings); an alert no group holds is an
    ``::error`` of its own. Then the summary line."""
    out = []
    held: dict[tuple[str, str, str, str, str], int] = {}
    for n, g in enumerate(groups or [], 1):
        # a segment is a table's or a dealer's id from the audited logs: escaped as the check's annotations are
        out.append(f"::error title={escape_property(f'referee monitor alert group {n}: {g.lead}')}::"
                   f"{escape_data(f'{group_words(g)}; {band_words(v.band)}')}")
        for a in g.alerts:
            held.setdefault((a.segment, a.bet, a.test, a.window, a.basis), n)
    for j in v.every_alert:
        kind, segment = (j.cell.kind, j.cell.segment) if isinstance(j, Judged) else (j.test.kind, j.test.segment)
        group = held.get(_grouped_as(j))
        level, title = (("error", f"referee monitor {kind} {segment}") if group is None
                        else ("warning", f"referee monitor {kind} {segment} (alert group {group})"))
        out.append(f"::{level} title={escape_property(title)}::{escape_data(github_line(j, v))}")
    out.append(printable(f"store {shown}: {v.seats:,} seats, {v.games:,} games: {summary(v)}"))
    return "\n".join(out) + "\n"


def _grouped_as(j: Judged | JudgedDeal) -> tuple[str, str, str, str, str]:
    """An alert as its group lists it (``groups.GroupedAlert``: segment, bet, test, window, basis)."""
    if isinstance(j, Judged):
        c = j.cell
        return (f"{c.kind} {c.segment}", c.bet, "rtp", c.window, c.basis)
    t = j.test
    return (f"{t.kind} {t.segment}", "deal", t.test, t.window, "deal")
