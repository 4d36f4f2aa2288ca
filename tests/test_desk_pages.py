"""The desk's pages and API at work (issue 48): Find, a game in English and French, the
dispute sheet, cases and their export, Watch's alert groups and the store's verification,
Upload, Users, and ``referee serve``'s refusals."""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from .conftest import ROOT, SAMPLES, run
from .desk_support import GAME, PASSWORD, PLAYER, TABLE, client, login, make_store, split_store

pytest.importorskip("fastapi", reason="the desk needs the serve extra")


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> str:
    folder = tmp_path_factory.mktemp("desk")
    return make_store(str(folder / "desk.db"), folder)


@pytest.fixture
def fresh(tmp_path: Path) -> str:
    """A store of the test's own (its cases and alerts start empty)."""
    return make_store(str(tmp_path / "desk.db"), tmp_path)


@pytest.fixture
def viewer(store: str) -> Iterator[Any]:
    with client(store) as c:
        login(c, "viewer")
        yield c


def games(answer: Any) -> list[str]:
    assert answer.status_code == 200, answer.text
    return [g["game_id"] for g in answer.json()["games"]]


def test_find_by_table_and_time_by_code_by_amount_and_by_player(viewer: Any) -> None:
    window = {"table": TABLE, "since": "2026-11-29T20:20:00", "until": "2026-11-29T20:30:00"}
    assert games(viewer.get("/api/search", params=window)) == [GAME]
    assert sorted(games(viewer.get("/api/search", params={"code": "P001"}))) == [GAME, "9912347"]
    assert games(viewer.get("/api/search", params={"table": TABLE, "min_owed": "100"})) == [GAME]
    dealt = viewer.get("/api/search", params={"table": TABLE, "dealer": "d-17"})
    assert games(dealt) == ["8812346", "8812345", "8812344"]
    assert games(viewer.get("/api/search", params={"game": "nope"})) == []
    page = viewer.get("/find", params={"mode": "search", **window})
    assert page.status_code == 200 and f'href="/games/{GAME}"' in page.text and "8812345" not in page.text
    bad = viewer.get("/api/search", params={"since": "yesterday"})
    assert bad.status_code == 422 and "since" in bad.text


def test_recall_gives_the_players_game_and_those_before_it(viewer: Any) -> None:
    assert games(viewer.get("/api/recall", params={"player": PLAYER, "game": GAME})) == ["8812344", "8812345", GAME]
    missing = viewer.get("/api/recall", params={"player": "nobody", "game": GAME})
    assert missing.status_code == 404
    page = viewer.get("/find", params={"mode": "recall", "player": PLAYER, "game": GAME})
    assert page.status_code == 200 and page.text.count('href="/games/') == 3


def test_the_desks_recall_gives_each_seats_decision_net_and_balance_as_referee_recall_does(
        viewer: Any, store: str) -> None:
    """A floor manager's trial: the desk's recall had empty columns and none of what
    ``referee recall`` gives. Each row now has the player's decision, the rules' net and
    their balance by the rules, the very figures of ``referee recall --format json``; a
    recall asked without its game says what it needs."""
    code, out = run("recall", "--store", store, "--player", PLAYER, "--game", GAME, "--format", "json")
    assert code in (0, 1), out
    rounds = json.loads(out)["recalls"][0]["rounds"]
    rows = viewer.get("/api/recall", params={"player": PLAYER, "game": GAME}).json()["games"]
    assert [(r["game_id"], r["decision"], Decimal(r["net"]), Decimal(r["balance"])) for r in rows] == [
        (x["game"], x["decision"], Decimal(str(x["settlement"]["net"])), Decimal(str(x["balance"]))) for x in rounds]
    page = viewer.get("/find", params={"mode": "recall", "player": PLAYER, "game": GAME, "lang": "en"}).text
    assert "Balance by the rules" in page and f'href="/games/{GAME}?player={PLAYER}"' in page
    assert "<td class=\"n\">+204</td>" in page and "<td class=\"n\">412</td>" in page
    alone = viewer.get("/find", params={"mode": "recall", "player": PLAYER})
    assert alone.status_code == 400 and "A recall needs the player and one of their games" in alone.text


def test_a_tables_games_around_a_time(viewer: Any) -> None:
    page = viewer.get("/find", params={"mode": "table", "table": TABLE, "at": "2026-11-29T20:18"})
    assert page.status_code == 200
    assert [m for m in re.findall(r'href="/games/(\d+)"', page.text)] == ["8812344", "8812345", "8812346", GAME]
    bad = viewer.get("/find", params={"mode": "table", "table": TABLE, "at": "tonight"})
    assert bad.status_code == 400 and "2026-12-06T21:30" in bad.text


def test_a_games_api_answer_has_each_seat_labelled(viewer: Any) -> None:
    g = viewer.get(f"/api/games/{GAME}").json()
    seat = next(s for s in g["seats"] if s["player_id"] == PLAYER)
    assert (seat["outcome"], seat["net"], seat["recorded"], seat["owed"]) == ("win", "+204", "+44", "+160")
    assert [f["code"] for f in seat["findings"]] == ["P001", "P004", "W002"]
    assert seat["ruling"][0].startswith(f"Game {GAME}, player {PLAYER}")
    french = viewer.get(f"/api/games/{GAME}?lang=fr").json()
    assert french["lang"] == "fr"
    assert any("160 EUR sont dus au joueur" in line for s in french["seats"] for line in s["ruling"])
    assert viewer.get("/api/games/no-such-game").status_code == 404


