"""Errors a user can act on: one line on stderr and exit status 2, never a traceback.

The command line's entry wrapper (:class:`referee.cli.RefereeGroup`) turns any
:class:`UserError` into ``referee: <message>``; library code raises them without
knowing about the command line.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar


class UserError(Exception):
    """A problem with the usage, an input, an output or the installation (exit 2).

    One made by :func:`worded` also keeps its sentence (``words``, a message of the
    catalogue) and the values it was filled with, so the desk says it in its reader's
    language; the command line says ``str(error)``, the same sentence in English."""

    exit_code = 2
    words: str | None = None
    values: Mapping[str, object] = {}


class Term(str):
    """A value of a sentence that is itself a word of the catalogue (a decision, a role):
    said in the reader's language with the sentence around it."""

    __slots__ = ()


class Count(int):
    """A count or a size in a sentence: its thousands grouped (``10,000``; in French
    ``10 000``) wherever it is said."""

    __slots__ = ()

    def __format__(self, spec: str) -> str:
        return format(int(self), spec or ",")


E = TypeVar("E", bound=UserError)


def worded(error: type[E], words: str, prefix: str = "", **values: object) -> E:
    """An ``error`` whose message is ``words`` (a sentence of the catalogue, context
    ``desk``) filled with ``values``, keeping both (:class:`UserError`). ``prefix`` (the
    store's name: ``store audit.db: ``) begins the command line's message only: the desk
    does not show its store's file to its readers."""
    made = error(prefix + words.format(**values))
    made.words = words
    made.values = dict(values)
    return made


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
