"""``referee monitor --store URL`` (issue 30): exact expectations, windows, bands, alerts."""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import pytest
import sqlalchemy as sa

from referee.monitor import exact
from referee.monitor.bands import band, bennett, cell_p, two_sided
from referee.monitor.cells import MIN_GAMES
from referee.monitor.facts import Seat, stake_band
from referee.monitor.run import judge
from referee.profiles import ProfileOrigin
from referee.rules.strategy import Payoffs, call_counts
from referee.store.engine import engine, target

from .conftest import run
from .store_support import simulate

VIVO = ProfileOrigin.of_builtin("vivo")


def test_call_moments_are_the_counts_dot_the_payouts_and_their_squares() -> None:
    known = (48, 49, 20, 29, 50)
    m = exact.call_moments(VIVO, [known])[known]
    counts = call_counts(known[:2], known[2:], VIVO.resolve().profile.dealer_qualifier.floor()).counts
    p = Payoffs.of(VIVO.resolve().profile)
    total = sum(map(sum, counts))
    mean = Fraction(p.value(counts), p.scale * total)
    second = sum(Fraction(n * pay * pay, p.scale ** 2 * total)
                 for row, pays in zip(counts, p.table, strict=True) for n, pay in zip(row, pays, strict=True))
    assert (m.mean, m.second) == (mean, second)
    assert m.variance > 0 and m.qualifies is not None and sum(m.categories or ()) == 1
    assert exact.fold_moments(VIVO).variance == 0


def test_hand_distributions_are_whole() -> None:
    assert sum(n for _, n in exact.five_card_values()) == exact.FIVE_CARD_HANDS
    assert len(exact.five_card_values()) == 7462
    assert sum(exact.SEVEN_CARD_COUNTS) == exact.SEVEN_CARD_HANDS
    odds = exact.bonus_odds(ProfileOrigin.of_builtin("bonus-100"))
    assert odds is not None and 0 < odds.hit < 1 and odds.mean < 0
    assert exact.bonus_odds(VIVO) is None


def test_sidak_band() -> None:
    b = band("99", "sidak", 50)
    assert b.per_test == pytest.approx(1 - 0.99 ** (1 / 50))
    assert band("99", "bonferroni", 50).per_test == pytest.approx(0.01 / 50)
    assert band("99.9", "none", 50).per_test == 0.001
    assert b.z > band("99", "none", 50).z
    assert two_sided(b.z) == pytest.approx(b.per_test)


def test_stake_bands() -> None:
    assert [stake_band(u) for u in (1_000_000, 1_000_001, 5_000_000, 30_000_000, 200_000_000)] == [
        "ante <= 1", "ante 1-5", "ante 1-5", "ante 25-100", "ante > 100"]


def _seat(i: int, net_u: int, table: str = "T1", time_us: int | None = None) -> Seat:
    return Seat(order=i, game=("seat", i), time_us=time_us, table=table, dealer="d", profile="builtin:vivo",
                player="p", ante_u=1_000_000, staked_u=1_000_000, net_u=net_u, bonus_u=0, called=False,
                known=(0, 1, 2, 3, 4))


def test_folds_are_certain_so_a_fold_paid_wrong_is_far_outside_and_windows_count_games() -> None:
    seats = [_seat(i, -1_000_000, time_us=i * 3_600_000_000) for i in range(1500)]
    verdict = judge(seats)
    assert not verdict.alerts  # every fold loses its Ante exactly: no variance, nothing tested
    cells = {(j.cell.kind, j.cell.window): j.cell for j in verdict.cells}
    assert cells[("all", "last 1,000 games")].games == 1000
    assert cells[("all", "last 10,000 games")].games == 1500
    assert cells[("all", "day")].games == 24  # the newest game's hour and the 23 before it
    assert cells[("all", "week")].games == 7 * 24
    assert cells[("all", "last 1,000 games")].observed_rtp == 0.0 == cells[("all", "day")].expected_rtp


