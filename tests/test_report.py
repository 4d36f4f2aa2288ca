"""`referee report` (issue 11): the self-contained HTML audit report."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import yaml

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
    assert page.count('<tr class="finding">') == len(findings) == 8  # one row per finding
    for f in findings:
        assert f["message"].replace("'", "&#39;") in page
    assert page.count('<div class="chart"><svg') == 2 and page.count('<section class="session"') == 2  # a chart each
    assert re.search(r"""(src|href)=["']https?:""", page) is None  # nothing fetched when opened
    assert "<details" in page and "<details open" not in page  # rulings collapsed by default
    assert '<span class="red">A♥</span>' in page  # red hearts and diamonds
    assert '<svg class="card red" viewBox="0 0 40 56" width="30" height="42" role="img" aria-label="A♥">' in page
    assert "prefers-color-scheme: dark" in page and "@media print" in page
    anchors = set(re.findall(r'id="([^"]+)"', page))
    links = re.findall(r'href="#([^"]+)"', page)
    assert links and all(link in anchors for link in links)  # every finding links to its round


def test_french(tmp_path: Path) -> None:
    page = render(tmp_path, "--lang", "fr")
    assert '<html lang="fr">' in page and "Intégrité" in page and "Constats" in page
    assert "Le donneur" in page  # the rulings are in French too
    headers = re.findall(r"<th>([^<]*)</th>", page)
    assert "manche" in headers and "solde enr." in headers and "état" in headers  # the ledger's headers too
    assert not {"round", "decision", "balance", "status", "errors", "warnings"} & set(headers)
    assert "NON CONFORME" in page and "1 est dû au joueur" in page
    cells = re.findall(r"<td[^>]*>([^<]*)</td>", page)
    assert "solde décalé de -1" in cells and "oui" in cells and "erreur" in cells
    assert not {"ok", "yes", "call", "bal. off -1", "error"} & set(cells)


def test_every_template_message_is_translated() -> None:
    import jinja2
    from jinja2.ext import extract_from_ast

    env = jinja2.Environment(loader=jinja2.PackageLoader("referee", "templates"), extensions=["jinja2.ext.i18n"])
    catalogue = Messages("fr").catalogue._catalog  # type: ignore[attr-defined]
    for name in env.list_templates():
        source = env.loader.get_source(env, name)[0]  # type: ignore[union-attr]
        for _, function, message in extract_from_ast(env.parse(source)):
            key = "\x04".join(map(str, message)) if function == "pgettext" and isinstance(message, tuple) else message
            assert key in catalogue, (name, message)


def test_every_word_of_the_report_and_recall_is_translated() -> None:
    """The words the Python side asks for in the ``report`` context (cells, columns,
    bottom lines) are all in the French catalogue."""
    from referee.report import html

    catalogue = Messages("fr").catalogue._catalog  # type: ignore[attr-defined]
    sources = [(Path(html.__file__).parent / name).read_text(encoding="utf-8")
               for name in ("html.py", "pages.py", "recall.py")]
    asked = set(html.CELL_WORDS) | set(html.COLUMN_WORDS)
    for source in sources:
        asked |= {"".join(re.findall(r'"([^"]*)"', call))
                  for call in re.findall(r'r_\(m, ((?:"[^"]*"\s*)+)\)', source)}
        asked |= {"".join(re.findall(r'"([^"]*)"', call)) for call in re.findall(r'N_\((".*?")\)', source, re.S)}
    assert len(asked) >= 35 and any("bal. off {amount}" in w for w in asked)
    missing = sorted(w for w in asked if f"report\x04{w}" not in catalogue)
    assert not missing


def test_verdict_index_and_what_is_owed(tmp_path: Path) -> None:
    page = render(tmp_path)
    verdict = page[page.index('<div class="verdict'):page.index("</div>", page.index('<div class="verdict'))]
    assert 'class="verdict fail"' in verdict and "errors 6" in " ".join(re.sub("<[^>]+>", " ", verdict).split())
    assert re.findall(r'<a href="#(s\d)">', verdict) == ["s0", "s1"]
    _, report = check_json(*map(str, FILES))
    owed = []
    for path, session in zip(FILES, report["sessions"], strict=True):  # each round's recorded net against the rules'
        logged = yaml.safe_load(path.read_text(encoding="utf-8"))["rounds"]
        diffs = [r["settlement"]["net"] - x["recorded"]["net"] for r, x in zip(session["rounds"], logged, strict=True)
                 if "net" in x.get("recorded", {})]
        owed.append((sum(d for d in diffs if d > 0), -sum(d for d in diffs if d < 0)))
    assert owed == [(1, 0), (0, 3)]  # disputed: round 1 paid +2 for +3; void: round 15 settled +3 for a void deal
    rows = re.findall(r"<tr><td><a href=\"#s\d\">.*?</tr>", verdict, re.S)
    assert [[c for c in re.findall(r'<td class="n[^"]*">([^<]*)</td>', row)][2:4] for row in rows] == [
        [str(p), str(h)] for p, h in owed]
    assert "Owed to the player: 1; owed to the house: 3" in page


