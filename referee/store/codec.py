"""Values as the store writes them: exact JSON text, read back to the same values.

Why a codec of our own: what a record or a finding holds is what a log held (exact
decimals, times, a NaN written in YAML, text that looks like anything), and the store
must give back the very values, so that a report made from the store is the report
made from the file. Plain JSON types are written as they are; a Decimal, a time, a
tuple and a mapping that could be mistaken for one of those are written as one-key
objects whose key starts with a NUL character (``{"\\u0000d": "1.50"}``), a key no
JSON a log is likely to hold, and escaped when it does.
"""

from __future__ import annotations

import base64
import json
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from ..rules.category import Category
from ..rules.payout import Rule, Wager
from ..rules.settlement import Line

_TAG = "\x00"
_DECIMAL, _DATETIME, _DATE, _TUPLE, _BYTES, _ESCAPED, _OTHER = (_TAG + t for t in ("d", "dt", "date", "t", "b", "o",
                                                                                  "r"))
_TAGS = {_DECIMAL, _DATETIME, _DATE, _TUPLE, _BYTES, _ESCAPED, _OTHER}


def tagged(value: Any) -> Any:
    """``value`` as plain JSON data, its non-JSON values tagged."""
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return value
    if kind is float:
        return value if value == value and value not in (float("inf"), float("-inf")) else {_OTHER: repr(value)}
    if isinstance(value, Decimal):
        return {_DECIMAL: str(value)}
    if isinstance(value, dict):
        out = {str(k) if not isinstance(k, str) else k: tagged(v) for k, v in value.items()}
        return {_ESCAPED: out} if len(out) == 1 and next(iter(out)) in _TAGS else out
    if isinstance(value, list):
        return [tagged(v) for v in value]
    if isinstance(value, tuple):
        return {_TUPLE: [tagged(v) for v in value]}
    if isinstance(value, datetime):
        return {_DATETIME: value.isoformat()}
    if isinstance(value, date):
        return {_DATE: value.isoformat()}
    if isinstance(value, bytes):
        return {_BYTES: base64.b64encode(value).decode("ascii")}
    if isinstance(value, (str, int)):  # a subclass (an enum of words, a card): its plain value
        return str(value) if isinstance(value, str) else int(value)
    return {_OTHER: repr(value)}


def _untag(found: dict[str, object]) -> object:
    if len(found) != 1:
        return found
    key = next(iter(found))
    value: Any = found[key]
    if key not in _TAGS:
        return found
    if key == _DECIMAL:
        return Decimal(value)
    if key == _DATETIME:
        return datetime.fromisoformat(value)
    if key == _DATE:
        return date.fromisoformat(value)
    if key == _TUPLE:
        return tuple(value)
    if key == _BYTES:
        return base64.b64decode(value)
    if key == _ESCAPED:
        return value
    return value  # _OTHER: what could not be kept is kept as its repr


_DECODER = json.JSONDecoder(object_hook=_untag)


def dumps(value: Any) -> str:
    """Compact JSON of ``value`` (see :func:`tagged`)."""
    return json.dumps(tagged(value), ensure_ascii=False, separators=(",", ":"))


def _tag_decimal(value: Any) -> Any:
    if isinstance(value, Decimal):
        return {_DECIMAL: str(value)}
    raise TypeError(f"not plain data: {type(value).__name__}")


#: :func:`dumps` of data that needs no tag but a Decimal's, in one pass of the C encoder.
_PLAIN = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False,
                          default=_tag_decimal).encode


def _tag_model(value: Any) -> Any:
    if isinstance(value, Decimal):
        return {_DECIMAL: str(value)}
    if isinstance(value, datetime):
        return {_DATETIME: value.isoformat()}
    if isinstance(value, date):
        return {_DATE: value.isoformat()}
    raise TypeError(f"not a record's data: {type(value).__name__}")


_MODEL = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False,
                          default=_tag_model).encode


def model_text(data: dict[str, Any]) -> str:
    """:func:`dumps` of a record's dump (``models.common.dump``: a round, a game, a seat),
    the very text, faster. Why it may: those records' fields hold text, whole numbers,
    booleans, Decimals, times, lists and the models' own mappings (keyed by their field
    names), which the C encoder writes as :func:`tagged` has them written, Decimals and
    times tagged by its ``default``; only their free-form ``meta`` (a seat's wallet moves
    have one too) may hold what it would write otherwise (a tuple, a float, a key that
    looks like a tag), so a dump with one goes the general way. A test compares the two."""
    if "meta" in data or any("meta" in move for move in data.get("wallet") or ()):
        return dumps(data)
    return _MODEL(data)


def struct_text(struct: Any, whole: bool) -> str:
    """:func:`dumps` of a msgspec struct's plain data (``msgspec.to_builtins``), the very
    text, faster: a decoded seat's struct holds only structs (objects keyed by their field
    names, never a tag), lists, text, integers, booleans and, unless ``whole`` (its
    amounts are integers), Decimals; no tuple, float or other key. Then msgspec's own
    encoder writes what :func:`dumps` writes (it escapes text as ``json.dumps`` with
    ``ensure_ascii=False`` does, every code point compared in a test), 25 times faster;
    with Decimals, the C encoder tags them."""
    import msgspec

    if whole:
        try:
            return msgspec.json.encode(struct).decode()
        except UnicodeEncodeError:  # a lone surrogate, which msgspec cannot write
            pass
    return _PLAIN(msgspec.to_builtins(struct, builtin_types=(Decimal,)))


def loads(text: str) -> Any:
    return _DECODER.decode(text)


def optional(value: Any) -> str | None:
    """``dumps``, or None for None (a column left empty)."""
    return None if value is None else dumps(value)


# --- a ruling's lines --------------------------------------------------------------

_WAGERS = {w.value: w for w in Wager}
_RULES = {r.name: r for r in Rule}
_CATEGORIES = {c.value: c for c in Category}


def lines_text(lines: tuple[Line, ...]) -> str:
    """Every wager's line, exact: ``[[wager, stake, result, rule, odds, category], ...]``
    (amounts as their decimal text; a rule by name, since two rules share a value)."""
    return json.dumps([[line.wager.value, str(line.stake), str(line.result), line.rule.name,
                        None if line.odds is None else str(line.odds),
                        None if line.category is None else line.category.value] for line in lines],
                      separators=(",", ":"))


def lines_of(text: str) -> tuple[Line, ...]:
    return tuple(Line(_WAGERS[w], Decimal(stake), Decimal(result), _RULES[rule],
                      None if odds is None else Decimal(odds), None if cat is None else _CATEGORIES[cat])
                 for w, stake, result, rule, odds, cat in json.loads(text))


# --- amounts -----------------------------------------------------------------------

_LIMIT = 1 << 63


def micro(amount: Decimal) -> int | None:
    """An amount in millionths, when it is a whole number of them that 64 bits hold."""
    if not amount.is_finite():
        return None
    scaled = amount.scaleb(6)
    if scaled != scaled.to_integral_value():
        return None
    whole = int(scaled)
    return whole if -_LIMIT <= whole < _LIMIT else None


def text(amount: Decimal | None) -> str | None:
    return None if amount is None else str(amount)


def amount(value: str | None) -> Decimal | None:
    return None if value is None else Decimal(value)
