"""The merge: every event of an audit, in file order, to every reporter.

What travels from a worker (a process under ``--jobs``, a machine under ``--cluster``)
is a task's events, with runs of rounds and of games already turned into their
reporters' payloads (:class:`RenderedRounds`, :class:`RenderedGames`,
:class:`RenderedClean`): the parent takes them in plan order, so the report is
byte-identical to the one-process report. The state across tasks is the game index
(format 2: two records of one game, in two chunks or two files, must agree:
``G001``/``G002``) and the session index (format 1: a session recorded twice is said
once, ``S010``, or is a conflict, ``S011``), kept here, in the process that writes the
report."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import partial
from typing import Any

from ..models import codes
from ..report.base import Reporter
from ..report.progress import Progress
from ..report.spill import CleanText
from ..report.view import Selected, View
from .audit import (
    CleanGames,
    Event,
    Finding,
    GameFingerprint,
    GameIndex,
    GameResult,
    InputInfo,
    SessionIndex,
    SessionInfo,
    SessionResult,
    Summary,
    round_view,
)
from .holding import Held


@dataclass(frozen=True, slots=True)
class RenderedRounds:
    """Consecutive rounds of a worker's task as the reporters keep them: for each
    reporter, in their order, the list of its payloads. One object a run of rounds
    travels back, not one a round (a round's own object cost about as much to pickle
    and unpickle as its audit on the fast path)."""

    payloads: tuple[list[Any], ...]


@dataclass(slots=True)
class RenderedGames:
    """Consecutive format-2 games of a worker's task as the reporters keep them: for each
    reporter, in their order, the list of its payloads (for a format that takes spilled
    texts, :attr:`Reporter.spills`, their texts joined into one
    :class:`~referee.report.spill.CleanText`, taken like a batch of clean rounds); and
    what two records of each game must share. One object a run of games, not one a game:
    the parent's share of the work is what ``--jobs`` cannot spread."""

    payloads: list[Any]
    fingerprints: list[GameFingerprint]


@dataclass(frozen=True, slots=True)
class RenderedClean:
    """A batch of the fast lane's clean rounds as the reporters keep it: each
    reporter's payload for the whole batch, in their order, and how many rounds."""

    payloads: tuple[Any, ...]
    count: int


Item = Event | RenderedRounds | RenderedGames | RenderedClean


@dataclass(slots=True)
class Stream:
    """The events of an audit, how many input bytes are done, and how many in all;
    ``tasks``, when the audit runs in tasks, how many are done and how many are planned
    so far (for progress)."""

    events: Iterator[Item]
    done: Callable[[], int]
    total: int
    tasks: Callable[[], tuple[int, int]] | None = None


def dispatch(stream: Iterable[Item], reporters: list[Reporter], progress: Progress | None = None,
             index: GameIndex | None = None, sessions: SessionIndex | None = None,
             view: View | None = None) -> Summary:
    """Send every event to every reporter; count what the summary needs. ``index``: the
    games known before (``check --store``: those of the store), else none; ``sessions``
    likewise, the format-1 sessions known before. ``view``: ``check``'s selection and
    baseline (:mod:`referee.report.view`), the one place the summary and the exit status
    learn which findings are shown; the reporters that show them see the audit through it
    (:class:`Selected`), the store does not."""
    summary = Summary()
    if view is not None:
        view.start(summary)
    inputs: list[InputInfo] = []
    feed = _Feed(reporters, progress, summary, inputs, index if index is not None else GameIndex(),
                 sessions if sessions is not None else SessionIndex(), view)
    for r in reporters:
        r.start()
    try:
        for event in stream:
            feed.take(event)
        if view is not None:  # the baseline's entries no finding met, once every finding is in
            for finding in view.unmatched(inputs):
                view.count(summary, finding)
                for r in reporters:
                    if isinstance(r, Selected):
                        r.problem(finding)
    finally:  # an interrupt or an error: the stream's workers are ended now, not when collected
        feed.close()
        close = getattr(stream, "close", None)
        if close is not None:
            close()
    if progress is not None:
        progress.close()
    for r in reporters:
        r.finish(summary, inputs)
    return summary


