"""The records are msgspec structs; the did-you-mean validation (``models/explainers.py``)
is a second, pydantic, reading of the same format, run only when the strict decode
fails. These tests prove the two agree: field by field (names, order, defaults),
constraint by constraint (bounds, lengths, decimal places, strict numbers, words), and
on what each accepts, so that a record the struct takes is the record the validation
would give, and one it refuses is worded by the validation."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

import msgspec
import pytest
from pydantic import BaseModel, ValidationError

from referee.models import explainers
from referee.models.common import Record, Recorded, dump
from referee.models.decode import convert, of_model
from referee.models.rounds import Round
from referee.models.table import Game, Seat, WalletMove

PAIRS: list[tuple[type[Record], type[BaseModel]]] = [
    (Recorded, explainers.Recorded), (Round, explainers.Round), (WalletMove, explainers.WalletMove),
    (Seat, explainers.Seat), (Game, explainers.Game),
]
RECORDS = {struct.__name__ for struct, _ in PAIRS}
#: The JSON Schema keywords that carry a constraint msgspec.Meta can say.
KEYWORDS = ("minimum", "maximum", "minLength", "maxLength", "maxItems", "minItems")


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """The non-null branch of an ``anyOf`` with null (``X | None``)."""
    options = [s for s in schema.get("anyOf", ()) if s.get("type") != "null"]
    return options[0] if len(options) == 1 else schema


def _constraints(schema: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    """The constraints of a field's schema, its items' under ``items``."""
    schema = _nullable(schema)
    if "$ref" in schema:  # a record (its own constraints tested apart) or a word's enum (tested below)
        name = schema["$ref"].rsplit("/", 1)[-1]
        return {"ref": name} if name in RECORDS else {}
    found = {key: schema[key] for key in KEYWORDS if key in schema}
    if "items" in schema:
        found["items"] = _constraints(schema["items"], defs)
    return found


@pytest.mark.parametrize(("struct", "model"), PAIRS, ids=[s.__name__ for s, _ in PAIRS])
def test_each_struct_has_its_explainer_s_fields_in_order_with_its_defaults(struct: type[Record],
                                                                           model: type[BaseModel]) -> None:
    assert struct.__name__ == model.__name__  # the schema's $defs are named after them
    assert struct.__struct_fields__ == tuple(model.model_fields)
    for field in msgspec.structs.fields(struct):
        info = model.model_fields[field.name]
        if field.required:
            assert info.is_required(), field.name
        else:
            default = info.get_default(call_default_factory=True)
            assert field.default == default and type(field.default) is type(default), field.name


def _numbers(schema: dict[str, Any]) -> dict[str, Any]:
    """A pydantic Decimal's bounds (``anyOf`` number or string): its number branch's."""
    schema = _nullable(schema)
    branches = schema.get("anyOf", [schema])
    return {key: Decimal(str(b[key])) for b in branches for key in ("minimum", "maximum") if key in b}


@pytest.mark.parametrize(("struct", "model"), PAIRS, ids=[s.__name__ for s, _ in PAIRS])
def test_each_struct_has_its_explainer_s_constraints(struct: type[Record], model: type[BaseModel]) -> None:
    """Lengths, counts and integer bounds: msgspec.Meta's, as its schema gives them,
    against pydantic's; a Decimal's bounds (``__post_init__``) probed at the edges."""
    components = msgspec.json.schema_components([struct], schema_hook=lambda t: {"title": "any"})[1]
    ours = components[struct.__name__]["properties"]
    theirs_all = model.model_json_schema(mode="validation")
    theirs, defs = theirs_all["properties"], theirs_all.get("$defs", {})
    for name in struct.__struct_fields__:
        mine, pyd = _constraints(ours[name], {}), _constraints(theirs[name], defs)
        if "ref" not in pyd:
            pyd = {k: v for k, v in pyd.items() if k not in ("minimum", "maximum")} | (
                {k: v for k, v in pyd.items() if k in ("minimum", "maximum") and isinstance(v, int)})
        assert mine == pyd, name


AMOUNTS = ["0", "1", "-1", "1.5", "1.500000", "1.5000000", "1.0000001", "0E-7", "-0", "1E+12", "1000000000000.000001",
           "1E+13", "-1E+12", "-1E+24", "1E+24", "-1.000000000000000000000000001E+24", "1E+25", "NaN", "Infinity",
           "-Infinity", "0.0000001", "1E-6", "123456789012345678901234.5", "1.00000000000000000000000000001",
           "999999999999999999999999.0000001", "sNaN", "-0.0000000", "1E-7", "5E+23"]
AMOUNT_FIELDS: list[tuple[type[Record], str, dict[str, Any]]] = [
    (Round, "ante", {"round": 1, "player": [], "flop": [], "decision": "call"}),
    (Round, "call", {"round": 1, "ante": 1, "player": [], "flop": [], "decision": "call"}),
    (Round, "bonus", {"round": 1, "ante": 1, "player": [], "flop": [], "decision": "call"}),
    (Recorded, "net", {}), (Recorded, "balance", {}),
    (WalletMove, "amount", {"id": "w", "kind": "debit"}),
    (Seat, "ante", {"player_id": "p", "decision": "fold"}),
]


@pytest.mark.parametrize(("struct", "name", "rest"), AMOUNT_FIELDS, ids=[f"{s.__name__}.{n}" for s, n, _ in
                                                                          AMOUNT_FIELDS])
def test_an_amount_is_accepted_by_the_struct_as_by_the_explainer(struct: type[Record], name: str,
                                                                 rest: dict[str, Any]) -> None:
    """Bounds, finiteness and decimal places (counted as pydantic counts them, after
    trailing zeros) are one test in the struct's ``__post_init__`` and the explainer."""
    model = getattr(explainers, struct.__name__)
    for text in [*AMOUNTS, *(int(a) for a in ("1", "0", "-5", "10000000000000"))]:
        value = Decimal(text) if isinstance(text, str) else text
        data = {**rest, name: value}
        try:
            expected: Any = of_model(model.model_validate(data), struct)
        except ValidationError:
            expected = None
        try:
            got: Any = msgspec.convert(data, struct, strict=True)
        except msgspec.ValidationError:
            got = None
        assert got == expected, (name, text)
        if got is not None:
            assert repr(getattr(got, name)) == repr(getattr(expected, name))


