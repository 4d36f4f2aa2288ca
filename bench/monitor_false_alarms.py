"""False alarms of ``referee monitor`` over fair simulated live tables (issue 47).

Run: python bench/monitor_false_alarms.py [--tables 1000] [--games 2500] [--seats 2-4] [--seed 1]
                                          [--jobs 1] [--first 0] [--profile bonus-100]

A *table* is one live table as ``referee simulate --seats 2-4 --bonus 1 --start TIME --table T1``
deals it (``referee.simulate_table``: a shared hand, 2 to 4 seats a game from six regulars who
mix the ``always-call`` and ``simple`` play, Antes of 1, 2 or 5 and a Bonus of 1, three
dealers in turn, about 1% of games cancelled and 2% written as two records, every game
timed, about 55 an hour), fair: no fault. Its games become the monitor's seat facts as a
store gives them (``referee.monitor.reading``: a counted seat per settled seat, its game's
seats at its first record, the deal carried by the first seat of the first record), and
``referee.monitor.run.judge`` tests them as ``referee monitor --store`` does: every segment
(all, table, dealer, profile, stake band, player), both bets, every window (the last 1,000
and 10,000 games, the day, the week, the month: 2,500 games are about 46 hours, so the day's
window is about half of them), the deal's tests, at the default band (99% family band,
Šidák over the tests made). Why not through a store: a store adds nothing to the statistics
(``tests/test_monitor.py`` compares them), and storing 10,000 seats a table a thousand times
is not what is measured.

The **false-alarm rate** is the share of tables with any alert; its target is at most 1%.
Printed: the rate with its 95% interval (Wilson), the tests a table, the alert groups
(``referee.monitor.groups``) of the tables that alerted, the seconds.

Which basis: the rules' (the nets the rules give against the exact expectation of the
decisions taken). A fair table pays what the rules give, so the paid basis (what the
wallets moved) sees the same nets here.
"""

from __future__ import annotations

import argparse
import math
import time
from concurrent.futures import ProcessPoolExecutor
from contextlib import nullcontext
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from referee.monitor.facts import Seat
from referee.monitor.run import judge
from referee.profiles import ProfileOrigin
from referee.rules.cards import DECK, Card
from referee.rules.hands import evaluate
from referee.rules.settlement import Deal, settle
from referee.simulate_table import TableSettings, parse_seats, simulate_tables

START = datetime(2026, 12, 1, 18, tzinfo=UTC)
CARDS = {str(c): c for c in DECK}
MICRO = 1_000_000


def seats_of(settings: TableSettings) -> list[Seat]:
    """The simulated tables' counted seats as the monitor reads them from a store, in order."""
    profile = settings.profile
    origin = f"builtin:{profile.name}"
    out: list[Seat] = []
    first: dict[object, int] = {}
    for header, games in simulate_tables(settings):
        table = str(header["table"])
        for record in games:
            key = ("game", table, record["game"])
            order = first.setdefault(key, len(out))
            deal = order == len(out)  # the first seat of the game's first record carries the deal
            if record.get("status") == "cancelled":
                continue  # refunded: no counted seat
            hand = [CARDS[c] for c in record["player"]]
            flop = [CARDS[c] for c in record["flop"]]
            turn, river = CARDS[record["turn"]], CARDS[record["river"]]
            dealer = [CARDS[c] for c in record["dealer"]]
            known = tuple(int(c) for c in (*hand, *flop))
            when = _us(record.get("started"), record.get("settled"))
            for seat in record.get("seats", []):
                out.append(_seat(profile, origin, key, order, when, table, record.get("dealer_id"), seat, hand,
                                 flop, turn, river, dealer, known, deal))
                deal = False
    out.sort(key=lambda s: s.order)  # stable: a second record's seats join its game's
    return out


def _us(started: object, settled: object) -> int | None:
    text = settled or started
    if not isinstance(text, str):
        return None
    return int(datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() * MICRO)


