"""One bet's sums of one segment kind's games, column by column, in two steps: each game's
sums (:func:`per_game`), then the games' sums by cell (:func:`by_key`).

Why two steps: a game's sums depend on its seats alone (its seats in one situation under
one decision moved as one group, its largest upward move, its cross terms), so a kind whose
segments hold whole games (all, a table, a dealer, a profile: every seat of a game in the
one segment) has the very same games as another such kind, only filed under other cells.
``columns.banded`` makes each game's sums once a bet for all of them and files them kind by
kind (issue 47: the groups of the kinds that hold whole games shared); a kind that splits
games (a stake band, a player) makes its own.

Exactness is ``columns``': whole numbers as limbs (``wide``) or, where the column's largest
magnitude times its length is under 2^62, as int64 (no sum of its can overflow); a game's
largest upward move added seat by seat in the seats' order (``np.add.at``) and the cells'
the largest of their games'; the cross terms dyadic whole numbers (``cells.dyadic``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import wide
from .cells import dyadic, game_third, game_variance
from .seat_columns import Columns
from .valuing import Valuation
from .wide import Array

#: The bets a game is summed for.
BETS = ("ante+call", "bonus", "paid")


@dataclass(slots=True)
class Summed:
    """One bet's sums by key (a cell, or a game of a segment): each of ``Sums``' whole
    numbers, a list a field; the largest jump of the games under each key; the cross
    terms of the keys that have any (as ``Sums.cross``, ``cross3``)."""

    fields: dict[str, list[int]]
    jump: Array
    cross: dict[int, list[int]]


@dataclass(slots=True)
class Games:
    """One bet's sums a game (numbered as the kind's ``pid``): whether the game has a seat of
    the bet, each summed field as rows (limbs, or one int64 row: see :func:`_rows_of`), its
    largest upward move, and the cross terms of the games with seats in several
    situations. ``key``: the fields were summed straight by each game's key (its cell)
    instead, ``groups`` of them (a kind whose games are its own: no game's sums kept)."""

    has: Array
    fields: dict[str, Array]
    jump: Array
    cross: dict[int, list[int]]
    key: Array | None = None


def _rows_of(keys: Array, x: Array, groups: int) -> Array:
    """An int64 column summed by ``keys`` as rows that ``wide.grouped`` and ``wide.total``
    take: one int64 row when no sum of the column's can pass 2^62 (whatever keys it is
    later summed by), else its limbs summed."""
    if not x.size or int(np.abs(x).max()) * x.size < 1 << 62:
        out = np.zeros((1, groups), np.int64)
        np.add.at(out[0], keys, x)
        return out
    return wide.grouped(keys, wide.of_int64(x), groups)


def per_game(c: Columns, v: Valuation, bet: str, o: Array, pid: Array, alone: Array,
             rules: Games | None = None, key: Array | None = None, groups: int = 0) -> Games | None:
    """One bet's sums of one kind's games (``o``: the kind's seats in order, ``pid`` each
    one's game; ``alone``: the games of one seat). None: no seat has the bet. ``rules``:
    the same games' ``ante+call`` sums, when made: the paid basis of a kind whose every
    seat says what it was paid has the very same seats, groups and figures, and differs
    from them in what was observed alone (taken so, not made again). ``key`` (each game's
    cell, ``groups`` of them): the fields summed straight into the cells."""
    played = alone.size
    width = played if key is None else groups

    def into(games: Array) -> Array:
        """Where the sums of items of ``games`` go: their games, or their games' cells."""
        return games if key is None else key[games]
    sit = c.sit[o]
    if bet == "bonus":
        m = (c.bonus[o] != 0) & c.bonus_var_nz[sit]
    elif bet == "paid":
        m = c.paid_known[o]
    else:
        m = np.ones(o.size, bool)
    if not m.any():
        return None
    if bet == "paid" and rules is not None and m.all():
        return Games(rules.has, {**rules.fields, "observed": _rows_of(into(pid), c.paid[o], width)},
                     rules.jump, rules.cross, rules.key)
    at = o[m]
    p = pid[m]
    s = sit[m]
    has = np.zeros(played, bool)
    has[p] = True
    to = into(p)
    fields: dict[str, Array] = {"seats": np.bincount(to, minlength=width)[None, :]}
    if bet == "bonus":
        stake = c.bonus[at]
        fields["staked"] = _rows_of(to, stake, width)
        fields["observed"] = wide.grouped(to, c.product("bonus", "bonus_pay")[:, at], width)
        fields["expected"] = wide.grouped(to, c.product("bonus", "bonus_mean")[:, at], width)
        unit, third, top = c.table["bonus_variance"], c.table["bonus_third"], c.bonus_top
        unit_nz = c.bonus_var_nz
        called = np.ones(at.size, bool)
        wins = stake.astype(np.float64) * top[s]
    else:
        stake = c.ante[at]
        fields["staked"] = _rows_of(to, c.staked[at], width)
        fields["observed"] = _rows_of(to, c.paid[at] if bet == "paid" else c.net[at], width)
        fields["expected"] = wide.grouped(to, c.product("ante", "mean")[:, at], width)
        known_pay = c.paid_known[at]
        owed = np.where(known_pay, c.net[at] - c.paid[at], 0)
        fields["owed_player"] = _rows_of(to, np.maximum(owed, 0), width)
        fields["owed_house"] = _rows_of(to, np.maximum(-owed, 0), width)
        fields["paid_unknown"] = _rows_of(to, (~known_pay).astype(np.int64), width)
        unit, third, top = c.table["variance"], c.table["third"], c.top
        unit_nz = c.var_nz
        called = c.called[at]
        wins = np.where(called, stake.astype(np.float64) * top[s], 0.0)
    known = c.known[at]
    # a game's groups: its seats in one situation under one decision (the first one's figures)
    g_order = np.lexsort((called, known, p))  # stable: a group's first is its newest seat
    gp, gk, gc = p[g_order], known[g_order], called[g_order]
    g_start = np.ones(g_order.size, bool)
    g_start[1:] = (gp[1:] != gp[:-1]) | (gk[1:] != gk[:-1]) | (gc[1:] != gc[:-1])
    g_first = np.flatnonzero(g_start)
    g_stake = np.add.reduceat(stake[g_order], g_first)
    g_sit = s[g_order][g_first]
    g_played = gp[g_first]
    valid = unit_nz[g_sit]
    n_valid = np.bincount(g_played[valid], minlength=played)
    n_moving = np.bincount(g_played[valid & (g_stake != 0)], minlength=played)
    moves = (n_moving > 0) | (alone & (n_valid > 0))  # the game adds variance (``cells._close``, ``_alone``)
    counted = valid & moves[g_played]
    gp_c, st_c, sit_c = g_played[counted], g_stake[counted], g_sit[counted]
    x = wide.of_int64(st_c)
    square = wide.mul(x, x)
    fields["variance"] = wide.grouped(into(gp_c), wide.mul(square, unit[:, sit_c]), width)
    fields["third"] = wide.grouped(into(gp_c), wide.mul(wide.mul(square, x), third[:, sit_c]), width)
    terms = np.where(moves, n_valid, 0)
    fields["terms"] = terms[None, :] if key is None else _rows_of(key, terms, width)
    jump = np.zeros(played, np.float64)
    np.add.at(jump, p, wins)  # in the seats' order: the float of adding them one by one
    jump[~moves] = 0.0
    cross: dict[int, list[int]] = {}
    for game in np.flatnonzero(moves & (n_valid >= 2)).tolist():
        cross[game] = _cross(c, bet, game, g_played, g_stake, g_sit, valid, v)
    return Games(has, fields, jump, cross, key)


def _cross(c: Columns, bet: str, game: int, g_played: Array, g_stake: Array, g_sit: Array, valid: Array,
           v: Valuation) -> list[int]:
    """A game with seats in several situations: its bounds on the cross terms, as
    ``cells._close`` makes them (few games: a table dealing each seat its own cards)."""
    mine = np.flatnonzero((g_played == game) & valid)
    units = ("bonus_variance", "bonus_third") if bet == "bonus" else ("variance", "third")
    groups: dict[tuple[str, object, bool], list[int]] = {}
    for i in mine:
        f = c.figures[int(g_sit[i])]
        groups[(bet, int(i), True)] = [int(g_stake[i]), getattr(f, units[0]), getattr(f, units[1])]
    _, bound = game_variance(groups, bet, v.scale2)
    _, bound3 = game_third(groups, bet, v.scale3)
    return [dyadic(bound), dyadic(bound3)]


def by_key(g: Games, key: Array, groups: int, games: Array | None = None) -> Summed:
    """The games' sums added by ``key`` (each game's key, 0 to ``groups`` - 1), only the
    games ``games`` (their numbers; None: all): their whole numbers exactly, the largest
    of their jumps, their cross terms. (Sums made by key already, ``g.key``: that key.)"""
    if games is None:
        has, jump, fields_of = g.has, g.jump, g.fields
        keys = key
    else:
        has, jump = g.has[games], g.jump[games]
        fields_of = {name: rows[:, games] for name, rows in g.fields.items()}
        keys = key[games]
    fields: dict[str, list[int]] = {"games": np.bincount(keys[has], minlength=groups).tolist()}
    for name, rows in fields_of.items():
        fields[name] = wide.total(rows if g.key is not None else wide.grouped(keys, rows, groups))
    out = np.zeros(groups, np.float64)
    np.maximum.at(out, keys[has], jump[has])  # a cell's: the largest of its games' (``Sums.add``)
    cross: dict[int, list[int]] = {}
    for game, (a, b) in g.cross.items():
        at = int(key[game])
        if games is not None and at < 0:
            continue
        found = cross.setdefault(at, [0, 0])
        found[0] += a
        found[1] += b
    return Summed(fields, out, cross)
