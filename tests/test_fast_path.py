"""The fast path and the fast lane (issue 18) change nothing a report says: every
format, byte for byte, with both off (``REFEREE_FAST=0``), on, and on in ``verify`` mode
(which also runs the full audit on every round the lane or the memo takes and raises if
result or state differ), over the samples, simulated logs with every kind of fault, and
hand-made hostile rounds and lines."""

from __future__ import annotations

import json
import random
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

import msgspec
import pytest
from msgspec.structs import replace
from pydantic import ValidationError

from referee.audit import fast
from referee.models.rounds import Round

from .conftest import SAMPLES, run

FORMATS = ("text", "json", "jsonl", "github", "junit")


class Raw:
    """A number written exactly as given (``1.0000000``, ``-0``, ``1E+2``)."""

    def __init__(self, text: str) -> None:
        self.text = text


def _dump(record: dict[str, Any]) -> str:
    text = json.dumps(record, ensure_ascii=False, default=lambda o: f"@@{o.text}@@")
    return text.replace('"@@', "").replace('@@"', "")


MUTATIONS: list[tuple[str, Any]] = [
    ("ante", Raw("1.0")), ("ante", Raw("1.0000000")), ("ante", Raw("-0")), ("ante", 0), ("ante", Raw("1E+2")),
    ("ante", True), ("ante", "1"), ("ante", Raw("1.5")), ("ante", 10**13), ("ante", Raw("0.0000001")),
    ("ante", Raw("2.000000")), ("bonus", 1), ("bonus", Raw("0.5")), ("call", 2), ("call", 3), ("call", None),
    ("round", True), ("round", Raw("1.0")), ("round", -1), ("round", "3"), ("round", 1), ("round", 10**13),
    ("decision", "Call"), ("decision", "fold"), ("turn", None), ("river", "??"), ("river", "Xx"),
    ("turn", "a" * 17), ("turn", 5), ("dealer", ["Ah"]), ("dealer", None), ("flop", ["2c", "3d"]),
    ("player", ["ah", "A♥"]), ("player", ["10h", "Th"]), ("player", ["Ah", "Ah"]), ("player", "Ah Kd"),
    ("time", "2026-01-01T00:00:00Z"), ("time", "yesterday"), ("meta", {"x": 1}), ("meta", []), ("extra", 1),
    ("recorded.player_hand", "Pair"), ("recorded.player_hand", "two pair"), ("recorded.void", 1),
    ("recorded.dealer_qualified", "yes"), ("recorded.net", Raw("1.0000001")), ("recorded.balance", "3"),
    ("recorded.net", Raw("-0")), ("recorded.unknown", 1), ("recorded.outcome", "won"), ("recorded", None),
    ("recorded", []), ("recorded.void_reason", 3), ("recorded.ante", Raw("-1.00")), ("recorded.balance", None),
    # words as people write them (issue 27): the full path reads them, the fast decode leaves them to it
    ("recorded.player_hand", "Two-Pair"), ("recorded.dealer_hand", " PAIR "), ("decision", " FOLD "),
    ("recorded.outcome", "Lose"), ("recorded.player_hand", "High Card"),
]


def _mutated(base: list[str], seed: int) -> str:
    """``base``'s lines with one mutation on most round lines, some cards respelt."""
    rng = random.Random(seed)
    lines = [base[0]]
    for i, line in enumerate(base[1:]):
        record = json.loads(line)
        if "round" in record and rng.random() < 0.8:
            field, value = MUTATIONS[(seed * 7 + i) % len(MUTATIONS)]
            target = record
            if field.startswith("recorded.") and isinstance(record.get("recorded"), dict):
                target, field = record["recorded"], field.split(".", 1)[1]
            target[field] = value
        lines.append(_dump(record))
    lines.append(lines[3].replace('"ante":', '"ante":1,"ante":', 1))  # a duplicate key
    for i, (old, new) in enumerate(RAW_EDITS):  # the same round written another way, or twice over
        line = lines[min(len(lines) - 1, 5 + 3 * i + seed)]
        lines.append(re.sub(old, new, line, count=1))
    return "\n".join(lines) + "\n"


