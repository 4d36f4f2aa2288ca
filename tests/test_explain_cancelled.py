"""``referee explain --game ID`` of a cancelled game: a ruling like any other.

A floor manager settling a dispute over a cancelled game needs its ruling: that the
table cancelled it, that every stake is refunded (the rules give 0 to every seat), what
the record and the wallet say the table did, the findings on the seat (``G003`` a seat
recorded as settled, ``W003`` a wallet that did not refund exactly the stakes) and what
is owed to whom, exactly as ``check`` judges it. It used to be a usage error (exit 2).
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from .conftest import SAMPLES, Write, run
from .test_french import english_in

TABLE = str(SAMPLES / "table.yaml")
#: A game the table cancelled after the flop: no turn, river or dealer cards.
CANCELLED = {"game": "c1", "round": 1, "status": "cancelled", "player": ["Q♦", "J♣"], "flop": ["2♥", "2♣", "8♠"]}


def debit(tx: str, amount: int) -> dict[str, Any]:
    return {"id": tx, "kind": "debit", "amount": amount}


def log(write: Write, recorded: dict[str, Any] | None, wallet: list[dict[str, Any]] | None,
        currency: str | None = None) -> str:
    """A live table of one cancelled game, one seat (Ante 1, a call: 3 staked)."""
    seat: dict[str, Any] = {"player_id": "a", "ante": 1, "decision": "call"}
    if recorded is not None:
        seat["recorded"] = recorded
    if wallet is not None:
        seat["wallet"] = wallet
    session = {"id": "T", "profile": "vivo", **({"currency": currency} if currency else {})}
    return write("cancelled.json", json.dumps({"format": 2, "session": session,
                                               "games": [{**CANCELLED, "seats": [seat]}]}, ensure_ascii=False))


def explained(*args: str) -> tuple[int, list[dict[str, Any]]]:
    code, out = run("explain", *args, "--format", "json")
    assert code in (0, 1), out
    return code, json.loads(out, parse_float=Decimal, parse_int=Decimal)["explanations"]


def checked_seats(path: str) -> list[dict[str, Any]]:
    """``check``'s seats of the file, as its JSON report gives them."""
    _, out = run("check", "--format", "json", "--no-progress", path)
    report = json.loads(out, parse_float=Decimal, parse_int=Decimal)
    return [seat for session in report["sessions"] for game in session["games"] for seat in game["seats"]]


def test_the_samples_cancelled_game_is_ruled_and_agrees() -> None:
    """samples/table.yaml's game 8812346, cancelled and refunded: every seat's ruling, exit 0."""
    code, out = run("explain", TABLE, "--game", "8812346")
    assert code == 0, out
    rulings = out.split("\nGame ")
    assert len(rulings) == 2 and out.startswith("Game 8812346, player p-1001, session CH-7/2026-11-29/evening")
    assert "Game 8812346, player p-1003" in out
    first = rulings[0]
    for said in ("The table paid 0 EUR; the rules give 0 EUR; nobody is owed anything.",
                 "As recorded (the game was cancelled, so they settle nothing):", "Player: Q♦ J♣",
                 "Flop: 2♥ 2♣ 8♠", "Decision: Call; stakes: Ante 1, Call 2", "\nCancelled game\n",
                 "The table cancelled the game: every stake is refunded and the game is not counted; "
                 "the rules give 0 to every seat.",
                 "The table recorded the seat as void: net 0, balance 104.",
                 "Wallet moves: debits 3, credits 0, cancels and refunds 3.",
                 "Ante 1: returned: the game was cancelled: every stake is refunded",
                 "Call 2: returned: the game was cancelled: every stake is refunded",
                 "Net 0; total returned with the stakes 3.",
                 "The record agrees with the ruling"):
        assert said in first, said
    assert "Void deal" not in out and "§07" not in out  # not an incorrect deal: the rules' §07 is not its rule
    code, one = run("explain", TABLE, "--game", "8812346", "--player", "p-1003")
    assert code == 0 and one.startswith("Game 8812346, player p-1003") and "Game 8812346, player p-1001" not in one
    assert "Decision: Fold; stakes: Ante 1" in one and "debits 1, credits 0, cancels and refunds 1" in one


def test_a_cancelled_game_as_json() -> None:
    code, [first, _] = explained(TABLE, "--game", "8812346")
    assert code == 0
    assert (first["game"], first["player_id"], first["outcome"], first["cards"]) == ("8812346", "p-1001",
                                                                                     "cancelled", None)
    assert first["void"] == {"kind": "cancelled", "reason": "the table cancelled the game"}
    assert [(w["wager"], w["stake"], w["net"], w["rule"]) for w in first["wagers"]] == [
        ("ante", 1, 0, "cancelled"), ("call", 2, 0, "cancelled")]
    assert (first["net"], first["staked"], first["returned"], first["sections"]) == (0, 3, 3, [])
    assert first["recorded"] == {"outcome": "void", "ante": None, "call": None, "bonus": None, "net": 0,
                                 "returned": None, "balance": 104}
    assert first["wallet"] == {"debits": 3, "credits": 0, "refunds": 3}
    assert first["findings"] == [] and first["bottom_line"]["owed"] == 0