def test_a_games_page_says_the_bottom_line_first_then_the_cards_and_each_seat(viewer: Any) -> None:
    page = viewer.get(f"/games/{GAME}").text
    bottom = page.index("160 EUR is owed to the player")
    assert bottom < page.index("<svg class=\"card") < page.index('id="seat-p-1002"')
    assert page.count("<svg class=\"card") == 9  # a shared hand, the board, the dealer's two
    for label in ("By the rules", "Recorded", "Wallet", "The ruling, card by card", "What was found"):
        assert label in page
    # a viewer reads what was found in words; the codes are the auditor's view (test_desk_french.py)
    assert "The Ante&#39;s result: the table recorded +40, the rules give +200." in page and "P001" not in page


def test_french_by_asking_by_the_browser_and_remembered(store: str) -> None:
    with client(store) as c:
        login(c, "viewer")
        asked = c.get(f"/games/{GAME}?lang=fr")
        assert '<html lang="fr">' in asked.text and "Selon les règles" in asked.text
        assert "160 EUR sont dus au joueur" in asked.text and "By the rules" not in asked.text
        assert '<html lang="fr">' in c.get("/cases").text  # the cookie keeps it
    with client(store) as c:
        login(c, "viewer")
        browser = c.get("/find", headers={"Accept-Language": "de-DE,fr;q=0.8,en;q=0.5"})
        assert '<html lang="fr">' in browser.text and "Trouver une partie" in browser.text
        english = c.get("/find", headers={"Accept-Language": "en-GB,fr;q=0.5"})
        assert '<html lang="en">' in english.text


def test_every_word_of_the_desk_is_in_the_french_catalogue() -> None:
    from referee.desk.words import DECISION_WORDS, messages

    catalogue = messages("fr").catalogue._catalog  # type: ignore[attr-defined]
    said = set(DECISION_WORDS.values()) | {"viewer", "floor", "risk", "auditor", "admin", "open", "decided", "closed",
                                           "acknowledged", "resolved", "opened"}
    for template in (ROOT / "referee" / "templates" / "desk").glob("*.j2"):
        said |= set(re.findall(r"""d_\((?:"([^"]+)"|'([^']+)')""", template.read_text(encoding="utf-8"))[0:0])
        said |= {a or b for a, b in re.findall(r"""d_\((?:"([^"]+)"|'([^']+)')""",
                                               template.read_text(encoding="utf-8"))}
    for module in (ROOT / "referee" / "desk").glob("*.py"):
        said |= set(re.findall(r'(?:said|words\(request\))\("([^"]+)"', module.read_text(encoding="utf-8")))
    assert len(said) > 100
    missing = sorted(m for m in said if f"desk\x04{m}" not in catalogue)
    assert not missing


def test_the_sheet_is_the_players_without_codes_and_the_auditors_with_them(store: str) -> None:
    with client(store) as c:
        login(c, "floor")
        sheet = c.get(f"/games/{GAME}/sheet?player={PLAYER}&lang=fr&view=auditor").text  # floor: no auditor's view
        assert "Fiche de litige" in sheet and "160 EUR sont dus au joueur" in sheet
        for code in ("P001", "P004", "W002", "samples/table.yaml:"):
            assert code not in sheet
        assert 'id="seat-p-1001"' not in sheet  # only the player asked about
        assert "réglée le 2026-11-29 à 20:22:15 (UTC)" in sheet  # the game's time said as what it is
        english = c.get(f"/games/{GAME}/sheet?player={PLAYER}&lang=en").text
        assert "settled on 2026-11-29 at 20:22:15 (UTC)" in english and "2026-11-29T20:22:15Z" not in english
        assert c.get(f"/games/{GAME}/sheet?player=nobody").status_code == 404
    with client(store) as c:
        login(c, "auditor")
        sheet = c.get(f"/games/{GAME}/sheet?player={PLAYER}&view=auditor").text
        assert "P001" in sheet and "samples/table.yaml:" in sheet


