"""A record read: decoded strictly, once, into its struct; worded by the did-you-mean
validation only when that decode refuses it.

Here, above both :mod:`.common` (the structs) and :mod:`.explainers` (the pydantic
models that word a refusal), so that neither imports the other back.
"""

from __future__ import annotations

import re
from typing import TypeVar

import msgspec

from .common import Record

R = TypeVar("R", bound=Record)


def convert(data: object, kind: type[R]) -> R:
    """The record ``kind`` of a mapping a reader read (or a store kept): decoded strictly,
    once. Only when that decode refuses it does the did-you-mean validation read it
    (:mod:`referee.models.explainers`): its ``ValidationError`` words the problem as the
    format's documentation does; a record it accepts (a word spelt ``Call`` or ``Two
    Pair``) is the struct of what it read, checked again by the struct's own tests."""
    if not kind.TIMES or not _finer(data, kind.TIMES):
        try:
            return msgspec.convert(data, kind, strict=True)
        except ValueError:  # msgspec.ValidationError, or the UnicodeEncodeError msgspec raises
            pass  # itself for a lone surrogate where no text belongs ("player": "\ud800")
    from . import explainers  # only a refused record needs pydantic (its import is its cost)

    model = getattr(explainers, kind.__name__).model_validate(data)
    return of_model(model, kind)


_FINER = re.compile(r"\.\d{7}")


def _finer(data: object, names: tuple[str, ...]) -> bool:
    """Whether a time of ``data`` is written finer than a microsecond (``.1234567``, as
    .NET writes it). msgspec rounds such a time, pydantic truncates it: the record is
    read as it always was (truncated), by the did-you-mean validation."""
    if not isinstance(data, dict):
        return False
    for name in names:
        value = data.get(name)
        if type(value) is str and "." in value and _FINER.search(value):
            return True
    return False


def of_model(model: object, kind: type[R]) -> R:
    """The struct of what the did-you-mean validation accepted (its fields by name)."""
    return msgspec.convert(model, kind, from_attributes=True, strict=True)
