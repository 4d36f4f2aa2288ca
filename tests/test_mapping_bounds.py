"""A mapping answers in bounded time and memory whatever it says (issue 45).

A mapping file comes with the export, from whoever made it: its card pattern and its
expressions are the audited party's input. A pattern with catastrophic backtracking and
an expression that doubles its value at each stage are the two attacks; each used to
hang the tool (6.5 s for one 28-character token, doubling with each more; 41 s and
1.5 GB for a 172-character expression on a 20 KB page). Each test runs the tool in a
subprocess with a generous guard (not a timing target: before the fix these never end).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from referee.load.exports import MappingError
from referee.load.exports.mappings import parse_mapping
from referee.load.exports.search import BUDGET, Overspent, compile_expression
from referee.models.mapping import Cards

from .conftest import ROOT, Write, check_json, run
from .test_importers import MINIMAL, _game, _page

#: Long enough for the two attacks to run for ever on the old code, short beside any CI.
GUARD = 120


def _referee(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-m", "referee", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=GUARD, env=env)


def _history_mapping(**changes: str) -> str:
    """The built-in evolution-history mapping with some lines changed."""
    text = (ROOT / "referee" / "data" / "mappings" / "evolution-history.yaml").read_text(encoding="utf-8")
    for old, new in changes.items():
        assert old in text, old
        text = text.replace(old, new)
    return text


def test_a_backtracking_card_pattern_reads_long_tokens_in_linear_time(tmp_path: Path) -> None:
    """``(?:A+)+`` against five 34-character tokens: 2^34 steps each under Python's re."""
    pattern = "^(?P<rank>(?:A+)+)(?P<suit>[SHDC])$"
    mapping = MINIMAL + f"cards:\n  pattern: '{pattern}'\n"
    (tmp_path / "m.yaml").write_text(mapping, encoding="utf-8")
    game = _game()
    game["result"]["communityCards"] = ["A" * 34 + "x"] * 5
    (tmp_path / "page.json").write_text(_page(game), encoding="utf-8")
    done = _referee("check", "--format", "json", "--mapping", "m.yaml", "page.json", cwd=tmp_path)
    assert done.returncode in (0, 1), done.stderr
    assert json.loads(done.stdout)["inputs"][0]["readable"]


def test_a_card_pattern_reads_what_it_says_through_re2() -> None:
    from referee.load.exports.normalize import CardReader

    reader = CardReader(Cards(pattern=r"(?P<rank>[AKQJT2-9]|10) of (?P<suit>[shdc])"))
    assert [reader.card(t) for t in ("10 of h", "A of s", "B of s")] == ["Th", "As", "B of s"]
    assert reader.card("A" * 5000 + " of s") == "A" * 5000 + " of s"  # longer than any card: not one


@pytest.mark.parametrize(("pattern", "said"), [
    (r"(?P<rank>[AKQ])(?P<suit>[shdc])\1", "no back-references or look-around"),
    (r"(?P<rank>[AKQ])(?=x)(?P<suit>[shdc])", "no back-references or look-around"),
])
def test_a_pattern_re2_cannot_run_in_linear_time_is_refused_at_load(pattern: str, said: str) -> None:
    with pytest.raises(MappingError) as caught:
        parse_mapping((MINIMAL + f"cards:\n  pattern: '{pattern}'\n").encode(), "m.yaml")
    assert "cards.pattern" in str(caught.value) and said in str(caught.value)


def test_an_expression_that_doubles_its_value_is_stopped_within_its_budget() -> None:
    bomb = compile_expression("[@,@] | " * 40 + "to_string(@)", "game.dealer_id")
    with pytest.raises(Overspent) as caught:
        bomb({"id": "g1"})
    assert str(caught.value).startswith("game.dealer_id: '[@,@] | ") and f"{BUDGET:,} steps" in str(caught.value)
    compare = compile_expression("[" + "|".join(["[@,@]"] * 30) + ", " + "|".join(["[@,@]"] * 30) + "] | [0] == [1]")
    with pytest.raises(Overspent):
        compare({})


def test_a_budgeted_expression_gives_jmespaths_own_answer() -> None:
    import jmespath

    record: dict[str, Any] = {"bets": [{"c": "Ante", "s": 1}, {"c": "Call", "s": 2}], "d": [{"t": "call"}]}
    for text in ("[bets[0].c, bets[1].c]", "{a: bets[0].s, b: d[0].t}", "to_string([bets, d])",
                 "contains([bets[0], bets[1]], bets[1])", "[bets, bets] | [0] == [1]"):
        assert compile_expression(text)(record) == jmespath.search(text, record), text


def test_an_expression_bomb_in_a_mapping_is_one_h008_a_record_not_a_hang(tmp_path: Path) -> None:
    bomb = "[@,@] | " * 42 + "to_string(@)"
    (tmp_path / "m.yaml").write_text(_history_mapping(**{"dealer_id: dealer.uid": f"dealer_id: '{bomb}'"}),
                                     encoding="utf-8")
    (tmp_path / "page.json").write_text(_page(_game(), _game("g2")), encoding="utf-8")
    done = _referee("check", "--format", "json", "--mapping", "m.yaml", "page.json", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    found = [f for s in report["sessions"] for f in s["findings"]] + report["problems"]
    assert [f["code"] for f in found] == ["H008", "H008"]
    assert all(f["message"].startswith("game.dealer_id: '[@,@]") and "budget" in f["message"] for f in found)


def test_import_exits_0_when_every_record_is_written_and_only_a_warning_is_said(write: Write,
                                                                                 tmp_path: Path) -> None:
    games = [_game(), _game("g2")]
    for game in games:
        del game["result"]["dealer"]["qualified"]
    page = write("page.json", _page(*games))
    out = tmp_path / "out.jsonl"
    code, said = run("import", "--mapping", "evolution-history", page, "-o", str(out))
    assert code == 0 and "H009" in said
    assert sum(1 for line in out.read_text(encoding="utf-8").splitlines() if '"game"' in line) == 2


def test_one_mapping_naming_a_shared_hand_and_own_cards_warns_only_when_neither_is_found(write: Write) -> None:
    mapping = write("m.yaml", _history_mapping(**{"  player_id: playerId": "  player_id: playerId\n  player: cards"}))
    shared = write("shared.json", _page(_game(), _game("g2")))
    code, report = check_json("--mapping", mapping, shared)
    assert code == 0 and report["problems"] == [] and all(not s["findings"] for s in report["sessions"])
    own = _game("g3")
    cards = own["result"].pop("player")["cards"]
    for seat in own["participants"]:
        seat["cards"] = cards
    code, report = check_json("--mapping", mapping, write("own.json", _page(own)))
    assert code == 0 and all(not s["findings"] for s in report["sessions"]) and report["problems"] == []
    neither = _game("g4")
    neither["result"].pop("player")
    code, report = check_json("--mapping", mapping, write("neither.json", _page(neither)))
    said = [f for s in report["sessions"] for f in s["findings"]] + report["problems"]
    assert "H009" in [f["code"] for f in said]
    assert any("game.player and seat.player" in f["message"] for f in said if f["code"] == "H009")