def test_a_case_opened_decided_closed_and_exported(fresh: str) -> None:
    with client(fresh) as c:
        token = login(c, "floor")
        opened = c.post("/cases", data={"csrf_token": token, "game": GAME, "player": PLAYER,
                                        "decision": "owed_to_player", "amount": "160", "note": "paid 44"},
                        follow_redirects=False)
        assert opened.status_code == 303 and opened.headers["location"] == "/cases/1"
        page = c.get("/cases/1").text
        assert "an amount is owed to the player: 160" in page and "floor" in page
        again = c.post("/cases/1/decide", data={"csrf_token": token, "decision": "owed_to_player", "amount": "0,5",
                                                "note": "on review"}, follow_redirects=False)
        assert again.status_code == 303
        assert c.post("/cases/1/close", data={"csrf_token": token, "note": "paid"}).status_code == 200
        late = c.post("/cases/1/decide", data={"csrf_token": token, "decision": "stands"})
        assert late.status_code == 400 and "closed" in late.text
        api = c.post("/api/cases", json={"game": GAME, "player": "p-1001", "decision": "owed_to_house"},
                     headers={"X-CSRF-Token": token})
        assert api.status_code == 400 and "amount" in api.json()["detail"]
        written = c.post("/api/cases", json={"game": GAME, "player": "p-1001", "decision": "owed_to_house",
                                             "amount": "1e3"}, headers={"X-CSRF-Token": token})
        assert written.status_code == 400 and "not an amount" in written.json()["detail"]
        nobody = c.post("/api/cases", json={"game": GAME, "player": "p-9", "decision": "stands"},
                        headers={"X-CSRF-Token": token})
        assert nobody.status_code == 404
        stands = c.post("/api/cases", json={"game": GAME, "player": "p-1001", "decision": "stands", "note": "ok"},
                        headers={"X-CSRF-Token": token})
        assert stands.status_code == 201 and stands.json()["status"] == "decided" and stands.json()["amount"] is None
        exported_csv = c.get("/cases/export.csv").content
        rows = list(csv.DictReader(io.StringIO(exported_csv.decode("utf-8"))))
        assert [(r["case"], r["status"], r["decision"], r["amount"]) for r in rows] == [
            ("1", "closed", "owed_to_player", "0.5"), ("2", "decided", "stands", "")]
        exported = c.get("/cases/export.json")
        assert exported.headers["content-disposition"] == 'attachment; filename="cases.json"'
        events = c.get("/cases/export.json?events=1")
        assert [e["kind"] for e in events.json()["events"] if e["case"] == 1] == [
            "opened", "decided", "decided", "closed"]
        cli = {(kind, extra): run("cases", "export", "--store", fresh, "--format", kind, *extra)
               for kind in ("csv", "json") for extra in ((), ("--events",))}
    # One layout whoever exports: the desk's files are the command's, byte for byte.
    assert cli[("csv", ())] == (0, exported_csv.decode("utf-8"))
    assert cli[("json", ())] == (0, exported.text) and cli[("json", ("--events",))] == (0, events.text)
    code, out = run("store", "verify", fresh)
    assert code == 0, out  # the cases are in their chains, intact


def test_watch_lists_the_alert_groups_and_risk_acknowledges_and_resolves(fresh: str) -> None:
    with client(fresh) as c:
        token = login(c, "risk")
        listed = c.get("/api/alerts").json()["alerts"]
        assert [(a["lead"], a["status"]) for a in listed] == [(f"table {TABLE}", "open"), ("dealer d-4", "open")]
        page = c.get("/watch").text
        assert f'href="/games/{GAME}"' in page and "table CH-7" in page
        chart = page.split('id="chart-1"')[1].split("</figure>")[0]  # the monitor's control chart of the table
        assert re.findall(r'xlink:href="/games/(\d+)"', chart) == ["8812344", "8812345", GAME]  # its games, by time
        assert "time (UTC)" in chart and "2026-11-29 20:1" in chart  # a date axis
        assert 'id="chart-2"' not in page  # the dealer's deal test: no control chart
        acked = c.post(f"/api/alerts/{listed[0]['id']}/ack", json={"note": "calling the studio"},
                       headers={"X-CSRF-Token": token})
        assert acked.status_code == 200 and acked.json()["status"] == "acknowledged"
        assert acked.json()["by"] == "risk" and acked.json()["note"] == "calling the studio"
        twice = c.post(f"/api/alerts/{listed[0]['id']}/ack", json={"note": "me too"}, headers={"X-CSRF-Token": token})
        assert twice.status_code == 409  # the rule of referee alerts ack: someone has it already, said who
        assert "acknowledged already, by risk at " in twice.json()["detail"] and "force" in twice.json()["detail"]
        forced = c.post(f"/api/alerts/{listed[0]['id']}/ack", json={"note": "me too", "force": True},
                        headers={"X-CSRF-Token": token})
        assert forced.status_code == 200  # both kept (alerts show lists them): the first still holds it
        assert (forced.json()["by"], forced.json()["note"], forced.json()["state"]) == ("risk", "calling the studio",
                                                                                         "acknowledged")
        assert [(a["action"], a["note"]) for a in forced.json()["actions"]] == [("ack", "calling the studio"),
                                                                                ("ack", "me too")]
        done = c.post(f"/watch/{listed[0]['id']}", data={"csrf_token": token, "action": "resolve", "note": "fixed"})
        assert done.status_code == 200
        again = c.post(f"/api/alerts/{listed[0]['id']}/ack", json={}, headers={"X-CSRF-Token": token})
        assert again.status_code == 409
        # Watch keeps who acted, when and what they said, every action once resolved, and
        # says on what basis each group was raised (a risk analyst's trial found none of it)
        row = c.get("/watch").text.split(f'id="alert-{listed[0]["id"]}"')[1].split("</tr>")[0]
        assert "what the seats were paid" in row
        said = re.findall(r'<span class="muted action">([^<]+)</span>', row)
        assert [re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", "T", x) for x in said] == [
            "acknowledged by risk at T (UTC): calling the studio", "acknowledged by risk at T (UTC): me too",
            "resolved by risk at T (UTC): fixed"]
        french = c.get("/watch", params={"lang": "fr"}).text.split(f'id="alert-{listed[0]["id"]}"')[1]
        assert "ce qui a été payé aux places" in french and "résolu par risk le " in french
        assert c.post("/api/alerts/999/ack", json={}, headers={"X-CSRF-Token": token}).status_code == 404
    code, out = run("alerts", "list", "--store", fresh)
    assert code == 1 and "resolved" in out and "1 open" in out  # the same records as referee alerts


