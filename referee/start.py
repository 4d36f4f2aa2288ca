"""The ``referee`` command's start (and ``python -m referee``'s): the command line
imported with the collector paused, then :func:`referee.cli.entry`.

Why not :func:`referee.cli.entry` itself: importing the command line makes some 57,000
objects the collector tracks, that live as long as the process (pydantic's validators,
the dataclasses, the modules' functions) and no garbage, and the collector went over
them some 70 times for nothing: about 8 ms of every start (issue 18). Here, where the process
is the command's own, the collector is paused while the command line is imported and
what was imported is then moved out of its sight (``gc.freeze``), as ``check`` does
with what it makes before auditing. This has to happen outside :mod:`referee.cli`,
before it is imported; importing it (tests, embedding) leaves the collector alone.
"""

from __future__ import annotations

import gc
import sys
from types import ModuleType


def command_line() -> ModuleType:
    """:mod:`referee.cli`, imported with the collector paused and what it imported then
    frozen. For the command's own process only (and harnesses that run it as one)."""
    gc.disable()
    try:
        from . import cli
    finally:
        gc.freeze()
        gc.enable()
    return cli


def main() -> None:
    """Run the ``referee`` command line (it leaves the process when done). A Ctrl-C
    while it is imported (a fifth of a second) ends the command as one later does:
    "interrupted", status 130, no traceback."""
    try:
        cli = command_line()
    except KeyboardInterrupt:
        sys.stderr.write("referee: interrupted\n")
        sys.exit(130)
    cli.entry()
