"""``--format gitlab``: a GitLab Code Quality report (the ``codequality`` artifact).

A JSON array of issues, each with a description, the check's name (the code and its
name), a severity, the file and line, and a fingerprint. GitLab tells issues apart by
their fingerprints, so each is the SHA-256 of what makes the finding itself (code, file,
line, game, player, message), and of its rank among findings equal in all of these: two
equal findings are still two issues. GitLab's severities are ``info``, ``minor``,
``major``, ``critical``, ``blocker``: an error is ``major`` (it fails the check), a
warning ``minor``, an info ``info``.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from typing import Any

from ..audit.results import Finding, InputInfo, Summary
from ..models.codes import CODES
from .base import FindingsReporter

SEVERITIES = {"error": "major", "warning": "minor", "info": "info"}


def issue(f: Finding, rank: int) -> dict[str, Any]:
    code = CODES[f.code]
    key = "\x1f".join(str(part) for part in (f.code, f.file, f.line, f.game, f.player, f.message, rank))
    return {
        "description": f"{f.code} {code.name}: {f.message}",
        "check_name": f"{f.code} {code.name}",
        "fingerprint": hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest(),
        "severity": SEVERITIES[f.severity],
        "location": {"path": f.file, "lines": {"begin": max(f.line, 1)}},
        "categories": ["Bug Risk"],
        "content": {"body": f"What to do: {code.fix} ({code.docs})"},
    }


class GitlabReporter(FindingsReporter):

    def finish(self, summary: Summary, inputs: list[InputInfo]) -> None:
        seen: Counter[tuple[Any, ...]] = Counter()
        issues = []
        for f in self._findings:
            key = (f.code, f.file, f.line, f.game, f.player, f.message)
            issues.append(issue(f, seen[key]))
            seen[key] += 1
        json.dump(issues, self.out, indent=1, ensure_ascii=False)
        self.out.write("\n")