def test_watch_verifies_the_store_and_shows_each_sources_status(fresh: str) -> None:
    with client(fresh) as c:
        token = login(c, "auditor")
        assert "Not verified since the desk started." in c.get("/watch").text
        page = c.post("/watch/verify", data={"csrf_token": token}).text
        assert "0 problems" in page and page.count('class="ok">intact') == 2


def test_upload_checks_and_stores_a_log_and_refuses_plainly(fresh: str) -> None:
    with client(fresh, max_upload=200_000) as c:
        token = login(c, "auditor")
        log = (SAMPLES / "clean.yaml").read_bytes()
        done = c.post("/upload", data={"csrf_token": token}, files={"file": ("../../etc/clean.yaml", log)})
        assert done.status_code == 200, re.findall(r"Refused.*", done.text)
        assert "clean.yaml was checked. It is clean. The store: 1 source stored." in done.text
        assert "1 file, 1 session, " in done.text and "by_severity" not in done.text  # check's words, not its data
        again = c.post("/upload", data={"csrf_token": token}, files={"file": ("clean.yaml", log)})
        assert "The store: 0 sources stored, 1 already there." in again.text  # said, as check --store says it
        assert fresh not in again.text  # the store's own address is not shown
        export = (SAMPLES / "exports" / "evolution-history.json").read_bytes()
        mapped = c.post("/upload", data={"csrf_token": token, "mapping": "evolution-history", "profile": "vivo"},
                        files={"file": ("evolution.json", export)})
        assert mapped.status_code == 200 and "evolution.json was checked. It has findings." in mapped.text
        big = c.post("/upload", data={"csrf_token": token}, files={"file": ("big.yaml", b"#" * 300_000)})
        assert big.status_code == 413 and "the limit is 200,000 bytes" in big.text  # refused before it is read
        named = c.post("/upload", data={"csrf_token": token}, files={"file": ("photo.exe", b"MZ")})
        assert named.status_code == 400 and "is not a log or an export" in named.text
        broken = c.post("/upload", data={"csrf_token": token}, files={"file": ("broken.yaml", b"sessions: [\n")})
        assert broken.status_code == 400 and "Refused:" in broken.text and "Traceback" not in broken.text
        unknown = c.post("/upload", data={"csrf_token": token, "mapping": "nope"},
                         files={"file": ("e.json", export)})
        assert unknown.status_code == 400 and "is not a built-in mapping" in unknown.text
    from .store_support import source_names

    # what check --store keeps of a log it cannot read (the bytes, marked unreadable) is kept too
    assert source_names(fresh)[-3:] == ["clean.yaml", "evolution.json", "broken.yaml"]


def test_admin_adds_disables_and_resets_users(fresh: str) -> None:
    with client(fresh) as c:
        token = login(c, "admin")
        assert c.post("/users", data={"csrf_token": token, "name": "ana", "role": "floor",
                                      "password": PASSWORD}).status_code == 200
        short = c.post("/users", data={"csrf_token": token, "name": "bob", "role": "floor", "password": "x"})
        assert short.status_code == 400 and "password" in short.text
        role = c.post("/users", data={"csrf_token": token, "name": "bob", "role": "root", "password": PASSWORD})
        assert role.status_code == 400
        from fastapi.testclient import TestClient

        with TestClient(c.app) as ana:  # the same desk: its sessions
            login(ana, "ana")
            assert c.post("/users/ana/password", data={"csrf_token": token,
                                                       "password": "another one 7"}).status_code == 200
            assert ana.get("/api/session").status_code == 401  # a new password ends her sessions
            login(ana, "ana", "another one 7")
            assert c.post("/users/ana/disable", data={"csrf_token": token}).status_code == 200
            assert ana.get("/api/session").status_code == 401
        assert "disabled" in c.get("/users").text


def test_serve_refuses_a_missing_store_plainly(tmp_path: Path) -> None:
    code, out = run("serve", "--store", str(tmp_path / "none.db"))
    assert code == 2 and "none.db" in out and "Traceback" not in out
    code, out = run("serve")
    assert code == 2 and "--store" in out