@pytest.mark.parametrize("per_game", [1, 3])
def test_calls_give_z_from_the_exact_variance_seats_of_a_shared_hand_as_one(per_game: int) -> None:
    known = (48, 49, 20, 29, 50)
    m = exact.call_moments(VIVO, [known])[known]
    seats = [Seat(order=i // per_game, game=("game", i // per_game), time_us=None, table="T1", dealer=None,
                  profile="builtin:vivo", player=None, ante_u=1_000_000, staked_u=3_000_000, net_u=3_000_000,
                  bonus_u=0, called=True, known=known) for i in range(MIN_GAMES * per_game)]
    verdict = judge(seats, kinds=("all",))
    cell = next(j.cell for j in verdict.cells if j.cell.window == "last 1,000 games")
    assert (cell.games, cell.seats) == (MIN_GAMES, MIN_GAMES * per_game)
    # a game's seats in one situation win or lose together: Var = (3 Antes)² × v a game
    expected_z = (3 - m.mean) * MIN_GAMES * per_game / (MIN_GAMES * per_game ** 2 * m.variance) ** 0.5
    assert cell.z == pytest.approx(float(expected_z))
    assert cell.expected_rtp == pytest.approx(float(1 + m.mean / 3))


def test_seats_of_one_game_in_different_situations_are_bounded_not_assumed_apart() -> None:
    a, b = (48, 49, 20, 29, 50), (0, 5, 20, 29, 50)
    moments = exact.call_moments(VIVO, [a, b])
    seats = [Seat(order=i, game=("game", i), time_us=None, table="T1", dealer=None, profile="builtin:vivo",
                  player=None, ante_u=1_000_000, staked_u=3_000_000, net_u=0, bonus_u=0, called=True,
                  known=k) for i in range(MIN_GAMES) for k in (a, b)]
    cell = next(j.cell for j in judge(seats, kinds=("all",)).cells if j.cell.window == "last 1,000 games")
    sd = (float(moments[a].variance) ** 0.5 + float(moments[b].variance) ** 0.5) * MIN_GAMES ** 0.5
    assert cell.z == pytest.approx(-float(moments[a].mean + moments[b].mean) * MIN_GAMES / sd)


def test_an_alert_names_every_segment_of_the_same_seats() -> None:
    """A store whose newest 1,000 games are one table's: the test is one (all's), but its
    alert names that table too, and the table's own cell says it alerts with it."""
    from referee.monitor.output import text, to_json

    known = (48, 49, 20, 29, 50)

    def seats(table: str, start: int, net_u: int) -> list[Seat]:
        return [Seat(order=i, game=("game", i), time_us=None, table=table, dealer=None, profile="builtin:vivo",
                     player=None, ante_u=1_000_000, staked_u=3_000_000, net_u=net_u, bonus_u=0, called=True,
                     known=known) for i in range(start, start + 1200)]

    verdict = judge(seats("T1", 0, 3_000_000) + seats("T2", 1200, -3_000_000), kinds=("all", "table"))
    first = next(j for j in verdict.cells if (j.cell.kind, j.cell.window) == ("all", "last 1,000 games"))
    table = next(j for j in verdict.cells if (j.cell.kind, j.cell.segment, j.cell.window)
                 == ("table", "T2", "last 1,000 games"))
    assert first.alert and first.same_as is None and "table T2, last 1,000 games" in first.also
    assert table.alert and table.same_as == "all all, last 1,000 games" and table.also == ()
    assert first in verdict.alerts and table not in verdict.alerts  # one test, one alert
    said = text(verdict, "s.db")
    assert "alerts:\n  all all, Ante+Call, last 1,000 games: RTP" in said
    assert "the same seats as table T2, last 1,000 games" in said
    doc = json.loads(to_json(verdict, "s.db"))
    cell = next(c for c in doc["cells"] if (c["segment"], c["window"]) == ("all", "last 1,000 games"))
    assert "table T2, last 1,000 games" in cell["also"] and doc["alerts"] == len(verdict.every_alert)


