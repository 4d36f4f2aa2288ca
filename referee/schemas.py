"""The JSON Schemas of the formats, generated from the models (``schemas/`` commits them).

Regenerate with ``python -m referee.schemas``; a test fails when the committed files are stale.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .models.mapping import mapping_schema
from .models.rounds import hand_history_schema
from .models.table import table_history_schema
from .rules.profile import Profile

NAMES = ("hand-history", "table-history", "profile", "mapping")


def schema(name: str) -> dict[str, object]:
    if name == "hand-history":
        return hand_history_schema()
    if name == "table-history":
        return table_history_schema()
    if name == "mapping":
        return mapping_schema()
    result = Profile.model_json_schema()
    result["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    result["title"] = "referee rule profile"
    return result


def text(name: str) -> str:
    return json.dumps(schema(name), indent=2, ensure_ascii=False, sort_keys=True) + "\n"


def write(directory: Path) -> None:
    for name in NAMES:
        (directory / f"{name}.schema.json").write_text(text(name), encoding="utf-8")


if __name__ == "__main__":
    write(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("schemas"))
