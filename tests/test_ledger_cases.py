"""One minimal session per case, with the exact findings it must give (issue 15).

The table doubles as the proof that every documented code can be emitted: each code
of the catalogue is the expected result of at least one case, and no case expects a
code the catalogue lacks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from referee.models import codes
from referee.models.codes import CODES

from .conftest import ROOT, Write, check_json, run
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
    #: Options of ``check`` before the file (``--mapping NAME`` for an export).
    args: tuple[str, ...] = ()


def worked(n: int = 1, recorded: str = "", replace: tuple[tuple[str, str], ...] = ()) -> str:
    text = WORKED.format(n=n)
    for old, new in replace:
        assert old in text, old
        text = text.replace(old, new)
    return text + (f"    recorded: {{{recorded}}}\n" if recorded else "")


def session(*rounds: str, agreed: int | None = None, profile: str = "vivo", head: str = "") -> str:
    count = agreed if agreed is not None else len(rounds)
    return HEAD.format(n=count).replace("vivo", profile).replace("rounds:\n", head + "rounds:\n") + "".join(rounds)


#: One game of an evolution-history page: the worked deal (A♥ K♦ against Q♠ Q♣), two seats.
EXPORT_PAGE = ('{"data": [{"games": [{"id": "g1", "status": "Resolved", "table": {"id": "T1"}, '
               '"startedAt": "2026-12-01T10:00:00Z", "settledAt": "2026-12-01T10:00:45Z", "dealer": {"uid": "d1"}, '
               '"result": {"player": {"cards": ["AH", "KD"]}, "dealer": {"cards": ["QS", "QC"], "qualified": true}, '
               '"communityCards": ["AS", "7D", "4C", "9H", "2S"]}, "participants": [\n'
               '{"playerId": "a", "decisions": [{"type": "Call"}], "bets": [{"code": "CHE_Ante", "stake": "1.00", '
               '"payout": "2.00"}, {"code": "CHE_Call", "stake": "2.00", "payout": "4.00"}]},\n'
               '{"playerId": "b", "decisions": [{"type": "Fold"}], "bets": [{"code": "CHE_Ante", "stake": "1.00", '
               '"payout": "0.00"}]}]}]}]}\n')
#: A JSON Lines session of one fold, then a second record of it whose balance is given.
REPEATED = ('{{"session": {{"id": "t", "opening_balance": 0}}}}\n'
            '{{"round": 1, "ante": 1, "player": ["2c", "7d"], "flop": ["Jh", "Qs", "4c"], "decision": "fold", '
            '"recorded": {{"net": -1, "balance": -1}}}}\n'
            '{{"session": {{"id": "t", "opening_balance": 0}}}}\n'
            '{{"round": 1, "ante": 1, "player": ["2c", "7d"], "flop": ["Jh", "Qs", "4c"], "decision": "fold", '
            '"recorded": {{"net": -1, "balance": {balance}}}}}\n')
TABLE_LINE = '{"session": {"id": "t", "profile": "vivo", "opening_balances": {}}}\n'
GAME = ("  - game: g1\n    player: [A♥, K♦]\n    flop: [A♠, 7♦, 4♣]\n    turn: 9♥\n    river: 2♠\n"
        "    dealer: [Q♠, Q♣]\n    seats:\n      - {player_id: a, ante: 1, decision: call}\n")


TABLE_GAME = ("  - game: {g}\n    status: {status}\n    player: [A♥, K♦]\n    flop: [A♠, 7♦, 4♣]\n    turn: 9♥\n"
              "    river: 2♠\n    dealer: [Q♠, Q♣]\n    seats:\n"
              "      - {{player_id: a, ante: 1, decision: call, recorded: {{{rec}}}}}\n")


def table_game(n: int, *balances: int) -> str:
    """Game ``g{n}``, numbered ``n`` in the table's sequence, the worked deal (+3 a seat),
    a seat a balance (players a, b, ...)."""
    seats = "".join(f"      - {{player_id: {chr(97 + i)}, ante: 1, decision: call, recorded: {{balance: {b}}}}}\n"
                    for i, b in enumerate(balances))
    return (f"  - game: g{n}\n    round: {n}\n    player: [A♥, K♦]\n    flop: [A♠, 7♦, 4♣]\n    turn: 9♥\n"
            f"    river: 2♠\n    dealer: [Q♠, Q♣]\n    seats:\n{seats}")


def second_record(n: int, *balances: int) -> str:
    """A second record of game ``g{n}`` (no number), seating the players after the first
    record's two (c, d, ...)."""
    text = table_game(n, 0, 0, *balances).replace(f"    round: {n}\n", "")
    return "".join(line for line in text.splitlines(keepends=True)
                   if "player_id: a," not in line and "player_id: b," not in line)


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
    Case("H010 profile name borrowed", session(worked()), ("H010",),
         args=("--profile", str(ROOT / "tests" / "data" / "borrowed-vivo.yaml"))),
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
    Case("S003 duplicate round", session(worked(1), worked(2), worked(2), agreed=2), ("S003",)),
    Case("S004 missing round", session(worked(1), worked(3), agreed=2), ("S004",)),
    Case("S005 round count", session(worked(1), agreed=2), ("S005",)),
    Case("S006 bonus not offered", session(worked(replace=(("ante: 1\n", "ante: 1\n    bonus: 1\n"),))), ("S006",)),
    Case("S007 insufficient funds", session(worked(), profile="caribbean").replace("opening_balance: 0",
                                                                                    "opening_balance: 2"), ("S007",)),
    Case("S008 stake increment", session(worked(replace=(("ante: 1", "ante: 0.001"),))), ("S008",)),
    Case("S010 session repeated", REPEATED.format(balance=-1), ("S010",), "s.jsonl"),
    Case("S011 session conflict", REPEATED.format(balance=-2), ("P005", "S011"), "s.jsonl"),
    Case("S009 round order", session(worked(1), worked(3), worked(2), agreed=3), ("S009",)),
    Case("S009 a round far from its place", session(worked(1), worked(3), worked(4), worked(2), agreed=4),
         ("S004", "S009")),
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
    # Importers (issue 29): a record of a provider's export its mapping cannot read.
    Case("H008 export misfit", EXPORT_PAGE.replace('"stake": "2.00"', '"stake": "2,00"'), ("H008",), "page.json",
         ("--profile", "vivo", "--mapping", "evolution-history")),
    Case("H009 mapping finds nothing", EXPORT_PAGE.replace(', "qualified": true', ""), ("H009",), "page.json",
         ("--profile", "vivo", "--mapping", "evolution-history")),
]