def _seat(profile: Any, origin: str, key: object, order: int, when: int | None, table: str, dealer_id: object,
          seat: Any, hand: list[Card], flop: list[Card], turn: Card, river: Card, dealer: list[Card],
          known: tuple[int, ...], deal: bool) -> Seat:
    ante, bonus = Decimal(str(seat["ante"])), Decimal(str(seat.get("bonus", 0)))
    ruling = settle(profile, Deal(ante, hand, flop, seat["decision"], turn, river, dealer, bonus))
    assert ruling.player_hand is not None and ruling.dealer_hand is not None
    board = [*flop, turn, river]
    return Seat(order=order, game=key, time_us=when, table=table, dealer=str(dealer_id), profile=origin,
                player=seat["player_id"], ante_u=int(ante * MICRO),
                staked_u=int((ruling.ante_stake + ruling.call_stake) * MICRO),
                net_u=int((ruling.ante + ruling.call) * MICRO), bonus_u=int(ruling.bonus_stake * MICRO),
                called=seat["decision"] == "call", known=known,
                bonus_value=evaluate([*hand, *flop]).value if ruling.bonus_stake else None, deal=deal,
                player_value=evaluate([*hand, *board]).value, dealer_value=evaluate([*dealer, *board]).value)


def one(args: tuple[int, int, str, str]) -> tuple[int, bool, int, list[str]]:
    """A fair table judged: the tests made, whether it alerted, its alert groups and their leads."""
    seed, games, seats, profile_name = args
    loaded = ProfileOrigin.of_builtin(profile_name).resolve()
    settings = TableSettings(loaded.profile, parse_seats(seats), 1, games, seed, "mix",
                             Decimal(1) if loaded.profile.bonus is not None else Decimal(0), start=START, table="T1")
    seats_found = seats_of(settings)
    verdict = judge(seats_found)
    leads: list[str] = []
    if verdict.alerting:
        try:
            from referee.monitor.groups import group_alerts
        except ImportError:  # pragma: no cover - before groups
            leads = ["?"]
        else:
            leads = [g.lead for g in group_alerts(verdict, seats_found)]
    return verdict.band.tests, verdict.alerting, len(verdict.every_alert), leads


def wilson(k: int, n: int) -> tuple[float, float]:
    z = 1.96
    centre = (k + z * z / 2) / (n + z * z)
    half = z * math.sqrt(k * (n - k) / n + z * z / 4) / (n + z * z)
    return centre - half, centre + half


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--games", type=int, default=2500)
    parser.add_argument("--seats", default="2-4")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--first", type=int, default=0, help="the first table's index (a run continued)")
    parser.add_argument("--jobs", type=int, default=1, help="processes (1: in this one, no pool)")
    parser.add_argument("--profile", default="bonus-100")
    a = parser.parse_args()
    started = time.perf_counter()
    work = [(a.seed * 1_000_003 + i, a.games, a.seats, a.profile) for i in range(a.first, a.first + a.tables)]
    alerted = alerts = 0
    tests: list[int] = []
    groups: list[int] = []
    with ProcessPoolExecutor(a.jobs) if a.jobs > 1 else nullcontext() as pool:
        for (seed, *_), (n, alerting, count, leads) in zip(
                work, pool.map(one, work) if pool is not None else map(one, work), strict=True):
            tests.append(n)
            alerted += alerting
            alerts += count
            if alerting:
                groups.append(len(leads))
                print(f"table seed {seed}: {count} alerts in {len(leads)} groups led by {', '.join(leads)}",
                      flush=True)
            if len(tests) % 50 == 0:  # a run stopped early still says what it found so far
                print(f"after {len(tests)} tables: {alerted} alerted ({time.perf_counter() - started:.0f} s)",
                      flush=True)
    wall = time.perf_counter() - started
    low, high = wilson(alerted, a.tables)
    print(f"{a.tables} fair tables of {a.games:,} games ({a.seats} seats a game, {a.profile}, timed), "
          f"{min(tests)}-{max(tests)} tests a table, {wall:.0f} s wall on {a.jobs} process{'es' * (a.jobs > 1)}")
    print(f"  false alarms: {alerted}/{a.tables} = {alerted / a.tables:.2%} (95% interval {low:.2%} to {high:.2%}); "
          f"{alerts} alerts in {sum(groups)} groups")


if __name__ == "__main__":
    main()
