"""The monitor's per-game sums as first written: one pass a segment kind, a game's seats
summed again for every kind that holds them. Kept as the oracle of the shared-work
version in ``referee.monitor.columns.games`` and ``referee.monitor.randomness.deals``
(``tests/test_monitor_games.py``): two paths, one answer."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from referee.monitor import randomness
from referee.monitor.cells import (
    KEYS,
    KINDS,
    Games,
    Played,
    Sums,
    dyadic,
    game_third,
    game_variance,
    group_seat,
)
from referee.monitor.facts import Seat
from referee.monitor.randomness import DEAL_KINDS, Deals, DealSums
from referee.monitor.valuing import DealFigures, Figures, Valuation


@dataclass(slots=True)
class _Game:
    played: Played
    groups: dict[tuple[str, object, bool], list[int]] = field(default_factory=dict)
    wins: dict[str, float] = field(default_factory=dict)


def games(seats: list[Seat], v: Valuation, kinds: Iterable[str] = KINDS) -> Games:
    out: Games = defaultdict(list)
    for kind in kinds:
        key = KEYS[kind]
        open_games: dict[str, _Game] = {}
        for s in reversed(seats):
            f = s.situation
            segment = key(s)
            if segment is None or not isinstance(f, Figures):
                continue
            g = open_games.get(segment)
            if g is None or g.played.game != s.game:
                if g is not None:
                    _close(g, v)
                g = open_games[segment] = _Game(Played(s.game, s.time_us))
                out[(kind, segment)].append(g.played)
            _seat(g, s, f)
        for g in open_games.values():
            _close(g, v)
    return out


def _seat(g: _Game, s: Seat, f: Figures) -> None:
    bets = g.played.bets
    main = bets.get("ante+call")
    if main is None:
        main = bets["ante+call"] = Sums(games=1)
    main.seats += 1
    main.staked += s.staked_u
    main.observed += s.net_u
    main.expected += s.ante_u * f.mean
    if s.called:
        g.wins["ante+call"] = g.wins.get("ante+call", 0.0) + s.ante_u * f.top
    if s.paid_u is None:
        main.paid_unknown += 1
    else:  # the paid basis: the same seat, what it was paid, and its owed amount each way in both
        paid = bets.get("paid")
        if paid is None:
            paid = bets["paid"] = Sums(games=1)
        paid.seats += 1
        paid.staked += s.staked_u
        paid.observed += s.paid_u
        paid.expected += s.ante_u * f.mean
        for sums in (main, paid):
            sums.owed_player += max(s.net_u - s.paid_u, 0)
            sums.owed_house += max(s.paid_u - s.net_u, 0)
        if s.called:
            g.wins["paid"] = g.wins.get("paid", 0.0) + s.ante_u * f.top
    if s.bonus_u and f.bonus_variance:
        bonus = bets.get("bonus")
        if bonus is None:
            bonus = bets["bonus"] = Sums(games=1)
        bonus.seats += 1
        bonus.staked += s.bonus_u
        bonus.observed += s.bonus_u * f.bonus_pay
        bonus.expected += s.bonus_u * f.bonus_mean
        g.wins["bonus"] = g.wins.get("bonus", 0.0) + s.bonus_u * f.bonus_top
    group_seat(g.groups, s, f)


def _close(g: _Game, v: Valuation) -> None:
    for bet, sums in g.played.bets.items():
        exact_part, bound = game_variance(g.groups, bet, v.scale2)
        if exact_part:
            sums.variance += exact_part
            sums.cross += dyadic(bound)
            sums.jump = g.wins.get(bet, 0.0)
            third, bound3 = game_third(g.groups, bet, v.scale3)
            sums.third += third
            sums.cross3 += dyadic(bound3)
            sums.terms += len([1 for (b, _, _), (_, unit, _) in g.groups.items() if b == bet and unit])


def deals(seats: list[Seat], kinds: Iterable[str] = DEAL_KINDS) -> Deals:
    facts = randomness._Facts()
    out: Deals = defaultdict(list)
    keys: dict[str, Callable[[Seat], str | None]] = {"all": lambda s: "all", "table": lambda s: s.table,
                                                     "dealer": lambda s: s.dealer}
    for kind in kinds:
        key = keys[kind]
        for s in reversed(seats):
            segment = key(s)
            if not s.deal or segment is None or not isinstance(s.situation, Figures) \
                    or not isinstance(s.deal_figures, DealFigures):
                continue
            d = DealSums()
            randomness._deal(d, s, s.deal_figures, facts)
            out[(kind, segment)].append((s.time_us, d))
    return out