@pytest.fixture(autouse=True)
def _both_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every case runs with ``REFEREE_FAST=verify``: each game the fast lane takes is
    audited the full way too and the two compared (result, findings, state, report
    lines), so a check the lane does not mirror fails here instead of passing silently
    (issue 44). A test that names a mode sets its own."""
    monkeypatch.setenv("REFEREE_FAST", "verify")


def _ids(cases: list[Case]) -> list[str]:
    return [c.name for c in cases]


def run_case(write: Write, case: Case) -> list[str]:
    _, report = check_json(*case.args, write(case.file, case.text))
    return found_codes(report)


@pytest.mark.parametrize("case", CODE_CASES, ids=_ids(CODE_CASES))
def test_code_case(write: Write, case: Case) -> None:
    assert run_case(write, case) == sorted(case.expected)


def test_every_documented_code_is_emitted_by_a_case_and_no_other() -> None:
    """The codes of a wallet log read alone (W005-W009) have their cases in
    tests/test_wallet_log.py, on the audit's own API; W010 (a wallet log beside an
    export) in tests/test_importers.py; B001 (a baseline's entry no finding matches) in
    tests/test_check_config.py."""
    from .test_check_config import BASELINE_CODES
    from .test_importers import IMPORT_CODE_CASES
    from .test_wallet_log import CODE_CASES as WALLET_LOG_CASES

    expected = {code for case in CODE_CASES for code in case.expected} | set(WALLET_LOG_CASES) | set(IMPORT_CODE_CASES)
    expected |= set(BASELINE_CODES)
    assert expected == set(CODES)


def test_constants_are_named_after_their_code() -> None:
    for code in CODES:
        assert getattr(codes, code) == code


def test_no_bare_code_strings_outside_the_catalogue() -> None:
    """Emitters use the constants: a quoted code anywhere else in the package is a slip."""
    bare = re.compile(r"""["'][BGHKPSVW]\d{3}["']""")
    offenders = [str(path.relative_to(ROOT)) for path in (ROOT / "referee").rglob("*.py")
                 if path.name != "codes.py" and bare.search(path.read_text(encoding="utf-8"))]
    assert offenders == []


# --- The issue's cases: one minimal session each, exact codes -----------------------------------------------

LOSE = "  - round: {n}\n    ante: 1\n    player: [2♣, 7♦]\n    flop: [J♥, Q♠, 4♣]\n    decision: fold\n"
FOLD = LOSE  # a fold loses the Ante: net -1


def fold(n: int, recorded: str = "", extra: str = "") -> str:
    return LOSE.format(n=n) + extra + (f"    recorded: {{{recorded}}}\n" if recorded else "")


def numbered(*numbers: int) -> list[str]:
    """Different deals (a meta mark each, so none is a verbatim copy) under these numbers."""
    return [worked(i + 1).replace(f"round: {i + 1}\n", f"round: {n}\n    meta: {{k: {i}}}\n", 1)
            for i, n in enumerate(numbers)]


def jsonl_round(n: int, balance: int | None = None) -> str:
    rec = f', "recorded": {{"net": -1, "balance": {balance}}}' if balance is not None else ""
    return (f'{{"round": {n}, "ante": 1, "player": ["2c", "7d"], "flop": ["Jh", "Qs", "4c"], '
            f'"decision": "fold"{rec}}}\n')


VOID_AS_LOSS = worked(2, "outcome: lose, net: -3, balance: 0", (("2♠", "A♥"),))
ISSUE_CASES = [
    Case("wrong net beside a right balance is P004 alone",
         session(worked(1, "net: 2, balance: 3"), worked(2, "net: 3, balance: 6")), ("P004",)),
    Case("wrong net carried into the balances is P004 alone",
         session(worked(1, "net: 2, balance: 2"), worked(2, "net: 3, balance: 5")), ("P004",)),
    Case("a wrong balance the table carries on is one P005",
         session(worked(1, "balance: 4"), worked(2, "balance: 7"), worked(3, "balance: 10")), ("P005",)),
    Case("a one-off balance slip corrected next round is one P005",
         session(worked(1, "balance: 4"), worked(2, "balance: 6"), worked(3, "balance: 9")), ("P005",)),
    Case("void deal recorded as a loss is V001 alone; the next balance follows it",
         session(worked(1, "balance: 3"), VOID_AS_LOSS, worked(2, "balance: 3"), agreed=2), ("V001",)),
    Case("void deal recorded as a loss without a balance; the next right balance is clean",
         session(worked(1, "balance: 3"), worked(2, "outcome: lose, net: -3", (("2♠", "A♥"),)),
                 worked(2, "balance: 6"), agreed=2), ("V001",)),
    Case("void deal recorded as a loss, then the table corrects itself: V001 alone",
         session(worked(1, "balance: 3"), VOID_AS_LOSS, worked(2, "balance: 6"), worked(3, "balance: 9"), agreed=3),
         ("V001",)),
    Case("void deal recorded as a loss, then a balance on neither chain: V001 and its own P005",
         session(worked(1, "balance: 3"), VOID_AS_LOSS, worked(2, "balance: 7"), agreed=2), ("V001", "P005")),
    Case("void deal paid as a win, then the table takes it back: V001 alone",
         session(worked(1, "balance: 3"), worked(2, "net: 3, balance: 6", (("2♠", "A♥"),)), worked(3, "balance: 6"),
                 agreed=2), ("V001",)),
    Case("cancelled game paid, then the table corrects itself: G003 alone",
         table(TABLE_GAME.format(g="g1", status="settled", rec="balance: 3")
               + TABLE_GAME.format(g="g2", status="cancelled", rec="outcome: lose, net: -3, balance: 0")
               + TABLE_GAME.format(g="g3", status="settled", rec="balance: 6")), ("G003",)),
    Case("void deal recorded as a loss with a balance but no net: V001 alone, the balance unchecked",
         session(worked(1, "balance: 3"), worked(2, "outcome: lose, balance: 0", (("2♠", "A♥"),)),
                 worked(2, "balance: 3"), worked(3, "balance: 6"), agreed=3), ("V001",)),
    Case("void deal recorded as a loss with a balance but no net, then corrected: V001 alone",
         session(worked(1, "balance: 3"), worked(2, "outcome: lose, balance: 0", (("2♠", "A♥"),)),
                 worked(2, "balance: 6"), agreed=2), ("V001",)),
    Case("cancelled game recorded as lost with a balance but no net: G003 alone",
         table(TABLE_GAME.format(g="g1", status="settled", rec="balance: 3")
               + TABLE_GAME.format(g="g2", status="cancelled", rec="outcome: lose, balance: 0")
               + TABLE_GAME.format(g="g3", status="settled", rec="balance: 3")), ("G003",)),
    Case("an unreadable seat's balance anchors its player's chain: H001 alone",
         table(TABLE_GAME.format(g="g1", status="settled", rec="balance: 3")
               + TABLE_GAME.format(g="g2", status="settled", rec="balance: 6").replace("ante: 1", "ante: abc")
               + TABLE_GAME.format(g="g3", status="settled", rec="balance: 9")), ("H001",)),
    Case("an unreadable seat's balance anchors unchecked; a wrong one after it is still P005",
         table(TABLE_GAME.format(g="g1", status="settled", rec="balance: 3")
               + TABLE_GAME.format(g="g2", status="settled", rec="balance: 6").replace("ante: 1", "ante: abc")
               + TABLE_GAME.format(g="g3", status="settled", rec="balance: 10")), ("H001", "P005")),
    Case("void game paid at a table, then the table corrects itself: V001 and the game's V003",
         table(TABLE_GAME.format(g="g1", status="settled", rec="balance: 3")
               + TABLE_GAME.format(g="g2", status="settled", rec="outcome: lose, net: -3, balance: 0").replace(
                   "river: 2♠", "river: A♥")
               + TABLE_GAME.format(g="g3", status="settled", rec="balance: 6")), ("V001", "V003")),
    Case("two swapped games at a table are one S009, on the late one",
         table(table_game(1, 3) + table_game(3, 9) + table_game(2, 6) + table_game(4, 12)), ("S009",)),
    Case("two swapped games with two players, one balance wrong: S009 and that seat's P005",
         table(table_game(1, 3, 3) + table_game(3, 9, 10) + table_game(2, 6, 6) + table_game(4, 12, 13)),
         ("S009", "P005")),
    Case("a skipped game number at a table is one S004, the balances in file order clean",
         table(table_game(1, 3) + table_game(3, 6) + table_game(4, 9)), ("S004",)),
    Case("two swapped games, then a skip: S009 and S004",
         table(table_game(1, 3) + table_game(3, 9) + table_game(2, 6) + table_game(5, 12)), ("S009", "S004")),
    Case("two swapped games, the early one written as two records: one S009",
         table(table_game(1, 3, 3, 3, 3) + table_game(3, 9, 9) + second_record(3, 9, 9)
               + table_game(2, 6, 6, 6, 6) + table_game(4, 12, 12, 12, 12)), ("S009",)),
    Case("two swapped games, the late one written as two records: one S009 (its second record's seats "
         "were played before the early game too)",
         table(table_game(1, 3, 3, 3, 3) + table_game(3, 9, 9, 9, 9) + table_game(2, 6, 6) + second_record(2, 6, 6)
               + table_game(4, 12, 12, 12, 12)), ("S009",)),
    Case("two swapped games, each written as two records: one S009",
         table(table_game(1, 3, 3, 3, 3) + table_game(3, 9, 9) + second_record(3, 9, 9) + table_game(2, 6, 6)
               + second_record(2, 6, 6) + table_game(4, 12, 12, 12, 12)), ("S009",)),
    Case("two swapped games, a wrong balance in the late one's second record: S009 and that seat's P005",
         table(table_game(1, 3, 3, 3) + table_game(3, 9, 9, 10) + table_game(2, 6, 6) + second_record(2, 7)
               + table_game(4, 12, 12, 13)), ("S009", "P005")),
    Case("two swapped rounds, the early one void, its replay after the late one: one S009 (the replay is in order)",
         session(worked(1, "balance: 3"), worked(3, "outcome: void, net: 0, balance: 6", replace=(("2♠", "A♥"),)),
                 worked(2, "balance: 6"), worked(3, "balance: 9"), worked(4, "balance: 12"), agreed=4),
         ("S009", "V003")),
    Case("two swapped games, the early one void, its replay after the late one: one S009",
         table(table_game(1, 3) + table_game(3, 6).replace("river: 2♠", "river: A♥") + table_game(2, 6)
               + table_game(3, 9).replace("game: g3\n", "game: g3r\n") + table_game(4, 12)), ("S009", "V003")),
    Case("two swapped rounds, the late one void and replayed before the next: one S009, the next round in order",
         session(worked(1), worked(3), worked(2, replace=(("2♠", "A♥"),)), worked(2), worked(4), agreed=4),
         ("S009", "V003")),
    Case("two swapped rounds, the late one void and replayed: the early one's balance follows the replay's",
         session(worked(1, "balance: 3"), worked(3, "balance: 9"),
                 worked(2, "outcome: void, net: 0, balance: 3", replace=(("2♠", "A♥"),)), worked(2, "balance: 6"),
                 worked(4, "balance: 12"), agreed=4), ("S009", "V003")),
    Case("two swapped games, the late one void and replayed: one S009, the early one's balances after the replay's",
         table(table_game(1, 3, 3) + table_game(3, 9, 9) + table_game(2, 3, 3).replace("river: 2♠", "river: A♥")
               + table_game(2, 6, 6).replace("game: g2\n", "game: g2r\n") + table_game(4, 12, 12)), ("S009", "V003")),
    Case("two swapped rounds, both void, each replayed after it in play order: one S009",
         session(worked(1, "balance: 3"), worked(3, "outcome: void, net: 0, balance: 6", replace=(("2♠", "A♥"),)),
                 worked(2, "outcome: void, net: 0, balance: 3", replace=(("2♠", "A♥"),)), worked(2, "balance: 6"),
                 worked(3, "balance: 9"), worked(4, "balance: 12"), agreed=4), ("S009", "V003", "V003")),
    Case("two swapped games, both void, each replayed after it in play order: one S009, each game once",
         table(table_game(1, 3) + table_game(3, 6).replace("river: 2♠", "river: A♥")
               + table_game(2, 3).replace("river: 2♠", "river: A♥")
               + table_game(2, 6).replace("game: g2\n", "game: g2r\n")
               + table_game(3, 9).replace("game: g3\n", "game: g3r\n") + table_game(4, 12)), ("S009", "V003", "V003")),
    Case("a void round under a used number, replayed under it: S003 alone, the next round in order",
         session(worked(1), worked(2), worked(3), worked(2, replace=(("2♠", "A♥"),)), worked(2), worked(4), agreed=5),
         ("S003", "V003")),
    Case("the last game of a session numbered one ahead is S004 (nothing follows)",
         table(table_game(1, 3) + table_game(3, 6)), ("S004",)),
    Case("an unrulable round keeps its number (H001 alone)",
         session(worked(1), worked(2, replace=(("ante: 1", "ante: abc"),)), worked(3)), ("H001",)),
    Case("a quoted round number is H001 alone and keeps its number",
         session(worked(1), worked(2, replace=(("round: 2", 'round: "2"'),)), worked(3)), ("H001",)),
    Case("a quoted round number in JSON Lines is H001 alone",
         '{"session": {"id": "a", "rounds_agreed": 3}}\n' + jsonl_round(1)
         + jsonl_round(2).replace('"round": 2', '"round": "2"') + jsonl_round(3), ("H001",), "s.jsonl"),
    Case("round: true is H001, not a copy of round 1 (True == 1 in Python)",
         session(worked(1), worked(2, replace=(("round: 2", "round: true"),)), worked(3)), ("H001",)),
    Case("round: null is H001 alone", session(worked(1), worked(2, replace=(("round: 2", "round: null"),)), worked(3)),
         ("H001",)),
    Case("an unknown field keeps its number (H002 alone)",
         session(worked(1), worked(2, replace=(("dealer:", "dealr:"),)), worked(3)), ("H002",)),
    Case("an unrulable round's readable balance anchors the table's chain",
         session(worked(1, "balance: 3"), worked(2, "balance: 10", (("ante: 1", "ante: abc"),)),
                 worked(3, "balance: 13")), ("H001",)),
    Case("an unrulable round without a balance: the next balance re-anchors",
         session(worked(1, "balance: 3"), worked(2, "", (("ante: 1", "ante: abc"),)),
                 worked(3, "balance: 40")), ("H001",)),
    Case("a duplicated record is S003 once and the next round is in order",
         session(worked(1), worked(2, "balance: 6"), worked(2, "balance: 6"), worked(3, "balance: 9"), agreed=3),
         ("S003",)),
    Case("one mistyped round number (7 for 2) is one S009, on that round",
         session(*numbered(1, 7, 3, 4)), ("S009",)),
    Case("a round numbered 0 between 1 and 3 is one S009", session(*numbered(1, 0, 3, 4)), ("S009",)),
    Case("a negative round number is H001 alone", session(*numbered(1, -2, 3, 4)), ("H001",)),
    Case("a round numbered as the next one (1, 3, 3, 4) is one S009", session(*numbered(1, 3, 3, 4)), ("S009",)),
    Case("a round numbered as the one before (1, 2, 2, 4) is one S003", session(*numbered(1, 2, 2, 4)), ("S003",)),
    Case("a skip the table carries on (1, 2, 4, 5) is one S004", session(*numbered(1, 2, 4, 5), agreed=4), ("S004",)),
    Case("a skip in the last round is one S004", session(*numbered(1, 2, 4), agreed=3), ("S004",)),
    Case("a mistyped number before a JSON Lines line cut short is one S009",
         '{"session": {"id": "a", "rounds_agreed": 4}}\n' + jsonl_round(1) + jsonl_round(7)
         + '{"round": 3, "ante": 1, "play\n' + jsonl_round(4), ("H004", "S009"), "s.jsonl"),
    Case("a valid deal recorded void is V002 alone; its replay keeps the number",
         session(worked(1, "void: true, net: 0, balance: 0"), worked(1, "balance: 3"), worked(2, "balance: 6"),
                 agreed=2), ("V002",)),
    Case("outcome: void on a valid deal is V002 alone",
         session(worked(1, "outcome: void"), worked(1), agreed=1), ("V002",)),
    Case("a valid deal recorded void without a replay is V002 alone", session(worked(1, "void: true")), ("V002",)),
    Case("a fold with call: 0 is right", session(fold(1, extra="    call: 0\n")), ()),
    Case("a fold with call: 2 is S001", session(fold(1, extra="    call: 2\n")), ("S001",)),
    Case("one odd Ante in the first round is one S002",
         session(worked(1, replace=(("ante: 1", "ante: 2"),)), worked(2), worked(3)), ("S002",)),
    Case("one odd Ante in the middle is one S002",
         session(worked(1), worked(2, replace=(("ante: 1", "ante: 2"),)), worked(3)), ("S002",)),
    Case("a stake change that lasts is one S002",
         session(worked(1), *(worked(n, replace=(("ante: 1", "ante: 2"),)) for n in (2, 3, 4))), ("S002",)),
    Case("a bad optional recorded field is a finding on it; the round is still ruled and audited",
         session(worked(1, "player_hand: two pairs, net: 2")), ("H001", "P004")),
    Case("an unknown field in recorded is H002 on it; the round is still ruled and audited",
         session(worked(1, "balence: 3, net: 2")), ("H002", "P004")),
    Case("decision words are case-insensitive (FOLD)", session(fold(1, "net: -1").replace("fold", "FOLD")), ()),
    Case("decision words are case-insensitive", session(worked(1, replace=(("decision: call", "decision: Call"),))),
         ()),
    Case("outcome and hand words are case-insensitive too",
         session(worked(1, "outcome: Win, player_hand: Pair, dealer_hand: PAIR")), ()),
    Case("a capitalised word that is wrong is still audited", session(worked(1, "outcome: Lose")), ("P006",)),
    Case("a capitalised spaced word that is no category is H001 with its did-you-mean",
         session(worked(1, "player_hand: Two Pairs")), ("H001",)),
    Case("a token that is not a card, unrecorded: V003 (void under §07)",
         session(worked(1, replace=(("7♦", "7♦♦"),)), worked(1), agreed=1), ("V003",)),
    Case("a token that is not a card, recorded as settled: V001",
         session(worked(1, "net: 3", (("7♦", "7♦♦"),)), worked(1), agreed=1), ("V001",)),
    Case("a royal flush at Ante 10^10 is ruled and holds its result",
         session(worked(1, "net: 1020000000000, returned: 1050000000000",
                        (("ante: 1", "ante: 10000000000"), ("A♥, K♦", "A♥, K♥"), ("A♠, 7♦, 4♣", "Q♥, J♥, 10♥"),
                         ("Q♠, Q♣", "Q♠, Q♣")))), ()),
    Case("a fold that records one dealer card is a fold, not a void deal",
         session(fold(1, "outcome: fold, net: -1", "    dealer: [K♠]\n")), ()),
    Case("a fold that records turn and river: the hand at the fold is right",
         session(fold(1, "player_hand: high_card", "    turn: 2♦\n    river: 9♠\n")), ()),
    Case("a fold that records turn and river: the seven-card hand is right too",
         session(fold(1, "player_hand: pair", "    turn: 2♦\n    river: 9♠\n")), ()),
    Case("a fold that records turn and river: any other hand is K001",
         session(fold(1, "player_hand: flush", "    turn: 2♦\n    river: 9♠\n")), ("K001",)),
    Case("a bonus stake that changes within a session is no finding",
         session(worked(1, replace=(("ante: 1\n", "ante: 1\n    bonus: 1\n"),)),
                 worked(2, replace=(("ante: 1\n", "ante: 1\n    bonus: 2\n"),)), worked(3), profile="bonus-aa"), ()),
    Case("S007 when no balance covers the call",
         session(fold(1), worked(2), profile="caribbean").replace("opening_balance: 0", "opening_balance: 3"),
         ("S007",)),
    Case("no S007 when the table's balance covers the call (its overpayment is the finding)",
         session(fold(1, "net: 1, balance: 4"), worked(2), profile="caribbean")
         .replace("opening_balance: 0", "opening_balance: 3"), ("P004",)),
    Case("a void call deal risks nothing: V003, no S007",
         session(worked(1, replace=(("    river: 2♠\n", ""),)), worked(1), profile="caribbean", agreed=1)
         .replace("opening_balance: 0", "opening_balance: 3"), ("V003",)),
    Case("JSON Lines: rounds after an unreadable session line belong to no session",
         '{"session": {"id": "a", "rounds_agreed": 1, "opening_balance": 0}}\n' + jsonl_round(1, -1)
         + '{"session": {"id": "b", "rounds_agr\n' + jsonl_round(1, -1) + jsonl_round(2, -2)
         + '{"session": {"id": "c", "rounds_agreed": 1, "opening_balance": 0}}\n' + jsonl_round(1, -1),
         ("H004",), "s.jsonl"),
    Case("JSON Lines: a broken round line keeps its number",
         '{"session": {"id": "a", "rounds_agreed": 3, "opening_balance": 0}}\n' + jsonl_round(1, -1)
         + '{"round": 2, "ante": 1, "play\n' + jsonl_round(3, -3), ("H004",), "s.jsonl"),
    Case("JSON Lines: rounds before any session line are one H006",
         jsonl_round(1) + jsonl_round(2) + '{"session": {"id": "a", "rounds_agreed": 1}}\n' + jsonl_round(1),
         ("H006",), "s.jsonl"),
    # Issue 27: one finding per root cause, where a second one used to follow.
    Case("a stake change that lasts is one S002, at the change (Antes 1, 1, 2, 2, 2)",
         session(*[worked(n, replace=(("ante: 1", f"ante: {a}"),)) for n, a in enumerate((1, 1, 2, 2, 2), 1)]),
         ("S002",)),
    Case("a stake changed and changed back is one S002 each time (Antes 1, 2, 1, 2, 1)",
         session(*[worked(n, replace=(("ante: 1", f"ante: {a}"),)) for n, a in enumerate((1, 2, 1, 2, 1), 1)]),
         ("S002", "S002")),
    Case("a stake change at a table that lasts is one S002, at the change",
         table("".join(TABLE_GAME.format(g=f"g{n}", status="settled", rec="").replace(", recorded: {}", "")
                       .replace("ante: 1", f"ante: {a}") for n, a in enumerate((1, 1, 2, 2, 2), 1))), ("S002",)),
    Case("a valid deal recorded void and replayed is V002 alone (no S005)",
         session(worked(1), worked(2, "void: true"), worked(2), worked(3), worked(4), agreed=4), ("V002",)),
    Case("outcome void on a valid deal, replayed, is V002 alone (no S005)",
         session(worked(1), worked(2, "outcome: void, net: 0"), worked(2), worked(3), worked(4), agreed=4),
         ("V002",)),
    Case("a valid deal recorded void and replayed, the agreement the rules' count, is V002 alone (no S005)",
         session(worked(1), worked(2, "void: true"), worked(2), worked(3), agreed=4), ("V002",)),
    Case("a valid deal recorded void and replayed, the agreement the table's count, is V002 alone (no S005)",
         session(worked(1), worked(2, "void: true"), worked(2), worked(3), agreed=3), ("V002",)),
    Case("a valid deal recorded void and replayed, the agreement neither count, is V002 and S005",
         session(worked(1), worked(2, "void: true"), worked(2), worked(3), agreed=5), ("S005", "V002")),
    Case("a valid deal recorded void, the table numbering on, is V002 alone (no S005)",
         session(worked(1), worked(2, "void: true"), worked(3), worked(4), worked(5), agreed=4), ("V002",)),
    Case("outcome void on a valid deal never replayed is V002 alone (no S005)",
         session(worked(1), worked(2), worked(3, "outcome: void, net: 0"), worked(4), agreed=4), ("V002",)),
    Case("a session that states no rounds_agreed is not held to the profile's",
         session(worked(1), worked(2), worked(3)).replace("  rounds_agreed: 3\n", ""), ()),
    Case("two swapped rounds whose balances follow the file, not the numbers, are one S009",
         session(*[fold(n, f"net: -1, balance: {b}") for n, b in ((1, -1), (2, -2), (4, -3), (3, -4), (5, -5))]),
         ("S009",)),
    Case("two swapped rounds whose balances follow the numbers are one S009 too",
         session(*[fold(n, f"net: -1, balance: {b}") for n, b in ((1, -1), (2, -2), (4, -4), (3, -3), (5, -5))]),
         ("S009",)),
    Case("two swapped games whose balances follow the file, not the numbers, are one S009",
         table(table_game(1, 3) + table_game(3, 6) + table_game(2, 9) + table_game(4, 12)), ("S009",)),
    Case("a session one round short of the rounds it states is one S005",
         session(worked(1), worked(2), worked(3), agreed=4), ("S005",)),
]


@pytest.mark.parametrize("case", ISSUE_CASES, ids=_ids(ISSUE_CASES))
def test_issue_case(write: Write, case: Case) -> None:
    assert run_case(write, case) == sorted(case.expected)


def _findings(write: Write, case: Case) -> list[dict[str, Any]]:
    _, report = check_json(write(case.file, case.text))
    found: list[dict[str, Any]] = [f for s in report["sessions"] for f in s["findings"]] + report["problems"]
    return found


def _case(name: str) -> Case:
    return next(c for c in ISSUE_CASES if c.name.startswith(name))


def test_p005_says_which_chain_and_by_how_much(write: Write) -> None:
    (finding,) = _findings(write, _case("a wrong balance the table carries on"))
    assert finding["message"] == ("round 1: balance 4 does not follow from the opening balance 0: by the rules "
                                  "and by the nets the table recorded 0 + 3 = 3 (1 more)")
    text = session(worked(1, "net: 2, balance: 5"))
    (finding,) = [f for f in _findings(write, Case("x", text, ())) if f["code"] == "P005"]
    assert "by the rules 0 + 3 = 3 (2 more)" in finding["message"]
    assert "by the nets the table recorded 0 + 2 = 2 (3 more)" in finding["message"]


def test_a_non_card_token_points_at_its_line_and_names_the_slip(write: Write) -> None:
    (finding,) = _findings(write, _case("a token that is not a card, recorded as settled"))
    assert finding["line"] == 10 and finding["field"] == "flop[1]"  # the flop's line, not the recorded block's
    assert "'7♦♦' is not one of the 52 cards" in finding["message"] and "§07" in finding["message"]
    assert "(a transcription slip for 7d?)" in finding["message"]


def test_the_skipped_rounds_are_counted_and_located(write: Write) -> None:
    case = _case("JSON Lines: rounds after an unreadable session line")
    (finding,) = _findings(write, case)
    assert finding["line"] == 3 and finding["session"] is None
    assert "2 rounds (lines 4-5) belong to no session" in finding["message"]
    _, report = check_json(write(case.file, case.text))
    assert [s["ledger"]["counted_rounds"] for s in report["sessions"]] == [1, 1]


def test_did_you_mean_a_category(write: Write) -> None:
    h001 = next(f for f in _findings(write, _case("a bad optional recorded field")) if f["code"] == "H001")
    assert h001["field"] == "recorded.player_hand" and "did you mean 'two_pair'" in h001["message"]


def test_k003_names_the_profile_qualifier(write: Write) -> None:
    profile = (ROOT / "referee" / "data" / "profiles" / "vivo.yaml").read_text(encoding="utf-8")
    write("sixes.yaml", profile.replace("name: vivo", "name: sixes").replace('rank: "4"', 'rank: "6"'))
    text = session(worked(1, "dealer_qualified: true", (("Q♠, Q♣", "5♠, 5♣"),)), profile="sixes.yaml")
    (finding,) = _findings(write, Case("x", text, ()))
    assert finding["code"] == "K003" and "pair of 6s or better" in finding["message"]


@pytest.mark.parametrize("dealer", ["[??, Q♣]", "[Q♣, ??]", "[\n      Q♣,\n      ??]"])
def test_an_unquoted_unseen_card_is_h000_that_says_to_quote_it(write: Write, dealer: str) -> None:
    text = session(worked(1, replace=(("dealer: [Q♠, Q♣]", f"dealer: {dealer}"),)))
    (finding,) = _findings(write, Case("x", text, ()))
    assert finding["code"] == "H000" and 'quote it: "??"' in finding["message"]
    quoted = session(worked(1, replace=(("dealer: [Q♠, Q♣]", 'dealer: ["??", Q♣]'),)))
    assert "H000" not in [f["code"] for f in _findings(write, Case("x", quoted, ()))]


def test_other_flow_errors_get_no_card_hint(write: Write) -> None:
    text = session(worked(1, replace=(("dealer: [Q♠, Q♣]", "dealer: [, Q♣]"),)))
    (finding,) = _findings(write, Case("x", text, ()))
    assert finding["code"] == "H000" and "??" not in finding["message"]


def test_a_quoted_round_number_keeps_its_number(write: Write) -> None:
    case = _case("a quoted round number is H001")
    (finding,) = _findings(write, case)
    assert finding["round"] == 2 and finding["field"] == "round" and "write 2 without quotes" in finding["message"]
    _, text = run("explain", write(case.file, case.text), "--round", "2")
    assert "no round 2" not in text and "round 2" in text


def test_a_mistyped_number_is_found_on_its_round_and_says_what_follows(write: Write) -> None:
    (finding,) = _findings(write, _case("one mistyped round number"))
    assert finding["round"] == 7 and finding["line"] == 16 and finding["expected"] == 2
    assert finding["message"] == "round 7: round number 7 where 2 was expected (round 3 follows)"


def test_a_held_round_keeps_the_report_order(write: Write) -> None:
    """The round held back for its number's verdict is still reported in file order."""
    _, report = check_json(write("s.yaml", session(*numbered(1, 7, 3, 4), worked(5, "net: 2"))))
    assert [r["round"] for r in report["sessions"][0]["rounds"]] == [1, 7, 3, 4, 5]
    assert [f["code"] for f in report["sessions"][0]["findings"]] == ["S009", "P004"]


@pytest.mark.parametrize("tail, column", [('"flop": ["Jh", "Q\n', 66), ('"flop": ["Jh", "Qs"', 68)])
def test_a_jsonl_round_line_cut_short_says_so_and_names_its_round(write: Write, tail: str, column: int) -> None:
    text = ('{"session": {"id": "a", "rounds_agreed": 2}}\n' + jsonl_round(1)
            + '{"round": 2, "ante": 1, "player": ["2c", "7d"], ' + tail)
    (finding,) = [f for f in _findings(write, Case("x", text, (), "s.jsonl")) if f["code"] == "H004"]
    assert finding["round"] == 2 and finding["line"] == 3
    assert finding["message"] == f"round 2: the line is cut short (truncated JSON, column {column})"


def test_a_jsonl_syntax_error_inside_the_line_is_not_called_cut_short(write: Write) -> None:
    text = '{"session": {"id": "a", "rounds_agreed": 1}}\n{"round": 1, "ante": 1,, "decision": "fold"}\n'
    (finding,) = [f for f in _findings(write, Case("x", text, (), "s.jsonl")) if f["code"] == "H004"]
    assert finding["message"].startswith("round 1: invalid JSON: Expecting property name")



def test_a_card_dealt_twice_points_at_its_second_occurrence(write: Write) -> None:
    """As a token that is not a card: the card's own line, not the ``recorded:`` block's."""
    text = session(worked(1, "net: 3", (("2♠", "A♥"),)), worked(1), agreed=1)
    (finding,) = [f for f in _findings(write, Case("x", text, ())) if f["code"] == "V001"]
    assert finding["line"] == 13 and finding["field"] == "river"
    assert finding["message"].startswith("round 1: Ah is dealt twice (player and river): the deal is void under §07")


def test_a_card_in_a_yaml_block_list_is_found_on_its_own_line(write: Write) -> None:
    block = "flop:\n      - A♠\n      - 7♦♦\n      - 4♣"
    text = session(worked(1, "net: 3", (("flop: [A♠, 7♦, 4♣]", block),)), worked(1), agreed=1)
    (finding,) = _findings(write, Case("x", text, ()))
    assert finding["code"] == "V001" and finding["field"] == "flop[1]" and finding["line"] == 12
    dup = session(worked(1, "net: 3", (("flop: [A♠, 7♦, 4♣]", block.replace("7♦♦", "A♥")),)), worked(1), agreed=1)
    (finding,) = _findings(write, Case("x", dup, ()))
    assert finding["code"] == "V001" and finding["field"] == "flop[1]" and finding["line"] == 12


def test_docs_show_a_table_correcting_itself(write: Write, monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/ledger.md's example of a void deal recorded as a loss, then corrected, is this
    case's real output (the whole of it: one finding)."""
    case = _case("void deal recorded as a loss, then the table corrects itself")
    path = write("corrected.yaml", case.text)
    monkeypatch.chdir(Path(path).parent)
    code, out = run("check", "--quiet", "corrected.yaml")
    lines = out.splitlines()
    assert code == 1 and len(lines) == 2 and "1 finding" in lines[1]
    assert lines[0] in (ROOT / "docs" / "ledger.md").read_text(encoding="utf-8")


def test_a_held_games_second_record_keeps_its_findings_order(write: Write) -> None:
    """A held game that may be the early one of two swapped (3 where 2 was expected) and
    its second record: the number finding (S004, once 5 follows) goes where it would have
    gone, before the second record's findings, and that record's seat keeps its own order
    (K001 from the record, then the deferred P005), as a game judged at once does."""
    flush = "player_hand: flush, balance: 7"
    second = second_record(3, 0).replace("player_id: c,", "player_id: b,").replace("balance: 0", flush)
    text = table(table_game(1, 3, 3) + table_game(3, 6) + second + table_game(5, 9, 10))
    found = [(f["code"], f["game"], f["player"]) for f in _findings(write, Case("order", text, ()))]
    assert found == [("S004", "g3", None), ("K001", "g3", "b"), ("P005", "g3", "b"), ("S004", "g5", None)]


@pytest.mark.parametrize("fast", ["0", "1", "verify"])
def test_a_void_late_round_of_a_swap_then_rounds_the_lane_could_take(write: Write, monkeypatch: pytest.MonkeyPatch,
                                                                      fast: str) -> None:
    """Rounds 1, 3, 2 (void: its replay may come next), 4, 5 in JSON Lines: round 4 closes
    the swap (the early round's balance judged, rounds 3 and 2 released) whichever path
    reads it; the fast lane takes no round while a void late round's replay may come."""
    monkeypatch.setenv("REFEREE_FAST", fast)

    def line(n: int, balance: int | None = None, river: str = "2s") -> str:
        rec = f', "recorded": {{"balance": {balance}}}' if balance is not None else ""
        return (f'{{"round": {n}, "ante": 1, "player": ["Ah", "Kd"], "flop": ["As", "7d", "4c"], "decision": "call", '
                f'"turn": "9h", "river": "{river}", "dealer": ["Qs", "Qc"]{rec}}}\n')

    text = ('{"session": {"id": "a", "rounds_agreed": 4, "opening_balance": 0}}\n' + line(1, 3) + line(3, 6)
            + line(2, river="Ah") + line(4) + line(5, 12))
    _, report = check_json(write("s.jsonl", text))
    (session,) = report["sessions"]
    assert [r["round"] for r in session["rounds"]] == [1, 3, 2, 4, 5]
    assert [(f["round"], f["code"]) for f in session["findings"]] == [(2, "S009"), (2, "V003")]


def test_a_lasting_stake_change_is_found_at_the_change(write: Write) -> None:
    (finding,) = _findings(write, _case("a stake change that lasts is one S002, at the change (Antes"))
    assert (finding["round"], finding["message"]) == (
        3, "round 3: Ante 2 differs from the session's 1; profile vivo fixes stakes")


def test_s005_names_void_rounds_only_when_there_are_some(write: Write) -> None:
    (finding,) = _findings(write, _case("a session one round short"))
    assert finding["message"] == "3 rounds played, 4 agreed"
    text = session(worked(1), worked(2, replace=(("2♠", "A♥"),)), worked(2), agreed=3)
    (short,) = [f for f in _findings(write, Case("x", text, ())) if f["code"] == "S005"]
    assert short["message"] == "2 rounds played, 3 agreed (1 void round does not count)"
