"""A provider shape no built-in knows, read through a mapping that uses every key issue 45
added, audits exactly as format 2 does the same tables, seat for seat.

The tables are simulated (format 2, faults included), then written twice by the test:
as a format-2 log recording what the new shape records (each seat's net, void flag and
balance, its wallet moves), and as a JSON page in a shape of its own: the session id,
currency and opening balances written once in the page (``document``), each round's
variant (``game.profile`` through ``words.profile``), each seat's net (``seat.net``),
void flag (``seat.void``) and wallet moves inside it (``seat.wallet`` read by
``transaction``, with its own action words). No ``--profile`` is given: the variant
names it.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import check_json, run

MAPPING = """mapping: 1
description: A new shape, every issue-45 key
input: json
records: rounds[]
document:
  session: meta.sessionId
  currency: meta.currency
  opening_balances:
    at: openingBalances
    player: uid
    amount: value
game:
  id: id
  status: state
  dealer_id: croupier
  player: hand
  board: board
  dealer: dealerCards
  profile: variant
seats: seats
seat:
  player_id: uid
  decision: action
  ante: ante
  bonus: sideBet
  net: settled
  void: voided
  balance: balanceAfter
  wallet: moves
transaction:
  action: type
  id: id
  amount: value
words:
  profile: {CHE-AA: bonus-aa}
  action: {STAKE: debit, PAYOUT: credit, RETURN: cancel}
  status: {DONE: settled, CANCELLED: cancelled}
  decision: {C: call, F: fold}
"""
KEPT = ("net", "void", "balance")


def _tables(tmp_path: Path) -> list[dict[str, Any]]:
    log = tmp_path / "sim.jsonl"
    code, out = run("simulate", "--seats", "2-5", "--rounds", "160", "--seed", "21", "--profile", "bonus-aa",
                    "--bonus", "1", "--faults", "0.2", "--format", "jsonl", "-o", str(log))
    assert code == 0, out
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


def _moves(seat: dict[str, Any]) -> list[dict[str, Any]]:
    return [{**move, "kind": "cancel" if move["kind"] == "refund" else move["kind"]} for move in seat.get("wallet", [])]


def _format2(lines: list[dict[str, Any]]) -> Iterator[str]:
    """The tables as a format-2 log recording what the new shape records."""
    for line in lines:
        if "session" in line:
            yield json.dumps(line)
            continue
        fields = ("game", "status", "dealer_id", "player", "flop", "turn", "river", "dealer")
        game: dict[str, Any] = {k: line[k] for k in fields if k in line}
        game["seats"] = []
        for seat in line["seats"]:
            kept: dict[str, Any] = {k: seat[k] for k in ("player_id", "ante", "bonus", "decision") if k in seat}
            recorded = {k: v for k, v in seat.get("recorded", {}).items() if k in KEPT}
            if recorded:
                kept["recorded"] = recorded
            kept["wallet"] = _moves(seat)
            game["seats"].append(kept)
        yield json.dumps(game)


def _page(lines: list[dict[str, Any]]) -> dict[str, Any]:
    """The same tables in the new shape."""
    header = lines[0]["session"]
    rounds = []
    for line in lines[1:]:
        seats = []
        for seat in line["seats"]:
            recorded = seat.get("recorded", {})
            shaped = {"uid": seat["player_id"], "ante": f"{seat['ante']}", "action": seat["decision"][0].upper(),
                      "moves": [{"id": m["id"], "type": {"debit": "STAKE", "credit": "PAYOUT", "cancel": "RETURN"}[
                          m["kind"]], "value": str(m["amount"])} for m in _moves(seat)]}
            if seat.get("bonus"):
                shaped["sideBet"] = str(seat["bonus"])
            for key, name in (("net", "settled"), ("void", "voided"), ("balance", "balanceAfter")):
                if key in recorded:
                    shaped[name] = recorded[key] if key == "void" else str(recorded[key])
            seats.append(shaped)
        board = [*line.get("flop", []), *([line["turn"]] if "turn" in line else []),
                 *([line["river"]] if "river" in line else [])]
        rounds.append({"id": line["game"], "variant": "CHE-AA", "croupier": line.get("dealer_id"),
                       "state": "CANCELLED" if line.get("status") == "cancelled" else "DONE",
                       "hand": line.get("player"), "board": board, "dealerCards": line.get("dealer"),
                       "seats": seats})
    balances = [{"uid": uid, "value": str(value)} for uid, value in header["opening_balances"].items()]
    return {"rounds": rounds, "openingBalances": balances,  # the page's own fields after its records
            "meta": {"sessionId": header["id"], "currency": header["currency"]}}


def _seats(report: dict[str, Any]) -> dict[tuple[str, str], tuple[Any, ...]]:
    out = {}
    for session in report["sessions"]:
        for game in session["games"]:
            for seat in game["seats"]:
                out[(game["game"], seat["player_id"])] = (
                    game["status"], seat["outcome"], json.dumps(seat["settlement"]), json.dumps(seat["bottom_line"]),
                    seat["balance"], seat["recorded_balance"], sorted(f["code"] for f in seat["findings"]))
    return out


@pytest.mark.slow
def test_a_new_shape_with_every_new_key_audits_as_format_2_seat_for_seat(tmp_path: Path) -> None:
    lines = _tables(tmp_path)
    (tmp_path / "f2.jsonl").write_text("\n".join(_format2(lines)) + "\n", encoding="utf-8")
    (tmp_path / "page.json").write_text(json.dumps(_page(lines), indent=1), encoding="utf-8")
    (tmp_path / "shape.yaml").write_text(MAPPING, encoding="utf-8")
    code2, table = check_json(str(tmp_path / "f2.jsonl"))
    code, page = check_json("--mapping", str(tmp_path / "shape.yaml"), str(tmp_path / "page.json"))
    assert page["problems"] == [] and [s["profile"] for s in page["sessions"]] == ["bonus-aa"]
    [session] = page["sessions"]
    assert (session["id"], session["currency"]) == (lines[0]["session"]["id"], "EUR")
    expected, found = _seats(table), _seats(page)
    assert len(found) > 300 and found == expected
    every = [Counter((f["game"], f.get("player"), f["code"]) for s in r["sessions"] for f in s["findings"]
                     if f["code"] != "H009") for r in (table, page)]  # H009: the shape never writes a void flag
    assert every[0] == every[1]
    codes = {c for seat in found.values() for c in seat[-1]}
    assert code == code2 == 1 and {"W001", "W002"} <= codes  # the simulated faults, found through the mapping