def test_a_cancelled_seat_recorded_as_won_is_g003_owed_to_the_house(write: Write) -> None:
    path = log(write, {"outcome": "win", "net": 3}, None, currency="EUR")
    code, out = run("explain", path, "--game", "c1")
    assert code == 1, out
    assert "The table paid +3 EUR; the rules give 0 EUR; 3 EUR is owed to the house." in out
    assert "G003 cancelled-game-paid: the settlement: the table recorded settled, the rules give cancelled." in out
    assert "The table recorded the seat as a win: net +3." in out and "No wallet moves are recorded" in out
    code, [ex] = explained(path, "--game", "c1", "--player", "a")
    assert code == 1 and [f["code"] for f in ex["findings"]] == ["G003"] and ex["wallet"] is None
    assert {k: v for k, v in ex["bottom_line"].items() if k != "text"} == {
        "paid": 3, "recorded": 3, "wallet": None, "rules": 0, "owed": -3, "owed_to": "house", "balance": None}


def test_a_cancelled_seat_paid_by_the_wallet_is_owed_what_the_wallet_moved(write: Write) -> None:
    """The wallet is the money that moved: a credit of 6 on 3 staked paid +3, the refund missing."""
    path = log(write, {"outcome": "win", "net": 3}, [debit("t1", 3), {"id": "t2", "kind": "credit", "amount": 6}])
    code, [ex] = explained(path, "--game", "c1")
    assert code == 1 and sorted(f["code"] for f in ex["findings"]) == ["G003", "W002", "W003"]
    assert ex["bottom_line"]["text"] == "The table paid +3; the rules give 0; 3 is owed to the house."
    assert ex["wallet"] == {"debits": 3, "credits": 6, "refunds": 0}


def test_a_wrong_refund_is_w003_owed_to_the_player(write: Write) -> None:
    path = log(write, {"outcome": "void", "net": 0}, [debit("t1", 1), debit("t2", 2),
                                                       {"id": "t3", "kind": "refund", "amount": 1}])
    code, out = run("explain", path, "--game", "c1", "--player", "a")
    assert code == 1, out
    assert "The table paid -2 by the wallet (recorded 0); the rules give 0; 2 is owed to the player." in out
    assert "W003 wallet-refund: wallet: the table recorded 1, the rules give 3." in out
    assert "Wallet moves: debits 3, credits 0, cancels and refunds 1." in out


def test_a_cancelled_seat_with_nothing_recorded(write: Write) -> None:
    code, out = run("explain", log(write, None, None), "--game", "c1")
    assert code == 0, out
    assert "The record does not say what the table paid; the rules give 0." in out
    assert "The table recorded no result for the seat." in out


@pytest.mark.parametrize("sample", ["table.yaml", "table.jsonl"])
def test_explain_of_a_cancelled_seat_owes_what_check_says(sample: str) -> None:
    """The bottom line of each cancelled seat is check's, field for field."""
    path = str(SAMPLES / sample)
    seats = {(s["player_id"], s["line"]): s for s in checked_seats(path) if s["outcome"] == "cancelled"}
    assert len(seats) == 2
    _, rulings = explained(path, "--game", "8812346")
    assert len(rulings) == 2
    for ex in rulings:
        seat = seats[(ex["player_id"], ex["line"])]
        assert {k: v for k, v in ex["bottom_line"].items() if k != "text"} == seat["bottom_line"]


def test_a_cancelled_game_in_french(write: Write) -> None:
    code, out = run("explain", TABLE, "--game", "8812346", "--lang", "fr")
    assert code == 0 and not english_in(out), english_in(out)
    for said in ("Partie révoquée", "La table a révoqué la partie : toutes les mises sont remboursées",
                 "Ante 1 : rendu : partie révoquée : toutes les mises sont remboursées",
                 "La table a payé 0 EUR ; les règles donnent 0 EUR ; personne ne doit rien."):
        assert said in out, said
    wallet = [debit("t1", 3), {"id": "t2", "kind": "credit", "amount": 6}]
    code, out = run("explain", log(write, {"outcome": "win", "net": 3}, wallet), "--game", "c1", "--lang", "fr")
    assert code == 1 and not english_in(out), english_in(out)
    assert ("G003 cancelled-game-paid : le règlement : la table a enregistré un règlement, les règles donnent une "
            "partie révoquée.") in out


def test_a_cancelled_game_explained_from_the_store(tmp_path: Path) -> None:
    store = str(tmp_path / "audit.db")
    code, out = run("check", "--store", store, "--quiet", TABLE)
    assert code == 1, out
    for args in (("--game", "8812346"), ("--game", "8812346", "--format", "json", "--lang", "fr")):
        assert run("explain", "--store", store, *args) == run("explain", TABLE, *args)


def test_round_n_of_a_live_table_names_the_cancelled_game_to_explain() -> None:
    code, out = run("explain", TABLE, "--round", "3")
    assert code == 2 and f"game 8812346 of this live table is numbered 3: referee explain {TABLE} --game 8812346" \
        in out
    assert run("explain", TABLE, "--game", "8812346")[0] == 0
