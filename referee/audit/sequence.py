"""The sequence of a session's games: numbers, held numbers, swaps, void replays.

The pure rules are :mod:`referee.audit.ledger`'s (``number_or_hold``, ``settle_held``,
``swapped``, ``replay_after_swap``); this is their choreography over a stream of games,
one for both formats (a round is a game without an id whose number is always read):

* a number that is off is **held** until the next game's number decides its finding,
  so one mistyped number is one finding, on its own game;
* a game numbered ``k+1`` where ``k`` was expected may be the **early one of two swapped
  games**: its seats' balances wait (``deferred``) until the next number says; if that
  is ``k``, the two are one ``S009`` on the late one, and every balance is judged in
  play order (the late game's, then the early game's, ``after``);
* the late game may come in several records (a game written as two), and when it is
  void its **replay** may follow, played before the early game too: the swap closes on
  the first record that is none of these (``late``), every result still in file order;
* a game held, or part of an open swap, is kept back and released in file order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..models.codes import FindingCode
from .games import GameResult
from .ledger import (
    HeldNumber,
    Numbering,
    in_order,
    number_or_hold,
    number_round,
    replay_after_swap,
    settle_held,
    swapped,
)
from .places import Emitter
from .players import BalanceWork, breaks, judge_balance
from .results import Finding

#: The late "game" of two swapped where the late one is a record that cannot be read.
_UNREADABLE = object()


@dataclass(slots=True)
class Held:
    """A game held back for its number's verdict, the emitter of that finding, and where
    it goes among the game's own findings and the session's."""

    number: HeldNumber
    result: GameResult
    emit: Emitter
    at_own: int
    at_session: int


@dataclass(slots=True)
class Numbered:
    """How :meth:`Sequence.begin` placed a game: the number to judge (None: none, or a
    further record of a game), and whether it is the late one of two swapped games."""

    number: int | None
    counted: bool
    swap: bool


class Sequence:
    """The numbering of one session and the games it keeps back (see the module)."""

    def __init__(self, findings: list[Finding]) -> None:
        self.findings = findings  # the session's, where a late finding takes its place
        self.numbering = Numbering()
        self.held: Held | None = None
        #: Further records of the held game (a game written as two): released with it.
        self.held_more: list[GameResult] = []
        #: The held game's seats' balances while it may be the early one of two swapped
        #: games; ``after``, a swap found: judged after every record of the late game.
        self.deferred: list[BalanceWork] | None = None
        self.after: list[BalanceWork] | None = None
        #: The late game's balances (and its further records' and replay's), judged with
        #: the early game's once the swap closes: in play order, or in file order when
        #: the balances follow the file and not the numbers (``release_swapped``).
        self.late_works: list[BalanceWork] = []
        #: Two swapped games' results, in file order, until the late one's records end.
        self.swapped: list[GameResult] = []
        #: The late game of an open swap: its id, or for a game without one its result.
        self.late: object | None = None
        #: The late game was void: its number while its replay may come next.
        self.late_replay: int | None = None
        self.swap_early: HeldNumber | None = None
        #: When the late game was void: the early one's number, whose replay may come once
        #: the late one's has (``release_swapped``).
        self.unit_early: HeldNumber | None = None
        self.released: list[GameResult] = []
        #: Game ids seen in the session: a further record of a game is not numbered again.
        self.seen: set[str] = set()
        #: The current game's balances wait with the held game (``defer``).
        self.waiting = False

    @property
    def plain(self) -> bool:
        """Nothing is held or open: a game in order can be taken as it comes (the lane)."""
        return self.held is None and self.late is None

    # -- a game

    def begin(self, result: GameResult, game_id: str | None, number: int | None, counted: bool,
              repeated: bool = False) -> Numbered:
        """Before a game is ruled: where it stands among the held and swapped games, and
        the held game's verdict, now that this game's number (or none) is known.
        ``counted``: the number is the table's sequence (a round's always is, a live
        table's when recorded); ``repeated``: the previous record again (format 1)."""
        again = game_id is not None and game_id in self.seen
        if game_id is not None:
            self.seen.add(game_id)
        self.waiting = False
        if self.late is not None:
            if again and game_id == self.late:  # a further record of the late game: played before the early one too
                self.swapped.append(result)
                return Numbered(None, False, False)
            if not again and self.late_replay is not None and counted and number == self.late_replay:
                self.late = result if game_id is None else game_id  # the void late game's replay
                self.swapped.append(result)
                return Numbered(number, True, False)
            self.release_swapped()
        if again and self.held is not None and self.held.result.game == game_id:
            self.held_more.append(result)  # a further record of the held game: waits with it
            self.waiting = self.deferred is not None
            return Numbered(None, False, False)
        n = None if again else number
        counts = counted and not again
        self.swap_early = early = self._settle(n if counts and not repeated else None)
        swap = early is not None
        if swap:
            self.late = result if game_id is None else game_id
            self.swapped.append(result)
        return Numbered(n, counts, swap)

    def settle_by(self, number: int) -> bool:
        """What :meth:`begin` does first for a game numbered ``number`` that is neither a
        further record of a game nor the previous record again: the held game's verdict,
        now that the next number is known, its results waiting in ``released``. False,
        with nothing changed, when a swap is open or the two may be swapped (``begin``
        decides those). The lane asks it, so that a misnumbered round holds back only
        itself, not the round that settles it."""
        if self.late is not None:
            return False
        held = self.held
        if held is None:
            return True
        if swapped(held.number, number):
            return False
        self._settle(number)
        return True

    def number(self, numbered: Numbered, result: GameResult, void: bool, repeated: bool, emit: Emitter) -> None:
        """Judge the game's number (once it is ruled: a void deal's number may be
        replayed): a finding now, or the game held for the next number's verdict."""
        if not numbered.counted:
            return
        n = numbered.number
        numbering = self.numbering
        if n is not None and numbering.accept == (n,) and not repeated and not numbered.swap and self.late is None:
            in_order(numbering, n, void)  # the number expected, nothing open: number_round's in-order case
            return
        found, held = number_or_hold(numbering, n, repeated, void)
        if numbered.swap and held is not None:  # the late one of two swapped games: out of order, whatever follows
            found, held = held.default, None
        if numbered.swap and self.swap_early is not None:
            if void:  # the late game's replay comes first: the early one's may come after it
                self.unit_early = self.swap_early
            else:
                replay_after_swap(self.numbering, self.swap_early)
        # the late game, or its replay
        if self.late is result or (result.game is not None and self.late == result.game):
            self.late_replay = n if void or repeated else None
            if held is not None:  # never held: it is released with the swapped games
                found, held = held.default, None
        if found is not None:
            emit(found.code, found.message, "round", found.expected, n)
        if held is not None:
            self.held = Held(held, result, emit, len(emit.findings), len(self.findings))
            if n == held.expected + 1 and not held.was_used:  # k+1 where k was expected: perhaps swapped
                self.deferred = []
                self.waiting = True

    def defer(self, work: BalanceWork) -> None:
        """A seat's balance: judged now, with the held game it waits for, or with the
        swapped games (the late one's)."""
        if self.waiting:
            assert self.deferred is not None
            self.deferred.append(work)
        elif self.late is not None and self.after:
            self.late_works.append(work)
        else:
            judge_balance(work, self.findings)

    def finish(self, result: GameResult) -> list[GameResult]:
        """After a game's seats: the results released now, in file order (this game's
        unless it is held, or part of an open swap)."""
        self.waiting = False
        held = self.held
        keep = (held is not None and (held.result is result or any(r is result for r in self.held_more))) or (
            bool(self.swapped) and any(r is result for r in self.swapped))
        out, self.released = self.released, []
        if not keep:
            out.append(result)
        return out

    def unreadable(self, number: int, emit: Any) -> None:
        """A record whose content cannot be read but whose number can (a JSON Lines round
        line): it is present, in order or not (never held), its nets unknown. Two swapped
        with it close once its nets are lost (the caller's, then ``release_swapped``)."""
        self.release_swapped()
        early = self._settle(number)
        found = number_round(self.numbering, number, False, False)
        if early is not None:
            replay_after_swap(self.numbering, early)
            self.late = _UNREADABLE
        if found is not None:
            emit(found.code, found.message, found.expected)

    def take_released(self) -> list[GameResult]:
        """The results released since (a held game settled by a record that gives none)."""
        out, self.released = self.released, []
        return out

    def close(self) -> list[GameResult]:
        """At the session's end: an open swap closes, a held game's default verdict stands."""
        self.release_swapped()
        self._settle(None)
        self.release_swapped()
        out, self.released = self.released, []
        return out

    # -- held and swapped games

    def _settle(self, following: int | None) -> HeldNumber | None:
        """The held game's verdict, put where number findings go (first among its own).
        Its seats' deferred balances are judged now, or, when this game is the one it
        was swapped with, after every record of this game (the players' chains in play
        order): then the held game's number (the early one of two swapped) is returned."""
        if self.held is None:
            return None
        held, self.held = self.held, None
        swap = swapped(held.number, following)
        if not swap:
            found = settle_held(self.numbering, held.number, following)
            self._place(held, found.code, found.message, found.expected)
        records = [held.result, *self.held_more]
        self.held_more = []
        deferred, self.deferred = self.deferred, None
        if swap:
            self.swapped, self.after = records, deferred
            return held.number
        self.released.extend(records)
        self._judge(deferred)
        return None

    def _place(self, held: Held, code: FindingCode, message: str, expected: int) -> None:
        """A held game's number finding, where it would have gone judged at once."""
        held.emit(code, message, "round", expected, held.number.number)
        emit = held.emit
        finding = emit.findings.pop()
        emit.findings.insert(held.at_own, finding)
        self.findings.pop()
        self.findings.insert(held.at_session, finding)
        self._moved(held.at_session, ())

    def _moved(self, at: int, pending: list[BalanceWork] | tuple[()]) -> None:
        """A finding was put at ``at`` among the session's: every place kept for one to
        come at or after it moves one on (balances waiting, the held game's number)."""
        for work in (*pending, *(self.deferred or ()), *(self.after or ()), *self.late_works):
            if work.at_session >= at:
                work.at_session += 1
        if self.held is not None and self.held.at_session >= at:
            self.held.at_session += 1

    def _judge(self, works: list[BalanceWork] | None) -> None:
        """Balances judged in play order; each P005 put where it would have gone."""
        pending = list(works or ())
        while pending:
            work = pending.pop(0)
            if judge_balance(work, self.findings):
                self._moved(work.at_session, pending)

    def release_swapped(self) -> None:
        """Two swapped games once every record of the late one is read: the balances
        judged in play order (the late game's, then the early game's), unless they follow
        the file and not the numbers (the early game's first): either chain that explains
        every balance is the table's (one finding, the S009, when the money is right);
        both released."""
        if self.late is None:
            return
        after, self.after, self.late, self.late_replay = self.after, None, None, None
        late, self.late_works = self.late_works, []
        if self.unit_early is not None:  # the early game was played last: a void one's replay may come
            replay_after_swap(self.numbering, self.unit_early)
            self.unit_early = None
        played = [*late, *(after or ())]
        if late and after and breaks(played) and not breaks([*after, *late]):
            played = [*after, *late]  # the balances follow the file: the money is right
        self._judge(played)
        self.released.extend(self.swapped)
        self.swapped = []