def test_chart_marks_only_the_rounds_that_part_from_the_rules(tmp_path: Path) -> None:
    page = render(tmp_path)
    first = page[page.index('<section class="session" id="s0">'):page.index('<section class="session" id="s1">')]
    marks = re.search(r"The record parts from the rules at rounds:(.*?)</p>", first, re.S)
    # Round 1 pays +2 for +3 (rounds 2-9 carry it, unmarked); round 10 records a balance that does not
    # follow (round 11's follows again from round 9's: not marked).
    assert marks is not None and re.findall(r">(\d+)</a>", marks.group(1)) == ["1", "10"]
    dots = first[first.index('<g class="series serie-2 color-2"><g class="dots">'):]
    assert re.findall(r'<desc class="value">(\d+): ', dots.split("</g></g>")[0]) == ["1", "10"]
    second = page[page.index('<section class="session" id="s1">'):]
    axis = re.search(r'<g class="axis x">(.*?)</g></g>(?!<g class="guides">)', second, re.S)
    labels = [int(x) for x in re.findall(r"<title>(\d+)</title>", axis.group(1))] if axis else []
    line = re.search(r'<g class="series serie-0 color-0"><path d="M([^"]*)"', second)
    assert line is not None
    xs = line.group(1).replace("L", "").split()[0::2]
    assert len(xs) == 23 and len(set(xs)) == 20  # 23 rows: 20 rounds and 3 void deals that share their number...
    assert labels and max(labels) <= 20  # ...on an axis of round numbers (a void deal and its replay share one)


def test_a_row_is_ok_only_when_every_recorded_field_matches(tmp_path: Path) -> None:
    page = render(tmp_path)
    for row in re.findall(r'<tr id="s\d-r\d+"[^>]*>(.*?)</tr>', page):
        cells = re.findall(r"<td[^>]*>([^<]*)</td>", row)
        balance, recorded, status = cells[10], cells[11], cells[12]
        if status == "ok":
            assert recorded in ("", balance)
        if recorded and recorded != balance and status.startswith("bal."):
            assert status == f"bal. off {int(recorded) - int(balance):+d}"
    _, out = run("check", str(SAMPLES / "disputed.yaml"))
    row = next(line.split() for line in out.splitlines() if line.split()[:1] == ["2"])
    assert row[-5:] == ["6", "5", "bal.", "off", "-1"]  # computed 6, recorded 5: not "ok"


def test_disputed_rounds_show_cards_hands_and_the_bottom_line(tmp_path: Path) -> None:
    page = render(tmp_path)
    disputes = re.findall(r'<article class="dispute".*?</article>', page, re.S)
    assert len(disputes) == 5  # rounds 1, 5, 10, 17 of disputed.yaml; round 15 of void.yaml
    first = disputes[0]
    assert first.count('<svg class="card') == 9 and "Player: pair of aces, kickers K, 9, 7" in first
    assert "The table paid +2; the rules give +3; 1 is owed to the player." in first
    assert "<details><summary>The full ruling</summary>" in first  # the rest folded
    void = disputes[-1]
    assert "The table paid +3; the rules give 0; 3 is owed to the house." in void


def test_long_sessions_are_summarised(tmp_path: Path) -> None:
    log = tmp_path / "long.jsonl"
    run("simulate", "--rounds", "3000", "--seed", "2", "--faults", "0.002", "--format", "jsonl", "--output", str(log))
    out = tmp_path / "long.html"
    run("report", str(log), "--output", str(out))
    page = out.read_text(encoding="utf-8")
    rows = page.count('<tr id="s0-r')
    assert 400 <= rows < 500 and "rounds omitted" in page
    assert len(page) < 1_500_000


def test_a_disputed_round_whose_turn_or_river_is_the_two_of_clubs_shows_it(tmp_path: Path) -> None:
    """2♣ is card 0, so a truth test dropped it from the pictures (the turn went missing)."""
    rounds = [{"round": n, "ante": 1, "player": ["9c", "9d"], "flop": ["9h", "5s", "5d"], "decision": "call",
               "turn": turn, "river": river, "dealer": ["Ac", "Kc"], "recorded": {"net": 4}}  # the rules give +5
              for n, (turn, river) in enumerate([("2c", "3h"), ("3h", "2c")], start=1)]
    log = tmp_path / "two.yaml"
    log.write_text(yaml.safe_dump({"session": {"id": "s", "profile": "vivo"}, "rounds": rounds}), encoding="utf-8")
    out = tmp_path / "audit.html"
    code, _ = run("report", str(log), "--output", str(out))
    assert code == 1
    disputes = re.findall(r'<article class="dispute".*?</article>', out.read_text(encoding="utf-8"), re.S)
    assert len(disputes) == 2
    for dispute in disputes:
        assert dispute.count('<svg class="card') == 9
        assert ">Turn<" in dispute and ">River<" in dispute