def test_nothing_tested_is_not_a_pass(tmp_path: Path) -> None:
    """A store too small for any test says so and exits 2, not 0 ('no alert')."""
    url = str(tmp_path / "small.db")
    log = simulate(tmp_path / "s.jsonl", "--seats", "2", "--rounds", "50", "--sessions", "1", "--seed", "3",
                   "--format", "jsonl")
    assert run("check", "--store", url, log, "--quiet")[0] == 0
    code, out = run("monitor", "--store", url, "--no-cache")
    assert code == 2 and "nothing tested" in out and "no alert" not in out
    # the minimums it names are the tests' own: a deal test needs 100 deals, as its rows say
    assert "no deal test 100 deals yet" in out and "fewer than 100 deals" in out, out
    code, out = run("monitor", "--store", url, "--no-cache", "--record")
    assert code == 2 and "no alert to record" in out


def test_a_stored_seat_changed_so_it_cannot_be_read_points_to_store_verify(tmp_path: Path) -> None:
    """Not 'internal error': the store was changed after it was stored, and verify says where."""
    import sqlite3

    url = str(tmp_path / "audit.db")
    _store(url, tmp_path)
    with sqlite3.connect(url) as conn:
        conn.execute("UPDATE runs SET cards = substr(cards, 1, 20) WHERE id = (SELECT min(id) FROM runs)")
    for extra in ((), ("--no-cache",)):
        code, out = run("monitor", "--store", url, *extra)
        assert code == 2 and "a stored seat cannot be read" in out and f"referee store verify {url}" in out, out
        assert "internal error" not in out


@pytest.mark.parametrize("change", [
    "UPDATE runs SET settlements = '[999999]'",  # a settlement that is not there: KeyError
    "UPDATE settlements SET ante_u = 'abc'",  # text where a number was: TypeError
    "UPDATE runs SET layout = X'00'",  # a layout cut short: ValueError
])
def test_any_stored_seat_that_does_not_decode_is_said_as_a_changed_store(tmp_path: Path, change: str) -> None:
    import sqlite3

    url = str(tmp_path / "audit.db")
    _store(url, tmp_path)
    with sqlite3.connect(url) as conn:
        conn.execute(change)
    code, out = run("monitor", "--store", url, "--no-cache")
    assert code == 2 and "a stored seat cannot be read" in out and "internal error" not in out, out


def test_a_damaged_cache_is_the_caches_problem_not_the_stores(tmp_path: Path) -> None:
    """A cache whose own rows no longer decode is set aside (said on stderr) and the
    whole store read: the same report, not a changed store."""
    import sqlite3

    url, cache = str(tmp_path / "audit.db"), tmp_path / "c.sqlite"
    _store(url, tmp_path)
    code, _ = run("monitor", "--store", url, "--cache", str(cache), "-o", str(tmp_path / "a.txt"))
    with sqlite3.connect(cache) as conn:
        assert conn.execute("UPDATE bands SET jumps = '{bad'").rowcount > 0
    code2, out = run("monitor", "--store", url, "--cache", str(cache), "-o", str(tmp_path / "b.txt"))
    assert code2 == code and f"monitor cache {cache}" in out and "reading the whole store" in out, out
    assert "store verify" not in out
    assert (tmp_path / "a.txt").read_text() == (tmp_path / "b.txt").read_text()


def _store(url: str, tmp_path: Path) -> None:
    log = simulate(tmp_path / "t.jsonl", "--seats", "3-5", "--rounds", "1100", "--sessions", "2", "--seed", "7",
                   "--format", "jsonl", "--profile", "bonus-100", "--bonus", "1")
    code, out = run("check", "--store", url, log, "--quiet")
    assert code == 0, out


