"""Write samples/table.jsonl: samples/table.yaml as JSON Lines, a line per seat.

Run: python -m scripts.table_jsonl. Why generated: the two samples are one table in its
two forms (a game line, then a line per seat after it, as exports write bet rows), so
`check` finds the same findings in both, only the line numbers differ; writing one from
the other keeps them so when the YAML sample is edited.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

import yaml

SAMPLES = Path(__file__).resolve().parent.parent / "samples"


def plain(value: Any) -> Any:
    """YAML's timestamps back to the text the YAML had (UTC written with Z)."""
    if isinstance(value, datetime):
        return value.isoformat().replace("+00:00", "Z")
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def lines(document: dict[str, Any]) -> list[str]:
    """The session line, then each game's line followed by its seats' lines."""
    def dump(obj: Any) -> str:
        return json.dumps(plain(obj), ensure_ascii=False, separators=(",", ":"))

    out = [dump({"session": document["session"], "format": document["format"]})]
    for game in document["games"]:
        out.append(dump({k: v for k, v in game.items() if k != "seats"}))
        out += [dump({"game": game["game"], "seat": seat}) for seat in game.get("seats", [])]
    return out


def main() -> None:
    document = yaml.safe_load((SAMPLES / "table.yaml").read_text(encoding="utf-8"))
    (SAMPLES / "table.jsonl").write_text("\n".join(lines(document)) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
