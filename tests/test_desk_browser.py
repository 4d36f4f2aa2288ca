"""The desk's journeys in a real browser (issue 48): Debian's Chromium, driven by Playwright,
against ``referee serve`` itself (uvicorn on loopback). A floor manager finds a player's
game by table and time, reads its ruling in French, prints the dispute sheet (one page)
and records the decision; a risk analyst acknowledges an alert. Screenshots are kept in
``tmp/artifacts/``."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import ROOT
from .desk_support import GAME, PASSWORD, PLAYER, TABLE, make_store, serve

pytest.importorskip("fastapi", reason="the desk needs the serve extra")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]
ARTIFACTS = ROOT / "tmp" / "artifacts"
needs_chromium = pytest.mark.skipif(CHROMIUM is None and os.environ.get("CI") != "true",
                                    reason="needs Debian's chromium (.ci/run installs it)")


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("desk")
    yield from serve(make_store(str(folder / "desk.db"), folder))


def shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"desk-{name}.png"), full_page=True)


def log_in(page: Any, base: str, name: str) -> None:
    page.goto(f"{base}/find")
    assert "/login" in page.url  # every page needs a login
    page.fill("input[name=username]", name)
    page.fill("input[name=password]", PASSWORD)
    page.click("form.login button")
    page.wait_for_url(f"{base}/find")


@pytest.mark.slow
@needs_chromium
def test_a_floor_manager_settles_a_dispute_in_the_browser(live: str) -> None:
    from playwright.sync_api import sync_playwright

    assert CHROMIUM is not None
    errors: list[str] = []
    requests: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900}, java_script_enabled=False)
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("request", lambda r: requests.append(r.url))
        log_in(page, live, "floor")
        # "game X at table T7 last night": the table and an evening's hour, no game id
        page.fill("#search input[name=table]", TABLE)
        page.fill("#search input[name=since]", "2026-11-29T20:20:00")
        page.fill("#search input[name=until]", "2026-11-29T20:30:00")
        page.click("#search button")
        assert page.locator("table.games tbody tr").count() == 1
        shot(page, "find")
        page.click(f"table.games a[href='/games/{GAME}']")
        assert page.locator(".bottomline").inner_text().count("is owed to the player") == 1
        page.click("a[hreflang=fr]")  # the player speaks French
        assert page.locator("html").get_attribute("lang") == "fr"
        bottom = page.locator(".bottomline").inner_text()
        assert "160 EUR sont dus au joueur" in bottom
        assert page.locator(".bottomline").bounding_box()["y"] < 200  # type: ignore[index]  # the bottom line first
        assert page.locator("svg.card").count() == 9
        seat = page.locator(f"#seat-{PLAYER}")
        assert "Selon les règles" in seat.inner_text() and "carte par carte" in seat.inner_text()
        shot(page, "game-fr")
        page.click(f"a[href*='/sheet?player={PLAYER}']")
        page.emulate_media(media="print")
        assert not page.locator("header.bar").is_visible() and not page.locator("p.noprint").is_visible()
        sheet = page.locator("article.sheet").inner_text()
        assert "Fiche de litige" in sheet and "160 EUR sont dus au joueur" in sheet
        assert "P001" not in sheet and "W002" not in sheet and "p-1001" not in sheet
        shot(page, "sheet-print")
        pdf = page.pdf(format="A4", print_background=False)
        assert len(re.findall(rb"/Type\s*/Page\b(?!s)", pdf)) == 1  # the sheet prints on one page
        page.emulate_media(media="screen")
        page.go_back()
        page.select_option("#open-case select[name=player]", PLAYER)
        page.select_option("#open-case select[name=decision]", "owed_to_player")
        page.fill("#open-case input[name=amount]", "160")
        page.fill("#open-case textarea[name=note]", "la table a payé 44 au lieu de 204")
        page.click("#open-case button")
        assert "/cases/" in page.url
        assert "un montant est dû au joueur : 160" in page.locator(".bottomline").inner_text()  # French punctuation
        shot(page, "case")
        browser.close()
    assert errors == []
    assert all(url.startswith(live) for url in requests)  # nothing from elsewhere


@pytest.mark.slow
@needs_chromium
def test_a_risk_analyst_acknowledges_an_alert_in_the_browser(live: str) -> None:
    from playwright.sync_api import sync_playwright

    assert CHROMIUM is not None
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900}, java_script_enabled=False)
        log_in(page, live, "risk")
        page.click("nav a[href='/watch']")
        row = page.locator("tr#alert-1")
        assert "table CH-7" in row.inner_text() and "open" in row.inner_text()
        row.locator("input[name=note]").fill("studio called")
        row.locator("button[value=ack]").click()
        row = page.locator("tr#alert-1")
        assert "acknowledged" in row.inner_text() and "studio called" in row.inner_text()
        assert row.locator("button[value=ack]").count() == 0
        shot(page, "watch")
        row.locator(f"a[href='/games/{GAME}']").click()
        assert page.url.endswith(f"/games/{GAME}")
        assert page.locator("#open-case").count() == 0  # risk does not open cases
        browser.close()


@pytest.mark.slow
def test_the_cookie_is_secure_behind_a_proxy_that_says_tls(tmp_path: Path) -> None:
    """uvicorn believes X-Forwarded-Proto from --forwarded-allow-ips only."""
    import httpx

    url = make_store(str(tmp_path / "desk.db"), tmp_path)
    body = {"username": "viewer", "password": PASSWORD}
    said = {"X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.9"}
    for base in serve(url):  # 127.0.0.1 is trusted by default: the test is the proxy
        cookie = httpx.post(f"{base}/api/login", json=body, headers=said).headers["set-cookie"]
        assert "secure" in cookie.lower()
        assert "secure" not in httpx.post(f"{base}/api/login", json=body).headers["set-cookie"].lower()
    for base in serve(url, "--forwarded-allow-ips", "192.0.2.1"):  # another proxy: not believed
        assert "secure" not in httpx.post(f"{base}/api/login", json=body, headers=said).headers["set-cookie"].lower()
