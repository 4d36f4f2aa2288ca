"""The fast lane's decode (``referee.load.plain``) and its reach (``referee.audit.lane``).

The byte-for-byte comparison of reports with the lane on, off and verified is in
``test_fast_path.py``; here: the decode reads a line exactly as the reader does or
leaves it to the reader, a key written twice never passes, and the lane does take
the plain rounds (else it would be proven right and never used)."""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from referee.audit.clean import CleanGame, CleanGames, as_dict
from referee.audit.games import GameResult, round_view
from referee.audit.stream import Options, audit_records
from referee.load.jsonio import JsonInputError, loads_line
from referee.load.plain import fast_round
from referee.load.readers.jsonl import lines, records

from .conftest import run
from .test_fast_path import RAW_EDITS

BASE = ('{"round":7,"ante":1,"player":["4s","3s"],"flop":["7d","5s","5c"],"decision":"call","turn":"9s",'
        '"river":"Qc","dealer":["Qh","9c"],"recorded":{"void":false,"outcome":"lose","player_hand":"pair",'
        '"dealer_hand":"two_pair","dealer_qualified":true,"ante":-1,"call":-2,"net":-3,"balance":-3}}')


def _same(a: Any, b: Any) -> bool:
    """Equal, and of the same types all through (``1`` is not ``1.0``)."""
    if type(a) is not type(b) and not (isinstance(a, dict) and isinstance(b, dict)):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b) and str(a) == str(b)


@pytest.mark.parametrize(("old", "new"), RAW_EDITS)
def test_the_decode_reads_a_line_as_the_reader_or_not_at_all(old: str, new: str) -> None:
    text = re.sub(old, new, BASE, count=1)
    assert text != BASE
    found = fast_round(text.encode())
    try:
        data = loads_line(text, 1)
    except JsonInputError:
        assert found is None  # the reader refuses it: so does the decode
        return
    if found is not None:
        assert _same(as_dict(found), data)


@pytest.mark.parametrize("twice", [
    '"ante":2,"ante":1', '"ante" :2,"ante":1', '"decision":"fold" ,"decision":"call"',
    '"recorded":{"net":0},"recorded":{"net":-3}', '"turn":"Ah","turn":"9s"', '"turn" : "Ah","turn":"9s"',
])
def test_a_key_written_twice_never_passes(twice: str) -> None:
    key = twice.split('"')[1]
    text = re.sub(rf'"{key}":("[^"]*"|\{{[^}}]*\}}|[^,]*)', twice.replace("\\", "\\\\"), BASE, count=1)
    assert text != BASE and twice in text
    with pytest.raises(JsonInputError):
        loads_line(text, 1)
    assert fast_round(text.encode()) is None


def test_the_plain_line_passes() -> None:
    found = fast_round(BASE.encode())
    assert found is not None and _same(as_dict(found), loads_line(BASE, 1))
    assert found.recorded.net == -3 and type(found.recorded.net) is int  # type: ignore[union-attr]
    decimal = fast_round(BASE.replace('"ante":1,', '"ante":1.50,').encode())
    assert decimal is not None and str(decimal.ante) == "1.50" and type(decimal.ante) is Decimal


def _events(path: Path) -> list[Any]:
    with path.open("rb") as fh:
        return list(audit_records(records(str(path), lines(fh)), Options(batches=True)))


def _simulate(tmp_path: Path, faults: str, profile: str = "vivo") -> Path:
    out = tmp_path / f"{profile}-{faults}.jsonl"
    code, _ = run("simulate", "--profile", profile, "--sessions", "3", "--rounds", "200", "--seed", "7",
                  "--faults", faults, "--format", "jsonl", "--output", str(out))
    assert code == 0
    return out


@pytest.mark.parametrize("profile", ["vivo", "caribbean", "bonus-aa"])
def test_the_lane_takes_every_round_of_a_clean_log(profile: str, tmp_path: Path) -> None:
    events = _events(_simulate(tmp_path, "0", profile))
    clean = sum(len(e) for e in events if isinstance(e, CleanGames))
    full = sum(isinstance(e, GameResult) for e in events)
    assert clean == 600 and full == 0


def test_the_lane_takes_the_plain_rounds_of_a_faulty_log(tmp_path: Path) -> None:
    """At 10% faults most rounds are still plain; a round with a finding never takes the lane."""
    events = _events(_simulate(tmp_path, "0.1"))
    clean = [r for e in events if isinstance(e, CleanGames) for r in e]
    full = [e for e in events if isinstance(e, GameResult)]
    assert len(clean) + len(full) >= 600  # faults add records (copies, replays)
    assert len(clean) > 0.8 * (len(clean) + len(full)) and any(round_view(g).findings for g in full)
    assert all(isinstance(r, CleanGame) and not r.round().findings for r in clean)



SESSION = '{"session": {"id": "s", "profile": "vivo", "opening_balance": 0}}'
ROUND = ('{"round":N,"ante":1,"player":["8d","6c"],"flop":["As","7h","Ts"],"decision":"call","turn":"8h",'
         '"river":"3d","dealer":["7s","Jh"]RECORDED}')


@pytest.mark.parametrize("recorded", ["", ',"recorded":{"net":3.0}', ',"recorded":{"net":3}',
                                      ',"recorded":{"balance":3}', ',"recorded":{}'])