def test_a_boolean_is_never_a_number_nor_a_number_text() -> None:
    base = {"round": 1, "ante": 1, "player": [], "flop": [], "decision": "call"}
    for bad in ({"round": True}, {"ante": True}, {"round": Decimal("1.0")}, {"round": "1"},
                {"recorded": {"void": 1}}, {"recorded": {"dealer_qualified": "yes"}}, {"player": ["Ah", 5]},
                {"turn": "a" * 17}, {"player": ["Ah"] * 53}, {"round": -1}, {"round": 10**12 + 1}, {"extra": 1}):
        with pytest.raises(msgspec.ValidationError):
            msgspec.convert({**base, **bad}, Round, strict=True)
        with pytest.raises(ValidationError):
            convert({**base, **bad}, Round)


def test_words_spelt_another_way_are_read_by_the_validation_as_the_word() -> None:
    """``Call``, ``Two Pair``, ``Debit``, a numeric player id: the strict decode refuses
    them, the did-you-mean validation reads them, the record is the same struct."""
    round_ = convert({"round": 1, "ante": 1, "player": [], "flop": [], "decision": " Call ",
                      "recorded": {"player_hand": "Two Pair", "outcome": "WIN"}}, Round)
    assert round_.decision == "call" and round_.recorded is not None
    assert round_.recorded.player_hand == "two_pair" and round_.recorded.outcome == "win"
    seat = convert({"player_id": 7, "ante": 1, "decision": "fold",
                    "wallet": [{"id": "t", "kind": "Debit", "amount": 1}]}, Seat)
    assert seat.player_id == "7" and seat.wallet is not None and seat.wallet[0].kind == "debit"
    assert isinstance(seat, Seat) and isinstance(seat.wallet[0], WalletMove)
    game = convert({"game": 12, "status": "Cancelled", "round": 3}, Game)
    assert game.game == "12" and game.status == "cancelled"