#: Edits of a round line's text (regular expression, replacement) that the fast decode
#: must read as the reader does, or leave to it: spellings of one key, and keys written
#: twice in ways that keep some count of the line unchanged.
RAW_EDITS: list[tuple[str, str]] = [
    (r'"ante":', r'"\\u0061nte":'),  # an escaped key: the same key
    (r'"flop":', r'"flop" :'),  # a space before the colon
    (r'"ante":', r'"ante" :2,"ante":'),  # twice, one spaced: as many '":' as keys kept
    (r'"decision":"(\w+)"', r'"decision" :"fold","decision":"\1"'),
    (r'"net":', r'"net":0,"net":'),  # twice inside recorded
    (r'"recorded":', r'"recorded":{},"recorded":'),
    (r'"turn":"', r'"turn":"x\\"y","turn":"'),  # a quote inside a string written twice
    (r'"balance":(-?\d+)', r'"balance":\1.0000000'),  # seven places: not an amount
    (r'"balance":(-?\d+)', r'"balance":-0.0'),
    (r'"balance":(-?\d+)', r'"balance":10000000000000'),
    (r'"net":(-?\d+)', r'"net":\1.00'),  # the same amount, written with places
    (r'"ante":1,', r'"ante":1.0,'),
    (r'\}$', r',"time":"2026-01-01T00:00:00Z"}'),
    (r'"player":\["', r'"player":["\\u0041'),
    (r',"recorded":\{[^}]*\}', r''),  # nothing recorded at all
    (r',"balance":-?\d+', r''),  # no balance: the chain goes on by the nets
    (r'"net":(-?\d+)', r'"net":\1.0'),  # ... and a net spelled with places
    (r'"net":-?\d+,', r''),  # no net
    (r'"void":false,', r''),
]


def _simulated(tmp_path: Path, profile: str, fmt: str, faults: str, seed: str, bonus: str = "0") -> Path:
    out = tmp_path / f"{profile}-{seed}-{faults}.{fmt}"
    code, _ = run("simulate", "--profile", profile, "--sessions", "2", "--rounds", "30", "--seed", seed,
                  "--faults", faults, "--bonus", bonus, "--format", fmt, "--output", str(out))
    assert code == 0
    return out


