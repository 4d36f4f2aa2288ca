"""Alerts grouped by cause (issue 47): a rigged table's dozens of alerts are a few groups,
led by the table, naming the games behind them."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime
from decimal import Decimal
from functools import cache
from pathlib import Path

import pytest

from referee.models.written import GameLine, TableLine
from referee.monitor.facts import Seat
from referee.monitor.groups import AlertGroup, group_alerts
from referee.monitor.output import github, summary, text, to_json
from referee.monitor.run import Verdict, judge
from referee.monitor.simulated import seats_of
from referee.profiles import ProfileOrigin
from referee.rules.cards import DECK
from referee.rules.hands import evaluate
from referee.simulate_table import TableSettings, simulate_tables

PROFILE = ProfileOrigin.of_builtin("bonus-100").resolve().profile
START = datetime(2026, 12, 1, 18, tzinfo=UTC)
GAMES = 2000
TABLES = ("T1", "T2", "T3", "T4")


def _tables(seed: int) -> list[tuple[TableLine, list[GameLine]]]:
    """Four timed tables, each stored after the other, as ``simulate --table Tn --start`` deals them."""
    out: list[tuple[TableLine, list[GameLine]]] = []
    for n, name in enumerate(TABLES):
        out += simulate_tables(TableSettings(PROFILE, (3, 5), 1, GAMES, seed * 10 + n, "mix", Decimal(1),
                                             start=START, table=name))
    return out


def _rig(sessions: list[tuple[TableLine, list[GameLine]]], table: str) -> None:
    """A rigged deal at ``table``: a dealer's hand that does not qualify is dealt again
    (once), after the players decided: the house's second chance."""
    qualifier = PROFILE.dealer_qualifier.floor()
    rng = random.Random(3)
    for header, games in sessions:
        if header["table"] != table:
            continue
        dealt: dict[str, list[str]] = {}
        for g in games:
            if g["game"] in dealt:  # a second record of the game: the same cards
                g["dealer"] = dealt[g["game"]]
                continue
            board = [*g["flop"], g["turn"], g["river"]]
            if evaluate([_card(c) for c in [*g["dealer"], *board]]).value < qualifier:
                used = {*g["player"], *board, *g["dealer"]}
                g["dealer"] = rng.sample([str(c) for c in DECK if str(c) not in used], 2)
            dealt[g["game"]] = g["dealer"]


def _card(text: str) -> object:
    return next(c for c in DECK if str(c) == text)


@cache
def _judged(rigged: bool) -> tuple[Verdict, list[Seat], list[AlertGroup]]:
    sessions = _tables(4)
    if rigged:
        _rig(sessions, "T3")
    seats = seats_of(sessions, PROFILE)
    verdict = judge(seats)
    return verdict, seats, group_alerts(verdict, seats)


@pytest.mark.slow
def test_a_rigged_table_among_four_is_a_few_groups_led_by_the_table() -> None:
    verdict, _, groups = _judged(True)
    flat = len(verdict.every_alert)
    assert flat >= 10  # the table, its players, stake bands, all, dealers, the deal's tests
    assert 1 <= len(groups) <= 3, [(g.lead, g.segments) for g in groups]
    first = groups[0]
    assert first.lead == "table T3" and first.segments[0] == "table T3"
    assert first.first_game is not None and first.first_game.startswith("T3-")
    assert first.last_game is not None and first.last_game.startswith("T3-") and first.last_game > first.first_game
    assert first.since is not None and first.until is not None and first.since < first.until
    players = [s for s in first.segments if s.startswith("player ")]
    assert players and all(s.startswith("player p-T3-") for s in players)  # its players, under it
    assert sum(len(g.alerts) for g in groups) == flat  # every alert in one group, once
    # the deal's tests group the same way: T3's dealer qualification and categories are under T3
    assert any(a.bet == "deal" and a.segment == "table T3" for a in first.alerts)
    assert [g.severity for g in groups] == sorted((g.severity for g in groups), reverse=True)
    for g in groups[1:]:
        assert "player p-T" not in g.lead or g.lead.startswith("player p-T3-")