def test_the_desk_on_both_engines(store_url: str, tmp_path: Path) -> None:
    """One journey on SQLite and on PostgreSQL: log in, find, read, decide, acknowledge;
    the reads and the case in the store's chains, which verify intact."""
    url = make_store(store_url, tmp_path)
    with client(url) as c:
        token = login(c, "floor")
        assert games(c.get("/api/search", params={"table": TABLE, "since": "2026-11-29T20:20:00Z"})) == [GAME]
        seat = next(s for s in c.get(f"/api/games/{GAME}").json()["seats"] if s["player_id"] == PLAYER)
        assert seat["owed"] == "+160"
        case = c.post("/api/cases", json={"game": GAME, "player": PLAYER, "decision": "owed_to_player",
                                          "amount": "160", "note": "paid 44"}, headers={"X-CSRF-Token": token})
        assert case.status_code == 201 and case.json()["amount"] == "160"
    with client(url) as c:
        token = login(c, "risk")
        first = c.get("/api/alerts").json()["alerts"][0]["id"]
        assert c.post(f"/api/alerts/{first}/ack", json={"note": "seen"},
                      headers={"X-CSRF-Token": token}).json()["status"] == "acknowledged"
    from referee.store.access import list_reads

    assert {(r.user, r.what) for r in list_reads(url, subject=PLAYER)} == {("floor", "search"), ("floor", "game")}
    code, out = run("store", "verify", url)
    assert code == 0, out


def test_watch_draws_the_monitors_own_control_chart_of_a_group(fresh: str) -> None:
    """One drawing: Watch's chart of the table's group is, byte for byte, the control chart
    ``monitor --format html`` draws for that cell (the table's seats read and valued as the
    monitor reads them), with each point linked to its game; the band is drawn at the z the
    group was raised at, when its stored band says one."""
    from referee.desk.charts import band_z
    from referee.monitor.html import cell_chart
    from referee.monitor.reading import seats
    from referee.monitor.valuing import value
    from referee.profiles import kept_profiles
    from referee.store.read import Stored

    with client(fresh) as c:
        login(c, "risk")
        page = c.get("/watch").text
    drawn = page.split('id="chart-1"')[1].split("</figcaption>")[1].split("</figure>")[0].strip()
    with Stored(fresh) as stored:
        found = seats(stored.conn, segment=("table", TABLE))
        assert {s.table for s in found} == {TABLE} and len({s.game for s in found}) == 3
        every = seats(stored.conn)  # a segment read alone: the same seats as the whole store's of that segment
        for kind, name, key in (("table", TABLE, "table"), ("player", PLAYER, "player")):
            alone = seats(stored.conn, segment=(kind, name))
            assert [x.order for x in alone] == [x.order for x in every if getattr(x, key) == name] != []
        with kept_profiles(stored.profiles(stored.sources())):
            valuation = value(found)
    own = cell_chart(found, "table", TABLE, "paid", "last 1,000 games", valuation.scale, valuation.scale2, None,
                     link=lambda game: f"/games/{game}")
    uuid = re.compile(r"chart-[0-9a-f-]{36}")  # pygal names each drawing anew
    assert uuid.sub("chart-X", drawn) == uuid.sub("chart-X", own.strip())
    banded = cell_chart(found, "table", TABLE, "paid", "last 1,000 games", valuation.scale, valuation.scale2, 3.72)
    assert ">band<" in banded and ">band<" not in own
    assert band_z("99% family band over 46 tests (Šidák): |z| > 3.72 each (p < 0.0002)") == 3.72
    assert band_z("99% family band") is None



def test_french_says_one_word_for_the_dealer_in_the_header_and_the_ruling(viewer: Any) -> None:
    """The game's header and its ruling, its sheet too, name the dealer as the rest of the
    French output does: donneur (the desk's header once said croupier)."""
    page = viewer.get(f"/games/{GAME}?lang=fr").text
    assert "Donneur d-4" in page and "Le donneur est qualifié" in page and "Donneur : " in page
    sheet = viewer.get(f"/games/{GAME}/sheet", params={"player": PLAYER, "lang": "fr"}).text
    assert "Donneur d-4" in sheet and "donneur" in sheet.split("Donneur d-4", 1)[1]
    assert "croupier" not in (page + sheet).lower()
    from referee.desk.words import messages

    catalogue = messages("fr").catalogue._catalog  # type: ignore[attr-defined]
    dealt = [str(v) for k, v in catalogue.items() if isinstance(k, str) and "dealer" in k.lower()]
    assert len(dealt) > 20 and not [v for v in dealt if "croupier" in v.lower()]


def test_watch_counts_a_sources_games_not_its_records(tmp_path: Path) -> None:
    """A log written again (each game a second record of one stored before) holds no game
    of its own: Watch says 0 games and its second records apart, as ``store info`` does."""
    url = str(tmp_path / "two.db")
    for log in ("table.yaml", "table.jsonl"):
        assert run("check", str(SAMPLES / log), "--store", url, "--quiet")[0] == 1
    assert run("users", "add", "viewer", "--role", "viewer", "--store", url, input=PASSWORD + "\n")[0] == 0
    with client(url) as c:
        login(c, "viewer")
        page = c.get("/watch").text
    rows = dict(re.findall(r'<tr><td>\d+</td><td>[^<]*?(table\.\w+)</td><td>[^<]*</td><td class="n">(.*?)</td>', page))
    assert rows == {"table.jsonl": '0 <span class="muted">(and 4 second records of a game)</span>',
                    "table.yaml": "4"}
    _, info = run("store", "info", url)
    assert "table.jsonl (jsonl" in info and "0 games (and 4 second records of a game)" in info


