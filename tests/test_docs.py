"""Generated documents stay in step with the code."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from referee.models.codes import CODES, markdown_table
from referee.schemas import NAMES, text

from .conftest import ROOT, SAMPLES


def test_committed_schemas_are_fresh() -> None:
    for name in NAMES:
        committed = (ROOT / "schemas" / f"{name}.schema.json").read_text(encoding="utf-8")
        assert committed == text(name), f"schemas/{name}.schema.json is stale: run python -m referee.schemas"


def test_findings_doc_is_fresh() -> None:
    assert (ROOT / "docs" / "findings.md").read_text(encoding="utf-8") == markdown_table(), (
        "docs/findings.md is stale: python -m referee.models.codes > docs/findings.md")


def test_every_code_is_documented_in_the_readme_or_docs() -> None:
    docs = (ROOT / "docs" / "findings.md").read_text(encoding="utf-8")
    assert all(f"`{code}`" in docs for code in CODES)


def test_samples_validate_against_the_schema() -> None:
    import jsonschema
    import yaml

    schemas = {1: json.loads(text("hand-history")), 2: json.loads(text("table-history"))}
    for path in SAMPLES.glob("*.yaml"):
        for document in yaml.safe_load_all(path.read_text(encoding="utf-8")):
            plain = json.loads(json.dumps(document, default=str))
            jsonschema.validate(plain, schemas[plain.get("format", 1)])


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    """README.md and docs/ as a site (mkdocs.yml): --strict fails on a broken link or
    anchor, and on a page of docs/ missing from the nav (.ci/run builds it too)."""
    if importlib.util.find_spec("mkdocs") is None:
        pytest.skip("needs mkdocs: pip install -e '.[docs]' (the test extra has it; CI installs it)")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir",
                           str(tmp_path / "site")], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          check=False)
    assert done.returncode == 0, done.stderr
    site = tmp_path / "site"
    home = (site / "index.html").read_text(encoding="utf-8")
    assert 'href="check.html"' in home and 'href="bench/RESULTS.html"' in home  # README's docs/ links, rewritten
    assert (site / "bench" / "RESULTS.html").is_file() and (site / "samples" / "table.yaml").is_file()
    assert 'href="../README.md' not in (site / "check.html").read_text(encoding="utf-8")


def test_links_are_rewritten_from_the_repository_to_the_site() -> None:
    from scripts.mkdocs_site import github_slug, rewrite

    page = "See [check](docs/check.md#large-logs), [results](bench/RESULTS.md), `[not](a.md)`, [web](https://x.org).\n"
    assert rewrite(page, "README.md") == ("See [check](check.md#large-logs), [results](bench/RESULTS.md), "
                                          "`[not](a.md)`, [web](https://x.org).\n")
    page = "[home](../README.md#exit-status) ![shot](report.png) [gone](missing.md)\n```\n[code](../README.md)\n```\n"
    assert rewrite(page, "docs/ci.md") == ("[home](index.md#exit-status) ![shot](report.png) [gone](missing.md)\n"
                                           "```\n[code](../README.md)\n```\n")
    assert rewrite("[up](../docs/ledger.md#numbering)", "bench/RESULTS.md") == "[up](../ledger.md#numbering)"
    assert github_slug("`--format json` (the contract for scripts)".replace("`", "")) == (
        "--format-json-the-contract-for-scripts")
    assert github_slug("Format 2: the live table (one deal, many players)") == (
        "format-2-the-live-table-one-deal-many-players")
