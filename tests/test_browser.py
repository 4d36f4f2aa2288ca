"""The HTML report in a real headless browser (issue 11): Debian's Chromium, driven by
Playwright; the screenshot is kept in ``test-artifacts/``."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from .conftest import ROOT, SAMPLES, run

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]


@pytest.mark.skipif(CHROMIUM is None and os.environ.get("CI") != "true",
                    reason="needs Debian's chromium (.ci/run installs it)")
def test_report_opens_in_a_browser(tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    assert CHROMIUM is not None, "CI installs chromium: .ci/run"
    page_file = tmp_path / "audit.html"
    run("report", str(SAMPLES / "disputed.yaml"), str(SAMPLES / "void.yaml"), "--output", str(page_file))
    errors: list[str] = []
    requests: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 1600})
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("request", lambda r: requests.append(r.url))
        page.goto(page_file.as_uri())
        page.wait_for_load_state("load")
        assert page.locator(".chart svg").first.is_visible()
        assert page.locator("table.findings").first.is_visible()
        assert page.locator("tr.finding").count() == 8
        verdict = page.locator("#verdict")  # the verdict comes first, in view without scrolling
        assert verdict.is_visible() and verdict.bounding_box()["y"] < 200  # type: ignore[index]
        assert verdict.locator(".word").inner_text() == "FAIL"
        assert verdict.locator("table.index a").count() == 2
        verdict.locator("table.index a").nth(1).click()  # the index's anchors lead to their sessions
        assert page.evaluate("location.hash") == "#s1"
        assert page.locator("#s1 h2").first.bounding_box()["y"] < 50  # type: ignore[index]
        # The first chart marks rounds 1 and 10 only (where the record parts from the rules).
        assert page.locator(".chart svg").first.locator(".serie-2 circle").count() == 2
        dispute = page.locator("article.dispute").first  # a disputed round: cards as pictures, the bottom line
        assert dispute.locator("svg.card").count() == 9 and dispute.locator("svg.card.red").count() == 4
        assert dispute.locator("svg.card").first.bounding_box()["width"] < 40  # type: ignore[index]
        assert "1 is owed to the player" in dispute.locator(".bottom").inner_text()
        page.evaluate("window.scrollTo(0, 0)")
        artefacts = ROOT / "test-artifacts"
        artefacts.mkdir(exist_ok=True)
        page.screenshot(path=str(artefacts / "report.png"), full_page=False)
        assert not page.locator("details pre").first.is_visible()  # rulings start collapsed
        page.locator("details summary").first.click()  # and open on a click
        assert page.locator("details pre").first.is_visible()
        browser.close()
    assert errors == []
    assert all(url.startswith("file:") or url.startswith("data:") for url in requests)  # nothing from the network


@pytest.mark.skipif(CHROMIUM is None and os.environ.get("CI") != "true",
                    reason="needs Debian's chromium (.ci/run installs it)")
def test_a_live_tables_pages_draw_its_disputed_game_in_a_browser(tmp_path: Path) -> None:
    """Issue 43: a live table's report and recall page draw the disputed game's cards, once,
    and each disputed seat's ruling; the findings table leads to the game."""
    from playwright.sync_api import sync_playwright

    assert CHROMIUM is not None, "CI installs chromium: .ci/run"
    report, recall = tmp_path / "table.html", tmp_path / "recall.html"
    run("report", str(SAMPLES / "table.yaml"), "--output", str(report))
    run("recall", str(SAMPLES / "table.yaml"), "--game", "8812347", "--format", "html", "--output", str(recall))
    errors: list[str] = []
    requests: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("request", lambda r: requests.append(r.url))
        page.goto(report.as_uri())
        page.wait_for_load_state("load")
        page.locator("tr.finding a").nth(1).click()  # game 8812347's first finding leads to its game
        assert page.evaluate("location.hash") == "#s0-g4-ruling"
        game = page.locator("#s0-g4-ruling")
        assert page.evaluate("window.scrollY") > 0 and 0 <= game.bounding_box()["y"] < 1000  # type: ignore[index]
        cards = game.locator("svg.card")
        assert cards.count() == 9 and game.locator("svg.card.red").count() == 3
        assert all(cards.nth(i).is_visible() for i in range(9))
        seat = game.locator("section.seat")
        assert seat.count() == 1 and "p-1002" in seat.locator("h5").inner_text()
        assert "160 EUR is owed to the player" in seat.locator(".bottom").inner_text()
        assert not seat.locator("details pre").is_visible()  # folded, as a round's
        seat.locator("details summary").click()
        assert seat.locator("details pre").is_visible()
        assert "Game 8812347, player p-1002" in seat.locator("details pre").inner_text()
        page.goto(recall.as_uri())
        page.wait_for_load_state("load")
        game = page.locator("article.dispute")
        assert game.count() == 1 and game.locator("svg.card").count() == 9
        seats = game.locator("section.seat")
        assert seats.count() == 2 and seats.nth(1).locator("details pre").is_visible()  # the desk's: open
        browser.close()
    assert errors == []
    assert all(url.startswith("file:") or url.startswith("data:") for url in requests)