def test_a_games_page_is_made_once_and_kept_for_its_next_reader(store: str) -> None:
    """The page, its sheet and the API's answer of one game: its seats ruled once a
    language and audience (the desk's memo), the read logged each time."""
    from referee.store.access import list_reads

    with client(store) as c:
        login(c, "viewer")
        memo = c.app.state.desk.backend.rulings
        before = len(list_reads(store, subject=PLAYER, user="viewer"))
        first = c.get(f"/games/{GAME}")
        again = c.get(f"/games/{GAME}")
        assert first.status_code == again.status_code == 200 and (memo.hits, memo.misses) == (1, 1)
        sheet = c.get(f"/games/{GAME}/sheet?player={PLAYER}")
        assert sheet.status_code == 200 and memo.hits == 2  # the same ruling (a viewer's: in words, as the sheet's)
        assert c.get(f"/api/games/{GAME}").status_code == 200 and memo.misses == 2  # the API's names the codes
        assert c.get(f"/api/games/{GAME}").status_code == 200 and memo.hits == 3
        assert c.get(f"/games/{GAME}?lang=fr").status_code == 200 and memo.misses == 3
        assert len(list_reads(store, subject=PLAYER, user="viewer")) - before == 6  # each read logged, kept or not


def test_watch_reads_a_bounded_window_of_a_segment_and_says_which(fresh: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A chart reads the segment's newest ``WATCH_SEATS`` seats, not the whole table (a
    table of millions of seats): with fewer than the table holds, it draws the newest games
    only, whole, and its caption says so; with enough, it says the window is whole."""
    from referee.desk import charts

    with client(fresh) as c:
        login(c, "risk")
        whole = c.get("/watch").text.split('id="chart-1"')[1].split("</figure>")[0]
        assert "Window last 1,000 games: 3 games, the whole window." in whole
        monkeypatch.setattr(charts, "WATCH_SEATS", 6)  # the table's 8 seats: its first game (3 seats) is cut
        cut = c.get("/watch").text.split('id="chart-1"')[1].split("</figure>")[0]
        assert re.findall(r'xlink:href="/games/(\d+)"', cut) == ["8812345", GAME]
        assert ("Window last 1,000 games: its newest 2 games only, of the segment&#39;s newest 5 seats (this page "
                "reads 6 at most; monitor --format html draws the whole window).") in cut
        french = c.get("/watch?lang=fr").text.split('id="chart-1"')[1].split("</figure>")[0]
        assert "Fenêtre 1\u00a0000 dernières parties : ses 2 parties les plus récentes seulement" in french


def test_a_reading_page_is_one_transaction_on_postgresql(store_url: str, tmp_path: Path) -> None:
    """On PostgreSQL a game's page, its API answer, a search and Find each take one
    connection from the pool and one transaction (the session looked up, the reads, the
    read log), committed before the answer; on SQLite three short ones (the read log's
    write is not held while a page is ruled). The reads are logged either way."""
    from sqlalchemy import event

    from referee.store.access import list_reads

    url = make_store(store_url, tmp_path)
    said: list[str] = []
    with client(url) as c:
        login(c, "floor")
        backend = c.app.state.desk.backend
        for made in (backend.engine, backend.reader):
            for name in ("begin", "commit", "rollback"):
                event.listen(made, name, lambda conn, name=name: said.append(name))
            event.listen(made.pool, "checkout", lambda *_: said.append("checkout"))
        for path in (f"/games/{GAME}", f"/api/games/{GAME}", f"/api/search?table={TABLE}", f"/find?table={TABLE}",
                     f"/games/{GAME}/sheet?player={PLAYER}"):
            said.clear()
            assert c.get(path).status_code == 200, path
            if backend.one:
                assert said == ["checkout", "begin", "commit"], (path, said)
            else:
                assert said.count("checkout") == said.count("begin") == 3, (path, said)
        said.clear()
        assert c.get("/games/no-such-game").status_code == 404  # undone, its connection given back
        assert said[-1] == "rollback" and backend.engine.pool.checkedout() == 0
    assert len(list_reads(url, subject=PLAYER)) == 5


def test_watch_charts_a_players_and_a_dealers_group_over_their_own_newest_seats(
        fresh: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A group led by a player, or by a dealer, is charted too, over that segment's own
    newest seats (``referee.monitor.window``): with the limit lowered to 2, the player's
    two newest games (one seat each), not a game of the table's seven; and the caption says
    how many seats of the segment it drew."""
    from referee.alerts import kept
    from referee.desk import charts
    from referee.monitor.groups import AlertGroup
    from referee.monitor.reading import seats
    from referee.store.engine import engine, target
    from referee.store.read import Stored

    made = engine(target(fresh))
    with made.connect() as conn:
        conn.info["write"] = True
        with conn.begin():  # the dealer's on the paid basis: their deal test's group is open on the rules'
            kept.lock(conn)
            ids = [i for i, _ in kept.record_groups(conn, [
                AlertGroup(lead=lead, basis=basis, segments=(lead,), z=-5.0, bet="ante+call",
                           window="last 1,000 games", first_game="8812345", last_game=GAME)
                for lead, basis in ((f"player {PLAYER}", "rules"), ("dealer d-4", "paid"))], [], "99% family band")]
    made.dispose()
    with Stored(fresh) as stored:
        mine = list(dict.fromkeys(s.game[2] for s in seats(stored.conn) if s.player == PLAYER))
    assert len(mine) > 2
    monkeypatch.setattr(charts, "WATCH_SEATS", 2)
    with client(fresh) as c:
        login(c, "risk")
        page = c.get("/watch").text
    player, dealer = (page.split(f'id="chart-{i}"')[1].split("</figure>")[0] for i in ids)
    assert re.findall(r'xlink:href="/games/(\d+)"', player) == mine[-2:]
    assert ("Window last 1,000 games: its newest 2 games only, of the segment&#39;s newest 2 seats (this page reads "
            "2 at most; monitor --format html draws the whole window).") in player
    assert "Window last 1,000 games: its newest" in dealer and "time (UTC)" in dealer