def test_rounds_recording_little_read_alike_every_way(recorded: str, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A round with no ``recorded`` at all (the text row's recorded net is then empty),
    or only a net spelled ``3.0`` with no balance (the table's chain goes on by that net):
    the lane's report equals the full audit's, and verify finds no difference in state."""
    lines = [SESSION] + [ROUND.replace("N", str(n)).replace("RECORDED", recorded) for n in (1, 2)]
    path = tmp_path / "little.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    for fmt in ("text", "json", "junit"):
        outputs = set()
        for mode in ("0", "1", "verify"):
            monkeypatch.setenv("REFEREE_FAST", mode)
            code, out = run("check", "--format", fmt, "--jobs", "1", str(path))
            outputs.add((code, re.sub(r'(timestamp|time)="[^"]*"', "", out)))
        assert len(outputs) == 1, fmt
        assert next(iter(outputs))[0] in (0, 1)


def test_verify_compares_the_numbers_used_as_values(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """After a gap (rounds 1-4, then 65-67) a copied set of used numbers may iterate in
    another order: verify compares the numbers, not the set's text."""
    log = tmp_path / "gap.jsonl"
    code, _ = run("simulate", "--sessions", "1", "--rounds", "7", "--seed", "21", "--format", "jsonl",
                  "--output", str(log))
    assert code == 0
    text = re.sub(r'^\{"round":([5-7]),', r'{"round":6\1,', log.read_text(encoding="utf-8"), flags=re.M)
    log.write_text(text, encoding="utf-8")
    monkeypatch.setenv("REFEREE_FAST", "0")
    full = run("check", "--format", "json", "--jobs", "1", str(log))
    monkeypatch.setenv("REFEREE_FAST", "verify")
    assert run("check", "--format", "json", "--jobs", "1", str(log)) == full and full[0] == 1


@pytest.mark.parametrize(("step", "carried"), [(7, False), (5, True)])
def test_a_balance_fault_leaves_only_its_own_round_off_the_lane(step: int, carried: bool, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A balance that breaks the chain (one P005) leaves two anchors behind it; the next
    round's balance, which follows from one of them, is judged on that chain by the
    cheap test (``players.follows``) and takes the lane: a slip the table corrected, or
    a wrong balance it carried on, puts only its own round through the full audit. The
    report is the same with the lane off and verified."""
    log = tmp_path / "slip.jsonl"
    code, _ = run("simulate", "--sessions", "1", "--rounds", "6", "--seed", "21", "--format", "jsonl",
                  "--output", str(log))
    assert code == 0

    def shifted(match: re.Match[str]) -> str:  # round 2's balance off by ``step`` (and every later one's)
        number, balance = int(match[1]), int(match[3])
        moved = number == 2 or (carried and number > 2)
        return f'"round":{number},{match[2]}"balance":{balance + step if moved else balance}}}}}'

    text = re.sub(r'"round":(\d+),(.*)"balance":(-?\d+)\}\}', shifted, log.read_text(encoding="utf-8"))
    assert text != log.read_text(encoding="utf-8")
    log.write_text(text, encoding="utf-8")
    events = _events(log)
    full = [e for e in events if isinstance(e, GameResult)]
    clean = [r.number for e in events if isinstance(e, CleanGames) for r in e]
    assert [g.number for g in full] == [2] and [f.code for f in round_view(full[0]).findings] == ["P005"]
    assert clean == [1, 3, 4, 5, 6]
    outputs = set()
    for mode in ("0", "1", "verify"):
        monkeypatch.setenv("REFEREE_FAST", mode)
        outputs.add(run("check", "--format", "json", "--jobs", "1", str(log)))
    assert len(outputs) == 1 and next(iter(outputs))[0] == 1



@pytest.mark.parametrize(("numbers", "code"), [((1, 2, 4, 5, 6), "S004"), ((1, 2, 2, 4, 5), "S003")])
def test_a_misnumbered_round_holds_back_only_itself(numbers: tuple[int, ...], code: str, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A number that is off holds its round until the next number says what it was
    (one finding); the next round, which settles it (``Sequence.settle_by``), takes the
    lane, the held round released before it. The report is the same with the lane off
    and verified."""
    log = tmp_path / "numbers.jsonl"
    code_, _ = run("simulate", "--sessions", "1", "--rounds", "5", "--seed", "21", "--format", "jsonl",
                   "--output", str(log))
    assert code_ == 0
    given = iter(numbers)
    log.write_text(re.sub(r'^\{"round":\d+,', lambda m: f'{{"round":{next(given)},',
                          log.read_text(encoding="utf-8"), flags=re.M), encoding="utf-8")
    events = _events(log)
    games = [e.number for e in events if isinstance(e, GameResult)]
    order = [r.number for e in events if isinstance(e, (GameResult, CleanGames))
             for r in (e if isinstance(e, CleanGames) else [e])]
    assert games == [numbers[2]] and order == list(numbers)
    held = next(e for e in events if isinstance(e, GameResult))
    assert [f.code for f in round_view(held).findings] == [code]
    outputs = set()
    for mode in ("0", "1", "verify"):
        monkeypatch.setenv("REFEREE_FAST", mode)
        outputs.add(run("check", "--format", "json", "--jobs", "1", str(log)))
    assert len(outputs) == 1 and next(iter(outputs))[0] == 1
