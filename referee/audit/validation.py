"""Validation: a record's problems as findings, one clear finding per problem.

Shared by every format's reader into the audit (``audit/intake_rounds.py``,
``audit/intake_table.py``) and the session header: pydantic's errors become H001
(what is wrong, what was expected, in words) and H002 (an unknown field, with a
did-you-mean); and what a record that failed validation still tells the balance chain.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any, TypeVar

from pydantic import BaseModel, TypeAdapter, ValidationError

from ..escape import QUOTE_LIMIT, clipped, digits, quoted
from ..load.records import OversizedList, SessionRecord, line_at
from ..models import codes
from ..models.common import MAX_ROUND, RECORDED_FIELDS, closest, suggest
from ..models.explainers import Money
from .results import Finding

ZERO = Decimal(0)


_DIGITS = re.compile(r"\s*(\d{1,12})\s*")


def round_number(data: Any) -> int | None:
    """The number a round record gives itself: an integer, or the digits of a quoted
    number (``"2"``: an H001 on the field, but the round keeps its number and place)."""
    value = data.get("round") if isinstance(data, dict) else None
    if type(value) is int:
        return value if 0 <= value <= MAX_ROUND else None  # out of range: its H001 says so
    if isinstance(value, str):
        found = _DIGITS.fullmatch(value)
        return int(found.group(1)) if found and int(found.group(1)) <= MAX_ROUND else None
    return None


_OPTIONAL = ("recorded", "time", "meta")


def without_optional_errors(data: Any, err: ValidationError) -> dict[str, object] | None:
    """The round without the optional fields that failed, or None when a field the
    ruling needs failed (then the round cannot be ruled)."""
    if not isinstance(data, dict):
        return None
    drop_top: set[str] = set()
    drop_recorded: set[str] = set()
    for error in err.errors(include_url=False):
        loc = tuple(error["loc"])
        if not loc or loc[0] not in _OPTIONAL:
            return None
        if loc[0] == "recorded" and len(loc) > 1 and isinstance(data.get("recorded"), dict):
            drop_recorded.add(str(loc[1]))
        else:
            drop_top.add(str(loc[0]))
    cleaned = {k: v for k, v in data.items() if k not in drop_top}
    if drop_recorded and "recorded" in cleaned:
        cleaned["recorded"] = {k: v for k, v in cleaned["recorded"].items() if k not in drop_recorded}
    return cleaned


_MONEY: TypeAdapter[Decimal] = TypeAdapter(Money)


def recorded_void(recorded: Any) -> bool:
    """Whether a record (validated, or as read when it failed validation) says the table
    voided the deal: ``void: true`` or ``outcome: void``."""
    if isinstance(recorded, dict):
        return recorded.get("void") is True or recorded.get("outcome") == "void"
    return recorded is not None and (recorded.void is True or recorded.outcome == "void")


def unruled_nets(recorded: Any) -> tuple[Decimal | None, Decimal | None]:
    """What the table's chain can still take from a record that failed validation (a
    round in format 1, a seat in format 2): its net (0 when it says the deal was void,
    None when unreadable) and its balance, each when itself a valid amount."""
    if recorded is not None and not isinstance(recorded, dict):  # validated: its amounts are
        net = recorded.net if recorded.net is not None else ZERO if recorded_void(recorded) else None
        return net, recorded.balance
    net = _readable_money(recorded, "net")
    if net is None and recorded_void(recorded):
        net = ZERO
    return net, _readable_money(recorded, "balance")


def _readable_money(recorded: Any, name: str) -> Decimal | None:
    """A recorded amount of a round that failed validation, when it is itself valid."""
    if not isinstance(recorded, dict) or name not in recorded or isinstance(recorded[name], bool):
        return None
    try:
        return _MONEY.validate_python(recorded[name])
    except ValidationError:
        return None


H = TypeVar("H", bound=BaseModel)


def session_header(record: SessionRecord, model: type[H], fields: tuple[str, ...],
                   findings: list[Finding]) -> H | None:
    """A session header validated as its format's ``model``; None with its H001 (or its
    fields' findings) in ``findings`` when it is missing or wrong. One reading for both
    formats' intakes: only the model and its field names differ."""
    if record.data is None:
        findings.append(Finding(codes.H001, "the document has no 'session' header", record.source, record.line))
        return None
    try:
        return model.model_validate(record.data)
    except ValidationError as err:
        findings += validation_findings(err, record.data, record.source, record.line, None, "session", fields)
        return None


def named_profile(header: Any) -> str | None:
    """The profile a validated session header names; None when it names none (the model's
    default is then the tool's, and said as such: :attr:`SessionInfo.profile_by`)."""
    return header.profile if "profile" in header.model_fields_set else None