class _Feed:
    """Each event to each reporter, counting what the summary needs; a format-1 session
    whose id was seen before held until its close (:class:`Held`): the same session again
    is one ``S010`` and nothing else, another record under its id goes on as any other."""

    def __init__(self, reporters: list[Reporter], progress: Progress | None, summary: Summary,
                 inputs: list[InputInfo], index: GameIndex, sessions: SessionIndex, shown: View | None) -> None:
        self.reporters = reporters
        #: A finding counted: in the summary, or (``shown``: check's view) among the ignored.
        self.count = summary.count if shown is None else partial(shown.count, summary)
        self.progress = progress
        self.summary = summary
        self.inputs = inputs
        self.index = index  # format 2: two records of one game must agree
        self.sessions = sessions  # format 1: a session recorded twice is said once
        self.held: Held | None = None

    def take(self, event: Item) -> None:
        held = self.held
        if held is not None:
            if isinstance(event, SessionResult):
                self.held = None
                try:
                    self._judged(held, event)
                finally:
                    held.close()
                return
            rendered = self._rendered(event)
            held.add(rendered, rounds_in(rendered))
            if self.progress is not None:
                self.progress.tick(rounds_in(rendered))
            return
        if isinstance(event, SessionInfo) and self.sessions.known(event):
            self.held = Held(event)
            return
        if isinstance(event, SessionResult):
            self.sessions.judge(event)  # the first record of its id (a later one was held)
        self._one(event, True)

    def close(self) -> None:
        if self.held is not None:
            self.held.close()
            self.held = None

    def _judged(self, held: Held, result: SessionResult) -> None:
        """A held session closes: dropped for its one ``S010`` when it is a repeat (a
        problem held with it, outside any session, is still said), else fed whole."""
        finding = self.sessions.judge(result)
        if finding is not None and finding.code == codes.S010:
            for item in held:
                if isinstance(item, Finding):
                    self._one(item, False)
            self.summary.repeated += 1
            self._one(finding, False)
            return
        self._one(held.info, False)
        for item in held:
            self._one(item, False)
        self._one(result, False)

    def _rendered(self, event: Item) -> Item:
        """A format-1 session's item as a worker sends it: its reporters' payloads (what is
        held is what would have been written; payloads pickle, a round's result need not)."""
        reporters = self.reporters
        if isinstance(event, GameResult) and event.format == 1:
            view = round_view(event)
            return RenderedRounds(tuple([r.round_payload(view)] for r in reporters))
        if isinstance(event, CleanGames) and event.format == 1:
            return RenderedClean(tuple(r.clean_payload(event) for r in reporters), len(event))
        return event

    def _one(self, event: Item, tick: bool) -> None:
        """One event to each reporter (``tick``: progress counts its rounds)."""
        reporters, summary, index, count = self.reporters, self.summary, self.index, self.count
        progress = self.progress if tick else None
        if isinstance(event, GameResult):
            if event.format == 1:  # a round: its format's reporters write it as one
                view = round_view(event)
                for r in reporters:
                    r.take_round(r.round_payload(view))
            else:
                index.see(event.fingerprint)
                for r in reporters:
                    r.take_game(r.game_payload(event))
            if progress is not None:
                progress.tick()
        elif isinstance(event, CleanGames) and event.format == 2:
            for game in event:
                index.see(game.fingerprint)
            for r in reporters:
                for payload in r.clean_games_payload(event):
                    r.take_game(payload)
            if progress is not None:
                progress.tick(len(event))
        elif isinstance(event, RenderedGames):
            for fingerprint in event.fingerprints:
                index.see(fingerprint)
            for r, payload in zip(reporters, event.payloads, strict=True):
                if isinstance(payload, CleanText):
                    r.take_clean(payload)
                else:
                    for one in payload:
                        r.take_game(one)
            if progress is not None:
                progress.tick(len(event.fingerprints))
        elif isinstance(event, (CleanGames, RenderedClean)):
            for r, payload in zip(reporters, event.payloads if isinstance(event, RenderedClean)
                                  else [r.clean_payload(event) for r in reporters], strict=True):
                r.take_clean(payload)
            if progress is not None:
                progress.tick(event.count if isinstance(event, RenderedClean) else len(event))
        elif isinstance(event, RenderedRounds):
            for r, payloads in zip(reporters, event.payloads, strict=True):
                take = r.take_round
                for payload in payloads:
                    take(payload)
            if progress is not None and event.payloads:
                progress.tick(len(event.payloads[0]))
        elif isinstance(event, SessionInfo):
            if event.profile_origin is not None and event.profile_sha256 is not None:
                summary.profiles[str(event.profile_origin)] = event.profile_sha256
                if event.custom_profile and event.profile is not None:
                    summary.custom_profiles[str(event.profile_origin)] = (event.profile, event.profile_sha256)
            for r in reporters:
                r.session_opened(event)
        elif isinstance(event, SessionResult):
            once_per_profile(event, summary.borrowed)
            if event.info.format == 2:
                index.settle(event)
            summary.add(event)
            for f in event.findings:
                count(f)
            for r in reporters:
                r.session_closed(event)
        elif isinstance(event, Finding):
            count(event)
            for r in reporters:
                r.problem(event)
        else:
            self.inputs.append(event)
            summary.files += 1
            summary.unreadable += not event.readable
            summary.transactions += event.transactions
            if event.mapping is not None and event.mapping_sha256 is not None:
                summary.mappings[event.mapping] = event.mapping_sha256


def once_per_profile(result: SessionResult, said: set[tuple[str, str]]) -> None:
    """``H010`` once per profile file and audit: every session a borrowed name rules says
    it (each where it is audited, in any process), and the first session in input order
    keeps it, so that the report, its counts and the store are the same whatever
    ``--jobs``. ``said``: the files already said in this audit."""
    if not any(f.code == codes.H010 for f in result.findings):
        return
    kept = []
    for f in result.findings:
        if f.code == codes.H010:
            if (f.file, f.message) in said:
                continue
            said.add((f.file, f.message))
        kept.append(f)
    result.findings[:] = kept


def rounds_in(item: Item) -> int:
    """How many rounds (or format-2 games) ``item`` brings, as progress counts them."""
    if isinstance(item, GameResult):
        return 1
    if isinstance(item, RenderedGames):
        return len(item.fingerprints)
    if isinstance(item, RenderedClean):
        return item.count
    if isinstance(item, CleanGames):
        return len(item)
    if isinstance(item, RenderedRounds):
        return len(item.payloads[0]) if item.payloads else 0
    return 0
