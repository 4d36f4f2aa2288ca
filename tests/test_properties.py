"""Property tests (issue 10): round trips through YAML and JSON, and mutations that
never raise anything but the referee's own findings."""

from __future__ import annotations

import io
from decimal import Decimal
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee import DECK, Deal, load_profile, settle
from referee.audit.clean import as_dict
from referee.audit.stream import Options, audit_source
from referee.load.inputs import Source
from referee.load.readers import read as read_input
from referee.load.reading import Reading
from referee.load.records import PlainRound, RoundRecord, SessionRecord
from referee.pipeline import dispatch
from referee.report.json import JsonReporter
from referee.report.text import TextReporter
from referee.rules.money import dumps
from referee.simulate import yaml_session

VIVO = load_profile("vivo")
TEXT = st.characters(exclude_categories=["Cs"])  # any text that can be written as UTF-8
amounts = st.decimals(min_value=Decimal("0.01"), max_value=Decimal("1000"), places=2)


@st.composite
def rounds(draw: Any, number: int) -> dict[str, Any]:
    cards = [str(DECK[i]) for i in draw(st.permutations(range(52)))[:9]]
    decision = draw(st.sampled_from(["call", "fold"]))
    record: dict[str, Any] = {"round": number, "ante": draw(amounts), "player": cards[:2], "flop": cards[2:5],
                              "decision": decision}
    if decision == "call":
        record.update(turn=cards[5], river=cards[6], dealer=cards[7:9])
    if draw(st.booleans()):
        record["recorded"] = {"net": draw(st.decimals(min_value=-3000, max_value=3000, places=2)),
                              "outcome": draw(st.sampled_from(["win", "lose", "push", "fold"]))}
    if draw(st.booleans()):
        record["meta"] = {"dealer_name": draw(st.text(TEXT, max_size=20)), "table": draw(st.integers(0, 99))}
    return record


@st.composite
def sessions(draw: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    header = {"id": draw(st.text(TEXT, min_size=1, max_size=30)), "profile": "vivo",
              "rounds_agreed": draw(st.integers(1, 40))}
    count = draw(st.integers(1, 6))
    return header, [draw(rounds(i)) for i in range(1, count + 1)]


def records_of(name: str, data: bytes) -> list[Any]:
    """Sessions and rounds as read; a line the fast decode read (``PlainRound``) is also
    read by the reader's own decoder, and the two must agree value for value."""
    out: list[Any] = []
    for record in read_input(Reading(Source(name, None, data=data))):
        if isinstance(record, PlainRound):
            full = record.full()
            assert isinstance(full, RoundRecord) and as_dict(record.fast) == plain(full.data)
            record = full
        if isinstance(record, (SessionRecord, RoundRecord)):
            out.append(record)
    return out


def plain(value: Any) -> Any:
    """A loaded value without its line bookkeeping."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sessions())
def test_sessions_round_trip_through_yaml_and_json(session: tuple[dict[str, Any], list[dict[str, Any]]]) -> None:
    header, body = session
    texts = {
        "s.yaml": yaml_session(header, body).encode(),
        "s.json": dumps({"session": header, "rounds": body}, ensure_ascii=False).encode(),
        "s.jsonl": "\n".join([dumps({"session": header}, ensure_ascii=False)]
                             + [dumps(r, ensure_ascii=False) for r in body]).encode(),
    }
    for name, data in texts.items():
        records = records_of(name, data)
        assert plain(records[0].data) == header, name
        assert [plain(r.data) for r in records[1:]] == body, name


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["yaml", "json", "jsonl"]), st.data())
def test_mutations_never_raise(kind: str, data: st.DataObject) -> None:
    header = {"id": "m", "profile": "vivo", "rounds_agreed": 2}
    body = [{"round": 1, "ante": Decimal("1.5"), "player": ["Ah", "Kd"], "flop": ["As", "7d", "4c"],
             "decision": "call", "turn": "9h", "river": "2s", "dealer": ["Qs", "Qc"],
             "recorded": {"net": Decimal("4.5"), "balance": Decimal("4.5")}}]
    text = {"yaml": yaml_session(header, body), "json": dumps({"session": header, "rounds": body}),
            "jsonl": dumps({"session": header}) + "\n" + dumps(body[0]) + "\n"}[kind].encode()
    mutated = bytearray(text)
    for _ in range(data.draw(st.integers(1, 8))):
        action = data.draw(st.sampled_from(["flip", "insert", "delete", "truncate"]))
        at = data.draw(st.integers(0, max(len(mutated) - 1, 0)))
        if action == "flip" and mutated:
            mutated[at] = data.draw(st.integers(0, 255))
        elif action == "insert":
            mutated[at:at] = data.draw(st.binary(min_size=1, max_size=8))
        elif action == "delete" and mutated:
            del mutated[at:at + data.draw(st.integers(1, 8))]
        else:
            del mutated[at:]
    out = io.StringIO()
    summary = dispatch(audit_source(Source(f"m.{kind}", None, data=bytes(mutated)), Options()),
                       [TextReporter(out), JsonReporter(io.StringIO())])
    assert summary.exit_code() in (0, 1, 2)


@settings(max_examples=300, deadline=None)
@given(st.permutations(range(52)), st.sampled_from(["call", "fold"]), amounts, st.sampled_from(list(range(9))))
def test_settlement_invariants(order: list[int], decision: str, ante: Decimal, repeat: int) -> None:
    cards = [DECK[i] for i in order[:9]]
    if repeat:  # sometimes deal one card twice: the deal must be void
        cards[repeat - 1] = cards[8 if repeat - 1 != 8 else 0]
    deal = Deal(ante, cards[:2], cards[2:5], decision, cards[5], cards[6], cards[7:9])  # type: ignore[arg-type]
    ruling = settle(VIVO, deal)
    assert ruling.net == ruling.ante + ruling.call + ruling.bonus
    assert ruling.returned == ruling.staked + ruling.net >= 0
    dealt = cards  # a fold may record the turn, river and dealer too: every card counts (§07)
    assert (ruling.outcome == "void") == (len(set(dealt)) != len(dealt))
    if ruling.outcome == "void":
        assert ruling.net == 0
    elif decision == "fold":
        assert ruling.net == -ante
    else:
        assert -3 * ante <= ruling.net <= 100 * ante + 2 * ante