def test_a_refused_record_is_worded_by_the_validation() -> None:
    with pytest.raises(ValidationError, match="Input should be less than or equal to 1E\\+12"):
        convert({"round": 1, "ante": Decimal("1E+13"), "player": [], "flop": [], "decision": "call"}, Round)


def test_a_record_is_frozen_and_dumped_as_the_store_keeps_it() -> None:
    round_ = msgspec.convert({"round": 2, "ante": 1, "player": ["Ah", "Kd"], "flop": ["2c", "3c", "4c"],
                              "decision": "call", "time": datetime(2026, 1, 1), "meta": {"x": None},
                              "recorded": {"net": Decimal("1.50"), "void": None}}, Round, strict=True)
    field = "ante"
    with pytest.raises(AttributeError):
        setattr(round_, field, Decimal(2))
    expected = explainers.Round.model_validate(dump(round_)).model_dump(exclude_none=True)
    assert dump(round_) == expected and list(dump(round_)) == list(expected)
    assert dump(Game(game="g", seats=[Seat(player_id="p", ante=Decimal(1), decision="call")]), "seats") == {
        "game": "g", "status": "settled"}


@pytest.mark.parametrize("written", ["2026-01-01T10:00:00Z", "2026-01-01T10:00:00.5+01:00",
                                     "2026-01-01T10:00:00.1234567Z", "2026-01-01T23:59:59.9999999+00:00",
                                     "2026-01-01 10:00:00", "2026-01-01T10:00Z", "2026-01-01"])
def test_a_time_is_read_as_the_did_you_mean_validation_reads_it(written: str) -> None:
    """The same instant, to the microsecond: a time finer than that (``.1234567``) is
    truncated as pydantic does (msgspec would round it), a spelling msgspec refuses is
    read by the validation."""
    round_ = convert({"round": 1, "ante": 1, "player": [], "flop": [], "decision": "call", "time": written}, Round)
    expected = explainers.Round.model_validate({"round": 1, "ante": 1, "player": [], "flop": [],
                                                "decision": "call", "time": written}).time
    assert round_.time == expected and round_.time is not None and expected is not None
    assert round_.time.isoformat() == expected.isoformat()
    game = convert({"game": "g", "started": written, "settled": written}, Game)
    assert game.started == expected == game.settled


SURROGATE = "d-\udc17"
TEXTS: list[tuple[type[Record], dict[str, Any], str]] = [
    (Round, {"round": 1, "ante": 1, "player": ["Ah", "Kd"], "flop": ["2c", "3c", "4c"], "decision": "fold"}, "turn"),
    (Round, {"round": 1, "ante": 1, "player": ["Ah", "Kd"], "flop": ["2c", "3c", "4c"], "decision": "fold"}, "player"),
    (Game, {"game": "g"}, "dealer_id"), (Game, {"game": "g"}, "game"), (Game, {"game": "g"}, "flop"),
    (Seat, {"player_id": "p", "ante": 1, "decision": "fold"}, "player_id"),
    (WalletMove, {"id": "t", "kind": "debit", "amount": 1}, "reference"),
    (WalletMove, {"id": "t", "kind": "debit", "amount": 1}, "id"), (Recorded, {}, "void_reason"),
    (Round, {"round": 1, "ante": 1, "player": [], "flop": [], "decision": "fold"}, "meta"),
]
#: The texts the explainer reads leniently (a lax ``str``, free-form data, an id a
#: number may stand for): a lone surrogate is kept there, as it was.
LENIENT = ("void_reason", "meta", "game", "player_id")