def test_monitor_of_a_fair_store_is_clean_and_a_short_paying_one_alerts(store_url: str, tmp_path: Path) -> None:
    _store(store_url, tmp_path)
    code, out = run("monitor", "--store", store_url, "--format", "json")
    assert code == 0, out
    doc = json.loads(out)
    assert doc["alerts"] == 0 and doc["band"]["correction"] == "sidak" and doc["band"]["tests"] > 10
    kinds = {c["segment"] for c in doc["cells"]}
    assert kinds == {"all", "table", "dealer", "profile", "stake", "player"}
    assert {c["bet"] for c in doc["cells"]} == {"ante+call", "bonus"}
    assert {(t["segment"], t["test"]) for t in doc["deal_tests"] if t["p"] is not None} >= {
        ("dealer", "bonus hits"), ("table", "dealer categories"), ("all", "player categories")}
    _short_paid(store_url)
    # changed in place, as no check writes (store verify's finding): the cache, made from the
    # rows as they were stored, does not see it; the whole store read does
    code, out = run("monitor", "--store", store_url)
    assert code == 0, out
    code, out = run("monitor", "--store", store_url, "--no-cache")
    assert code == 1, out
    assert "ALERT" in out and out.rstrip().endswith("alerts")
    code, out = run("monitor", "--store", store_url, "--format", "github", "--no-cache")
    assert code == 1 and out.startswith("::error title=referee monitor ")


def test_monitor_reads_only(tmp_path: Path) -> None:
    url = str(tmp_path / "audit.db")
    _store(url, tmp_path)
    before = Path(url).read_bytes()
    Path(url).chmod(0o444)
    code, out = run("monitor", "--store", url, "--segment", "table")
    assert code == 0, out
    code, out = run("monitor", "--store", url, "--segment", "table", "--record")
    assert code == 0 and "no alert to record" in out, out  # nothing to write: read-only is no obstacle
    assert Path(url).read_bytes() == before


def test_monitor_without_a_store_or_with_a_password() -> None:
    code, out = run("monitor", "--store", "no/such/audit.db")
    assert code == 2 and "no such file" in out
    code, out = run("monitor", "--store", "postgresql://auditor:s3cret@127.0.0.1:1/audit")
    assert code == 2 and "s3cret" not in out and "***" in out
    code, out = run("monitor")
    assert code == 2


def _deals(n: int, rigged: bool, seed: int = 5) -> list[Seat]:
    """``n`` deals of one seat, dealt by ``random``; ``rigged``: the dealer's two cards
    drawn again (up to five times) until the dealer qualifies."""
    import random

    from referee.rules.hands import evaluate

    qualifier = VIVO.resolve().profile.dealer_qualifier.floor()
    rng = random.Random(seed)
    out = []
    for i in range(n):
        cards = rng.sample(range(52), 9)
        board = cards[2:7]
        for _ in range(5 if rigged else 0):
            if evaluate([*board, *cards[7:]]).value >= qualifier:
                break
            rest = [c for c in range(52) if c not in cards[:7]]
            cards[7:] = rng.sample(rest, 2)
        out.append(Seat(order=i, game=("game", i), time_us=None, table="T1", dealer="d-1", profile="builtin:vivo",
                        player="p", ante_u=1_000_000, staked_u=1_000_000, net_u=-1_000_000, bonus_u=0,
                        called=False, known=tuple(cards[:5]), deal=True,
                        player_value=evaluate(cards[:7]).value, dealer_value=evaluate([*board, *cards[7:]]).value))
    return out


