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


def not_a_file(path: str) -> str:
    """Why ``path`` cannot be read as a file, in the words a person acts on: ``no such
    file``, ``a folder, not a file``, ``a device, not a file`` (or a pipe, a socket).
    Why one place: a mapping or a profile given a folder used to say ``no such file``,
    which sends the reader looking for a file that is there."""
    import os
    import stat

    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "no such file"
    except OSError as err:
        return f"cannot read it ({err.strerror or err})"
    if stat.S_ISDIR(mode):
        return "a folder, not a file"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device, not a file"
    if stat.S_ISFIFO(mode):
        return "a pipe, not a file"
    return "not a regular file" if not stat.S_ISREG(mode) else "a file"
