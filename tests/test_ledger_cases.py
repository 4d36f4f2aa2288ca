"""One minimal session per case, with the exact findings it must give (issue 15).

The table doubles as the proof that every documented code can be emitted: each code
of the catalogue is the expected result of at least one case, and no case expects a
code the catalogue lacks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest

from referee.audit import codes
from referee.audit.codes import CODES

from .conftest import ROOT, check_json
from .conftest import codes as found_codes

HEAD = "session:\n  id: t\n  profile: vivo\n  rounds_agreed: {n}\n  opening_balance: 0\nrounds:\n"
WORKED = ("  - round: {n}\n    ante: 1\n    player: [A♥, K♦]\n    flop: [A♠, 7♦, 4♣]\n    decision: call\n"
          "    turn: 9♥\n    river: 2♠\n    dealer: [Q♠, Q♣]\n")


@dataclass(frozen=True)
class Case:
    name: str
    text: str
    expected: tuple[str, ...]
    file: str = "s.yaml"


def worked(n: int = 1, recorded: str = "", replace: tuple[tuple[str, str], ...] = ()) -> str:
    text = WORKED.format(n=n)
    for old, new in replace:
        assert old in text, old
        text = text.replace(old, new)
    return text + (f"    recorded: {{{recorded}}}\n" if recorded else "")


def session(*rounds: str, agreed: int | None = None, profile: str = "vivo", head: str = "") -> str:
    count = agreed if agreed is not None else len(rounds)
    return HEAD.format(n=count).replace("vivo", profile).replace("rounds:\n", head + "rounds:\n") + "".join(rounds)


TABLE_LINE = '{"session": {"id": "t", "profile": "vivo", "opening_balances": {}}}\n'
GAME = ("  - game: g1\n    player: [A♥, K♦]\n    flop: [A♠, 7♦, 4♣]\n    turn: 9♥\n    river: 2♠\n"
        "    dealer: [Q♠, Q♣]\n    seats:\n      - {player_id: a, ante: 1, decision: call}\n")


def table(games: str) -> str:
    return "format: 2\nsession: {id: t, profile: vivo}\ngames:\n" + games


def wallet(*moves: str, same_id: bool = False) -> str:
    listed = ", ".join(f"{{id: t{0 if same_id else i}, kind: {m.split()[0]}, amount: {m.split()[1]}}}"
                       for i, m in enumerate(moves))
    return GAME.replace("decision: call}", f"decision: call, wallet: [{listed}]}}")


CODE_CASES = [
    Case("H000 unreadable file", "session: [unclosed\n", ("H000",)),
    Case("H001 invalid record", session(worked(replace=(("ante: 1", "ante: abc"),))), ("H001",)),
    Case("H002 unknown field", session(worked(replace=(("dealer:", "dealr:"),))), ("H002",)),
    Case("H003 duplicate key", session(worked(replace=(("    ante: 1\n", "    ante: 1\n    ante: 2\n"),))), ("H003",)),
    Case("H004 unreadable record", '{"session": {"id": "x", "rounds_agreed": 1}}\nnot json\n', ("H004", "S005"),
         "s.jsonl"),
    Case("H005 unknown profile", session(worked(), profile="vivo2"), ("H005",)),
    Case("H006 orphan round", '{"round": 1}\n', ("H006",), "s.jsonl"),
    Case("K001 player hand", session(worked(recorded="player_hand: two_pair")), ("K001",)),
    Case("K002 dealer hand", session(worked(recorded="dealer_hand: high_card")), ("K002",)),
    Case("K003 dealer qualified", session(worked(recorded="dealer_qualified: false")), ("K003",)),
    Case("P001 ante result", session(worked(recorded="ante: 2")), ("P001",)),
    Case("P002 call result", session(worked(recorded="call: 1")), ("P002",)),
    Case("P004 net result", session(worked(recorded="net: 2")), ("P004",)),
    Case("P005 running balance", session(worked(recorded="net: 3, balance: 4")), ("P005",)),
    Case("P006 outcome", session(worked(recorded="outcome: lose")), ("P006",)),
    Case("P007 returned", session(worked(recorded="returned: 5")), ("P007",)),
    Case("P003 bonus result", session(worked(recorded="bonus: 6", replace=(("ante: 1\n", "ante: 1\n    bonus: 1\n"),)),
                                      profile="bonus-100"), ("P003",)),
    Case("S001 call multiple", session(worked(replace=(("ante: 1\n", "ante: 1\n    call: 1\n"),))), ("S001",)),
    Case("S002 stake changed", session(worked(1), worked(2, replace=(("ante: 1", "ante: 2"),))), ("S002",)),
    Case("S003 duplicate round", session(worked(1), worked(2), worked(2), agreed=3), ("S003",)),
    Case("S004 missing round", session(worked(1), worked(3), agreed=2), ("S004",)),
    Case("S005 round count", session(worked(1), agreed=2), ("S005",)),
    Case("S006 bonus not offered", session(worked(replace=(("ante: 1\n", "ante: 1\n    bonus: 1\n"),))), ("S006",)),
    Case("S007 insufficient funds", session(worked(), profile="caribbean").replace("opening_balance: 0",
                                                                                    "opening_balance: 2"), ("S007",)),
    Case("S008 stake increment", session(worked(replace=(("ante: 1", "ante: 0.001"),))), ("S008",)),
    Case("S009 round order", session(worked(1), worked(3), worked(2), agreed=3), ("S004", "S009")),
    Case("V001 void settled", session(worked(recorded="net: 3", replace=(("2♠", "A♥"),))),
         ("S005", "V001")),
    Case("V002 valid recorded void", session(worked(recorded="void: true")), ("V002",)),
    Case("V003 void deal", session(worked(1, replace=(("2♠", "A♥"),)), worked(1), agreed=1), ("V003",)),
    # Format 2 (issue 19): a table session, its games and seats, the wallet.
    Case("H007 orphan seat", TABLE_LINE + '{"game": "g9", "seat": {"player_id": "a", "ante": 1, "decision": "fold"}}\n',
         ("H007",), "s.jsonl"),
    Case("G001 game cards differ", table(GAME + GAME.replace("2♠", "3♠").replace("player_id: a", "player_id: b")),
         ("G001",)),
    Case("G002 player twice", table(GAME + "      - {player_id: a, ante: 1, decision: call}\n"), ("G002",)),
    Case("G003 cancelled game paid", table(GAME.replace("game: g1", "game: g1\n    status: cancelled")
                                           .replace("decision: call}", "decision: call, recorded: {net: 3}}")),
         ("G003",)),
    Case("W001 wallet debit", table(wallet("debit 1", "credit 6")), ("W001",)),
    Case("W002 wallet credit", table(wallet("debit 3", "credit 5")), ("W002",)),
    Case("W003 wallet refund", table(wallet("debit 3", "credit 6", "refund 1")), ("W003",)),
    Case("W004 wallet duplicate transaction", table(wallet("debit 3", "credit 6", same_id=True)), ("W004",)),
]


def _ids(cases: list[Case]) -> list[str]:
    return [c.name for c in cases]


def run_case(write, case: Case) -> list[str]:  # type: ignore[no-untyped-def]
    _, report = check_json(write(case.file, case.text))
    return found_codes(report)


@pytest.mark.parametrize("case", CODE_CASES, ids=_ids(CODE_CASES))
def test_code_case(write, case: Case) -> None:  # type: ignore[no-untyped-def]
    assert run_case(write, case) == sorted(case.expected)


def test_every_documented_code_is_emitted_by_a_case_and_no_other() -> None:
    expected = {code for case in CODE_CASES for code in case.expected}
    assert expected == set(CODES)


def test_constants_are_named_after_their_code() -> None:
    for code in CODES:
        assert getattr(codes, code) == code


def test_no_bare_code_strings_outside_the_catalogue() -> None:
    """Emitters use the constants: a quoted code anywhere else in the package is a slip."""
    bare = re.compile(r"""["'][GHKPSVW]\d{3}["']""")
    offenders = [str(path.relative_to(ROOT)) for path in (ROOT / "referee").rglob("*.py")
                 if path.name != "codes.py" and bare.search(path.read_text(encoding="utf-8"))]
    assert offenders == []
