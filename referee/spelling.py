"""Did-you-mean for names a user types (a record's key, a session, game or player id).

Why one edit and not ``difflib``'s similarity: a suggestion must be the name meant, not
one that merely looks alike ('session' for 'decision'); one character deleted, inserted,
replaced or two neighbours swapped is the slip a hand makes. Light: no import beyond
the standard library, as the JSON Lines reader uses it.
"""

from __future__ import annotations

from collections.abc import Iterable


def one_edit(word: str, target: str) -> bool:
    """True when ``word`` is ``target`` or one character deleted, inserted or replaced,
    or two neighbours swapped, away from it.

    >>> one_edit("sesion", "session"), one_edit("rnoud", "round"), one_edit("decision", "session")
    (True, False, False)
    """
    if word == target:
        return True
    if abs(len(word) - len(target)) > 1:
        return False
    if len(word) == len(target):
        diff = [i for i, (a, b) in enumerate(zip(word, target, strict=True)) if a != b]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1
                                  and word[diff[0]] == target[diff[1]] and word[diff[1]] == target[diff[0]])
    short, long = sorted((word, target), key=len)
    return any(long[:i] + long[i + 1:] == short for i in range(len(long)))


def did_you_mean(word: str, names: Iterable[str]) -> str:
    """``; did you mean 'g2'?`` when exactly one of ``names`` differs from ``word`` only
    in case, or else exactly one is one edit from it; otherwise nothing.

    >>> did_you_mean("G2", ["g1", "g2"]), did_you_mean("carl", ["carol", "bob"]), did_you_mean("g3", ["g1", "g2"])
    ("; did you mean 'g2'?", "; did you mean 'carol'?", '')
    """
    meant = closest(word, names)
    return f"; did you mean {meant!r}?" if meant is not None else ""


def closest(word: str, names: Iterable[str]) -> str | None:
    """The one of ``names`` that ``word`` was meant to be (:func:`did_you_mean`'s rule: a
    change of case first, else one edit), None when none or several are.

    >>> closest("t7", ["T5", "T7"]), closest("T8", ["T5", "T7"])
    ('T7', None)
    """
    folded = word.casefold()
    names = [name for name in names if name != word]
    close = {name for name in names if name.casefold() == folded}  # a change of case first
    if not close:
        close = {name for name in names if one_edit(folded, name.casefold())}
    return close.pop() if len(close) == 1 else None