@pytest.mark.slow
def test_a_fair_store_of_four_tables_has_no_group() -> None:
    verdict, _, groups = _judged(False)
    assert not verdict.alerting and groups == []
    assert json.loads(to_json(verdict, "s.db", groups))["alert_groups"] == []


@pytest.mark.slow
def test_the_reports_lead_with_the_groups() -> None:
    verdict, _, groups = _judged(True)
    doc = json.loads(to_json(verdict, "s.db", groups))
    assert doc["alerts"] == len(verdict.every_alert)  # still the count
    lead = doc["alert_groups"][0]
    assert lead["lead"] == "table T3" and lead["basis"] in ("rules", "deal")
    assert {"lead", "basis", "segments", "z", "first_game", "last_game", "since", "until"} <= set(lead)
    assert lead["first_game"].startswith("T3-") and lead["alerts"][0]["segment"] == "table T3"
    said = text(verdict, "s.db", groups).splitlines()
    assert said[3].startswith("alert groups") and said[4].startswith("  1. table T3, ")  # first, before the cells
    assert f"games {lead['first_game']} to {lead['last_game']}" in said[4]


@pytest.mark.slow
def test_github_annotations_lead_with_the_groups() -> None:
    """``--format github``: an error a cause (each group, most severe first, naming its lead,
    games and band), then each alert a warning naming its group; without groups, each
    alert an error of its own, as before."""
    verdict, _, groups = _judged(True)
    lines = github(verdict, "s.db", groups).splitlines()
    errors = [line for line in lines if line.startswith("::error ")]
    warnings = [line for line in lines if line.startswith("::warning ")]
    assert len(groups) >= 1 and len(errors) == len(groups) and lines[:len(groups)] == errors
    assert errors[0].startswith("::error title=referee monitor alert group 1%3A table T3::table T3, ")
    assert f"games {groups[0].first_game} to {groups[0].last_game}" in errors[0] and "family band" in errors[0]
    assert len(warnings) == len(verdict.every_alert) == sum(len(g.alerts) for g in groups)
    lead = next(w for w in warnings if w.startswith("::warning title=referee monitor table T3 (alert group 1)::"))
    assert "table T3, " in lead
    assert lines[-1] == f"store s.db: {verdict.seats:,} seats, {verdict.games:,} games: {summary(verdict)}"
    flat = github(verdict, "s.db").splitlines()
    assert len(flat) == len(verdict.every_alert) + 1 and all(line.startswith("::error title=referee monitor ")
                                                             for line in flat[:-1])


@pytest.mark.slow
def test_a_player_short_paid_at_one_table_leads_the_table_it_explains() -> None:
    """Only one player's wins paid two Antes short: their table alerts because of them, and
    without them it is fair: the player leads, the table under it; no other table's
    player is in any group."""
    from dataclasses import replace

    _, seats, _ = _judged(False)
    cheated = "p-T2-003"  # an Ante of 5: the largest stakes at the table
    short = [replace(s, net_u=s.net_u - 2 * s.ante_u) if s.player == cheated and s.net_u > 0 else s for s in seats]
    verdict = judge(short)
    groups = group_alerts(verdict, short)
    assert groups and groups[0].lead == f"player {cheated}", [(g.lead, g.segments) for g in groups]
    assert "table T2" in groups[0].segments
    assert not any(s.startswith("player") and s != f"player {cheated}" for g in groups for s in g.segments)


