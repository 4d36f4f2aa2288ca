"""A segment's newest seats, read without the whole store (``referee.monitor.window``, the
desk's Watch charts, issue 48): for every kind of segment, on both engines, exactly the
segment's newest seats up to the limit, whole games, as the whole store's read places
them; a player's too, although the runs that hold their games hold the other players'
seats (the window once counted those towards its limit)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from referee.monitor import reading, window
from referee.monitor.cells import KEYS
from referee.store.read import Stored

from .conftest import run
from .store_support import simulate


def _store(url: str, folder: Path) -> None:
    """Three logs of a table of seven seats (ten players, three dealers; faults in some
    games: rows beside the runs) and one of another table."""
    logs = [simulate(folder / f"w{seed}.jsonl", "--seats", "7", "--rounds", "60", "--seed", str(seed), "--faults",
                     "0.1", "--table", "W1", "--format", "jsonl") for seed in (31, 32, 33)]
    logs.append(simulate(folder / "other.jsonl", "--seats", "5", "--rounds", "30", "--table", "W2", "--format",
                         "jsonl"))
    code, out = run("check", "--store", url, "--quiet", *logs)
    assert code in (0, 1), out


def _newest(mine: list[Any], limit: int) -> list[Any]:
    """The reference: of the whole store's read of a segment, its newest games whose seats
    number ``limit`` at most."""
    games = list(dict.fromkeys(seat.game for seat in mine))
    counts = Counter(seat.game for seat in mine)
    kept: set[object] = set()
    held = 0
    for game in reversed(games):
        if held + counts[game] > limit:
            break
        kept.add(game)
        held += counts[game]
    return [seat for seat in mine if seat.game in kept]


def test_every_kind_of_segments_window_is_its_newest_seats(store_url: str, tmp_path: Path) -> None:
    _store(store_url, tmp_path)
    with Stored(store_url) as stored:
        whole = reading.seats(stored.conn)
        bands = Counter(KEYS["stake"](seat) for seat in whole)
        players = Counter(seat.player for seat in whole if seat.table == "W1")
        dealers = Counter(seat.dealer for seat in whole if seat.dealer is not None)
        segments: list[tuple[str, str]] = [
            ("player", str(players.most_common()[-1][0])), ("player", "p-W1-003"), ("table", "W1"),
            ("dealer", str(dealers.most_common()[-1][0])), ("stake", str(bands.most_common()[-1][0])),
            ("profile", whole[0].profile), ("all", "all")]
        for kind, value in segments:
            mine = [seat for seat in whole if KEYS[kind](seat) == value]
            assert len(mine) > 60, (kind, value, len(mine))
            for limit in (25, 60, len(mine) - 1, len(mine)):
                found = window.newest(stored.conn, (kind, value), limit)
                expected = _newest(mine, limit)
                assert found.seats == expected, (kind, value, limit)
                assert found.games == len({seat.game for seat in expected})
                assert found.cut == (len(expected) < len(mine)), (kind, value, limit)
                if kind == "player":  # one seat a game: exactly the limit, their own seats only
                    assert len(found.seats) == min(limit, len(mine))
                    assert {seat.player for seat in found.seats} == {value}
                else:  # whole games: a game that would cross the limit is left out
                    assert limit - 7 < len(found.seats) <= limit or len(found.seats) == len(mine)


@pytest.mark.parametrize("limit", [10, 40])
def test_a_players_window_holds_exactly_their_newest_seats(store_url: str, tmp_path: Path, limit: int) -> None:
    """The limit lowered, as the desk's Watch lowers ``WATCH_SEATS`` in its tests: a
    player of a table of seven seats gets that many of their own newest seats, not a
    seventh of them."""
    _store(store_url, tmp_path)
    with Stored(store_url) as stored:
        whole = reading.seats(stored.conn)
        mine = [seat for seat in whole if seat.player == "p-W1-003"]
        cut = window.newest(stored.conn, ("player", "p-W1-003"), limit)
        found, start = cut.seats, cut.start
        assert start > 0 and len(found) == limit
        assert found == mine[-limit:]
