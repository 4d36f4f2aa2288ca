"""What one window of one segment holds, seat by seat: the inputs an alert is about (their
stored rows digested), and the running sums a control chart draws."""

from __future__ import annotations

import math
from dataclasses import dataclass

from .cells import COUNT_WINDOWS, KEYS, WINDOWS, count_band, game_variance, group_seat, time_band
from .facts import Seat
from .valuing import Figures


def members(seats: list[Seat], kind: str, segment: str, bet: str, window: str, newest: int | None) -> list[Seat]:
    """The seats of a cell (``bet`` ``deal``: its deals; ``paid``: the main game on the paid
    basis, the seats that say what they were paid), oldest first, counted exactly as the
    cell was (a game's rank among the segment's valued seats' games, newest first)."""
    key = KEYS[kind]
    w = WINDOWS.index(window)
    out: list[Seat] = []
    # the calendar windows end at the segment's own newest game (its deals': a deal test's),
    # not at the store's (``newest``, kept for the callers that pass it)
    newest = max((s.time_us for s in seats if s.time_us is not None and key(s) == segment
                  and isinstance(s.situation, Figures)
                  and (bet != "deal" or (s.deal and s.deal_figures is not None))), default=None)
    rank, last = -1, None
    for s in reversed(seats):
        f = s.situation
        if key(s) != segment or not isinstance(f, Figures):
            continue
        if bet == "deal":
            if not s.deal or s.deal_figures is None:
                continue
            rank += 1
        elif s.game != last:
            rank, last = rank + 1, s.game
        if w < len(COUNT_WINDOWS):
            inside = count_band(rank) <= w
        else:
            inside = time_band(s.time_us, newest) <= w - len(COUNT_WINDOWS)
        if inside and (bet != "bonus" or (s.bonus_u and f.bonus_variance)) and (bet != "paid" or s.paid_u is not None):
            out.append(s)
    out.reverse()
    return out


@dataclass(frozen=True, slots=True)
class Point:
    """After ``games`` games: the observed and the expected net so far (in the currency)
    and the expected net's standard deviation."""

    games: int
    observed: float
    expected: float
    sd: float


def running(seats: list[Seat], bet: str, scale: int, scale2: int, points: int = 200) -> list[Point]:
    """The running sums over ``seats`` (a cell's members, oldest first), at most ``points``
    of them, evenly spaced by games (the last game always)."""
    games: list[tuple[float, float, float]] = []
    groups: dict[tuple[str, object, bool], list[int]] = {}
    observed = expected = 0.0
    last: object = None
    for s in seats:
        f = s.situation
        assert isinstance(f, Figures)
        if bet == "paid" and s.paid_u is None:
            continue
        if s.game != last and last is not None:
            games.append((observed, expected, _variance(groups, bet, scale2)))
            groups = {}
        last = s.game
        group_seat(groups, s, f)
        if bet == "bonus":
            observed += s.bonus_u * f.bonus_pay / scale / 1e6
            expected += s.bonus_u * f.bonus_mean / scale / 1e6
        else:
            observed += (s.paid_u if bet == "paid" and s.paid_u is not None else s.net_u) / 1e6
            expected += s.ante_u * f.mean / scale / 1e6
    if last is not None:
        games.append((observed, expected, _variance(groups, bet, scale2)))
    out: list[Point] = []
    variance = 0.0
    step = max(1, math.ceil(len(games) / points))
    for i, (o, e, v) in enumerate(games, 1):
        variance += v / 1e12
        if i % step == 0 or i == len(games):
            out.append(Point(i, o, e, math.sqrt(variance)))
    return out


def _variance(groups: dict[tuple[str, object, bool], list[int]], bet: str, scale2: int) -> float:
    """A game's variance in millionths²."""
    exact_part, bound = game_variance(groups, bet, scale2)
    return exact_part / scale2 + bound
