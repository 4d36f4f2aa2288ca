"""``--format sarif``: SARIF 2.1.0, the format GitHub code scanning (and other tools) read.

One run of one tool, ``referee``: a rule for every finding code of the catalogue, with
its documentation (the same text as ``referee rule CODE`` and docs/findings.md: what it
means, an example and what to do), and a result for every finding at its file and line.
The integrity block is there too: each input is an artifact with its length and SHA-256,
each profile and mapping a property of the run, and the invocation holds the exit code
the check ends with. The document validates against the published SARIF 2.1.0 schema (a
test checks it).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any
from urllib.parse import quote

from .. import __version__
from ..audit.results import Finding, InputInfo, Summary
from ..models.catalogue import rule_markdown, rule_text
from ..models.codes import CODES
from .base import FindingsReporter, summary_line
from .baseline import fingerprint

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
LEVELS = {"error": "error", "warning": "warning", "info": "note"}


def artifact_uri(name: str) -> str:
    """A file's name as a SARIF URI: a relative path stays relative (code scanning reads it
    from the repository's root), an absolute one is a ``file://`` URI; either percent-encoded."""
    if os.path.isabs(name):
        return "file://" + quote(name.replace(os.sep, "/"))
    return quote(name.replace(os.sep, "/"))


def rule_dict(index: int) -> dict[str, Any]:
    """The rule of the ``index``-th code of the catalogue."""
    code = list(CODES.values())[index]
    return {
        "id": code.code, "name": code.name,
        "shortDescription": {"text": f"{code.code} {code.name}"},
        "fullDescription": {"text": code.summary},
        "help": {"text": rule_text(code), "markdown": rule_markdown(code)},
        "defaultConfiguration": {"level": LEVELS[code.severity]},
        "properties": {"documentation": code.docs, "severity": code.severity},
    }


def result_dict(f: Finding, index: dict[str, int]) -> dict[str, Any]:
    """A finding as a SARIF result. ``partialFingerprints`` holds the baseline's fingerprint
    of it (its code, file, session, round, game, player, field and amounts: never its line),
    so code scanning tells the same finding apart from a new one when lines above it move."""
    location: dict[str, Any] = {"artifactLocation": {"uri": artifact_uri(f.file)}}
    if f.line > 0:  # a problem of the whole file (line 0) has no region
        location["region"] = {"startLine": f.line}
    facts = {"session": f.session, "round": f.round, "game": f.game, "player": f.player, "field": f.field,
             "documentation": CODES[f.code].docs}
    return {
        "ruleId": f.code, "ruleIndex": index[f.code], "level": LEVELS[f.severity],
        "message": {"text": f.message}, "locations": [{"physicalLocation": location}],
        "partialFingerprints": {"refereeFinding/v1": fingerprint(f, Path.cwd())},
        "properties": {k: v for k, v in facts.items() if v is not None},
    }


def artifact(i: InputInfo) -> dict[str, Any]:
    """An input: its length and SHA-256 on disk; a compressed log's text's as properties."""
    found: dict[str, Any] = {"location": {"uri": artifact_uri(i.file)}, "length": i.size,
                             "hashes": {"sha-256": i.sha256}, "roles": ["analysisTarget"]}
    if i.compression is not None:
        found["properties"] = {"compression": i.compression, "uncompressed_length": i.text_size,
                               "uncompressed_sha256": i.text_sha256}
    return found


class SarifReporter(FindingsReporter):

    def finish(self, summary: Summary, inputs: list[InputInfo]) -> None:
        index = {code: n for n, code in enumerate(CODES)}
        properties: dict[str, Any] = {"summary": summary_line(summary)}
        properties.update({f"profile {origin}": sha for origin, sha in sorted(summary.profiles.items())})
        properties.update({f"mapping {origin}": sha for origin, sha in sorted(summary.mappings.items())})
        code = summary.exit_code(self.strict)
        run = {
            "tool": {"driver": {"name": "referee", "version": __version__, "semanticVersion": __version__,
                                "rules": [rule_dict(n) for n in range(len(CODES))]}},
            "invocations": [{"executionSuccessful": code != 2, "exitCode": code}],
            "artifacts": [artifact(i) for i in inputs],
            "results": [result_dict(f, index) for f in self._findings],
            "properties": properties,
        }
        json.dump({"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}, self.out, indent=1, ensure_ascii=False)
        self.out.write("\n")
