"""Names from files nobody vouches for, written so they print as one line.

Why a module of its own, below every layer: readers name files in their errors and
reporters name sessions, players and fields in theirs, and a file name with a line
break must forge no finding line (or a CI workflow command) in either.
"""

from __future__ import annotations

import re

_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    return _NAMED.get(char) or (f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}")


def printable(text: str) -> str:
    """``text`` on one line, safe for a terminal or a CI log: line breaks, tabs and every
    control character (escape sequences included) are written as ``\\n``, ``\\x1b``,
    ``\\u2028``. Names and recorded strings come from files nobody vouches for: a file
    name with a newline must not forge a finding line or a workflow command."""
    return _UNPRINTABLE.sub(_escape, text) if _UNPRINTABLE.search(text) else text
