"""Coverage-guided fuzzing of the whole check path (load -> validate -> rule -> report).

Run (atheris is not a test dependency: ``pip install atheris``):

    python tests/fuzz/fuzz_check.py samples/ -max_total_time=600 -rss_limit_mb=1024

Each input is audited as a YAML, JSON and JSON Lines file in turn (the kind chosen
by the first byte), and the audit is reported in the text, JSON, JUnit and GitHub
formats. Any exception that escapes is a crash: the referee must turn every input
into findings. The samples are the seed corpus. Figures of the last run are in
bench/RESULTS.md.
"""

from __future__ import annotations

import io
import sys

import atheris

with atheris.instrument_imports():
    from referee.audit.stream import Options, audit_source
    from referee.load.inputs import Source
    from referee.pipeline import dispatch
    from referee.report.github import GithubReporter
    from referee.report.json import JsonReporter
    from referee.report.junit import JunitReporter
    from referee.report.text import TextReporter

KINDS = ("x.yaml", "x.json", "x.jsonl")


def audit(data: bytes) -> None:
    name = KINDS[data[0] % 3] if data else "x.yaml"
    source = Source(name, None, data=data[1:])
    out = io.StringIO()
    reporters = [cls(out) for cls in (TextReporter, JsonReporter, JunitReporter, GithubReporter)]
    dispatch(audit_source(source, Options()), reporters)  # type: ignore[arg-type]


def main() -> None:
    atheris.Setup(sys.argv, audit)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
