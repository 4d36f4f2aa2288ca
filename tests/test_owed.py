"""The bottom line of a round is one record (audit/owed.py) said the same way by every
reader: explain, recall (text, JSON, HTML) and the HTML report, in English and French
(issue 20; docs/ledger.md, "Who is owed")."""

from __future__ import annotations

import html
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import yaml

from referee.audit.owed import BalanceOff, BottomLine

from .conftest import SAMPLES, Write, check_json, run

DISPUTED = str(SAMPLES / "disputed.yaml")


def explained(number: int, lang: str) -> dict[str, Any]:
    code, out = run("explain", DISPUTED, "--round", str(number), "--format", "json", "--lang", lang)
    assert code in (0, 1), out
    doc = json.loads(out)
    return dict(doc["explanations"][0])


def _text(page: str) -> str:
    """A page's text as a reader sees it (tags dropped, entities read, spaces joined)."""
    import re

    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize("number", [1, 10])
def test_explain_recall_and_report_say_the_same_bottom_line(tmp_path: Path, number: int, lang: str) -> None:
    doc = explained(number, lang)
    bottom = doc["bottom_line"]
    sentence = bottom["text"]
    # The facts behind it are the audit's: the ruled net, the recorded net, the P005's figures.
    _, report = check_json(DISPUTED)
    session = report["sessions"][0]
    ruled = next(r for r in session["rounds"] if r["round"] == number)
    logged = next(r for r in yaml.safe_load(Path(DISPUTED).read_text(encoding="utf-8"))["rounds"]
                  if r["round"] == number)
    assert bottom["rules"] == ruled["settlement"]["net"] and bottom["paid"] == logged["recorded"]["net"]
    assert bottom["owed"] == bottom["rules"] - bottom["paid"]
    p005 = [f for f in ruled["findings"] if f["code"] == "P005"]
    assert (bottom["balance"] is None) == (not p005)
    if p005:
        assert (bottom["balance"]["recorded"], bottom["balance"]["expected"]) == (p005[0]["recorded"],
                                                                                 p005[0]["expected"])
    # explain in words
    _, text = run("explain", DISPUTED, "--round", str(number), "--lang", lang)
    assert text.splitlines()[3] == "  " + sentence
    # recall: text, JSON, HTML
    args = ("recall", DISPUTED, "--round", str(number), "--last", "3", "--lang", lang)
    _, recalled = run(*args)
    assert recalled.count(sentence) == 1  # said once, by the ruling's bottom line
    _, out = run(*args, "--format", "json")
    assert [r["bottom_line"] for r in json.loads(out)["recalls"][0]["rulings"]] == [bottom]
    page = tmp_path / "recall.html"
    run(*args, "--format", "html", "--output", str(page))
    assert _text(page.read_text(encoding="utf-8")).count(sentence) == 2  # the summary and the unfolded ruling
    # the report: the disputed round's summary (and the folded ruling)
    out_page = tmp_path / "report.html"
    run("report", DISPUTED, "--output", str(out_page), "--lang", lang)
    assert _text(out_page.read_text(encoding="utf-8")).count(sentence) == 2


def test_round_1_is_owed_to_the_player_and_round_10_is_a_balance_in_the_players_favour() -> None:
    """The auditor's reading, pinned: a short payment is owed; a balance that does not
    follow is stated with whom it favours, and is not called owed (docs/ledger.md)."""
    assert explained(1, "en")["bottom_line"]["text"] == "The table paid +2; the rules give +3; 1 is owed to the player."
    french = explained(1, "fr")["bottom_line"]["text"]
    assert french == "La table a payé +2 ; les règles donnent +3 ; 1 est dû au joueur."
    ten = explained(10, "en")["bottom_line"]
    assert ten["text"] == ("The table paid -3, as the rules give. The recorded balance 8 does not follow from the last "
                           "recorded balance: that balance plus the rules' nets since gives 4; the difference of 4 "
                           "favours the player.")
    assert ten["owed"] == 0 and ten["owed_to"] is None and ten["balance"]["favours"] == "player"
    assert explained(10, "fr")["bottom_line"]["text"] == (
        "La table a payé -3, comme le donnent les règles. Le solde enregistré 8 ne découle pas du dernier solde "
        "enregistré : ce solde plus les nets des règles depuis donne 4 ; l'écart de 4 favorise le joueur.")


def test_a_wrong_net_and_a_balance_off_both_chains_are_both_stated(write: Write) -> None:
    """docs/ledger.md's two-chains case: net 2 for +3 (1 owed to the player) and balance 5
    where the rules give 3 (2 in the player's favour)."""
    path = write("two.yaml", (
        "session:\n  id: t\n  profile: vivo\n  rounds_agreed: 1\n  opening_balance: 0\nrounds:\n"
        "  - round: 1\n    ante: 1\n    player: [A♥, K♦]\n    flop: [A♠, 7♦, 4♣]\n    decision: call\n"
        "    turn: 9♥\n    river: 2♠\n    dealer: [Q♠, Q♣]\n    recorded: {net: 2, balance: 5}\n"))
    _, out = run("explain", path, "--round", "1")
    assert ("The table paid +2; the rules give +3; 1 is owed to the player. The recorded balance 5 does not "
            "follow from the last recorded balance: that balance plus the rules' nets since gives 3; the difference "
            "of 2 favours the player.") in out


def test_the_record_of_a_bottom_line() -> None:
    short = BottomLine(Decimal(3), Decimal(2))
    assert (short.owed, short.owed_to) == (Decimal(1), "player")
    over = BottomLine(Decimal(-3), Decimal(0), BalanceOff(Decimal(1), Decimal(4)))
    assert (over.owed, over.owed_to, over.balance and over.balance.favours) == (Decimal(-3), "house", "house")
    unknown = BottomLine(Decimal(3), None)
    assert (unknown.owed, unknown.owed_to) == (Decimal(0), None)


def test_a_live_tables_seats_owe_in_the_report_what_explain_says() -> None:
    """Format 2: the report's owed-each-way (seat_owed) and explain --game read the same
    bottom line per seat (what the wallet moved, else the record)."""
    from referee.audit.explain_table import explain_game
    from referee.audit.games import GameResult
    from referee.audit.stream import Options, audit_source
    from referee.load.inputs import expand
    from referee.report.table import seat_owed

    source = expand([str(SAMPLES / "table.yaml")])[0]
    seats = [(g, s) for g in audit_source(source, Options()) if isinstance(g, GameResult)
             for s in g.seats if (s.ruling is not None or s.cancelled) and s.player_id is not None
             and g.game is not None]
    assert len(seats) >= 5 and any(s.cancelled for _, s in seats)
    owed = []
    for game, seat in seats:
        [explained] = explain_game(source, str(game.game), seat.player_id, None, Options())
        assert explained.bottom.owed == seat_owed(seat)
        owed.append(explained.bottom.owed)
    assert any(owed)  # the sample has a seat paid short: not every comparison is 0 == 0
