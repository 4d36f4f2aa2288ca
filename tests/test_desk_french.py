"""The desk in French (a floor manager's trial): every refusal a page shows is said in
the page's language (the API's stay English), the store's file is never named, a
decimal comma is read as the case forms read it, Watch's words and numbers are French."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .desk_support import GAME, PLAYER, TABLE, client, login, make_store

pytest.importorskip("fastapi", reason="the desk needs the serve extra")


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> str:
    folder = tmp_path_factory.mktemp("deskfr")
    return make_store(str(folder / "audit.db"), folder)


def french(c: Any, path: str, status: int, *said: str) -> str:
    """The page at ``path`` (French by the cookie): its status and the French words it says."""
    answer = c.get(path)
    assert answer.status_code == status, (path, answer.status_code, answer.text[-600:])
    assert '<html lang="fr">' in answer.text
    for words in said:
        assert words in answer.text, (path, words, answer.text[-900:])
    for english in ("Input should", "Not Found", "audit.db", "store "):
        assert english not in answer.text, (path, english)
    text: str = answer.text
    return text


def test_every_refusal_a_page_shows_is_in_its_language(store: str) -> None:
    with client(store) as c:
        token = login(c, "floor")
        c.get("/find?lang=fr")
        french(c, "/find?min_owed=abc", 400, "Dû au moins : pas un montant (un nombre décimal, comme 4 ou 12,50)")
        french(c, "/find?since=2026-1", 400, "Du (UTC) : pas une date et une heure (par exemple 2026-12-06T21:30)")
        french(c, f"/find?table={TABLE}&limit=1000", 400, "limit : au plus 500")
        french(c, f"/games/{GAME}/sheet?player=nobody", 404,
               "le joueur &#39;nobody&#39; n&#39;était pas assis à la partie &#39;8812347&#39;")
        french(c, "/games/NOPE", 404, "pas de partie NOPE")
        french(c, "/cases/99", 404, "pas de dossier 99")
        french(c, "/nowhere", 404, "Page introuvable")
        french(c, "/cases/abc", 422, "Dossier : pas un nombre entier")
        french(c, "/cases?status=lost", 422, "État : pas une des valeurs admises")
        for amount, said in (("", "une décision « dû au joueur » demande le montant dû"),
                             ("4 EUR", "&#39;4 EUR&#39; n&#39;est pas un montant (un nombre décimal, comme 4 ou "
                                       "12,50)"),
                             ("0", "un montant « dû au joueur » est un nombre plus grand que 0 (au plus 6 décimales)")):
            refused = c.post("/cases", data={"csrf_token": token, "game": GAME, "player": PLAYER,
                                             "decision": "owed_to_player", "amount": amount})
            assert refused.status_code == 400 and said in refused.text, (amount, refused.text[-600:])
            assert "needs the amount" not in refused.text and "is not an amount" not in refused.text
        refused = c.post("/watch/1", data={"csrf_token": token, "action": "ack"})
        assert refused.status_code == 403 and "votre rôle (salle) ne permet pas de faire ceci" in refused.text
    with client(store) as c:
        token = login(c, "admin")
        c.get("/find?lang=fr")
        named = c.post("/users", data={"csrf_token": token, "name": "Luc Martin", "role": "floor",
                                       "password": "long enough 42"})
        assert named.status_code == 400 and "&#39;Luc Martin&#39; n&#39;est pas un nom de compte" in named.text


def test_the_apis_refusals_stay_english_and_never_name_the_stores_file(store: str) -> None:
    """The API is for programs: its ``detail`` is English whatever the language asked
    (docs/desk.md), and, like the pages, it names no file of the server's."""
    with client(store) as c:
        login(c, "floor")
        missing = c.get("/api/games/NOPE?lang=fr", headers={"Accept-Language": "fr"})
        assert missing.status_code == 404 and missing.json() == {"detail": "no game NOPE"}
        limit = c.get("/api/search?limit=1000", headers={"Accept-Language": "fr"})
        assert limit.status_code == 422 and "less than or equal to 500" in limit.text


