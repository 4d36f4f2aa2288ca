"""Words as people write them (issue 27): ``Two Pair``, ``two pair``, ``Two-Pair`` in a
record are ``two_pair``, as are a decision, an outcome, a game's status and a wallet
move's kind in any capitalisation, with blanks around them or spaces and hyphens for
underscores; profiles read their categories and rule words by the same function, and
both audit paths give one answer (``REFEREE_FAST=0``, ``1``, ``verify``)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from referee.rules.category import Category, as_word
from referee.rules.profile import Profile

from .conftest import Write, check_json, run

#: Player A♥ K♦ makes two pair (aces and kings) on A♠ K♣ 4♣ 9♥ 2♠; the dealer's pair
#: of queens qualifies and loses: Ante +1, Call +2.
ROUND = {"round": 1, "ante": 1, "player": ["Ah", "Kd"], "flop": ["As", "Kc", "4c"], "decision": "DECISION",
         "turn": "9h", "river": "2s", "dealer": ["Qs", "Qc"],
         "recorded": {"outcome": "OUTCOME", "player_hand": "HAND", "dealer_hand": "DEALER", "dealer_qualified": True,
                      "ante": 1, "call": 2, "net": 3, "balance": 3}}
SPELLINGS = [("Call", "Win", "Two Pair", "Pair"), ("call", "win", "two pair", "pair"),
             (" CALL ", "WIN", "Two-Pair", " PAIR "), ("cAlL", "wIn", "TWO_PAIR", "Pair"),
             ("call", "win", "two  -  pair", "pair")]


def _round(decision: str, outcome: str, hand: str, dealer: str, number: int = 1) -> dict[str, object]:
    text = json.dumps(ROUND).replace("DECISION", decision).replace("OUTCOME", outcome).replace("HAND", hand)
    found: dict[str, object] = json.loads(text.replace("DEALER", dealer))
    found["round"] = number
    recorded = found["recorded"]
    assert isinstance(recorded, dict)
    recorded["balance"] = 3 * number
    return found


def _logs(tmp_path: Path) -> list[Path]:
    """The same session (every spelling, a round each) as YAML, JSON and JSON Lines."""
    rounds = [_round(*words, number=n) for n, words in enumerate(SPELLINGS, start=1)]
    session = {"id": "words", "profile": "vivo", "opening_balance": 0, "rounds_agreed": len(rounds)}
    paths = [tmp_path / "words.json", tmp_path / "words.yaml", tmp_path / "words.jsonl"]
    document = json.dumps({"session": session, "rounds": rounds})
    paths[0].write_text(document, encoding="utf-8")
    paths[1].write_text(document, encoding="utf-8")  # JSON is YAML
    paths[2].write_text("\n".join(json.dumps(x) for x in [{"session": session}, *rounds]) + "\n", encoding="utf-8")
    return paths


@pytest.mark.parametrize(("written", "word"), [
    ("Two Pair", "two_pair"), ("two pair", "two_pair"), ("Two-Pair", "two_pair"), (" TWO_PAIR ", "two_pair"),
    ("Three of a Kind", "three_of_a_kind"), ("high-card", "high_card"), ("Royal Flush", "royal_flush"),
    ("Call", "call"), (" FOLD ", "fold"), ("Win", "win"), ("Even Money", "even_money"), ("two pairs", "two_pairs"),
])
def test_one_function_reads_every_word(written: str, word: str) -> None:
    assert as_word(written) == word


def test_every_category_as_people_write_it_is_the_category() -> None:
    for category in Category:
        for written in (category.words, category.words.title(), category.words.upper().replace(" ", "-")):
            assert as_word(written) == category.value


@pytest.mark.parametrize("mode", ["0", "1", "verify"])
def test_hand_outcome_and_decision_words_as_people_write_them_are_clean(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str) -> None:
    """Before: every round was H001 ("got 'Two Pair'; did you mean 'two_pair'?"), ' CALL '
    not a decision at all. Now the session is clean in each format and each mode."""
    monkeypatch.setenv("REFEREE_FAST", mode)
    for path in _logs(tmp_path):
        code, report = check_json("--jobs", "1", str(path))
        assert code == 0 and report["summary"]["findings"] == 0, (path.name, report["sessions"][0]["findings"])
        assert [r["player_hand"] for r in report["sessions"][0]["rounds"]] == ["two_pair"] * len(SPELLINGS)


def test_the_reports_are_the_same_on_both_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for path in _logs(tmp_path):
        for fmt in ("text", "json", "junit"):
            outputs = set()
            for mode in ("0", "1", "verify"):
                monkeypatch.setenv("REFEREE_FAST", mode)
                code, out = run("check", "--format", fmt, "--jobs", "1", str(path))
                outputs.add((code, re.sub(r'(timestamp|time)="[^"]*"', "", out)))
            assert len(outputs) == 1, (path.name, fmt)


def test_the_text_report_prints_the_words_its_own_way(tmp_path: Path) -> None:
    code, out = run("check", str(_logs(tmp_path)[0]))
    assert code == 0 and "two pair" in out and "Two Pair" not in out


def test_a_word_that_is_no_category_however_written_is_still_h001_with_its_suggestion(write: Write) -> None:
    log = write("slip.jsonl", json.dumps({"session": {"id": "s"}}) + "\n" + json.dumps(
        _round("call", "win", "Two Pairs", "pair")) + "\n")
    code, report = check_json(log)
    found = [f for f in report["sessions"][0]["findings"] if f["code"] == "H001"]
    assert code == 1 and len(found) == 1 and "did you mean 'two_pair'?" in found[0]["message"]


TABLE = """format: 2
session: {id: t, profile: vivo, opening_balances: {p1: 0}}
games:
  - game: g1
    status: STATUS
    player: [Ah, Kd]
    flop: [As, Kc, 4c]
    turn: 9h
    river: 2s
    dealer: [Qs, Qc]
    seats:
      - player_id: p1
        ante: 1
        decision: " Call "
        recorded: {outcome: Win, player_hand: Two-Pair, dealer_hand: PAIR, net: 3, balance: 3}
        wallet: [{id: t1, kind: Debit, amount: 3}, {id: t2, kind: CREDIT, amount: 6}]