@pytest.mark.parametrize(("struct", "rest", "name"), TEXTS, ids=[f"{s.__name__}.{n}" for s, _, n in TEXTS])
def test_a_lone_surrogate_is_refused_where_the_explainer_refuses_it(struct: type[Record], rest: dict[str, Any],
                                                                   name: str) -> None:
    """A strict text holding a lone surrogate (JSON's "\\udc17") is an H001, as it was:
    msgspec keeps such text, the struct's ``__post_init__`` refuses it where pydantic's
    strict strings do (cards, a dealer's or a transaction's id), and keeps it where the
    explainer does (:data:`LENIENT`)."""
    value: Any = {SURROGATE: SURROGATE} if name == "meta" else [SURROGATE, "Kd"] if name in ("player", "flop") \
        else SURROGATE
    data = {**rest, name: value}
    model = getattr(explainers, struct.__name__)
    try:
        expected: Any = of_model(model.model_validate(data), struct)
    except ValidationError:
        expected = None
    try:
        got: Any = msgspec.convert(data, struct, strict=True)
    except msgspec.ValidationError:
        got = None
    assert got == expected
    assert (expected is None) == (name not in LENIENT)


ODD: list[Any] = [
    None, True, False, 0, 1, -1, 2**63, 10**13, Decimal("1.5"), Decimal("-0"), Decimal("1E+2"), Decimal("NaN"), 1.5,
    float("inf"), "", "call", "Call", "fold", "win", "pair", "Two Pair", "Ah", "10h", "a" * 17, "a" * 501, "\ud800",
    "é", "1.5", " 2 ", "2026-01-01T10:00:00Z", "2026-01-01T10:00:00.1234567Z", "2026-01-01", "yesterday", [], ["Ah"],
    ["Ah", 1], ["x"] * 53, {}, {"a": 1}, {1: 2}, ("Ah", "Kd"), datetime(2026, 1, 1), "settled", "Cancelled", "debit",
    "refund", b"Ah",
]
BASES: dict[type[Record], dict[str, Any]] = {
    Round: {"round": 1, "ante": 1, "player": ["Ah", "Kd"], "flop": ["2c", "3c", "4c"], "decision": "call"},
    Recorded: {}, Game: {"game": "g"}, Seat: {"player_id": "p", "ante": 1, "decision": "fold"},
    WalletMove: {"id": "t", "kind": "debit", "amount": 1},
}


def test_what_the_struct_takes_the_explainer_takes_as_the_same_record() -> None:
    """5,000 records with one or two odd values (a fixed seed): whatever the strict
    decode accepts, the did-you-mean validation accepts as the same record; whatever
    that validation accepts, :func:`convert` gives (it never fails where it accepts)."""
    import random

    rng = random.Random(44)
    kinds = list(BASES)
    for _ in range(5000):
        kind = rng.choice(kinds)
        data = dict(BASES[kind])
        for _ in range(rng.randint(1, 2)):
            data[rng.choice(kind.__struct_fields__)] = rng.choice(ODD)
        if kind is Round and rng.random() < 0.3:
            data["recorded"] = {rng.choice(Recorded.__struct_fields__): rng.choice(ODD)}
        try:
            strict: Any = msgspec.convert(data, kind, strict=True)
        except ValueError:  # msgspec.ValidationError; UnicodeEncodeError for a surrogate where no text belongs
            strict = None
        try:
            expected: Any = getattr(explainers, kind.__name__).model_validate(data)
        except ValidationError:
            assert strict is None, data
            with pytest.raises(ValidationError):
                convert(data, kind)
            continue
        assert convert(data, kind) == of_model(expected, kind), data
        finer = "2026-01-01T10:00:00.1234567Z" in data.values()  # convert leaves it to the validation
        assert strict is None or finer or strict == of_model(expected, kind), data


def test_a_mapping_where_a_word_belongs_is_a_finding_not_an_internal_error() -> None:
    """``"decision": {}`` was an internal error (the word reader hashed it)."""
    with pytest.raises(ValidationError, match="Input should be 'call' or 'fold'"):
        convert({**BASES[Round], "decision": {}}, Round)
    with pytest.raises(ValidationError):
        convert({**BASES[Round], "player": "\ud800"}, Round)