def test_a_fair_deal_passes_and_a_dealer_who_always_qualifies_is_caught() -> None:
    fair = judge(_deals(400, False), kinds=("all", "dealer"))
    tested = [j.test for j in fair.deals if j.test.tested]
    assert {t.test for t in tested} == {"player categories", "dealer categories", "dealer qualification"}
    assert not fair.alerting
    rigged = judge(_deals(400, True), kinds=("all", "dealer"))
    caught = {(j.test.kind, j.test.test) for j in rigged.deal_alerts}
    # one dealer dealt them all: the dealer's tests are the store's, tested once (same_as)
    assert ("all", "dealer qualification") in caught and ("all", "dealer categories") in caught
    assert all(j.same_as is not None and j.same_as.startswith("all all, ") for j in rigged.deals
               if j.test.kind == "dealer" and j.test.tested)
    assert not any(j.test.test == "player categories" for j in rigged.deal_alerts)


def test_deals_without_their_cards_are_not_tested() -> None:
    deals = _deals(200, False)
    deals[3].dealer_value = None
    verdict = judge(deals, kinds=("all",))
    assert all(not j.test.tested and j.test.reason == "1 deal without all its cards" for j in verdict.deals)


def _short_paid(url: str) -> None:
    made = engine(target(url))
    with made.begin() as conn:  # every win paid an Ante short
        conn.execute(sa.text("UPDATE settlements SET main_net_u = main_net_u - ante_u WHERE main_net_u > 0"))
    made.dispose()


def test_record_keeps_each_alert_once_with_the_digest_of_its_inputs(store_url: str, tmp_path: Path) -> None:
    import hashlib

    from referee.store import digest, schema

    _store(store_url, tmp_path)
    _short_paid(store_url)
    code, out = run("monitor", "--store", store_url, "--segment", "all", "--record", "--format", "json")
    assert code == 1
    alerts = json.loads(out[:out.rindex("}") + 1])["alerts"]
    assert alerts >= 1 and f"{alerts} alert{'s' * (alerts != 1)} recorded" in out
    code, out = run("monitor", "--store", store_url, "--segment", "all", "--record")
    assert code == 1 and "0 alerts recorded" in out  # the same alerts, the same inputs: kept once
    made = engine(target(store_url))
    with made.connect() as conn:
        rows = conn.execute(sa.select(schema.alerts).order_by(schema.alerts.c.id)).mappings().all()
        s, r = schema.seats, schema.runs
        stored = [*conn.execute(sa.select(s.c.id, s.c.digest).where(s.c.kind == "counted")),
                  *conn.execute(sa.select(r.c.first_seat, r.c.digest))]  # a run of clean games, a row
    made.dispose()
    seats = [row_digest for _, row_digest in sorted(stored)]
    assert len(rows) == alerts
    first = rows[0]
    assert (first["segment"], first["value"], first["test"]) == ("all", "all", "rtp")
    assert first["digest"] == digest.of(tuple(first[c] for c in digest.columns("alerts")))
    assert json.loads(first["figures"])["alert"] is True and "Šidák" in first["band"]
    # a window holding every counted seat: its inputs are their rows (seats, runs), in store order
    everything = hashlib.sha256("\n".join(seats).encode()).hexdigest()
    assert any(r["inputs"] == len(seats) and r["inputs_digest"] == everything for r in rows)
    code, out = run("store", "verify", store_url)
    assert code == 1 and "settlement row" in out and "alert row" not in out  # the rows paid short; alerts whole
    made = engine(target(store_url))
    with made.begin() as conn:
        conn.execute(sa.text("UPDATE alerts SET games = games + 1 WHERE id = 1"))
    made.dispose()
    code, out = run("store", "verify", store_url)
    said = f"alert row 1 (all all, {first['bet']}, {first['window']}) changed after it was recorded"
    assert code == 1 and said in out


def test_html_has_a_control_chart_a_segment(tmp_path: Path) -> None:
    url = str(tmp_path / "audit.db")
    _store(url, tmp_path)
    _short_paid(url)
    page = tmp_path / "monitor.html"
    code, out = run("monitor", "--store", url, "--segment", "all", "--segment", "table", "--format", "html",
                    "-o", str(page))
    assert code == 1, out
    text = page.read_text(encoding="utf-8")
    assert text.count("<svg") >= 5 and "<h3>table T1, Ante+Call</h3>" in text and "Alerts</h2>" in text
    assert "<script" not in text


