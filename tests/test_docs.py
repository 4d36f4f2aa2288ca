"""Generated documents stay in step with the code."""

from __future__ import annotations

import json

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