def validation_findings(err: ValidationError, data: Any, file: str, line: int, number: int | None,
                        prefix: str, known: tuple[str, ...]) -> list[Finding]:
    """One clear finding per pydantic error: the path, what is wrong, what was expected."""
    findings = []
    where = f"round {number}: " if number is not None else ("session: " if prefix else "")
    errors = err.errors(include_url=False)
    misspelt = _misspelt(errors, known)
    for error in errors:
        loc = tuple(error["loc"])
        path = ".".join(str(p) if not isinstance(p, int) else f"[{p}]" for p in loc).replace(".[", "[")
        whole = f"{prefix}.{path}" if prefix and path else (prefix or path)
        path = clipped(whole)  # a key may be megabytes: the field named bounded
        kind = error["type"]
        at = line_at(data, loc, line)
        if kind == "missing" and loc in misspelt.values():
            continue  # the unknown key beside it is the one finding
        if kind == "extra_forbidden":
            fields = _fields_at(loc, known)
            meant = misspelt.get(loc)
            hint = (f"; did you mean {meant[-1]!r}? (without it, {meant[-1]!r} is missing)" if meant
                    else suggest(str(loc[-1]), fields))
            findings.append(Finding(codes.H002, f"{where}unknown field {quoted(whole)}{hint}", file, at, number, path))
            continue
        findings.append(Finding(codes.H001, f"{where}{path or 'record'}: {_explain(error)}", file, at, number, path,
                                recorded=_short(error.get("input"))))
    return findings


def _fields_at(loc: tuple[Any, ...], known: tuple[str, ...]) -> tuple[str, ...]:
    return RECORDED_FIELDS if len(loc) > 1 and loc[0] == "recorded" else known


def _misspelt(errors: list[Any], known: tuple[str, ...]) -> dict[tuple[Any, ...], tuple[Any, ...]]:
    """Unknown keys that ``suggest`` reads as a required field missing beside them
    (``desicion`` for ``decision``), each with the field: one slip of the hand, one
    finding (the unknown key's), not also the field's absence."""
    missing = {tuple(e["loc"]) for e in errors if e["type"] == "missing"}
    found: dict[tuple[Any, ...], tuple[Any, ...]] = {}
    for error in errors:
        loc = tuple(error["loc"])
        if error["type"] != "extra_forbidden" or not isinstance(loc[-1], str):
            continue
        close = closest(loc[-1], _fields_at(loc, known))
        meant = (*loc[:-1], close) if close is not None else None
        if meant in missing and meant not in found.values():
            found[loc] = meant
    return found


def _explain(error: Any) -> str:
    kind = error["type"]
    value = error.get("input")
    got = f"got {quoted(value)}" if not isinstance(value, (dict, list)) else f"got a {type(value).__name__}"
    if kind == "missing":
        return "required field is missing"
    if isinstance(value, OversizedList):
        return f"a list of {value.count:,} items, longer than any list of a hand history (at most 52 cards)"
    if kind == "string_type" and not isinstance(value, (dict, list)):
        if error["loc"] and error["loc"][0] in _CARD_FIELDS:
            return f"expected a card or text such as 'Ah' or '10♥', {got}"
        return f"expected text, {got}"  # an id, a name: a card's words would mislead
    if kind == "int_type" and isinstance(value, str) and _DIGITS.fullmatch(value):
        return f"a number, not text: write {value.strip()} without quotes; {got}"
    if kind == "model_type" or kind == "dict_type":
        return f"expected a mapping, {got}"
    if kind in ("literal_error", "enum") and isinstance(value, str):
        choices = re.findall(r"'([^']*)'", str(error.get("ctx", {}).get("expected", "")))
        if choices:
            return f"{got}{suggest(value.strip().lower().replace(' ', '_').replace('-', '_'), choices)}"
    if kind in ("too_long", "string_too_long") and isinstance(value, str):  # pydantic says "items" of a TextId
        return f"at most {error.get('ctx', {}).get('max_length', 0):,} characters, {got}"
    if kind in _EXPECTED:  # in the words a profile's problems use, not pydantic's ("Input should be ...")
        return f"{_EXPECTED[kind]}, {got}"
    return f"{error['msg']}; {got}"


#: The fields that hold cards (a round's, a game's, a seat's own two).
_CARD_FIELDS = frozenset({"player", "flop", "turn", "river", "dealer"})

_EXPECTED = {"decimal_parsing": "expected a number", "decimal_type": "expected a number",
             "int_parsing": "expected a whole number", "int_type": "expected a whole number",
             "int_from_float": "expected a whole number", "bool_parsing": "expected true or false",
             "bool_type": "expected true or false"}


def _short(value: Any) -> Any:
    if isinstance(value, OversizedList):
        return repr(value)
    if isinstance(value, str):
        return clipped(value)
    if isinstance(value, (dict, list)):
        return f"<{type(value).__name__} of {len(value)}>"
    if isinstance(value, Decimal):
        return clipped(str(value))  # a 100,000-digit number is not copied whole
    if isinstance(value, int) and not isinstance(value, bool):
        text = digits(value)
        return value if len(text) <= QUOTE_LIMIT else clipped(text)
    return value
