"""A live table's games on the two pages (issue 43, "Trust by default"): ``referee report``
and ``referee recall --format html`` draw a disputed game as they draw a format-1 round,
its cards as pictures and its ruling, the cards dealt to every seat once and each
disputed seat with its own cards (when it holds them) and ``explain --game G --player P``'s
ruling. Before, neither page had a card or a ruling for a live table."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from .conftest import SAMPLES, Write, run

TABLE = str(SAMPLES / "table.yaml")
CARD = '<svg class="card'

#: A land-based table: each seat its own two cards, two seats paid wrong (one short,
#: one over), one paid right.
OWN_CARDS = {
    "format": 2,
    "session": {"id": "land-1", "profile": "vivo", "table": "L1", "opening_balances": {"a": 100, "b": 100, "c": 100}},
    "games": [{
        "game": "g1", "round": 1, "flop": ["A♠", "7♦", "4♣"], "turn": "9♥", "river": "2♠", "dealer": ["Q♠", "Q♣"],
        "seats": [
            {"player_id": "a", "player": ["A♥", "K♦"], "ante": 1, "decision": "call",
             "recorded": {"outcome": "win", "net": 2, "balance": 102}},
            {"player_id": "b", "player": ["3♥", "3♦"], "ante": 1, "decision": "call",
             "recorded": {"outcome": "win", "net": 3, "balance": 103}},
            {"player_id": "c", "player": ["8♣", "5♦"], "ante": 1, "decision": "fold",
             "recorded": {"outcome": "fold", "net": -1, "balance": 99}},
        ]}],
}


def page(tmp_path: Path, *args: str, name: str = "page.html") -> str:
    out = tmp_path / name
    code, said = run(*args, "--output", str(out))
    assert code == 1, said  # every file here has findings
    return out.read_text(encoding="utf-8")


def articles(html: str) -> list[str]:
    return re.findall(r'<article class="dispute"[^>]*>.*?</article>', html, flags=re.S)


def seats(article: str) -> list[str]:
    return re.findall(r'<section class="seat">.*?</section>', article, flags=re.S)


def test_the_report_draws_a_live_tables_disputed_games(tmp_path: Path) -> None:
    html = page(tmp_path, "report", TABLE)
    games = articles(html)
    assert len(games) == 2  # 8812345 (W002) and 8812347 (P001 P004 W002): the clean games are not drawn
    assert "Game 8812345 · Round 2" in games[0] and "Game 8812347 · Round 4" in games[1]
    last = games[1]
    # The shared hand, flop, turn, river and dealer once: nine cards, the red ones red.
    assert last.count(CARD) == 9 and last.count('<svg class="card red"') == 3
    assert "Shared hand" in last and 'aria-label="J♠"' in last
    [seat] = seats(last)  # p-1001 was paid right: only p-1002 is drawn
    assert "<h5>Player p-1002 · " in seat and CARD not in seat  # a shared hand: no cards of its own
    assert "The table paid +44 EUR; the rules give +204 EUR; 160 EUR is owed to the player." in seat
    assert "Game 8812347, player p-1002, session CH-7/2026-11-29/evening" in seat  # explain's ruling
    assert "P001 ante-result: the Ante&#x27;s result: the table recorded +40, the rules give +200." in seat
    assert "<h3>Rulings of the games with findings</h3>" in html
    anchors = set(re.findall(r'id="([^"]+)"', html))
    links = re.findall(r'<tr class="finding"><td><a href="#([^"]+)">(\d+)</a>', html)
    assert [game for _, game in links] == ["8812345", "8812347", "8812347", "8812347"]
    assert all(anchor in anchors and anchor.endswith("-ruling") for anchor, _ in links)  # each finding to its game


def test_the_board_is_drawn_once_and_each_seat_its_own_cards(tmp_path: Path, write: Write) -> None:
    path = write("land.yaml", yaml.safe_dump(OWN_CARDS, allow_unicode=True, sort_keys=False))
    [game] = articles(page(tmp_path, "report", path))
    drawn = seats(game)
    assert [re.search(r"<h5>Player (\w)", s)[1] for s in drawn] == ["a", "b"]  # type: ignore[index]
    assert all(s.count(CARD) == 2 for s in drawn)  # each seat's own two cards, with its ruling
    assert 'aria-label="A♥"' in drawn[0] and 'aria-label="3♥"' in drawn[1]
    assert game.count(CARD) == 3 + 1 + 1 + 2 + 2 * 2  # the board and the dealer once, then the seats'
    assert "Shared hand" not in game
    assert "1 is owed to the player" in drawn[0] and "is owed to the house" in drawn[1]


def test_recall_draws_the_seats_of_the_game_asked_for(tmp_path: Path) -> None:
    html = page(tmp_path, "recall", TABLE, "--game", "8812347", "--last", "2", "--format", "html")
    [game] = articles(html)
    assert "<h3>Game 8812347</h3>" in game and game.count(CARD) == 9
    drawn = seats(game)  # every seat of the game asked for, as format 1 shows the round asked for
    assert len(drawn) == 2 and "<h5>Player p-1001</h5>" in drawn[0] and "<h5>Player p-1002 · " in drawn[1]
    assert "Game 8812347, player p-1002, session" in drawn[1] and "160 EUR is owed to the player" in drawn[1]
    assert "nobody is owed anything" in drawn[0]
    one = page(tmp_path, "recall", TABLE, "--player", "p-1002", "--last", "1", "--format", "html", name="one.html")
    [game] = articles(one)
    assert len(seats(game)) == 1 and game.count(CARD) == 9 and "Game 8812347, player p-1002" in game


def test_recall_draws_a_cancelled_games_cards_as_recorded(tmp_path: Path) -> None:
    out = tmp_path / "cancelled.html"
    code, _ = run("recall", TABLE, "--game", "8812346", "--last", "1", "--format", "html", "--output", str(out))
    assert code == 0
    [game] = articles(out.read_text(encoding="utf-8"))
    assert game.count(CARD) == 2 + 3 and len(seats(game)) == 2  # its hand and flop as recorded
    assert "The table cancelled the game" in game


def test_the_pages_in_french(tmp_path: Path) -> None:
    html = page(tmp_path, "report", TABLE, "--lang", "fr")
    assert "<h3>Décisions des parties avec constats</h3>" in html and "Main commune" in html
    assert "<h5>Joueur p-1002 · " in html and "160 EUR sont dus au joueur" in html
    recall = page(tmp_path, "recall", TABLE, "--game", "8812347", "--format", "html", "--lang", "fr", name="r.html")
    assert "<h3>Partie 8812347</h3>" in recall and "Main commune" in recall


def test_the_report_under_jobs_draws_the_same_games(tmp_path: Path) -> None:
    one = articles(page(tmp_path, "report", TABLE, str(SAMPLES / "table.jsonl"), name="one.html"))
    two = articles(page(tmp_path, "report", TABLE, str(SAMPLES / "table.jsonl"), "--jobs", "2", name="two.html"))
    assert len(one) == 4 and one == two


def test_recall_from_a_store_draws_as_from_the_files(tmp_path: Path, store_url: str) -> None:
    assert run("check", "--store", store_url, "--quiet", TABLE)[0] == 1
    files = page(tmp_path, "recall", TABLE, "--game", "8812347", "--format", "html", name="files.html")
    stored = page(tmp_path, "recall", "--store", store_url, "--game", "8812347", "--format", "html", name="st.html")
    assert articles(files) == articles(stored) and len(seats(articles(stored)[0])) == 2