def test_monitor_names_its_groups_games_in_json_text_and_html(tmp_path: Path) -> None:
    """Through the command: a timed store paid short (every win an Ante short, in place)
    alerts in groups, each naming its first and last game and their times; the page links
    them to the commands that show them; the count of alerts stays ``alerts``."""
    import sqlalchemy as sa

    from referee.store.engine import engine, target

    from .conftest import run
    from .store_support import simulate

    url = str(tmp_path / "m.db")
    for name, seed in (("T1", "1"), ("T2", "2")):
        log = simulate(tmp_path / f"{name}.jsonl", "--seats", "3-5", "--rounds", "1100", "--seed", seed,
                       "--format", "jsonl", "--start", "2026-12-01T18:00:00Z", "--table", name)
        code, out = run("check", "--store", url, log, "--quiet")
        assert code == 0, out
    code, out = run("monitor", "--store", url, "--format", "json")
    assert code == 0 and json.loads(out)["alert_groups"] == [], out
    made = engine(target(url))
    with made.begin() as conn:
        conn.execute(sa.text("UPDATE settlements SET main_net_u = main_net_u - ante_u WHERE main_net_u > 0"))
    made.dispose()
    code, out = run("monitor", "--store", url, "--format", "json", "--no-cache", "--segment", "all",
                    "--segment", "table")
    assert code == 1, out
    doc = json.loads(out)
    groups = doc["alert_groups"]
    assert groups and doc["alerts"] == sum(len(g["alerts"]) for g in groups) >= len(groups)
    for g in groups:
        assert g["first_game"].startswith(("T1-", "T2-")) and g["last_game"].startswith(("T1-", "T2-"))
        assert g["since"].startswith("2026-12-01T18:0") and g["until"] > g["since"]
        assert g["segments"][0] == g["lead"] and g["basis"] == "rules"
    code, said = run("monitor", "--store", url, "--segment", "all", "--segment", "table", "--no-cache")
    assert code == 1 and said.splitlines()[3].startswith("alert groups (by cause, most severe first): ")
    assert f"games {groups[0]['first_game']} to {groups[0]['last_game']}" in said
    page = tmp_path / "m.html"
    code, out = run("monitor", "--store", url, "--segment", "all", "--segment", "table", "--format", "html",
                    "-o", str(page))
    assert code == 1, out
    html = page.read_text(encoding="utf-8")
    assert f"referee recall --store {url} --game {groups[0]['first_game']}" in html
    assert f"referee explain --store {url} --game {groups[0]['last_game']}" in html
    assert "Alert groups</h2>" in html and html.index("Alert groups</h2>") < html.index("Control charts</h2>")
    assert "time (UTC)" in html and "2026-12-0" in html  # the charts' axis: the games' dates


def test_simulated_seats_are_those_a_store_gives_for_the_same_log(tmp_path: Path) -> None:
    """``referee.monitor.simulated`` (what the bench and the tests above judge) gives the
    report a store of the same log gives, cell for cell, on both bases."""
    from .conftest import run
    from .store_support import simulate

    url = str(tmp_path / "m.db")
    log = simulate(tmp_path / "t.jsonl", "--seats", "2-4", "--rounds", "1200", "--seed", "5", "--profile",
                   "bonus-100", "--bonus", "1", "--start", "2026-12-01T18:00:00Z", "--table", "T1")
    code, out = run("check", "--store", url, log, "--quiet")
    assert code == 0, out
    code, out = run("monitor", "--store", url, "--no-cache", "--format", "json")
    stored = json.loads(out)
    settings = TableSettings(PROFILE, (2, 4), 1, 1200, 5, "mix", Decimal(1), start=START, table="T1")
    seats = seats_of(simulate_tables(settings), PROFILE)
    mine = json.loads(to_json(judge(seats), url))
    assert {c["basis"] for c in mine["cells"]} == {"rules", "paid"}
    for key in ("seats", "games", "newest", "paid_unknown", "band", "cells", "deal_tests"):
        assert mine[key] == stored[key], key


def _pay_short(sessions: list[tuple[TableLine, list[GameLine]]], table: str) -> None:
    """``table`` pays every winning seat 1 short: its wallet's credit, its records telling
    the same story (the recorded net is the rules', the wallet moves less)."""
    for header, games in sessions:
        if header["table"] != table:
            continue
        for g in games:
            for seat in g.get("seats", []):
                if Decimal(str(seat.get("recorded", {}).get("net", 0))) > 0:
                    credit = next(m for m in reversed(seat["wallet"]) if m["kind"] == "credit")
                    credit["amount"] = Decimal(str(credit["amount"])) - 1