def test_a_game_written_as_two_records_shows_every_seat(tmp_path: Path) -> None:
    """Game 8812347 with p-1002's seat in a second record of the log: its page, its API
    answer and the seat's sheet give that seat too, as ``explain --store --game`` does,
    and a table's games around a time list the game once."""
    url = split_store(str(tmp_path / "split.db"), tmp_path)
    with client(url) as c:
        login(c, "viewer")
        seats = c.get(f"/api/games/{GAME}").json()["seats"]
        assert [(s["player_id"], s["owed"]) for s in seats] == [("p-1001", "0"), (PLAYER, "+160")]
        page = c.get(f"/games/{GAME}")
        assert page.status_code == 200 and f'id="seat-{PLAYER}"' in page.text
        sheet = c.get(f"/games/{GAME}/sheet", params={"player": PLAYER})
        assert sheet.status_code == 200 and "160" in sheet.text
        around = c.get("/find", params={"mode": "table", "table": TABLE, "at": "2026-11-29T20:22"})
        assert re.findall(r'href="/games/(\d+)"', around.text) == ["8812344", "8812345", "8812346", GAME]
        found = c.get("/api/search", params={"game": GAME}).json()["games"]
        assert [g["players"] for g in found] == [["p-1001", PLAYER]]
    code, out = run("explain", "--store", url, "--game", GAME)
    assert code == 1
    ruled = [line.split(",")[1].split()[-1] for line in out.splitlines() if line.startswith("Game ")]
    assert ruled == ["p-1001", PLAYER]


def test_a_games_page_lists_its_cases_and_a_seat_is_not_paid_twice(tmp_path: Path) -> None:
    """A seat with a case: the game's page lists it (linked, its status, decision and
    amount in the table's currency), the form says so, the API refuses a second case on
    the seat with 409 naming the first (even forced while it is not closed; forced only
    once it is closed), and Find marks the game."""
    url = split_store(str(tmp_path / "split.db"), tmp_path)
    with client(url) as c:
        token = login(c, "floor")
        ask = {"game": GAME, "player": PLAYER, "decision": "owed_to_player", "amount": "160", "note": "paid 44"}
        assert c.post("/api/cases", json=ask, headers={"X-CSRF-Token": token}).status_code == 201
        page = c.get(f"/games/{GAME}").text
        listed = page[page.index('id="cases"'):page.index("</section>", page.index('id="cases"'))]
        assert 'href="/cases/1"' in listed and PLAYER in listed and "decided" in listed and "160 EUR" in listed
        assert "Player p-1002 has case 1 already" in page
        twice = c.post("/api/cases", json={**ask, "amount": "4", "force": True}, headers={"X-CSRF-Token": token})
        assert twice.status_code == 409 and "case 1 is already decided (owed_to_player 160)" in twice.json()["detail"]
        assert c.post("/cases/1/close", data={"csrf_token": token, "note": "paid"}).status_code == 200
        assert "Player p-1002 had case 1, closed" in c.get(f"/games/{GAME}").text
        again = c.post("/api/cases", json={**ask, "amount": "4"}, headers={"X-CSRF-Token": token})
        assert again.status_code == 409 and "case 1 on this game and seat is closed" in again.json()["detail"]
        form = c.post("/cases", data={"csrf_token": token, "game": GAME, "player": PLAYER, "decision": "stands"})
        assert form.status_code == 409 and "could pay the seat twice" in form.text
        forced = c.post("/api/cases", json={**ask, "amount": "4", "force": True}, headers={"X-CSRF-Token": token})
        assert forced.status_code == 201 and forced.json()["id"] == 2
        assert [g["cases"] for g in c.get("/api/search", params={"table": TABLE}).json()["games"]] == [
            True, False, False, False]
        found = c.get("/find", params={"mode": "search", "table": TABLE}).text
        assert found.count('class="mark"') == 1 and f'href="/games/{GAME}#cases"' in found


