"""Errors a user can act on: one line on stderr and exit status 2, never a traceback.

The command line's entry wrapper (:class:`referee.cli.RefereeGroup`) turns any
:class:`UserError` into ``referee: <message>``; library code raises them without
knowing about the command line.
"""

from __future__ import annotations


class UserError(Exception):
    """A problem with the usage, an input, an output or the installation (exit 2)."""

    exit_code = 2


class MissingDataError(UserError):
    """A data file shipped with referee is missing: a broken installation, never a reason
    to fall back silently to a slower path."""
