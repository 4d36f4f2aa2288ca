"""Every name of :mod:`referee.audit` the pipeline uses, in one place.

Why: the audit is being restructured (issue 28: format 1 and 2 becoming one audit of
games with seats), and the pipeline treats it as a black box: the events an input's
audit yields, the two calls that make them, and what a record must share with another
record of itself (a format-2 game, a format-1 session). A rename there is fixed here, once."""

from __future__ import annotations

from ..audit.clean import CleanGame, CleanGames
from ..audit.duplicates import GameIndex, SessionIndex
from ..audit.games import GameFingerprint, GameResult, round_view
from ..audit.imports import export_events
from ..audit.results import Finding, InputInfo, SessionInfo, SessionResult, Summary
from ..audit.stream import Event, Options, audit_reading, audit_records

__all__ = [
    "CleanGame", "CleanGames", "Event", "Finding", "GameFingerprint", "GameIndex", "GameResult", "InputInfo",
    "Options", "SessionIndex", "SessionInfo", "SessionResult", "Summary", "audit_reading", "audit_records",
    "export_events", "round_view",
]