def test_html_without_the_report_extra_names_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    url = str(tmp_path / "audit.db")
    _store(url, tmp_path)
    monkeypatch.setitem(sys.modules, "pygal", None)
    code, out = run("monitor", "--store", url, "--format", "html", "-o", str(tmp_path / "m.html"))
    assert code == 2 and "pip install 'referee[report]'" in out
    assert not (tmp_path / "m.html").exists()


def test_monitor_without_the_store_extra_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "alembic" else real(name, *a))
    code, out = run("monitor", "--store", "audit.db")
    assert code == 2 and "pip install 'referee[store]'" in out


def test_the_upper_tail_is_bennetts_bound_never_below_the_normal_and_falling() -> None:
    """Above its expectation a cell's p is Bennett's bound (rare wins paid up to 100:1):
    never smaller than the normal tail (it tends to exp(-z^2/2) as jumps vanish), falling
    as z grows, larger the larger one game's jump; below, the normal tail."""
    for jump in (0.0, 0.01, 0.1, 1.0, 2.4):
        ps = [bennett(z, jump) for z in (1.0, 2.0, 3.0, 4.0, 5.0, 8.0)]
        assert ps == sorted(ps, reverse=True) and all(0 < x <= 1 for x in ps)
        for z in (2.0, 3.72, 5.0):
            normal = two_sided(z)
            assert normal is not None and bennett(z, jump) >= normal
    assert bennett(4.0, 1e-9) == pytest.approx(2 * math.exp(-8.0), rel=1e-6)
    assert bennett(4.0, 2.4) > bennett(4.0, 0.1) > bennett(4.0, 0.0)
    assert cell_p(-4.0, 2.4) == two_sided(-4.0) and cell_p(4.0, 2.4) == bennett(4.0, 2.4)


def test_a_sum_of_rare_large_wins_alerts_no_more_than_the_band_says() -> None:
    """A sum with the monitor's trouble: mostly small losses, a rare payout of 100 (the
    normal tail alerts on it far too often at a strict level; Bennett's bound does not)."""
    import random

    rng = random.Random(30)
    n, p_win, pay, level = 1000, 0.001, 100.0, 0.001
    mean = p_win * pay - (1 - p_win)
    sd_one = math.sqrt(p_win * pay * pay + (1 - p_win) - mean * mean)
    sd = sd_one * math.sqrt(n)
    normal_alerts = bound_alerts = 0
    trials = 4000
    for _ in range(trials):
        wins = sum(1 for _ in range(n) if rng.random() < p_win)
        z = (wins * pay - (n - wins) - n * mean) / sd
        normal_alerts += (two_sided(z) or 1) < level
        bound_alerts += cell_p(z, (pay - mean) / sd) < level  # type: ignore[operator]
    assert normal_alerts > 3 * level * trials  # the normal tail: several times the level (16 of 4,000)
    assert bound_alerts <= level * trials


def test_a_table_that_overpays_a_lot_still_alerts_on_the_winning_side() -> None:
    known = (48, 49, 20, 29, 50)
    m = exact.call_moments(VIVO, [known])[known]
    seats = [Seat(order=i, game=("game", i), time_us=None, table="T1", dealer=None, profile="builtin:vivo",
                  player=None, ante_u=1_000_000, staked_u=3_000_000, net_u=6_000_000, bonus_u=0, called=True,
                  known=known) for i in range(2000)]  # every call paid 6 Antes: twice what it is worth
    verdict = judge(seats, kinds=("all",))
    cell = next(j for j in verdict.cells if j.cell.window == "last 10,000 games")
    assert float(m.mean) < 3.1 and cell.cell.z is not None and cell.cell.z > 10 and cell.alert