def test_a_decimal_comma_is_read_by_find_as_by_the_case_forms(store: str) -> None:
    from referee.desk.words import decimal_text

    assert [decimal_text(t, "fr") for t in ("4,00", "4,5", " 12,50 ", "1 000,50", "1\u202f000", "4.5", "1,000")] == [
        "4.00", "4.5", "12.50", "1000.50", "1000", "4.5", "1.000"]
    # In English a comma before three digits groups thousands: left, so refused, not read as 1.
    assert [decimal_text(t, "en") for t in ("4,00", "4,5", "1,000", "1,000.50", "4 EUR")] == [
        "4.00", "4.5", "1,000", "1,000.50", "4 EUR"]
    with client(store) as c:
        login(c, "floor")
        for lang in ("fr", "en"):
            found = c.get(f"/find?lang={lang}&table={TABLE}&min_owed=4,00")
            assert found.status_code == 200 and f'href="/games/{GAME}"' in found.text, lang
        assert c.get(f"/find?lang=en&table={TABLE}&min_owed=1,000").status_code == 400


def test_a_case_form_takes_a_french_amount(tmp_path: Path) -> None:
    url = make_store(str(tmp_path / "cases.db"), tmp_path)
    with client(url) as c:
        token = login(c, "floor")
        c.get("/find?lang=fr")
        opened = c.post("/cases", data={"csrf_token": token, "game": GAME, "player": PLAYER,
                                        "decision": "owed_to_player", "amount": "1 000,50"}, follow_redirects=False)
        assert opened.status_code == 303, opened.text[-500:]
        assert c.get("/api/cases").json()["cases"][0]["amount"] == "1000.5"
        page = c.get("/cases/1").text  # French punctuation: a space before the colon; the amount as French writes it
        assert "<p class=\"bottomline\">un montant est dû au joueur : 1\u00a0000,5</p>" in page, page
        assert "<td>décidé : un montant est dû au joueur 1\u00a0000,5</td>" in page
        assert "1\u00a0000,5" in c.get("/cases").text
        english = c.get("/cases/1?lang=en").text
        assert "an amount is owed to the player: 1,000.5" in english and "decided: an amount is owed" in english


def sentences(tree: ast.AST) -> Iterator[str]:
    """The sentences a module refuses with: ``Refused(status, "...")``, ``worded(Error,
    "...")``, an upload's ``_refused("...")``."""
    at = {"Refused": 1, "worded": 1, "_refused": 0}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in at:
            index = at[node.func.id]
            words = node.args[index] if len(node.args) > index else None
            if isinstance(words, ast.Constant) and isinstance(words.value, str):
                yield words.value


def test_every_refusal_of_the_desk_and_the_stores_words_are_in_the_french_catalogue() -> None:
    """Each sentence a page may refuse with: the desk's ``Refused``, the store's
    ``worded`` errors, the words of a value refused by its type, and the terms put in them."""
    from referee.desk.words import FIELD_WORDS, PROBLEM_WORDS, messages
    from referee.store.accounts import ROLES
    from referee.store.cases import DECISIONS, STATUSES

    from .conftest import ROOT

    catalogue = messages("fr").catalogue._catalog  # type: ignore[attr-defined]
    said = set(PROBLEM_WORDS.values()) | set(FIELD_WORDS.values()) | set(ROLES) | set(STATUSES)
    said |= {d.replace("_", " ") for d in DECISIONS if d != "stands"} | {"game", "player", "Not Found",
                                                                           "Method Not Allowed", "{field}: {problem}"}
    for module in (ROOT / "referee").rglob("*.py"):
        said |= set(sentences(ast.parse(module.read_text(encoding="utf-8"))))
    assert len(said) > 60
    missing = sorted(m for m in said if f"desk\x04{m}" not in catalogue)
    assert not missing


