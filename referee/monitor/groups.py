"""Alerts grouped by cause: one group a root cause, led by the segment that explains the rest.

Why groups: a table that pays short moves its own cells, its players', its stake bands',
its dealer's and ``all``; read flat, that is dozens of alerts sorted by name, the table
near the end. A group names the lead (the table), lists the others under it, and says
which games are behind it, so whoever reads it knows where to look first.

This module holds the shape every reader of a group shares (``monitor``'s JSON, text and
HTML, ``monitor --record``, ``referee alerts``, ``monitor --notify`` and the desk).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class AlertGroup:
    """One cause: its lead segment first in ``segments``, the games behind it.

    ``lead`` and each of ``segments`` are a segment as the monitor names it (``table T3``,
    ``player p-3-004``, ``all all``); ``basis`` is ``rules`` or ``paid``; ``z`` is the lead
    cell's standardised excess (the most extreme sign kept); ``first_game`` and
    ``last_game`` are the ids of the earliest and latest game behind the group (None when
    the store keeps no id); ``since`` and ``until`` their times (ISO 8601, UTC) when games
    have times."""

    lead: str
    basis: str
    segments: tuple[str, ...]
    z: float | None
    bet: str
    window: str
    first_game: str | None = None
    last_game: str | None = None
    since: str | None = None
    until: str | None = None

    def to_json(self) -> dict[str, object]:
        """The group as ``monitor --format json`` writes it in ``alert_groups``."""
        out: dict[str, object] = {
            "lead": self.lead, "basis": self.basis, "segments": list(self.segments), "z": self.z,
            "bet": self.bet, "window": self.window, "first_game": self.first_game,
            "last_game": self.last_game}
        if self.since is not None or self.until is not None:
            out["since"] = self.since
            out["until"] = self.until
        return out

    @property
    def severity(self) -> float:
        """How far out the group is: groups are listed most severe first."""
        return abs(self.z) if self.z is not None else 0.0
