"""`referee report` (issue 11): the self-contained HTML audit report."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from referee.i18n import Messages

from .conftest import SAMPLES, check_json, run

FILES = [SAMPLES / "disputed.yaml", SAMPLES / "void.yaml"]


def render(tmp_path: Path, *args: str) -> str:
    out = tmp_path / "audit.html"
    code, _ = run("report", *map(str, FILES), "--output", str(out), *args)
    assert code == 1  # the samples have findings
    return out.read_text(encoding="utf-8")


def test_structure(tmp_path: Path) -> None:
    page = render(tmp_path)
    for path in FILES:  # the integrity block
        data = path.read_bytes()
        assert hashlib.sha256(data).hexdigest() in page and f"{len(data):,}" in page
    from referee.profiles import resolve_profile

    assert resolve_profile("vivo").sha256 in page and "referee 0.1.0" in page
    _, report = check_json(*map(str, FILES))
    findings = [f for s in report["sessions"] for f in s["findings"]]
    assert page.count('<tr class="finding">') == len(findings) == 9  # one row per finding
    for f in findings:
        assert f["message"].replace("'", "&#39;") in page
    assert page.count("<svg") == 2 and page.count('<section class="session"') == 2  # a chart per session
    assert re.search(r"""(src|href)=["']https?:""", page) is None  # nothing fetched when opened
    assert "<details" in page and "<details open" not in page  # rulings collapsed by default
    assert '<span class="red">A♥</span>' in page  # red hearts and diamonds
    assert "prefers-color-scheme: dark" in page and "@media print" in page
    anchors = set(re.findall(r'id="([^"]+)"', page))
    links = re.findall(r'href="#([^"]+)"', page)
    assert links and all(link in anchors for link in links)  # every finding links to its round


def test_french(tmp_path: Path) -> None:
    page = render(tmp_path, "--lang", "fr")
    assert '<html lang="fr">' in page and "Intégrité" in page and "Constats" in page
    assert "Le donneur" in page  # the rulings are in French too


def test_every_template_message_is_translated() -> None:
    import jinja2

    env = jinja2.Environment(loader=jinja2.PackageLoader("referee", "templates"), extensions=["jinja2.ext.i18n"])
    catalogue = Messages("fr").catalogue._catalog  # type: ignore[attr-defined]
    for name in env.list_templates():
        source = env.loader.get_source(env, name)[0]  # type: ignore[union-attr]
        for _, _, message in env.extract_translations(source):
            assert message in catalogue, (name, message)


def test_long_sessions_are_summarised(tmp_path: Path) -> None:
    log = tmp_path / "long.jsonl"
    run("simulate", "--rounds", "3000", "--seed", "2", "--faults", "0.002", "--format", "jsonl", "--output", str(log))
    out = tmp_path / "long.html"
    run("report", str(log), "--output", str(out))
    page = out.read_text(encoding="utf-8")
    rows = page.count('<tr id="s0-r')
    assert 400 <= rows < 500 and "rounds omitted" in page
    assert len(page) < 1_500_000
