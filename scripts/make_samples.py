"""Regenerate the hand-written-looking samples in samples/ (clean, disputed, void) and
the providers' exports in samples/exports/ (issue 29).

Run: python scripts/make_samples.py. The rounds come from `referee simulate` (seed 17);
round 1 is replaced by the worked example of §09, written with suit symbols as a
table's log would. The disputed and void sessions then alter a few records by hand.
The exports are one simulated live table (seed 5, 10 games of 2 to 4 seats, faults at
0.2) in each shape: the history records one game twice with another card (G001), the
wallet log misses a stake's debit (W001, with the history); the feed carries neither.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from referee import load_profile
from referee.rules.cards import parse_card
from referee.rules.money import plain
from referee.simulate import Settings, simulate, yaml_session

OUT = Path(__file__).resolve().parent.parent / "samples"
WORKED = {"round": 1, "ante": 1, "player": ["A♥", "K♦"], "flop": ["A♠", "7♦", "4♣"], "decision": "call",
          "turn": "9♥", "river": "2♠", "dealer": ["Q♠", "Q♣"],
          "recorded": {"void": False, "outcome": "win", "player_hand": "pair", "dealer_hand": "pair",
                       "dealer_qualified": True, "ante": 1, "call": 2, "net": 3, "balance": 3}}


def symbols(cards: list[str]) -> list[str]:
    return [parse_card(c).symbol for c in cards]  # type: ignore[union-attr]


def clean_rounds() -> tuple[dict, list[dict]]:
    settings = Settings(load_profile("vivo"), rounds=20, seed=17, policy="simple")
    header, rounds = next(simulate(settings))
    used = {parse_card(c) for key in ("player", "flop", "dealer") for c in WORKED[key]}  # type: ignore[union-attr]
    rounds[0] = WORKED
    for r in rounds[1:]:
        for key in ("player", "flop", "dealer"):
            if key in r:
                r[key] = symbols(r[key])
        for key in ("turn", "river"):
            if key in r:
                r[key] = parse_card(r[key]).symbol  # type: ignore[union-attr]
    balance = Decimal(0)
    for r in rounds:
        balance += Decimal(str(r["recorded"]["net"]))
        r["recorded"]["balance"] = plain(balance)
    header["id"] = "table-7/2026-11-29/evening"
    del used
    return header, rounds


def main() -> None:
    header, rounds = clean_rounds()
    (OUT / "clean.yaml").write_text(yaml_session(header, rounds), encoding="utf-8")
    disputed = [dict(r, recorded=dict(r["recorded"])) for r in rounds]
    header = dict(header, id="table-7/2026-11-29/disputed")
    disputed[0]["recorded"].update(net=2, call=1, balance=2)  # Call paid 1 instead of 2
    for r in disputed[1:]:
        r["recorded"]["balance"] -= 1
    r5 = disputed[4]["recorded"]
    r5["dealer_qualified"] = not r5.get("dealer_qualified", False) if "dealer_qualified" in r5 else None
    if r5["dealer_qualified"] is None:
        del r5["dealer_qualified"]
    disputed[9]["recorded"]["balance"] += 4  # a balance written wrong
    disputed[16]["recorded"]["player_hand"] = "two_pair" if disputed[16]["recorded"].get(
        "player_hand") != "two_pair" else "pair"
    (OUT / "disputed.yaml").write_text(yaml_session(header, disputed), encoding="utf-8")
    (OUT / "void.yaml").write_text(yaml_session(*void_session()), encoding="utf-8")
    exports()


EXPORTS = {"evolution-history": "evolution-history.json", "seamless-wallet": "seamless-wallet.jsonl",
           "datafeed-csv": "datafeed.csv"}


def exports() -> None:
    """samples/exports/: the same simulated table in each export shape."""
    import subprocess
    import sys

    for shape, name in EXPORTS.items():
        subprocess.run([sys.executable, "-m", "referee", "simulate", "--seats", "2-4", "--rounds", "10", "--seed", "5",
                        "--faults", "0.2", "--export", shape, "--output", str(OUT / "exports" / name)], check=True)
    bare_wallet()


def bare_wallet() -> None:
    """samples/exports/seamless-wallet-bare.jsonl: the wallet sample as a provider writes it
    that names no debit and credits no lost round (the seamless-wallet-bare mapping)."""
    import json

    lines = []
    for line in (OUT / "exports" / "seamless-wallet.jsonl").read_text(encoding="utf-8").splitlines():
        tx = json.loads(line)
        if tx["action"] == "credit" and tx["amount"] in ("0.00", "0"):
            continue  # a lost round: no credit at all
        tx.pop("reference", None)
        lines.append(json.dumps(tx))
    (OUT / "exports" / "seamless-wallet-bare.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def void_session() -> tuple[dict, list[dict]]:
    """Three malformed deals: two voided by the table and replayed, one settled by mistake."""
    header, rounds = clean_rounds()
    header["id"] = "table-3/2026-11-29/late"
    out: list[dict] = []
    for r in rounds:
        n = r["round"]
        if n == 4:
            out.append({"round": 4, "ante": 1, "player": ["K♠", "9♦"], "flop": ["K♠", "2♣", "7♥"],
                        "decision": "fold", "recorded": {"void": True, "void_reason": "card seen twice",
                                                         "net": 0, "balance": _balance(out)}})
        if n == 9:
            out.append({"round": 9, "ante": 1, "player": ["Jk", "5♦"], "flop": ["8♣", "8♦", "3♠"],
                        "decision": "call", "turn": "6♥", "river": "T♣", "dealer": ["2♥", "4♠"],
                        "recorded": {"void": True, "void_reason": "joker in the shoe", "balance": _balance(out)}})
        if n == 15:
            out.append({"round": 15, "ante": 1, "player": ["Q♦", "Q♥"], "flop": ["5♣", "9♠", "J♦"],
                        "decision": "call", "turn": "3♦", "dealer": ["6♣", "6♠"],
                        "recorded": {"void": False, "outcome": "win", "ante": 1, "call": 2, "net": 3,
                                     "balance": _balance(out) + 3}})
        out.append(dict(r, recorded=dict(r["recorded"])))
        settled = sum(Decimal(str(x["recorded"].get("net", 0))) for x in out)
        out[-1]["recorded"]["balance"] = plain(settled)
    return header, out


def _balance(rounds: list[dict]) -> int:
    return int(sum(Decimal(str(x["recorded"].get("net", 0))) for x in rounds))


if __name__ == "__main__":
    main()
