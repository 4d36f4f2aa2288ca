"""`referee simulate --seats ... --export SHAPE`: the simulated tables in the providers' shapes (issue 29).

Each shape is read back here the simplest way (json, csv) and compared with the format-2
log of the same deal: same games, same seats, the same money. The faults each shape
carries are derived again from the shape alone (and, for the wallet, the game's stakes)
and must be exactly the manifest of the run.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections import Counter, defaultdict
from datetime import datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from referee.profiles import resolve_profile
from referee.simulate_export import CARRIED, EXPORT_KINDS, EXPORTS, FEED_COLUMNS, WALLET_COLUMNS, write_export
from referee.simulate_log import LOG_FAULTS
from referee.simulate_table import TableSettings, write_tables

from .conftest import ROOT, check_json, run

GAME_KEYS = ["id", "startedAt", "settledAt", "status", "gameType", "table", "dealer", "currency", "result",
             "participants"]
PART_KEYS = ["playerId", "sessionId", "currency", "bets", "decisions"]
BET_KEYS = ["code", "stake", "payout", "placedOn", "transactionId"]
TIME = re.compile(r"^2026-12-\d\dT\d\d:\d\d:\d\d\.000Z$")
MONEY = re.compile(r"^-?\d+\.\d\d$")
UPPER_CARD = re.compile(r"^[2-9TJQKA][CDHS]$")
FEED_CARD = re.compile(r"^(10|[2-9JQKA])[cdhs]$")
Sessions = list[tuple[dict[str, Any], list[dict[str, Any]]]]


def _settings(faults: float = 0.25, own_cards: bool = False, seed: int = 8, log: bool = False) -> TableSettings:
    """A table with bonuses, split records and, at ``faults``, every kind an export draws
    (``log``: the wallet log's own faults too)."""
    profile = resolve_profile("bonus-aa").profile
    return TableSettings(profile, (2, 6), 2, 120, seed, "mix", Decimal(1), faults, own_cards, kinds=EXPORT_KINDS,
                         log_faults=log)


def _export(shape: str, settings: TableSettings, wallet_csv: bool = False) -> tuple[str, list[dict[str, Any]]]:
    out = io.StringIO()
    write_export(settings, shape, out, wallet_csv)
    return out.getvalue(), [f.as_dict() for f in settings.manifest]


def _format2(settings: TableSettings) -> tuple[Sessions, list[dict[str, Any]]]:
    """The same deal in format 2 (JSON Lines, seats inline) and its whole manifest."""
    out = io.StringIO()
    write_tables(settings, "jsonl", out)
    sessions: Sessions = []
    for line in out.getvalue().splitlines():
        record = json.loads(line)
        if "session" in record:
            sessions.append((record["session"], []))
        else:
            sessions[-1][1].append(record)
    return sessions, [f.as_dict() for f in settings.manifest]


def _seats(sessions: Sessions) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    return [(game, seat) for _, games in sessions for game in games for seat in game["seats"]]


def _call_stake(seat: dict[str, Any]) -> Decimal:
    return Decimal(str(seat["ante"])) * 2 if seat["decision"] == "call" else Decimal(0)


def _staked(seat: dict[str, Any]) -> Decimal:
    return Decimal(str(seat["ante"])) + Decimal(str(seat.get("bonus", 0))) + _call_stake(seat)


def _returned(seat: dict[str, Any]) -> Decimal:
    """What the format-2 seat's record says came back, stakes included (0 when refunded)."""
    recorded = seat["recorded"]
    return Decimal(0) if recorded["outcome"] == "void" else _staked(seat) + Decimal(str(recorded["net"]))


def _keys(manifest: list[dict[str, Any]], code: str = "code") -> Counter[tuple[str, str | None, str]]:
    """Each fault's (game, player, code): the code of the run's files read together, or
    (``code="alone"``) of the file read alone; a fault with none is not counted."""
    return Counter((f["game"], f["player"], f[code]) for f in manifest if f[code] is not None)


# the shapes ----------------------------------------------------------------------


def test_history_has_exactly_the_documented_keys() -> None:
    text, _ = _export("evolution-history", _settings())
    document = json.loads(text)
    assert list(document) == ["data"]
    assert [day["date"] for day in document["data"]] == ["2026-12-01", "2026-12-02"]
    for day in document["data"]:
        assert list(day) == ["date", "games"]
        for game in day["games"]:
            assert list(game) == GAME_KEYS and game["status"] in ("Resolved", "Cancelled")
            assert game["gameType"] == "holdem" and game["currency"] == "EUR"
            assert game["table"] == {"id": game["table"]["id"], "name": f"Casino Hold'em {game['table']['id']}"}
            dealer = game["dealer"]
            assert list(dealer) == ["uid", "name"] and dealer["name"] == f"Dealer {dealer['uid']}"
            started, settled = (datetime.fromisoformat(game[k]) for k in ("startedAt", "settledAt"))
            assert TIME.match(game["startedAt"]) and settled - started == timedelta(seconds=45)
            assert game["startedAt"].startswith(day["date"])
            result = game["result"]
            assert list(result) == ["player", "dealer", "communityCards"] and list(result["player"]) == ["cards"]
            assert list(result["dealer"]) == ["cards", "qualified"] and isinstance(result["dealer"]["qualified"], bool)
            cards = [*result["player"]["cards"], *result["dealer"]["cards"], *result["communityCards"]]
            assert len(cards) == 9 and all(UPPER_CARD.match(c) for c in cards)
            for part in game["participants"]:
                assert list(part) == PART_KEYS and part["currency"] == "EUR"
                assert part["decisions"] in ([{"type": "Call"}], [{"type": "Fold"}])
                for bet in part["bets"]:
                    assert list(bet) == BET_KEYS and bet["code"] in ("CHE_Ante", "CHE_Call", "CHE_Bonus")
                    assert MONEY.match(bet["stake"]) and MONEY.match(bet["payout"]) and TIME.match(bet["placedOn"])


def test_wallet_lines_have_the_documented_keys_and_balances_chain() -> None:
    text, _ = _export("seamless-wallet", _settings())
    lines = [json.loads(line) for line in text.splitlines()]
    balances: dict[str, Decimal] = defaultdict(lambda: Decimal(1000))
    written: set[str] = set()
    debits: set[str] = set()
    for line in lines:
        assert list(line) == list(WALLET_COLUMNS) and line["action"] in ("debit", "credit", "cancel")
        assert MONEY.match(line["amount"]) and MONEY.match(line["balance"]) and TIME.match(line["time"])
        assert line["currency"] == "EUR" and line["transaction"] not in written
        written.add(line["transaction"])
        amount = Decimal(line["amount"])
        balances[line["user"]] += -amount if line["action"] == "debit" else amount
        assert Decimal(line["balance"]) == balances[line["user"]], line
        if line["action"] == "debit":
            assert line["reference"] is None
            debits.add(line["transaction"])
        elif line["reference"] is not None:
            assert line["reference"] in debits  # a debit written before it
    assert [line["time"] for line in lines] == sorted(line["time"] for line in lines)


def test_wallet_as_csv_is_the_same_log() -> None:
    jsonl, _ = _export("seamless-wallet", _settings())
    text, _ = _export("seamless-wallet", _settings(), wallet_csv=True)
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == list(WALLET_COLUMNS)
    expected = [["" if v is None else v for v in json.loads(line).values()] for line in jsonl.splitlines()]
    assert rows[1:] == expected


def test_wallet_csv_follows_the_output_name(tmp_path: Path) -> None:
    args = ("simulate", "--seats", "3", "--rounds", "5", "--export", "seamless-wallet", "-o")
    assert run(*args, str(tmp_path / "w.csv"))[0] == 0 and run(*args, str(tmp_path / "w.jsonl"))[0] == 0
    assert (tmp_path / "w.csv").read_text().startswith(",".join(WALLET_COLUMNS) + "\n")
    assert (tmp_path / "w.jsonl").read_text().startswith('{"action": "debit"')


@pytest.mark.parametrize("own_cards", [False, True])
def test_feed_has_a_row_a_seat_and_the_documented_columns(own_cards: bool) -> None:
    text, _ = _export("datafeed-csv", _settings(own_cards=own_cards))
    sessions, _ = _format2(_settings(own_cards=own_cards))
    first, _, rest = text.partition("\n")
    assert first == "timepoint=2026-12-01T00:00:00Z" and "\r" not in text
    rows = list(csv.reader(io.StringIO(rest)))
    assert rows[0] == list(FEED_COLUMNS)
    seats = _seats(sessions)
    assert len(rows) - 1 == len(seats)
    for row, (game, seat) in zip(rows[1:], seats, strict=True):
        record = dict(zip(FEED_COLUMNS, row, strict=True))
        player = seat["player_id"]
        assert (record["playerID"], record["extPlayerID"], record["gameID"]) == (player, f"ext-{player}",
                                                                                  "casino_holdem")
        assert (record["playSessionID"], record["parentSessionID"]) == (f"{game['game']}/{player}", game["game"])
        assert record["status"] == ("cancelled" if game["status"] == "cancelled" else "completed")
        assert (record["type"], record["currency"], record["jackpot"]) == ("live", "EUR", "0.00")
        assert Decimal(record["bet"]) == _staked(seat) and Decimal(record["win"]) == _returned(seat)
        assert TIME.match(record["startDate"]) and TIME.match(record["endDate"])
        details = json.loads(record["roundDetails"])
        assert list(details) == ["player", "dealer", "board", "qualified", "bets", "decision"]
        assert record["roundDetails"] == json.dumps(details, separators=(",", ":"))
        cards = [*details["player"], *details["dealer"], *details["board"]]
        assert len(cards) == 9 and all(FEED_CARD.match(c) for c in cards)
        hand = seat["player"] if own_cards else game["player"]
        assert details["player"] == [c.replace("T", "10") for c in hand]
        assert details["decision"] == seat["decision"]
        assert sum(Decimal(b["a"]) for b in details["bets"]) == _staked(seat)
        assert [b["c"] for b in details["bets"]][:1] == ["Ante"]


# the same deal as format 2 -------------------------------------------------------


def _history_games(settings: TableSettings) -> list[dict[str, Any]]:
    text, _ = _export("evolution-history", settings)
    return [game for day in json.loads(text)["data"] for game in day["games"]]


def test_cli_exports_the_deal_simulate_seats_writes(tmp_path: Path) -> None:
    """Without faults the export run deals what plain ``simulate --seats`` deals."""
    args = ("simulate", "--seats", "2-6", "--rounds", "120", "--sessions", "2", "--seed", "8", "--profile",
            "bonus-aa", "--bonus", "1")
    assert run(*args, "--format", "jsonl", "-o", str(tmp_path / "f2.jsonl"))[0] == 0
    assert run(*args, "--export", "evolution-history", "-o", str(tmp_path / "h.json"))[0] == 0
    lines = [json.loads(line) for line in (tmp_path / "f2.jsonl").read_text().splitlines()]
    games = [g for g in lines if "game" in g]
    history = [g for day in json.loads((tmp_path / "h.json").read_text())["data"] for g in day["games"]]
    assert [g["id"] for g in history] == [g["game"] for g in games]
    assert [[p["playerId"] for p in g["participants"]] for g in history] == [
        [s["player_id"] for s in g["seats"]] for g in games]
    assert (tmp_path / "h.json").read_text() == _export("evolution-history", _settings(faults=0))[0]


@pytest.mark.parametrize("faults", [0.0, 0.25])
def test_history_payouts_are_the_format2_seats_returns(faults: float) -> None:
    sessions, _ = _format2(_settings(faults))
    games = [game for _, gs in sessions for game in gs]
    history = _history_games(_settings(faults))
    assert [g["id"] for g in history] == [g["game"] for g in games]
    for entry, game in zip(history, games, strict=True):
        assert entry["status"] == ("Cancelled" if game["status"] == "cancelled" else "Resolved")
        assert entry["result"]["player"]["cards"] == [c.upper() for c in game["player"]]
        assert entry["result"]["communityCards"] == [c.upper() for c in (*game["flop"], game["turn"], game["river"])]
        qualified = {s["recorded"]["dealer_qualified"] for s in game["seats"] if "dealer_qualified" in s["recorded"]}
        assert qualified <= {entry["result"]["dealer"]["qualified"]}
        assert len(entry["participants"]) == len(game["seats"])
        for part, seat in zip(entry["participants"], game["seats"], strict=True):
            assert part["playerId"] == seat["player_id"]
            bets = {b["code"]: b for b in part["bets"]}
            assert sum(Decimal(b["payout"]) for b in part["bets"]) == _returned(seat)
            assert sum(Decimal(b["stake"]) for b in part["bets"]) == _staked(seat)
            debits = [m["id"] for m in seat["wallet"] if m["kind"] == "debit"]
            if "CHE_Call" in bets:
                assert Decimal(bets["CHE_Call"]["stake"]) == _call_stake(seat)
                assert bets["CHE_Call"]["transactionId"] in (debits[-1:] if debits else [])
            if seat["recorded"]["outcome"] != "void":
                for code, result in (("CHE_Ante", "ante"), ("CHE_Call", "call"), ("CHE_Bonus", "bonus")):
                    if code in bets:
                        bet = bets[code]
                        assert Decimal(bet["payout"]) == Decimal(bet["stake"]) + Decimal(str(seat["recorded"][result]))


def test_wallet_moves_are_the_format2_wallets() -> None:
    """Every format-2 transaction once, credits and cancels at their amounts; a seat with
    a debit and no credit nor refund closed by a credit of 0."""
    sessions, _ = _format2(_settings())
    text, _ = _export("seamless-wallet", _settings())
    lines = [json.loads(line) for line in text.splitlines()]
    by_id = {line["transaction"]: line for line in lines}
    expected = 0
    for game, seat in {(g["game"], s["player_id"]): (g, s) for g, s in _seats(sessions)}.values():
        for move in seat["wallet"]:
            if move["kind"] == "refund":
                cancels = [line for line in lines if line["transaction"].startswith(move["id"] + "-")]
                assert sum(Decimal(c["amount"]) for c in cancels) == Decimal(str(move["amount"]))
                expected += len(cancels)
                continue
            line = by_id[move["id"]]
            assert (line["action"], line["user"], line["round"]) == (move["kind"], seat["player_id"], game["game"])
            assert Decimal(line["amount"]) == Decimal(str(move["amount"]))
            expected += 1
        kinds = {m["kind"] for m in seat["wallet"]}
        if "debit" in kinds and not kinds & {"credit", "refund"}:
            close = by_id[f"{game['game']}/{seat['player_id']}/close"]
            assert (close["action"], close["amount"]) == ("credit", "0.00")
            expected += 1
    assert len(lines) == expected


# faults --------------------------------------------------------------------------


def test_the_export_deal_audits_exactly_as_its_whole_manifest(tmp_path: Path) -> None:
    """Drawn without swapped_games, the deal is still found exactly as injected in format 2."""
    settings = _settings()
    out = io.StringIO()
    write_tables(settings, "jsonl", out)
    log = tmp_path / "f.jsonl"
    log.write_text(out.getvalue())
    injected = [f.as_dict() for f in settings.manifest]
    assert {f["kind"] for f in injected} == set(EXPORT_KINDS)
    _, report = check_json(str(log))
    found = Counter((f["game"], f["player"], f["code"]) for s in report["sessions"] for f in s["findings"])
    assert found == _keys(injected)


def test_history_faults_are_its_manifest() -> None:
    """G001: two records of a game with other cards; G002: a player twice in a game; G003:
    a cancelled game's seat paid something, other than each bet's own stake back.
    Nothing else is a fault in this shape."""
    text, manifest = _export("evolution-history", _settings())
    games = [g for day in json.loads(text)["data"] for g in day["games"]]
    derived: Counter[tuple[str, str | None, str]] = Counter()
    first: dict[str, dict[str, Any]] = {}
    players: dict[str, Counter[str]] = defaultdict(Counter)
    for game in games:
        if game["id"] in first and game["result"] != first[game["id"]]["result"]:
            derived[(game["id"], None, "G001")] += 1
        first.setdefault(game["id"], game)
        for part in game["participants"]:
            players[game["id"]][part["playerId"]] += 1
            payouts = [(Decimal(b["stake"]), Decimal(b["payout"])) for b in part["bets"]]
            if (game["status"] == "Cancelled" and any(paid for _, paid in payouts)
                    and any(stake != paid for stake, paid in payouts)):
                derived[(game["id"], part["playerId"], "G003")] += 1
    for gid, seated in players.items():
        derived.update({(gid, player, "G002"): 1 for player, n in seated.items() if n > 1})
    assert {f["kind"] for f in manifest} == set(CARRIED["evolution-history"])
    assert derived == _keys(manifest)


def test_feed_faults_are_its_manifest() -> None:
    """G002: two rows of one player in a game; G003: a cancelled game's seat paid back
    neither nothing (the wallet refunds) nor its stakes (the refund itself)."""
    text, manifest = _export("datafeed-csv", _settings())
    rows = list(csv.DictReader(io.StringIO(text.partition("\n")[2])))
    seen = Counter(row["playSessionID"] for row in rows)
    derived: Counter[tuple[str, str | None, str]] = Counter()
    for row in rows:
        if row["status"] == "cancelled" and Decimal(row["win"]) not in (0, Decimal(row["bet"])):
            derived[(row["parentSessionID"], row["playerID"], "G003")] += 1
    derived.update({(key.split("/")[0], key.split("/")[1], "G002"): 1 for key, n in seen.items() if n > 1})
    assert {f["kind"] for f in manifest} == set(CARRIED["datafeed-csv"])
    assert derived == _keys(manifest)


def test_wallet_faults_are_its_manifest() -> None:
    """Joined with the games' stakes and status (format 2 of the same deal): W001 where
    the debits differ from the stakes, W002 where the credits differ from what comes
    back (nothing for a cancelled game), W003 where the cancels do not refund a
    cancelled game's stakes."""
    sessions, _ = _format2(_settings())
    text, manifest = _export("seamless-wallet", _settings(log=True))
    totals: dict[tuple[str, str], dict[str, Decimal]] = defaultdict(lambda: defaultdict(Decimal))
    for line in map(json.loads, text.splitlines()):
        totals[(line["round"], line["user"])][line["action"]] += Decimal(line["amount"])
    derived: Counter[tuple[str, str | None, str]] = Counter()
    for game, seat in {(g["game"], s["player_id"]): (g, s) for g, s in _seats(sessions)}.values():
        moved, cancelled = totals[(game["game"], seat["player_id"])], game["status"] == "cancelled"
        rules = Decimal(0) if cancelled else _staked(seat) + Decimal(str(seat["recorded"]["net"]))
        for code, got, want in (("W001", moved["debit"], _staked(seat)), ("W002", moved["credit"], rules),
                                ("W003", moved["cancel"], _staked(seat) if cancelled else 0)):
            if got != want:
                derived[(game["game"], seat["player_id"], code)] += 1
    assert {f["kind"] for f in manifest} == set(CARRIED["seamless-wallet"]) | set(LOG_FAULTS)
    assert derived == _keys(manifest)


def test_cli_writes_the_export_manifest(tmp_path: Path) -> None:
    manifest = tmp_path / "m.json"
    code, _ = run("simulate", "--seats", "2-6", "--rounds", "120", "--sessions", "2", "--seed", "8", "--profile",
                  "bonus-aa", "--bonus", "1", "--faults", "0.25", "--export", "datafeed-csv",
                  "-o", str(tmp_path / "feed.csv"), "--faults-manifest", str(manifest))
    assert code == 0
    assert json.loads(manifest.read_text()) == _export("datafeed-csv", _settings())[1]


def test_the_documented_history_is_what_simulate_writes() -> None:
    page = (ROOT / "docs" / "simulate.md").read_text(encoding="utf-8").split("## Simulated exports", 1)[1]
    shown = json.loads(page.split("```json\n", 1)[1].split("```", 1)[0])
    code, out = run("simulate", "--seats", "1", "--rounds", "1", "--seed", "1", "--profile", "bonus-aa", "--bonus",
                    "1", "--export", "evolution-history")
    assert code == 0 and json.loads(out) == shown


# determinism and refusals --------------------------------------------------------


@pytest.mark.parametrize("shape", EXPORTS)
def test_exports_are_reproducible(shape: str, tmp_path: Path) -> None:
    def once(name: str, seed: str) -> bytes:
        path = tmp_path / name
        code, out = run("simulate", "--seats", "1-5", "--rounds", "40", "--seed", seed, "--faults", "0.3",
                        "--export", shape, "-o", str(path))
        assert code == 0, out
        return path.read_bytes()

    assert once("a", "4") == once("b", "4") != once("c", "5")


def _refused(*args: str) -> str:
    code, out = run("simulate", "--rounds", "2", *args)
    assert code == 2, out
    errors = [line for line in out.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1, out
    return errors[0]


@pytest.mark.parametrize("shape", EXPORTS)
def test_export_needs_seats(shape: str) -> None:
    line = _refused("--export", shape)
    assert "--export needs --seats" in line and "drop --export" in line


@pytest.mark.parametrize("shape", EXPORTS)
@pytest.mark.parametrize("fmt", ["yaml", "jsonl"])
def test_export_fixes_its_format(shape: str, fmt: str) -> None:
    line = _refused("--seats", "3", "--export", shape, "--format", fmt)
    assert "--format does not apply with --export" in line and "drop --format" in line


def test_export_has_no_seat_lines() -> None:
    line = _refused("--seats", "3", "--export", "seamless-wallet", "--seat-lines")
    assert "--seat-lines does not apply with --export" in line


def test_history_has_one_player_hand(tmp_path: Path) -> None:
    line = _refused("--seats", "3", "--own-cards", "--export", "evolution-history", "-o", str(tmp_path / "h.json"))
    assert "--own-cards does not apply with --export evolution-history" in line and "drop --own-cards" in line
    assert not (tmp_path / "h.json").exists()
    for shape in ("datafeed-csv", "seamless-wallet"):
        assert run("simulate", "--rounds", "2", "--seats", "3", "--own-cards", "--export", shape)[0] == 0
    code, out = run("simulate", "--seats", "30", "--own-cards", "--export", "datafeed-csv")
    assert code == 2 and "at most 22" in out


# the importers read them back -----------------------------------------------------


@pytest.mark.parametrize(("shape", "extra", "rate"), [
    ("evolution-history", (), "0.25"), ("datafeed-csv", (), "0.25"), ("datafeed-csv", ("--own-cards",), "0.25"),
    ("evolution-history", (), "0.05"), ("evolution-history", (), "0.6"), ("datafeed-csv", (), "0.6")])
@pytest.mark.parametrize("joined", [False, True])
def test_the_importers_find_exactly_the_manifest(tmp_path: Path, shape: str, extra: tuple[str, ...], rate: str,
                                                 joined: bool) -> None:
    """``check --mapping SHAPE`` finds exactly the shape's manifest; with ``--wallet``, the
    wallet log of the same run, the union of both manifests; at any fault rate."""
    def export(name: str, what: str) -> list[dict[str, Any]]:
        code, out = run("simulate", "--seats", "2-6", "--rounds", "150", "--sessions", "2", "--seed", "3",
                        "--profile", "bonus-aa", "--bonus", "1", "--faults", rate, *extra, "--export", what,
                        "-o", str(tmp_path / name), "--faults-manifest", str(tmp_path / f"{name}.m.json"))
        assert code == 0, out
        return list(json.loads((tmp_path / f"{name}.m.json").read_text()))

    manifest = export("log", shape)
    wallet = ("--wallet", str(tmp_path / "w.jsonl")) if joined else ()
    if joined:
        manifest += export("w.jsonl", "seamless-wallet")
    _, report = check_json("--profile", "bonus-aa", "--mapping", shape, str(tmp_path / "log"), *wallet)
    found = Counter((f["game"], f["player"], f["code"]) for s in report["sessions"] for f in s["findings"])
    wallet_kinds = set(CARRIED["seamless-wallet"]) | set(LOG_FAULTS)
    assert {f["kind"] for f in manifest} == set(CARRIED[shape]) | (wallet_kinds if joined else set())
    assert found == _keys(manifest)


@pytest.mark.parametrize(("name", "mapping"), [("w.jsonl", "seamless-wallet"), ("w.csv", "seamless-wallet-csv")])
def test_the_wallet_log_alone_shows_exactly_the_faults_visible_alone(tmp_path: Path, name: str,
                                                                      mapping: str) -> None:
    """The table's wallet faults are money that moved consistently: the log alone shows
    none of them (``alone`` null); the log's own faults (W005-W009) it shows, each once."""
    code, out = run("simulate", "--seats", "1-8", "--rounds", "200", "--sessions", "2", "--seed", "12", "--profile",
                    "bonus-aa", "--bonus", "1", "--faults", "0.3", "--export", "seamless-wallet",
                    "-o", str(tmp_path / name), "--faults-manifest", str(tmp_path / "m.json"))
    assert code == 0, out
    manifest = json.loads((tmp_path / "m.json").read_text())
    assert {f["kind"] for f in manifest} == set(CARRIED["seamless-wallet"]) | set(LOG_FAULTS)
    assert all(f["alone"] is None for f in manifest if f["kind"] in CARRIED["seamless-wallet"])
    code, report = check_json("--mapping", mapping, str(tmp_path / name))
    found = Counter((f["game"], f["player"], f["code"]) for s in report["sessions"] for f in s["findings"])
    found.update((f["game"], f["player"], f["code"]) for f in report["problems"])
    assert code == 1 and found == _keys(manifest, "alone")


def test_a_wallet_log_without_faults_alone_is_clean(tmp_path: Path) -> None:
    code, out = run("simulate", "--seats", "1-8", "--rounds", "100", "--seed", "12", "--export", "seamless-wallet",
                    "-o", str(tmp_path / "w.jsonl"))
    assert code == 0, out
    code, report = check_json("--mapping", "seamless-wallet", str(tmp_path / "w.jsonl"))
    assert code == 0 and report["problems"] == []
