"""The fast path of format 2 (issue 19's speed) changes nothing a report says: every
format, byte for byte, with the fast path off (``REFEREE_FAST=0``), on (the default)
and in ``verify`` mode (which also audits every game the full way, from a copy of the
same state, and raises if the two differ), over the format-2 samples, simulated table
logs with faults (every profile, seats inline and as seat lines, shared and own cards)
and hostile game and seat lines."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from referee.audit import intake_table, lane
from referee.audit.clean import LaneSeat
from referee.audit.fast import FastPathMismatch
from referee.load.jsonio import loads_line
from referee.load.table import PlainGameRecord, PlainSeatRecord, plain_table_line
from referee.models.decode import convert, of_model
from referee.models.table import Game, Seat, SeatLine

from .conftest import SAMPLES, run

FORMATS = ("text", "json", "jsonl", "github", "junit")
MODES = ("0", "1", "verify")


class Raw:
    """A number written exactly as given (``1.0000000``, ``-0``, ``1E+2``)."""

    def __init__(self, text: str) -> None:
        self.text = text


def _dump(record: Any) -> str:
    text = json.dumps(record, ensure_ascii=False, separators=(",", ":"), default=lambda o: f"@@{o.text}@@")
    return text.replace('"@@', "").replace('@@"', "")


SEAT_MUTATIONS: list[tuple[str, Any]] = [
    ("ante", Raw("1.0")), ("ante", Raw("1.0000000")), ("ante", Raw("-0")), ("ante", Raw("-0.0")), ("ante", 0),
    ("ante", Raw("1E+2")), ("ante", True), ("ante", "1"), ("ante", Raw("1.5")), ("ante", 10**13),
    ("ante", Raw("0.0000001")), ("ante", Raw("2.000000")), ("bonus", 1), ("bonus", Raw("0.5")), ("bonus", 0),
    ("call", 2), ("call", 3), ("call", None), ("decision", "Call"), ("decision", "fold"), ("decision", "raise"),
    ("player", ["Ah", "Kd"]), ("player_id", 1001), ("player_id", True), ("player_id", ""), ("player_id", 'p"q'),
    ("player_id", "p-1-001"), ("player_id", "joueur-é"), ("player_id", "x" * 600), ("meta", {"x": 1}),
    ("extra", 1), ("recorded.player_hand", "Pair"), ("recorded.player_hand", "two pair"), ("recorded.void", True),
    ("recorded.void", 1), ("recorded.dealer_qualified", "yes"), ("recorded.net", Raw("1.0000001")),
    ("recorded.balance", "3"), ("recorded.balance", Raw("1000.0")), ("recorded.balance", 5),
    ("recorded.balance", Raw("1E+3")), ("recorded.net", Raw("-0")), ("recorded.unknown", 1),
    ("recorded.outcome", "won"), ("recorded.outcome", "Win"), ("recorded", None), ("recorded", []),
    ("recorded.void_reason", 'a "quoted" reason'), ("recorded.void_reason", "misdeal"), ("recorded.balance", None),
    ("recorded.net", 1000), ("recorded.call", Raw("0.0")), ("recorded.ante", 10**20), ("wallet", []),
    ("wallet", None), ("wallet.0.amount", 3), ("wallet.0.amount", Raw("5.0")), ("wallet.0.amount", Raw("-0")),
    ("wallet.0.kind", "refund"), ("wallet.0.kind", "Debit"), ("wallet.0.id", "tx-same"), ("wallet.1.id", "tx-same"),
    ("wallet.0.id", ""), ("wallet.0.id", 7), ("wallet.0.reference", "ref-1"), ("wallet.0.reference", 'r"1'),
    ("wallet.0.extra", 1), ("wallet.0.meta", {"a": 1}),
    ("recorded.player_hand", "Two-Pair"), ("recorded.dealer_hand", " PAIR "), ("decision", " FOLD "),
    ("recorded.outcome", "Lose"),
]
GAME_MUTATIONS: list[tuple[str, Any]] = [
    ("round", Raw("1.0")), ("round", True), ("round", "3"), ("round", -1), ("round", 7), ("status", "cancelled"),
    ("status", "Settled"), ("turn", "Xx"), ("river", "??"), ("player", ["Ah", "Ah"]), ("dealer_id", 5),
    ("dealer_id", "d-9"), ("started", "2026-01-01T00:00:00Z"), ("started", "yesterday"), ("meta", {"a": 1}),
    ("flop", ["2c", "3d"]), ("turn", None), ("extra", 1), ("player", "Ah Kd"), ("status", " Cancelled "),
]
#: Edits of a line's text: a duplicate key (written so or with spaces), an escaped key.
TEXT_EDITS: list[tuple[str, str]] = [
    ('"ante":', '"ante":1,"ante":'), ('"ante":', '"ante" :1, "ante":'), ('"ante":', '"\\u0061nte":'),
    ('"decision":', '"decision":"fold","decision":'), ('"net":', '"net":0,"net":'), ('"id":', '"id":"a","id":'),
    ('"player_id":', '"player_id":"x","player_id":'), ('"ante":', '"ante":"1","ante":'),
    ('"kind":', '"k\\u0069nd":'), ('"round":', '"round":1,"round":'), ('"turn":', '"turn":"2c","turn":'),
]


def _set(target: dict[str, Any], path: str, value: Any) -> None:
    parts = path.split(".")
    for part in parts[:-1]:
        node = target.get(part) if isinstance(target, dict) else None
        if isinstance(node, list) and len(parts) > 2:
            index = int(parts[1])
            if index >= len(node) or not isinstance(node[index], dict):
                return
            target, parts = node[index], [parts[0], *parts[2:]]
            break
        if not isinstance(node, dict):
            return
        target = node
    target[parts[-1]] = value


def _mutate_seat(seat: dict[str, Any], rng: random.Random) -> None:
    field, value = SEAT_MUTATIONS[rng.randrange(len(SEAT_MUTATIONS))]
    _set(seat, field, value)


def _mutated(lines: list[str], seed: int) -> str:
    """The lines with a mutation on about half the games and seats and a text edit on
    some lines; the session line loses its opening balances on odd seeds."""
    rng = random.Random(seed)
    out = []
    for line in lines:
        record = json.loads(line)
        if "session" in record:
            if seed % 2:
                record["session"].pop("opening_balances", None)
            out.append(_dump(record))
            continue
        if "seat" in record and rng.random() < 0.5:
            _mutate_seat(record["seat"], rng)
        elif "seat" not in record:
            if rng.random() < 0.3:
                field, value = GAME_MUTATIONS[rng.randrange(len(GAME_MUTATIONS))]
                record[field] = value
            for seat in record.get("seats") or ():
                if rng.random() < 0.2:
                    _mutate_seat(seat, rng)
        text = _dump(record)
        if rng.random() < 0.15:
            old, new = TEXT_EDITS[rng.randrange(len(TEXT_EDITS))]
            text = text.replace(old, new, 1)
        out.append(text)
    return "\n".join(out) + "\n"


def _simulated(tmp_path: Path, profile: str, faults: str, seed: str, *extra: str) -> Path:
    out = tmp_path / f"{profile}-{seed}-{faults}-{'-'.join(extra) or 'inline'}.jsonl"
    bonus = ("--bonus", "1") if profile.startswith("bonus") else ()
    code, _ = run("simulate", "--profile", profile, "--seats", "2-7", "--sessions", "2", "--rounds", "12",
                  "--seed", seed, "--faults", faults, *bonus, "--format", "jsonl", *extra, "--output", str(out))
    assert code == 0
    return out


def _unstamped(outcome: tuple[int, str]) -> tuple[int, str]:
    """JUnit's timestamp and times are the clock's: they differ from run to run."""
    code, text = outcome
    return code, re.sub(r'(timestamp|time)="[^"]*"', 'timestamp=""', text)


_CLOCK = re.compile(r"\d{4}-\d\d-\d\d( \d\d:\d\d:\d\d UTC)?")
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _stable(outcome: tuple[int, str]) -> tuple[int, str]:
    """The HTML report's clock (when audited, the charts' date) and its charts' random ids left out."""
    code, text = outcome
    return code, _UUID.sub("-", _CLOCK.sub("-", text))