def test_the_case_form_opens_on_the_seat_asked_for_or_the_one_owed_with_its_currency(tmp_path: Path) -> None:
    """The form's seat is the page's ``?player=``, else the one seat owed money; its
    decision and amount as the rules give them, in the table's currency."""
    url = split_store(str(tmp_path / "split.db"), tmp_path)
    with client(url) as c:
        login(c, "floor")
        page = c.get(f"/games/{GAME}").text
        form = page[page.index('id="open-case"'):]
        assert f'<option value="{PLAYER}" selected>' in form
        assert "<option value=\"owed_to_player\" selected>an amount is owed to the player: 160 EUR</option>" in form
        french = c.get(f"/games/{GAME}", params={"lang": "fr"}).text  # French punctuation: a space before the colon
        assert "selected>un montant est dû au joueur : 160 EUR</option>" in french[french.index('id="open-case"'):]
        assert 'value="160"> EUR' in form
        asked = c.get(f"/games/{GAME}", params={"player": "p-1001"}).text
        form = asked[asked.index('id="open-case"'):]
        assert '<option value="p-1001" selected>' in form and "<option value=\"stands\" selected>" in form
        assert 'value="">' in form and ": 160 EUR" not in form


def _lang_link(page: str, lang: str) -> str:
    import html

    found = re.search(rf'<a href="([^"]+)" hreflang="{lang}">', page)
    assert found, page
    return html.unescape(found.group(1))


def test_the_language_link_keeps_the_pages_whole_query(viewer: Any) -> None:
    """The sheet's "Français" keeps its player, Find's its search: only ``lang`` changes."""
    sheet = viewer.get(f"/games/{GAME}/sheet", params={"player": PLAYER, "lang": "en"}).text
    assert _lang_link(sheet, "fr") == f"/games/{GAME}/sheet?player={PLAYER}&lang=fr"
    found = viewer.get("/find", params={"mode": "search", "table": TABLE, "min_owed": "1"}).text
    assert _lang_link(found, "fr") == f"/find?mode=search&table={TABLE}&min_owed=1&lang=fr"
    french = viewer.get("/find", params={"lang": "fr", "table": TABLE, "player": "a&b=c"}).text
    assert _lang_link(french, "en") == f"/find?table={TABLE}&player=a%26b%3Dc&lang=en"


def test_a_sheet_without_a_player_lists_the_games_players_not_every_seat(viewer: Any) -> None:
    """A sheet is one seat: asked without ``player=`` it shows no seat (no player's balance
    beside another's) but links each player's sheet, in the page's language."""
    page = viewer.get(f"/games/{GAME}/sheet?lang=fr")
    assert page.status_code == 200
    assert 'class="seat"' not in page.text and "personne ne doit rien" not in page.text
    assert "choisissez le joueur" in page.text
    links = re.findall(rf'href="/games/{GAME}/sheet\?player=([^&"]+)&amp;lang=fr"', page.text)
    assert PLAYER in links and len(links) == len(set(links)) >= 2


def test_find_pages_through_a_search_of_more_games_than_a_page(viewer: Any) -> None:
    """A floor manager's trial: "More games match" with no way on. A search of more games
    than its page links the next page (the same search, its offset moved on) and back,
    in the page's language, until the last game."""
    import html

    first = viewer.get("/find", params={"mode": "search", "table": TABLE, "limit": "2"}).text
    shown = re.findall(r'<td><a href="/games/(\d+)">', first)
    assert len(shown) == 2 and "narrow the search" not in first and 'rel="prev"' not in first
    nexts = re.findall(r'<a href="([^"]+)" rel="next">Next games</a>', first)
    assert len(nexts) == 1
    after = html.unescape(nexts[0])
    assert after == f"/find?mode=search&table={TABLE}&limit=2&offset=2"
    second = viewer.get(after).text
    more = re.findall(r'<td><a href="/games/(\d+)">', second)
    assert len(more) == 2 and not set(more) & set(shown) and 'rel="next"' not in second
    assert "Found games from number 3 on." in second
    backs = re.findall(r'<a href="([^"]+)" rel="prev">', second)
    assert len(backs) == 1
    back = html.unescape(backs[0])
    assert re.findall(r'<td><a href="/games/(\d+)">', viewer.get(back).text) == shown
    french = viewer.get(after + "&lang=fr").text
    assert "Parties précédentes" in french and "Parties trouvées à partir du numéro 3." in french


def test_a_search_at_a_table_no_game_was_stored_at_says_the_table_meant(viewer: Any) -> None:
    """A floor manager's trial: ``t7`` found nothing where the table is T7. A search that
    finds nothing at a table the store does not have names the stored table meant (a
    change of case, or one slip), linked; the API says it in ``did_you_mean``."""
    import html

    asked = viewer.get("/api/search", params={"table": TABLE.lower()}).json()
    assert asked["games"] == [] and asked["did_you_mean"] == {"table": TABLE}
    assert viewer.get("/api/search", params={"table": "CH7"}).json()["did_you_mean"] == {"table": TABLE}
    assert viewer.get("/api/search", params={"table": "XX-1"}).json()["did_you_mean"] == {}
    page = viewer.get("/find", params={"mode": "search", "table": TABLE.lower(), "code": "P001"}).text
    link = re.search(r'No game matches\. <a href="([^"]+)">Did you mean table ([^<]+)\?</a>', page)
    assert link and link.group(2) == TABLE
    assert html.unescape(link.group(1)) == f"/find?mode=search&code=P001&table={TABLE}"
    french = viewer.get("/find", params={"mode": "search", "table": TABLE.lower(), "lang": "fr"}).text
    assert f"Vouliez-vous dire la table {TABLE} ?" in french