def _both_ways(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for fmt in FORMATS:
        monkeypatch.setenv("REFEREE_FAST", "0")
        full = run("check", "--format", fmt, "--jobs", "1", "--no-progress", str(path))
        for mode in ("1", "verify"):
            monkeypatch.setenv("REFEREE_FAST", mode)
            quick = run("check", "--format", fmt, "--jobs", "1", "--no-progress", str(path))
            assert _unstamped(quick) == _unstamped(full), (path.name, fmt, mode)


def _unstamped(outcome: tuple[int, str]) -> tuple[int, str]:
    """JUnit's timestamp and times are the clock's: they differ from run to run."""
    code, text = outcome
    return code, re.sub(r'(timestamp|time)="[^"]*"', 'timestamp=""', text)


@pytest.mark.parametrize("name", sorted(p.name for p in SAMPLES.iterdir()))
def test_samples(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    _both_ways(SAMPLES / name, monkeypatch)


@pytest.mark.parametrize(("profile", "bonus"), [("vivo", "0"), ("caribbean", "0"), ("bonus-aa", "1"),
                                                 ("bonus-100", "0.5"), ("bonus-aa", "0")])
def test_simulated_faults(profile: str, bonus: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for fmt, faults in (("jsonl", "0.6"), ("yaml", "0.3"), ("json", "0.3"), ("jsonl", "0")):
        _both_ways(_simulated(tmp_path, profile, fmt, faults, "18", bonus), monkeypatch)


@pytest.mark.parametrize("seed", range(6))
def test_hostile_rounds(seed: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    base = _simulated(tmp_path, "bonus-aa" if seed % 2 else "vivo", "jsonl", "0", str(seed), "1" if seed % 2 else "0")
    path = tmp_path / "hostile.jsonl"
    path.write_text(_mutated(base.read_text(encoding="utf-8").splitlines(), seed), encoding="utf-8")
    _both_ways(path, monkeypatch)


def test_the_strict_decode_reads_as_the_did_you_mean_validation(tmp_path: Path) -> None:
    """Simulated rounds are decoded strictly into their struct, exactly as the
    did-you-mean validation reads them; every mutation either decodes to the same
    record or is left to that validation, which refuses it or reads it (a word spelt
    ``Call``) as the same record."""
    from referee.models import explainers
    from referee.models.decode import convert, of_model

    base = _simulated(tmp_path, "vivo", "jsonl", "0", "4").read_text(encoding="utf-8").splitlines()
    rounds = [json.loads(line, parse_float=Decimal) for line in base if '"round"' in line]
    assert all(msgspec.convert(r, Round, strict=True) == of_model(explainers.Round.model_validate(r), Round)
               for r in rounds)
    taken = refused = 0
    for field, value in MUTATIONS:
        record = json.loads(base[1], parse_float=Decimal)
        if field.startswith("recorded."):
            record["recorded"][field.split(".", 1)[1]] = value
        else:
            record[field] = value
        record = json.loads(_dump(record), parse_float=Decimal)
        try:
            full = explainers.Round.model_validate(record)
        except ValidationError:
            with pytest.raises(msgspec.ValidationError):
                msgspec.convert(record, Round, strict=True)
            refused += 1
            continue
        try:
            strict = msgspec.convert(record, Round, strict=True)
        except msgspec.ValidationError:  # left to the validation, which reads it as this record
            strict = convert(record, Round)
        else:
            taken += 1
        expected = of_model(full, Round)  # a time is the same instant (its tzinfo object is msgspec's)
        assert strict == expected and repr(replace(strict, time=None)) == repr(replace(expected, time=None))
    assert 0 < taken < len(MUTATIONS) and refused > 0


def test_memo_settles_as_settle(tmp_path: Path) -> None:
    from referee import load_profile
    from referee.rules.settlement import Deal, settle

    profile = load_profile("bonus-aa")
    memo = fast.SettleMemo(profile)
    base = _simulated(tmp_path, "bonus-aa", "jsonl", "0", "5", "1").read_text(encoding="utf-8").splitlines()
    served = 0
    for line in base:
        record = json.loads(line, parse_float=Decimal)
        if "round" not in record:
            continue
        model = msgspec.convert(record, Round, strict=True)
        ruling = memo.settle(model)
        assert ruling is not None
        full = settle(profile, Deal(model.ante, model.player, model.flop, model.decision, model.turn, model.river,
                                    model.dealer, model.bonus))
        assert ruling == full and repr(ruling) == repr(full)
        served += 1
    assert served == 60 and len(memo.memo) < served


@pytest.mark.parametrize("seed", range(3))
def test_hostile_rounds_in_yaml(seed: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same hostile rounds as a YAML document (each JSON line a flow mapping: JSON
    is YAML): the lane takes a document's round only when its mapping has the struct's
    exact types."""
    base = _simulated(tmp_path, "bonus-aa" if seed % 2 else "vivo", "jsonl", "0", str(seed), "1" if seed % 2 else "0")
    lines = [line for line in _mutated(base.read_text(encoding="utf-8").splitlines(), seed).splitlines()
             if _once(line)]  # a key written twice makes the whole YAML document unreadable
    session = json.loads(lines[0])["session"]
    text = "session: " + json.dumps(session) + "\nrounds:\n" + "".join(f"  - {line}\n" for line in lines[1:])
    path = tmp_path / "hostile.yaml"
    path.write_text(text, encoding="utf-8")
    code, out = run("check", "--format", "json", "--jobs", "1", str(path))
    assert code == 1 and json.loads(out)["summary"]["rounds"] > 50  # the document reads: the rounds are audited
    _both_ways(path, monkeypatch)


def _once(line: str) -> bool:
    """Whether no key of the JSON line is written twice."""
    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        if len({k for k, _ in items}) != len(items):
            raise ValueError("twice")
        return dict(items)

    try:
        json.loads(line, object_pairs_hook=pairs)
    except ValueError:
        return False
    return True
