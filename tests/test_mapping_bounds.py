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
from referee.load.exports.budget import BUDGET, Overspent
from referee.load.exports.mappings import parse_mapping
from referee.load.exports.search import compile_expression
from referee.models.mapping import Cards

from .conftest import ROOT, Write, check_json, run
from .test_importers import MINIMAL, _game, _page

#: Long enough for the two attacks to run for ever on the old code, short beside any CI.
GUARD = 120


def _referee(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-m", "referee", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=GUARD, env=env)


def _vivo(*args: str) -> tuple[int, dict[str, Any]]:
    """``check --format json --profile vivo ...``: a mapping that names no profile needs one."""
    return check_json("--profile", "vivo", *args)


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
    done = _referee("check", "--format", "json", "--profile", "vivo", "--mapping", "m.yaml", "page.json", cwd=tmp_path)
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
    done = _referee("check", "--format", "json", "--profile", "vivo", "--mapping", "m.yaml", "page.json", cwd=tmp_path)
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
    code, report = _vivo("--mapping", mapping, shared)
    assert code == 0 and report["problems"] == [] and all(not s["findings"] for s in report["sessions"])
    own = _game("g3")
    cards = own["result"].pop("player")["cards"]
    for seat in own["participants"]:
        seat["cards"] = cards
    code, report = _vivo("--mapping", mapping, write("own.json", _page(own)))
    assert code == 0 and all(not s["findings"] for s in report["sessions"]) and report["problems"] == []
    neither = _game("g4")
    neither["result"].pop("player")
    code, report = _vivo("--mapping", mapping, write("neither.json", _page(neither)))
    said = [f for s in report["sessions"] for f in s["findings"]] + report["problems"]
    assert "H009" in [f["code"] for f in said]
    assert any("game.player and seat.player" in f["message"] for f in said if f["code"] == "H009")


# ----------------------------------------------------------------------------- seat.net, seat.void

def _net_mapping(write: Write) -> str:
    """evolution-history read as an export that records each seat's net and void flag,
    not what each bet paid back."""
    return write("net.yaml", _history_mapping(**{"  payout: payout\n": "", "  bets: bets\n":
                                                  "  bets: bets\n  net: settled\n  void: voided\n"}))


def _net_game(gid: str = "g1", nets: tuple[str, str] = ("1.00", "-1.00"), **changes: Any) -> dict[str, Any]:
    game = _game(gid)
    for seat, net in zip(game["participants"], nets, strict=True):
        seat["settled"], seat["voided"] = net, False
        for bet in seat["bets"]:
            del bet["payout"]
    game.update(changes)
    return game


def _said(report: dict[str, Any]) -> list[tuple[str, str]]:
    found = [f for s in report["sessions"] for f in s["findings"]] + report["problems"]
    return [(f["code"], f["message"]) for f in found]


def test_seat_net_is_audited_as_format_2s_recorded_net(write: Write) -> None:
    mapping = _net_mapping(write)
    code, report = _vivo("--mapping", mapping, write("ok.json", _page(_net_game())))
    assert code == 0 and _said(report) == []
    code, report = _vivo("--mapping", mapping, write("bad.json", _page(_net_game(nets=("3.00", "-1.00")))))
    [(found, message)] = _said(report)
    assert code == 1 and found == "P004" and "net result recorded +3, the rules give +1" in message


def test_a_cancelled_game_recorded_as_a_loss_is_a_finding_not_a_silent_refund(write: Write) -> None:
    mapping = _net_mapping(write)
    refunded = _net_game(nets=("0.00", "0.00"), status="Cancelled")
    code, report = _vivo("--mapping", mapping, write("refunded.json", _page(refunded)))
    assert code == 0 and _said(report) == []
    lost = _net_game(nets=("0.00", "-1.00"), status="Cancelled")
    code, report = _vivo("--mapping", mapping, write("lost.json", _page(lost)))
    [(found, message)] = _said(report)
    assert code == 1 and found == "G003" and "p2" in message


def test_a_void_deal_that_paid_is_v001_and_a_valid_deal_recorded_void_is_v002(write: Write) -> None:
    mapping = _net_mapping(write)
    broken = _net_game()
    broken["result"]["communityCards"][4] = "AH"  # the player's own ace dealt again: the deal is void (§07)
    for seat in broken["participants"]:
        seat["voided"] = True
    code, report = _vivo("--mapping", mapping, write("void.json", _page(broken)))
    assert code == 1 and sorted(found for found, _ in _said(report)) == ["V001", "V001", "V003"]  # V003: info
    valid = _net_game(nets=("0.00", "0.00"))
    valid["participants"][0]["voided"] = "TRUE"
    valid["participants"][1]["voided"] = False
    code, report = _vivo("--mapping", mapping, write("valid.json", _page(valid)))
    assert code == 1 and sorted(found for found, _ in _said(report)) == ["P004", "V002"]  # p2 folded: net -1
    valid["participants"][0]["voided"] = "maybe"
    code, report = _vivo("--mapping", mapping, write("word.json", _page(valid)))
    assert ("H008", "seat.void: 'voided' found 'maybe'") in [(c, m[:33]) for c, m in _said(report)]


# ----------------------------------------------------------------------------- seat.wallet

def _inline_wallet_mapping(write: Write) -> str:
    """evolution-history, with each participant's wallet moves inside it."""
    text = _history_mapping(**{"  bets: bets\n": "  bets: bets\n  wallet: moves\n"})
    text += ("transaction:\n  action: type\n  id: id\n  amount: value\n  reference: ref\n")
    text = text.replace("  decision:\n", "  action:\n    STAKE: debit\n    PAYOUT: credit\n    RETURN: cancel\n"
                        "  decision:\n")
    return write("inline.yaml", text)


def _moves_game(gid: str = "g1", short: str = "0") -> dict[str, Any]:
    """The correct game, each seat's moves inline: p1 staked 1 + 2 and was paid 4 (less
    ``short``); p2 staked 1 and was paid nothing (a credit of 0 closes the round)."""
    game = _game(gid)
    p1, p2 = game["participants"]
    paid = str(4 - int(short))
    p1["moves"] = [{"id": f"{gid}-1", "type": "STAKE", "value": "1.00"},
                   {"id": f"{gid}-2", "type": "STAKE", "value": "2.00"},
                   {"id": f"{gid}-3", "type": "PAYOUT", "value": paid, "ref": f"{gid}-1"}]
    p2["moves"] = [{"id": f"{gid}-4", "type": "STAKE", "value": "1.00"},
                   {"id": f"{gid}-5", "type": "PAYOUT", "value": "0", "ref": f"{gid}-4"}]
    return game


def test_a_seats_inline_wallet_moves_are_audited_as_format_2s_wallet(write: Write) -> None:
    mapping = _inline_wallet_mapping(write)
    code, report = _vivo("--mapping", mapping, write("ok.json", _page(_moves_game())))
    assert code == 0 and _said(report) == []
    code, report = _vivo("--mapping", mapping, write("short.json", _page(_moves_game(short="1"))))
    [(found, message)] = _said(report)
    assert code == 1 and found == "W002" and "p1" in message
    unknown = _moves_game()
    unknown["participants"][1]["moves"][0]["type"] = "STAKES"
    code, report = _vivo("--mapping", mapping, write("word.json", _page(unknown)))
    assert [c for c, _ in _said(report) if c.startswith("H")] == ["H008"]
    assert any("STAKES" in m and "STAKE" in m for c, m in _said(report) if c == "H008")


def test_a_wallet_log_mapping_still_needs_its_user_and_round() -> None:
    text = "mapping: 1\nkind: wallet\ninput: jsonl\ntransaction:\n  action: a\n  id: i\n  amount: m\n"
    with pytest.raises(MappingError) as caught:
        parse_mapping(text.encode(), "w.yaml")
    assert "needs 'user' and 'round'" in str(caught.value)


# ----------------------------------------------------------------------------- game.profile

def test_game_profile_names_each_records_variant_and_a_change_starts_a_session(write: Write) -> None:
    mapping = write("variant.yaml", _history_mapping(**{"  dealer_id: dealer.uid\n": "  dealer_id: dealer.uid\n"
                                                        "  profile: variant\n",
                                                        "words:\n": "words:\n  profile:\n    CHE-AA: bonus-aa\n"}))
    games = [_game("g1"), _game("g2"), _game("g3"), _game("g4")]
    for game, variant in zip(games, ("CHE-AA", "CHE-AA", "caribbean", "CHE-AA"), strict=True):
        game["variant"] = variant
    code, report = check_json("--mapping", mapping, write("page.json", _page(*games)))
    assert code == 0, report["problems"]
    assert [(s["profile"], len(s["games"])) for s in report["sessions"]] == [("bonus-aa", 2), ("caribbean", 1),
                                                                             ("bonus-aa", 1)]
    code, report = _vivo("--mapping", mapping, write("pinned.json", _page(*games)))
    assert code == 0 and {s["profile"] for s in report["sessions"]} == {"vivo"}  # --profile pins every session


def test_a_game_profile_that_is_no_profile_is_said(write: Write) -> None:
    mapping = write("variant.yaml", _history_mapping(**{"  dealer_id: dealer.uid\n": "  dealer_id: dealer.uid\n"
                                                        "  profile: variant\n"}))
    game = _game("g1")
    game["variant"] = "bonus-aaa"
    code, report = check_json("--mapping", mapping, write("page.json", _page(game)))
    said = _said(report)
    assert code == 1 and [c for c, _ in said] == ["H005"] and "did you mean 'bonus-aa'" in said[0][1]
    game["variant"] = ["a", "list"]
    code, report = check_json("--mapping", mapping, write("list.json", _page(game)))
    assert [c for c, _ in _said(report)] == ["H008"] and "game.profile" in _said(report)[0][1]


# ----------------------------------------------------------------------------- document

def _document_mapping(write: Write, balances: str = "openingBalances", name: str = "document.yaml") -> str:
    """evolution-history reading a session id, a currency and opening balances written
    once in the page, and each seat's balance after the game."""
    text = _history_mapping(**{"  bets: bets\n": "  bets: bets\n  balance: balanceAfter\n",
                               "  id: table.id\n": "", "  currency: currency\n": ""})
    text += f"document:\n  session: sessionId\n  currency: currency\n  opening_balances: {balances}\n"
    return write(name, text)  # a name a mapping: mappings are loaded once a name


def _document_page(first: bool = True, balances: Any = None) -> str:
    """Two games; p1 starts at 100 and wins 1 a game, p2 at 50 and loses 1 a game. The
    page's own fields before its records (``first``) or after them."""
    games = [_game("g1"), _game("g2")]
    for n, game in enumerate(games, start=1):
        game["participants"][0]["balanceAfter"] = f"{100 + n}.00"
        game["participants"][1]["balanceAfter"] = f"{50 - n}.00"
    fields = {"sessionId": "S-9", "currency": "GBP",
              "openingBalances": balances if balances is not None else {"p1": "100.00", "p2": "50.00"}}
    records = {"data": [{"date": "2026-12-01", "games": games}]}
    page = {**fields, **records} if first else {**records, **fields}
    return json.dumps(page, indent=1)


@pytest.mark.parametrize("first", [True, False])
def test_the_documents_own_fields_are_read_before_or_after_the_records(write: Write, first: bool) -> None:
    code, report = _vivo("--mapping", _document_mapping(write), write("page.json", _document_page(first)))
    assert code == 0 and _said(report) == []
    [session] = report["sessions"]
    assert (session["id"], session["currency"]) == ("S-9", "GBP")
    assert {p["player_id"]: p["ledger"]["opening_balance"] for p in session["players"]} == {"p1": 100, "p2": 50}
    lines = [g["line"] for g in session["games"]]
    assert lines == sorted(lines) and len(lines) == 2  # the records' own lines, spooled or not


def test_the_documents_opening_balances_anchor_each_players_chain(write: Write) -> None:
    page = _document_page(balances={"p1": "99.00", "p2": "50.00"})  # p1's first balance 101 is 99 + 1 + 1
    code, report = _vivo("--mapping", _document_mapping(write), write("page.json", page))
    [(found, message)] = _said(report)
    assert code == 1 and found == "P005" and "p1" in message


def test_opening_balances_as_a_list_of_records(write: Write) -> None:
    mapping = _document_mapping(write, "\n    at: openingBalances\n    player: uid\n    amount: value", "list.yaml")
    page = _document_page(False, [{"uid": "p1", "value": "100.00"}, {"uid": "p2", "value": "50.00"}])
    code, report = _vivo("--mapping", mapping, write("page.json", page))
    assert code == 0 and _said(report) == []
    code, report = _vivo("--mapping", _document_mapping(write), write("bad.json", _document_page(
        balances=[{"uid": "p1", "value": "100.00"}])))
    assert [c for c, _ in _said(report)][:1] == ["H008"]
    assert "document.opening_balances: 'openingBalances' found" in _said(report)[0][1]


def test_a_document_section_belongs_to_a_json_page() -> None:
    text = MINIMAL.replace("input: json", "input: jsonl") + "document:\n  currency: c\n"
    with pytest.raises(MappingError) as caught:
        parse_mapping(text.encode(), "m.yaml")
    assert "input json" in str(caught.value)


def test_a_game_whose_profile_is_not_said_is_never_ruled_by_the_default(write: Write) -> None:
    mapping = write("variant.yaml", _history_mapping(**{"  dealer_id: dealer.uid\n": "  dealer_id: dealer.uid\n"
                                                        "  profile: variant\n"}))
    game = _game("g1")  # no variant
    code, report = check_json("--mapping", mapping, write("page.json", _page(game)))
    [(found, message)] = [(c, m) for c, m in _said(report) if c != "H009"]
    assert code == 1 and found == "H005" and "game.profile found nothing" in message
    code, report = _vivo("--mapping", mapping, write("pinned.json", _page(game)))
    assert code == 0 and [s["profile"] for s in report["sessions"]] == ["vivo"]