def test_watch_says_its_segments_windows_bets_chart_and_numbers_in_french(store: str) -> None:
    with client(store) as c:
        login(c, "risk")
        page = c.get("/watch?lang=fr").text
        english = c.get("/watch?lang=en").text
    groups = page.split('<table class="alerts">')[1].split("</table>")[0]
    assert "<strong>table CH-7</strong>" in groups and "Ante et Call · 1\u00a0000 dernières parties" in groups
    assert "<td>joueur p-1002</td>" in groups and ">-7,2<" in groups
    assert "<strong>donneur d-4</strong> <span class=\"muted\">donne · jour</span>" in groups
    chart = page.split('id="chart-1"')[1].split("</figure>")[0]
    for said in ("Fenêtre 1\u00a0000 dernières parties : 3 parties", ">observé<", ">attendu<",  # no band: no z kept
                 ">heure (UTC)<", ">net<"):
        assert said in chart, said
    for word in ("ante+call", "last 1,000", ">observed<", ">expected<", "time (UTC)", "dealer d-4"):
        assert word not in page, word
    # English as the monitor says it
    assert "ante+call · last 1,000 games" in english and ">observed<" in english and ">time (UTC)<" in english


def test_numbers_and_the_monitors_names_in_french() -> None:
    from referee.desk.words import number, segment_words, window_words

    assert [number("fr", n) for n in (2968, 10_000, "-7.2", None)] == ["2\u00a0968", "10\u00a0000", "-7,2", ""]
    assert [number("en", n) for n in (2968, "-7.2")] == ["2,968", "-7.2"]
    assert [segment_words("fr", s) for s in ("player p-1", "stake ante <= 1", "dealer d-3", "all all", "odd")] == [
        "joueur p-1", "mise ante <= 1", "donneur d-3", "toutes les tables", "odd"]
    assert [window_words("fr", w) for w in ("last 10,000 games", "week", "odd")] == [
        "10\u00a0000 dernières parties", "semaine", "odd"]
    assert window_words("en", "last 10,000 games") == "last 10,000 games"


def test_the_floors_view_of_a_game_says_findings_in_words_the_auditors_keeps_codes(store: str) -> None:
    """docs/desk.md: the codes are the auditor's view; a floor manager reads what was
    found in words (a code such as "P001 ante-result" means nothing at the table)."""
    with client(store) as c:
        login(c, "floor")
        floor = c.get(f"/games/{GAME}?lang=fr").text
    with client(store) as c:
        login(c, "auditor")
        auditor = c.get(f"/games/{GAME}?lang=fr").text
    said = "Le résultat d&#39;Ante : la table a enregistré +40, les règles donnent +200."
    assert said in floor
    for code in ("P001", "P004", "W002", "ante-result", "wallet-credit"):
        assert code not in floor and code in auditor, code


def test_a_screen_reader_is_told_the_cards_drawn_in_the_pages_language(store: str) -> None:
    """A card's label is the card drawn (the French R, D, V, 10), not its English token."""
    with client(store) as c:
        login(c, "viewer")
        page = c.get(f"/games/{GAME}?lang=fr").text
        english = c.get(f"/games/{GAME}?lang=en").text
    labels = re.findall(r'role="img" aria-label="([^"]+)"', page)
    assert {"10♠", "V♠", "D♠", "R♠"} <= set(labels)
    assert not {"T♠", "J♠", "Q♠", "K♠"} & set(labels)
    assert {"10♠", "J♠", "Q♠", "K♠"} <= set(re.findall(r'role="img" aria-label="([^"]+)"', english))


def test_an_uploads_refusals_and_limit_are_in_french(store: str) -> None:
    with client(store, max_upload=200_000) as c:
        token = login(c, "auditor")
        page = c.get("/upload?lang=fr").text
        assert "Au plus 200\u00a0000 octets" in page
        big = c.post("/upload", data={"csrf_token": token}, files={"file": ("big.yaml", b"#" * 300_000)})
        assert big.status_code == 413 and "la limite est de 200\u00a0000 octets" in big.text
        named = c.post("/upload", data={"csrf_token": token}, files={"file": ("photo.exe", b"MZ")})
        assert named.status_code == 400 and "&#39;photo.exe&#39; n&#39;est pas un journal ou un export" in named.text
        unknown = c.post("/upload", data={"csrf_token": token, "mapping": "nope"},
                         files={"file": ("e.json", b"[]")})
        assert unknown.status_code == 400 and "&#39;nope&#39; n&#39;est pas une correspondance intégrée" in unknown.text