def _every_way(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for fmt in FORMATS:
        outputs = []
        for mode in MODES:
            monkeypatch.setenv("REFEREE_FAST", mode)
            outputs.append(_unstamped(run("check", "--format", fmt, "--jobs", "1", "--no-progress", str(path))))
        assert outputs[1] == outputs[0], (path.name, fmt, "on")
        assert outputs[2] == outputs[0], (path.name, fmt, "verify")


@pytest.mark.parametrize("name", ["table.jsonl", "table.yaml"])
def test_samples(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    _every_way(SAMPLES / name, monkeypatch)


@pytest.mark.parametrize("profile", ["vivo", "caribbean", "bonus-aa", "bonus-100"])
def test_simulated_faults(profile: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for faults, extra in (("0.5", ()), ("0.5", ("--seat-lines",)), ("0", ("--seat-lines",)),
                          ("0.3", ("--own-cards", "--seat-lines"))):
        _every_way(_simulated(tmp_path, profile, faults, "19", *extra), monkeypatch)


@pytest.mark.parametrize("seed", range(8))
def test_hostile_lines(seed: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    extra = ("--seat-lines",) if seed % 4 < 2 else ()
    base = _simulated(tmp_path, "bonus-aa" if seed % 3 == 0 else "vivo", "0", str(seed), *extra)
    path = tmp_path / "hostile.jsonl"
    path.write_text(_mutated(base.read_text(encoding="utf-8").splitlines(), seed), encoding="utf-8")
    _every_way(path, monkeypatch)


def _seat_lines(tmp_path: Path) -> list[bytes]:
    path = _simulated(tmp_path, "vivo", "0", "4", "--seat-lines")
    return [line for line in path.read_bytes().splitlines(keepends=True) if line.startswith(b'{"game":')]


def test_plain_lines_read_as_the_general_reader(tmp_path: Path) -> None:
    """Every simulated game and seat line is read plain, and its struct says what the
    general reader and the models say: the same game model, the same seat model."""
    lines = _seat_lines(tmp_path)
    for number, raw in enumerate(lines, start=2):
        record = plain_table_line("x", number, raw)
        assert record is not None
        data = loads_line(raw.decode(), number)
        if isinstance(record, PlainSeatRecord):
            seat = LaneSeat("p", "x", number, record.plain.seat, record, -1)
            assert seat.record == convert(data["seat"], Seat) == of_model(SeatLine.model_validate(data).seat, Seat)
        else:
            assert isinstance(record, PlainGameRecord)
            assert convert({k: v for k, v in data.items() if k != "seats"}, Game).game == str(record.plain.game)


def test_lines_the_general_reader_reads_otherwise_are_not_plain(tmp_path: Path) -> None:
    """A duplicate key (however written), an amount in quotes, a bool for a number, an
    unknown key, ``null``: the line is left to the general reader."""
    seat = next(line for line in _seat_lines(tmp_path) if b'"seat"' in line)
    assert plain_table_line("x", 3, seat) is not None
    for old, new in TEXT_EDITS[:2] + TEXT_EDITS[3:8]:
        edited = seat.replace(old.encode(), new.encode(), 1)
        assert edited != seat and plain_table_line("x", 3, edited) is None, new
    escaped = seat.replace(b'"ante":', b'"\\u0061nte":', 1)
    assert plain_table_line("x", 3, escaped) is not None  # the same key, spelt otherwise: still plain
    for old_bytes, new_bytes in ((b'"ante":', b'"ante":true,"x":'), (b'"decision":"call"', b'"decision":null'),
                                 (b'"ante":', b'"bonus":null,"ante":'), (b'"seat":{', b'"seat":{"meta":{},')):
        edited = seat.replace(old_bytes, new_bytes, 1)
        assert edited != seat and plain_table_line("x", 3, edited) is None, new_bytes


def test_verify_mode_catches_a_difference(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``verify`` is not a no-op: a fast path that booked a seat wrongly is caught."""
    path = _simulated(tmp_path, "vivo", "0", "6", "--seat-lines")
    real = lane.take_seat

    def wrong(session: Any, *args: Any) -> Any:
        seat = real(session, *args)
        if seat is not None:
            session.players[seat.player_id].balance += 1
        return seat

    monkeypatch.setattr(intake_table, "take_seat", wrong)
    monkeypatch.setenv("REFEREE_FAST", "1")
    code, _ = run("check", "--format", "json", "--jobs", "1", "--no-progress", str(path))
    assert code == 0
    monkeypatch.setenv("REFEREE_FAST", "verify")
    code, out = run("check", "--format", "json", "--jobs", "1", "--no-progress", str(path))
    assert code != 0 and FastPathMismatch.__name__ in out


@pytest.mark.parametrize("extra", [(), ("--seat-lines",)])
def test_the_fast_path_is_taken(extra: tuple[str, ...], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On a clean simulated log every seat is audited by the fast path (none falls back)."""
    path = _simulated(tmp_path, "vivo", "0", "7", *extra)
    taken: list[int] = []
    real = lane.take_seat

    def counted(*args: Any) -> Any:
        found = real(*args)
        taken.append(found is not None)
        return found

    monkeypatch.setattr(intake_table, "take_seat", counted)
    monkeypatch.setenv("REFEREE_FAST", "1")
    code, out = run("check", "--format", "json", "--jobs", "1", "--no-progress", str(path))
    seats = sum(len(g["seats"]) for s in json.loads(out)["sessions"] for g in s["games"])
    assert code == 0 and seats > 20 and taken == [True] * seats


def test_other_commands_read_plain_lines_alike(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``explain``, ``recall``, ``stats`` and ``report`` read plain seats through the
    same audit (a seat's model is then built from its struct): the same output with
    the fast path off, on and verified, on a log with faults (seat lines and inline)."""
    for extra in ((), ("--seat-lines",)):
        path = _simulated(tmp_path, "vivo", "0.4", "11", *extra)
        first = next(json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if '"seat' in line)
        game = str(first["game"])
        player = str((first.get("seat") or first["seats"][0])["player_id"])
        commands = [("explain", str(path), "--game", game), ("explain", str(path), "--game", game, "--player", player,
                                                             "--format", "json"),
                    ("recall", str(path), "--player", player, "--session", "sim-table-vivo-11-1"),
                    ("stats", str(path), "--format", "json", "--no-decisions"),
                    ("report", str(path), "--output", "-")]
        for command in commands:
            outputs = []
            for mode in MODES:
                monkeypatch.setenv("REFEREE_FAST", mode)
                outputs.append(_stable(run(*command)))
            assert outputs[0][0] in (0, 1) and outputs[0][1], command
            assert outputs[1] == outputs[0] and outputs[2] == outputs[0], command
