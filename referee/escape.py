"""Names and values from files nobody vouches for, written so they print as one line,
look like what they are, and stay small.

Why a module of its own, below every layer: readers name files in their errors and
reporters name sessions, players and fields in theirs, and a file name with a line
break must forge no finding line (or a CI workflow command) in either; a player id with
a zero-width space must not pass for another player's; and a 60 MB id quoted in each of
its findings turned a 120 MB export into a 720 MB report.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

#: Characters a person cannot see, or that reorder what follows them: bidirectional
#: controls (U+061C, U+200E/F, U+202A-E, U+2066-9), zero-width and joining characters
#: (U+200B-D, U+2060-4, U+FEFF), the soft hyphen and the other default-ignorable fillers.
#: ``p-1-003`` and ``p-1-003`` + U+200B print alike, and a U+202E in a session id turns
#: the rest of its line around.
INVISIBLE = ("\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u202a-\u202e"
             "\u2060-\u2064\u2066-\u206f\u3164\uffa0")
_UNPRINTABLE = re.compile(f"[\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff{INVISIBLE}]")
_HIDDEN = re.compile(f"[\ufeff{INVISIBLE}]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}

#: The most characters of one value a message quotes; the rest is said by its length.
QUOTE_LIMIT = 60
#: The longest name (a session, game or player id) written whole: the models' own bound
#: on an id. A longer one is refused by the model anyway, so it is never an id a record
#: can be found by; it is written as its first ``QUOTE_LIMIT`` characters and its length.
NAME_LIMIT = 500


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    return _NAMED.get(char) or (f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}")


def printable(text: str) -> str:
    """``text`` on one line, safe for a terminal or a CI log, and as a person would tell
    it apart: line breaks, tabs and every control character (escape sequences included)
    are written as ``\\n``, ``\\x1b``, ``\\u2028``, and so are the invisible characters
    (bidirectional controls, zero-width spaces: ``\\u202e``, ``\\u200b``). Names and
    recorded strings come from files nobody vouches for: a file name with a newline must
    not forge a finding line or a workflow command."""
    return _UNPRINTABLE.sub(_escape, text) if _UNPRINTABLE.search(text) else text


def printable_lines(text: str) -> str:
    """``text`` with each of its lines :func:`printable`, its own line breaks kept: a
    message of several lines (a profile's problems) on standard error."""
    return "\n".join(printable(line) for line in text.split("\n")) if _UNPRINTABLE.search(text) else text


def escape_data(text: str) -> str:
    """A GitHub workflow command's message: the Actions toolkit's escapes (``%``, CR, LF),
    then every other control and invisible character as :func:`printable` writes it
    (``\\x1b``): an id or a file name from an input must not put an escape sequence or a
    NUL into the CI log, nor end the command and forge another."""
    return printable(text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def escape_property(text: str) -> str:
    """A workflow command's property (``file=``, ``title=``): as :func:`escape_data`, and
    ``:`` and ``,``, which end a property, as the toolkit writes them."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def visible(text: str) -> str:
    """``text`` with only the invisible characters escaped (``\\u200b``): for a page that
    escapes its own syntax (the HTML report), where a line break is harmless."""
    return _HIDDEN.sub(_escape, text) if _HIDDEN.search(text) else text


def on_page(value: Any) -> Any:
    """A page's value as Jinja2 prints it (its ``finalize``): plain text with the invisible
    characters escaped (:func:`visible`); markup the page made itself (a ``Markup``, a
    ``str`` of another type) and other values as they are."""
    return visible(value) if type(value) is str else value


def clipped(text: str, limit: int = QUOTE_LIMIT) -> str:
    """``text``, or its first ``limit`` characters, ``…`` and its length when it is longer:
    ``p-1-00xxx… (2,000,006 characters)``."""
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} characters)"


def quoted(value: Any, limit: int = QUOTE_LIMIT) -> str:
    """A recorded value as a message quotes it, bounded: ``'p-1-00xxx…' (2,000,006
    characters)``, a long number as its digits (``'99…' (100,000 characters)``; a short
    whole number bare, ``-1``, a Decimal as its text, ``'1E+400'``), ``null``,
    ``true`` and ``false`` as the file wrote them. Never more than ``limit`` characters
    of the value, whatever its size: a finding is not a copy of the input."""
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    if isinstance(value, (int, float)):  # a short one bare, as repr writes it
        text = digits(value) if isinstance(value, int) else repr(value)
        if len(text) <= limit:
            return text
        value = text
    elif isinstance(value, Decimal):  # a Decimal as its text, quoted (as the messages always wrote it)
        value = digits(value)
    if not isinstance(value, str):
        return repr(value)
    if len(value) <= limit:
        return repr(value)
    return f"{value[:limit] + '…'!r} ({len(value):,} characters)"


def digits(value: int | Decimal) -> str:
    """A number as it is written, whatever its size (``str`` of an int refuses more than
    4,300 digits; a Decimal has no such limit)."""
    try:
        return str(value)
    except ValueError:
        return str(Decimal(value))


def name(text: str) -> str:
    """An id (a game's, a player's) as it is kept: whole up to ``NAME_LIMIT`` characters;
    a longer one (which the model refuses) as :func:`clipped`, so that a 60 MB id is not
    copied into every finding, row and ledger that names it."""
    return text if len(text) <= NAME_LIMIT else clipped(text)
