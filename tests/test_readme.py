"""Every example output in the README and in docs/ is what the code prints (issues 20, 27),
and the README's first commands are the ones a fresh machine and CI run.

The examples are marked ``<!-- example: COMMAND -->`` in README.md and ``docs/**/*.md``;
when an output changes, regenerate them: ``python -m scripts.readme_examples --write``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from scripts.readme_examples import README, ROOT, documents, examples, stale, unmarked

EXAMPLES = [(doc, ex) for doc in documents() for ex in examples(doc.read_text(encoding="utf-8"))]
FIX = "example stale: run python -m scripts.readme_examples --write"
SHELL_BLOCK = re.compile(r"```sh\n(.*?)```", re.S)


def _param(document: Path) -> object:
    """One test a document: its examples run in order in one scratch folder, as
    ``scripts.readme_examples --write`` runs them (a later example may read what an earlier
    one wrote, ``audit.db``), so a parallel run cannot split them across workers."""
    slow = any("referee stats" in ex.command for d, ex in EXAMPLES if d == document)  # values every decision
    return pytest.param(document, id=document.relative_to(ROOT).as_posix(), marks=[pytest.mark.slow] if slow else [])


def test_the_docs_have_examples() -> None:
    readme = [ex.command for ex in examples(README.read_text(encoding="utf-8"))]
    assert "referee check samples/disputed.yaml --quiet" in readme
    commands = [ex.command for _, ex in EXAMPLES]
    assert any(c.startswith("referee recall") for c in commands) and len(commands) >= 10
    pages = {doc.name for doc, _ in EXAMPLES}
    assert {"README.md", "check.md", "explain.md", "recall.md", "live-tables.md", "profiles.md"} <= pages


@pytest.mark.parametrize("document", [_param(doc) for doc in dict.fromkeys(doc for doc, _ in EXAMPLES)])
def test_example_is_what_the_code_prints(document: Path) -> None:
    changed = stale(document)
    assert [(ex.command, ex.body) for ex, _ in changed] == [(ex.command, new) for ex, new in changed], FIX


def test_every_output_shown_is_a_checked_example() -> None:
    """A block that shows ``$ referee ...`` with no marker would be an output nobody checks."""
    found = {doc.relative_to(ROOT).as_posix(): unmarked(doc.read_text(encoding="utf-8")) for doc in documents()}
    assert {doc: lines for doc, lines in found.items() if lines} == {}, "put <!-- example: COMMAND --> before it"


def test_unmarked_finds_an_unchecked_output() -> None:
    text = ("<!-- example: referee hand Ah Kd Qd Jd Td -->\n```\n$ referee hand Ah Kd Qd Jd Td\nx\n```\n\n"
            "```\n$ referee check x.yaml\nout\n```\n")
    assert unmarked(text) == ["$ referee check x.yaml"]


def test_write_rewrites_a_stale_example(tmp_path: Path) -> None:
    from scripts.readme_examples import stale, write

    readme = tmp_path / "README.md"
    readme.write_text("Intro\n\n<!-- example: referee hand Ah Kd Qd Jd Td -->\n```\nold output\n```\n\nEnd\n",
                      encoding="utf-8")
    assert [ex.command for ex, _ in stale(readme)] == ["referee hand Ah Kd Qd Jd Td"]
    assert write(readme) == 1 and stale(readme) == []
    text = readme.read_text(encoding="utf-8")
    assert text.startswith("Intro\n\n<!-- example:") and text.endswith("```\n\nEnd\n") and "straight" in text


def _readme_commands() -> list[str]:
    return [block.strip() for block in SHELL_BLOCK.findall(README.read_text(encoding="utf-8"))]


def test_the_readme_starts_with_install_and_test() -> None:
    """The first two command blocks: install and audit a sample, then the tests, nothing before them."""
    install, tests = _readme_commands()[:2]
    assert install == ("python3 -m venv .venv && . .venv/bin/activate && pip install -e '.[test]' "
                       "&& referee check samples/clean.yaml")
    assert tests.startswith("ruff check ") and "mypy " in tests and "pytest " in tests
    head = README.read_text(encoding="utf-8").split("```sh", 1)[0]
    assert "##" not in head and len(head.splitlines()) <= 6


def test_ci_runs_the_readme_test_command() -> None:
    """CI runs the very command the README tells a developer to run, and builds the docs strictly."""
    tests = _readme_commands()[1]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert tests in ci, f".ci/run must run the README's test command as a line of its own: {tests}"
    assert any(line.split()[:3] == ["mkdocs", "build", "--strict"] for line in ci)


def test_the_readme_is_a_landing_page() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 300, "the README is the landing page: put the detail in docs/"
    table = text.split("## Commands", 1)[1].split("\n## ", 1)[0]
    import click

    from referee.cli import main

    assert isinstance(main, click.Group)
    for name in main.list_commands(click.Context(main)):
        assert f"| `referee {name}" in table, f"the README's commands table lacks referee {name}"
    assert "table-history" in table