@pytest.mark.slow
@pytest.mark.parametrize("seeds", [(1, 2, 3, 4), (21, 22, 23, 24)])
def test_a_stake_band_of_one_tables_players_is_led_by_the_table_paying_short(seeds: tuple[int, ...]) -> None:
    """A newcomer's trial (vivo, four tables of 2,000 games, ``simulate --seed 1`` to ``4``
    and ``21`` to ``24``, T3 paying every winner 1 short): the stake band of T3's Ante-1
    players alerts (1 is their whole Ante) while T3's own paid cell, its games sharing one
    hand, is out at a single test's level only. The band, without T3's seats, is fair: the
    table leads it and its players, not ``stake ante <= 1``."""
    vivo = ProfileOrigin.of_builtin("vivo").resolve().profile
    sessions: list[tuple[TableLine, list[GameLine]]] = []
    for seed, name in zip(seeds, TABLES, strict=True):
        sessions += simulate_tables(TableSettings(vivo, (3, 5), 1, GAMES, seed, "mix", Decimal(0), start=START,
                                                  table=name))
    _pay_short(sessions, "T3")
    seats = seats_of(sessions, vivo)
    verdict = judge(seats)
    groups = group_alerts(verdict, seats)
    assert len(groups) == 1, [(g.lead, g.segments) for g in groups]
    first = groups[0]
    assert (first.lead, first.basis, first.test) == ("table T3", "paid", "rtp") and first.z is not None
    assert -verdict.band.z < first.z < -2.576  # the table's cell: inside the band, out at a single test's level
    assert "stake ante <= 1" in first.segments and first.segments[0] == "table T3"
    assert all(s.startswith(("table T3", "player p-T3-", "stake ante <= 1")) for s in first.segments)
    assert first.first_game is not None and first.first_game.startswith("T3-")
    assert first.last_game is not None and first.last_game.startswith("T3-")
    assert sum(len(g.alerts) for g in groups) == len(verdict.every_alert)  # the table's cell is no alert
    assert all(a.segment != "table T3" for a in first.alerts)


@pytest.mark.slow
def test_a_table_paying_short_is_one_group_led_by_the_table_on_the_paid_basis() -> None:
    """The issue's store: of four tables, T3 pays every winning seat 1 short (its wallet's
    credit), while the rules' nets are right: the paid basis alerts, in a group led by
    table T3 naming its first and last game. (Here its players alert and the table, whose
    games share one hand, is out at a single test's level only: it leads them still.)"""
    sessions = _tables(4)
    _pay_short(sessions, "T3")
    seats = seats_of(sessions, PROFILE)
    verdict = judge(seats)
    groups = group_alerts(verdict, seats)
    assert groups and len(groups) <= 3, [(g.lead, g.segments) for g in groups]
    first = groups[0]
    assert (first.lead, first.basis, first.test) == ("table T3", "paid", "rtp") and first.z is not None and first.z < 0
    assert first.first_game is not None and first.first_game.startswith("T3-")
    assert first.last_game is not None and first.last_game.startswith("T3-")
    assert all(a.basis == "paid" for g in groups for a in g.alerts)  # the rules' nets are right
    assert sum(len(g.alerts) for g in groups) == len(verdict.every_alert)
    assert all(s.startswith(("player p-T3-", "table T3", "all", "stake", "dealer")) for s in first.segments)


def test_a_chart_is_over_dates_only_when_its_games_follow_in_time() -> None:
    """Two tables stored one after the other, both from the same start: ``all``'s sums run
    in store order, and a date axis would fold them back: over the games then."""
    from referee.monitor.html import _chart
    from referee.monitor.series import Point

    points = [Point(i, -i, 0.0, i ** 0.5) for i in range(1, 5)]
    hour = 3_600_000_000
    assert "time (UTC)" in _chart(points, 3.5, [0, hour, 2 * hour, 3 * hour])
    folded = _chart(points, 3.5, [0, hour, 0, hour])
    assert "time (UTC)" not in folded and ">games<" in folded
    assert "time (UTC)" not in _chart(points, 3.5, [0, None, 2 * hour, 3 * hour])  # a game without a time