"""


@pytest.mark.parametrize("mode", ["0", "1", "verify"])
def test_a_live_tables_words_are_read_alike(write: Write, monkeypatch: pytest.MonkeyPatch, mode: str) -> None:
    """Format 2: the seat's decision (it took only ``call``), its record's words, the
    game's status and the wallet's kinds."""
    monkeypatch.setenv("REFEREE_FAST", mode)
    code, report = check_json(write("table.yaml", TABLE.replace("STATUS", "Settled")))
    assert code == 0 and report["summary"]["findings"] == 0, report["sessions"][0]["findings"]
    code, report = check_json(write("cancelled.yaml", TABLE.replace("STATUS", " CANCELLED ")))
    assert report["sessions"][0]["games"][0]["status"] == "cancelled"


HOUSE = """name: house
description: Vivo's paytable written as people write it.
ante_paytable: {Royal Flush: 100, Straight-Flush: 20, FOUR OF A KIND: 10, Full House: 3, flush: 2,
                Straight: 1, Three of a Kind: 1, Two Pair: 1, pair: 1, High Card: 1}
ante_when_not_qualified: Even Money
dealer_qualifier: {category: Pair, rank: 4}
"""


def test_a_profile_reads_the_same_words(write: Write) -> None:
    """A profile file, and a profile validated from a mapping (the Python API, a profile
    read as JSON), read categories and rule words as records do."""
    path = write("house.yaml", HOUSE)
    code, out = run("profiles", path)
    assert code == 0 and re.search(r"# two pair +1:1", out) and "not qualify: even_money" in out, out
    from referee.profiles import load_profile

    vivo = load_profile("vivo").model_dump(mode="json")
    vivo["ante_paytable"] = {k.replace("_", " ").title(): v for k, v in vivo["ante_paytable"].items()}
    vivo["dealer_qualifier"]["category"] = " PAIR "
    vivo["ante_when_not_qualified"] = "Even-Money"
    read = Profile.model_validate(vivo)
    assert read.ante_paytable[Category.TWO_PAIR] == 1 and read.dealer_qualifier.category is Category.PAIR
    assert read.ante_when_not_qualified == "even_money"


def test_a_category_written_twice_in_a_paytable_is_refused_not_one_kept() -> None:
    from referee.profiles import load_profile

    vivo = load_profile("vivo").model_dump(mode="json")
    vivo["ante_paytable"]["Two Pair"] = 5
    with pytest.raises(ValueError, match="'two_pair' and 'Two Pair' are the same category"):
        Profile.model_validate(vivo)
