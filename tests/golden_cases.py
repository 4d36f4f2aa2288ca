"""Golden outputs (issue 17): every report format, byte for byte, on the samples, on
simulated logs with faults (several profiles, YAML, JSON and JSON Lines) and on the
hostile inputs of ``test_hostile.py``.

Why: a refactoring must not change a report by accident. A change that is meant (a
new finding, a reworded line) changes the golden files with it, in the same commit:
regenerate them with ``python scripts/golden.py --write`` and read the diff.

Every input is rebuilt from this module (simulate is seeded), in a folder given by the
caller; the commands run in that folder with relative paths, so no output names a
temporary path. The only parts of an output that change from run to run (the JUnit
timestamp and host, the HTML report's time of audit) are replaced by placeholders.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from click.testing import CliRunner

from referee.cli import main

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
GOLDEN = ROOT / "tests" / "golden"
CODES = GOLDEN / "exit-codes.txt"
REGENERATE = "python scripts/golden.py --write"

CHECK_FORMATS = {"text": "txt", "json": "json", "jsonl": "jsonl", "github": "github.txt", "junit": "xml"}
SIMULATED = [(profile, fmt, seed) for seed, (profile, fmt) in enumerate(
    [(p, f) for p in ("vivo", "caribbean", "bonus-aa", "bonus-100") for f in ("yaml", "json", "jsonl")], start=1)]

_ROUND = "  - {{round: {i}, ante: {ante}, player: [Ah, Kd], flop: [2c, 3c, 4c], decision: fold}}\n"


@dataclass(frozen=True, slots=True)
class Case:
    """One command whose standard output is kept in ``tests/golden/<name>.golden`` (the
    suffix keeps tools that read source, such as duplicate finders, off the outputs)."""

    name: str
    args: tuple[str, ...]

    @property
    def stored(self) -> Path:
        return GOLDEN / f"{self.name}.golden"


def hostile_inputs() -> dict[str, Callable[[], bytes]]:
    """The inputs of test_hostile.py, each made on demand (some are 20 MB); the 100 MB
    JSON Lines line is 17 MB here: over the same 16 MiB bound, a sixth of the bytes."""
    alias = ['  a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    alias += [f"  a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 10)]
    numbers = ["1e400", "9" * 5000, "-0"]
    jsonl_round = ('{{"round": {i}, "ante": {v}, "player": ["Ah", "Kd"], "flop": ["2c", "3c", "4c"], '
                   '"decision": "fold"}}\n')
    bomb = "session:\n  id: x\n  meta:\n" + "\n".join("  " + line for line in alias) + "\nrounds: []\n"
    nested = "".join("  " * i + f"k{i}:\n" for i in range(1, 200)) + "  " * 200 + "v: 1\n"
    texts: dict[str, Callable[[], str]] = {
        "bomb.yaml": lambda: bomb,
        "deep.yaml": lambda: "session: " + "[" * 100_000 + "]" * 100_000 + "\n",
        "deep2.yaml": lambda: "session:\n" + nested,
        "deep.json": lambda: '{"session": ' + "[" * 100_000 + "]" * 100_000 + "}",
        "deep.jsonl": lambda: '{"session": ' + "[" * 100_000 + "]" * 100_000 + "}\n",
        "long.jsonl": lambda: ('{"session": {"id": "s"}}\n{"round": 1, "meta": "' + "x" * 17_000_000 + '"}\n'
                               + jsonl_round.format(i=1, v=1)),
        "long.json": lambda: '{"session": {"id": "' + "x" * 20_000_000 + '"}, "rounds": []}',
        "long.yaml": lambda: 'session: {id: "' + "x" * 20_000_000 + '"}\nrounds: []\n',
        "million.json": lambda: ('{"session": {"id": "m"}, "rounds": [{"round": 1, "ante": 1, "player": ['
                                 + ",".join(['"Ah"'] * 1_000_000)
                                 + '], "flop": ["2c","3c","4c"], "decision": "fold"}]}'),
        "million.yaml": lambda: ("session: {id: m}\nrounds:\n  - round: 1\n    ante: 1\n    player: ["
                                 + ",".join(["Ah"] * 1_000_000) + "]\n    flop: [2c, 3c, 4c]\n    decision: fold\n"),
        "numbers.yaml": lambda: "session: {id: n, rounds_agreed: 1}\nrounds:\n" + "".join(
            _ROUND.format(i=i, ante=v) for i, v in enumerate([*numbers, ".nan"], start=1)),
        "numbers.jsonl": lambda: '{"session": {"id": "n", "rounds_agreed": 1}}\n' + "".join(
            jsonl_round.format(i=i, v=v) for i, v in enumerate([*numbers, "NaN"], start=1)),
        "cents.yaml": lambda: "session: {id: c, rounds_agreed: 3}\nrounds:\n" + "".join(
            f"  - {{round: {i}, ante: 0.1, player: [2c, 7d], flop: [Jh, Qs, 4c], decision: fold, "
            f"recorded: {{net: -0.1, balance: {-0.1 * i:.1f}}}}}\n" for i in range(1, 4)),
        "big.yaml": lambda: ("session: {id: b, rounds_agreed: 1}\nrounds:\n"
                             "  - {round: 1, ante: 999999999999.123456, player: [2c, 7d], flop: [Jh, Qs, 4c], "
                             "decision: fold}\n"),
        "frac.yaml": lambda: ("session: {id: f, rounds_agreed: 1}\nrounds:\n"
                              "  - {round: 1, ante: 0.005, player: [2c, 7d], flop: [Jh, Qs, 4c], decision: fold}\n"),
    }
    made: dict[str, Callable[[], bytes]] = {name: _encoded(make) for name, make in texts.items()}
    clean, log = SAMPLES / "clean.yaml", SAMPLES / "log.jsonl"
    made.update({
        "latin1.yaml": lambda: "session: {id: café}\nrounds: []\n".encode("latin-1"),
        "latin1b.yaml": lambda: "session:\n  id: café\nrounds: []\n".encode("latin-1"),
        "bom.yaml": lambda: b"\xef\xbb\xbf" + clean.read_bytes(),
        "crlf.yaml": lambda: clean.read_bytes().replace(b"\n", b"\r\n"),
        "bom.jsonl": lambda: b"\xef\xbb\xbf" + log.read_bytes(),
        "crlf.jsonl": lambda: log.read_bytes().replace(b"\n", b"\r\n"),
        "nul.yaml": lambda: b"session: {id: x}\x00\nrounds: []\n",
        "binary.yaml": lambda: bytes(range(256)) * 20,
        "empty.yaml": lambda: b"",
    })
    return {f"hostile/{name}": make for name, make in made.items()}


def _encoded(make: Callable[[], str]) -> Callable[[], bytes]:
    return lambda: make().encode()


def make_inputs(folder: Path) -> None:
    """Every input under ``folder``: samples/, simulated/ and hostile/."""
    (folder / "samples").mkdir(parents=True, exist_ok=True)
    for sample in sorted(p for p in SAMPLES.iterdir() if p.is_file()):
        (folder / "samples" / sample.name).write_bytes(sample.read_bytes())
    (folder / "samples" / "exports").mkdir(exist_ok=True)  # providers' exports (issue 29), read with --mapping
    for export in sorted((SAMPLES / "exports").iterdir()):
        (folder / "samples" / "exports" / export.name).write_bytes(export.read_bytes())
    (folder / "simulated").mkdir(exist_ok=True)
    (folder / "hostile").mkdir(exist_ok=True)
    with _inside(folder):
        for profile, fmt, seed in SIMULATED:
            result = CliRunner().invoke(main, ["simulate", "--profile", profile, "--sessions", "2", "--rounds", "30",
                                               "--seed", str(seed), "--policy", "simple", "--faults", "0.1",
                                               "--bonus", "1" if profile.startswith("bonus") else "0",
                                               "--format", fmt, "--output", _simulated(profile, fmt)])
            assert result.exit_code == 0, result.output
    for name, make in hostile_inputs().items():
        (folder / name).write_bytes(make())


def _simulated(profile: str, fmt: str) -> str:
    return f"simulated/{profile}.{fmt}"


def cases() -> list[Case]:
    """Every command kept: check in each format and the HTML report on every sample and
    simulated log; stats on them; the hostile inputs in text and JSON each, and all
    together in the other formats."""
    samples = [f"samples/{p.name}" for p in sorted(SAMPLES.iterdir()) if p.is_file()]
    simulated = [_simulated(profile, fmt) for profile, fmt, _ in SIMULATED]
    hostile = sorted(hostile_inputs())
    found: list[Case] = []
    for path in samples + simulated:
        stem = path.replace("/", "-")
        found += [Case(f"check-{stem}.{ext}", ("check", "--format", fmt, "--jobs", "1", path))
                  for fmt, ext in CHECK_FORMATS.items()]
        found.append(Case(f"report-{stem}.html", ("report", "--lang", "en", "-o", "-", path)))
    history = ("--profile", "vivo", "--mapping", "evolution-history", "--wallet",
               "samples/exports/seamless-wallet.jsonl", "samples/exports/evolution-history.json")
    feed = ("--profile", "vivo", "--mapping", "datafeed-csv", "samples/exports/datafeed.csv")
    for name, args in (("history", history), ("feed", feed)):
        found += [Case(f"check-export-{name}.{ext}", ("check", "--format", fmt, *args))
                  for fmt, ext in CHECK_FORMATS.items()]
    found.append(Case("check-export-wallet.txt", ("check", "--mapping", "seamless-wallet",
                                                   "samples/exports/seamless-wallet.jsonl")))
    for lang in ("en", "fr"):
        found.append(Case(f"report-samples-{lang}.html", ("report", "--lang", lang, "-o", "-", *samples)))
    for fmt, ext in (("text", "txt"), ("json", "json")):
        found.append(Case(f"stats-samples.{ext}", ("stats", "--no-decisions", "--format", fmt, *samples)))
        found.append(Case(f"stats-simulated.{ext}", ("stats", "--no-decisions", "--format", fmt, *simulated)))
    for path in hostile:
        stem = path.replace("/", "-")
        found += [Case(f"check-{stem}.{ext}", ("check", "--format", fmt, "--jobs", "1", path))
                  for fmt, ext in (("text", "txt"), ("json", "json"))]
    found += [Case(f"check-hostile.{ext}", ("check", "--format", fmt, "--jobs", "1", *hostile))
              for fmt, ext in CHECK_FORMATS.items() if fmt not in ("text", "json")]
    found.append(Case("report-hostile.html", ("report", "--lang", "en", "-o", "-", *hostile)))
    return found


_VARYING = [
    (re.compile(r'timestamp="[^"]*"'), 'timestamp="(time)"'),
    (re.compile(r'(<testsuite [^>]*) time="[0-9.]+"'), r'\1 time="(seconds)"'),  # how long a suite's audit took
    (re.compile(r'hostname="[^"]*"'), 'hostname="(host)"'),
    (re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC"), "(time of the audit) UTC"),
    # pygal's copyright year (and the day it drew the chart, which the report leaves out since)
    (re.compile(r"(Generated with pygal [^ ]+ \(etree\) ©Kozea 2012-)\d{4}(?: on \d{4}-\d\d-\d\d)?"), r"\1(date)"),
]
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def normalize(text: str) -> str:
    """The output with what changes from run to run (time, host, pygal's random chart
    ids, numbered in order of appearance) replaced."""
    for pattern, replacement in _VARYING:
        text = pattern.sub(replacement, text)
    ids: dict[str, str] = {}
    return _UUID.sub(lambda m: ids.setdefault(m.group(0), f"(id {len(ids) + 1})"), text)


def run_case(case: Case, folder: Path) -> tuple[int, str]:
    """Exit status and normalised standard output of ``referee ARGS`` run in ``folder``."""
    with _inside(folder):
        result = CliRunner().invoke(main, list(case.args), env={"NO_COLOR": "1", "GITHUB_ACTIONS": "",
                                                                 "LANG": "C", "LC_ALL": "", "LC_MESSAGES": ""})
    return result.exit_code, normalize(result.stdout)


def stored_codes() -> dict[str, int]:
    """``tests/golden/exit-codes.txt``: a line ``NAME CODE`` a case."""
    if not CODES.exists():
        return {}
    pairs = (line.rsplit(" ", 1) for line in CODES.read_text(encoding="utf-8").splitlines() if line)
    return {name: int(code) for name, code in pairs}


@contextmanager
def _inside(folder: Path) -> Iterator[None]:
    before = Path.cwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)
