"""The example outputs of the README and of every page of docs/, produced by the code (issues 20, 27).

Each example in README.md or ``docs/**/*.md`` is a fenced block right after a marker
naming its command:

    <!-- example: referee check samples/disputed.yaml --quiet -->
    ```
    ...the output...
    ```

The block holds the command's output, optionally after a ``$ command`` line. A command
may chain ``&&`` (the outputs follow each other) and end with ``| head -N`` (its first N
lines, then a line ``...``). Commands run in a scratch directory holding a copy of
``samples/`` and of ``tests/data/readme/`` (inputs only the docs use), with the
locale, colour and CI variables fixed, so the output is the same on every machine. The
output is what a terminal shows: stdout and stderr (a usage error's message too).

    python -m scripts.readme_examples           # say which examples are stale (exit 1 if any)
    python -m scripts.readme_examples --write   # rewrite them in place

``tests/test_readme.py`` runs the check: when an output changes, regenerate. It also
fails on a block that shows a ``$ referee`` command with no marker (``unmarked``): every
output shown is checked.
"""

from __future__ import annotations

import re
import shlex
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
MARKER = re.compile(r"<!-- example: (?P<command>.+?) -->\n```(?P<lang>[a-z]*)\n(?P<body>.*?)```\n", re.S)
HEAD = re.compile(r"\s*\|\s*head -(\d+)\s*$")
ENV = {"LC_ALL": "C", "LC_MESSAGES": "", "LANG": "", "NO_COLOR": "1", "GITHUB_ACTIONS": "", "COLUMNS": "120"}


@dataclass(frozen=True, slots=True)
class Example:
    command: str
    body: str
    start: int  # of the body in its document
    end: int

    @property
    def echo(self) -> bool:
        """Whether the block shows the command as a ``$ command`` line first."""
        return self.body.startswith("$ ")


def documents() -> list[Path]:
    """Every document whose examples are checked: the README, then each page of docs/."""
    return [README, *sorted(DOCS.rglob("*.md"))]


def examples(text: str) -> list[Example]:
    return [Example(m["command"], m["body"], m.start("body"), m.end("body")) for m in MARKER.finditer(text)]


FENCED = re.compile(r"^(?P<fence>```|~~~)[^\n]*\n(?P<body>.*?)^(?P=fence)[ \t]*$", re.S | re.M)


def unmarked(text: str) -> list[str]:
    """The first line of each fenced block that shows a ``$ referee`` command's output with no
    example marker before it: an output nobody checks."""
    marked = {ex.start for ex in examples(text)}
    found = []
    for block in FENCED.finditer(text):
        first = block["body"].split("\n", 1)[0]
        if first.startswith("$ referee") and block.start("body") not in marked:
            found.append(first)
    return found


def output(command: str, workdir: Path) -> str:
    """What ``command`` prints (stdout and stderr), run in-process with the CLI in ``workdir``."""
    import os

    from click.testing import CliRunner

    from referee.cli import main

    head = HEAD.search(command)
    chain = command[:head.start()] if head else command
    text = ""
    previous = Path.cwd()
    os.chdir(workdir)
    try:
        for part in chain.split("&&"):
            args = shlex.split(part)
            if not args or args[0] != "referee":
                raise ValueError(f"an example runs referee only: {part!r}")
            result = CliRunner(env=ENV).invoke(main, args[1:], prog_name="referee", catch_exceptions=False)
            text += result.output
    finally:
        os.chdir(previous)
    if head:
        lines = text.splitlines(keepends=True)
        keep = int(head[1])
        text = "".join(lines[:keep]) + ("...\n" if len(lines) > keep else "")
    return text


def render(example: Example, workdir: Path) -> str:
    """The block as the code writes it today."""
    prefix = f"$ {example.command}\n" if example.echo else ""
    return prefix + output(example.command, workdir)


def scratch() -> tempfile.TemporaryDirectory[str]:
    """A scratch directory with ``samples/`` and the README's own inputs (``tests/data/readme``)."""
    folder = tempfile.TemporaryDirectory(prefix="readme-examples-")
    shutil.copytree(ROOT / "samples", Path(folder.name) / "samples")
    shutil.copytree(ROOT / "tests" / "data" / "readme", folder.name, dirs_exist_ok=True)
    return folder


def stale(document: Path = README) -> list[tuple[Example, str]]:
    """Every example whose block differs from what the code prints, with the new block."""
    text = document.read_text(encoding="utf-8")
    with scratch() as folder:
        return [(ex, new) for ex in examples(text) if (new := render(ex, Path(folder))) != ex.body]


def write(document: Path = README) -> int:
    """Rewrite the stale blocks in place; how many were rewritten."""
    text = document.read_text(encoding="utf-8")
    changes = stale(document)
    for ex, new in sorted(changes, key=lambda change: change[0].start, reverse=True):
        text = text[:ex.start] + new + text[ex.end:]
    document.write_text(text, encoding="utf-8")
    return len(changes)


def _name(document: Path) -> str:
    return document.relative_to(ROOT).as_posix() if document.is_relative_to(ROOT) else str(document)


def main(argv: list[str]) -> int:
    docs = documents()
    if "--write" in argv:
        for document in docs:
            if (count := write(document)):
                print(f"{_name(document)}: {count} example(s) rewritten")
        return 0
    total = stale_count = 0
    for document in docs:
        text = document.read_text(encoding="utf-8")
        total += len(examples(text))
        for first in unmarked(text):
            stale_count += 1
            print(f"{_name(document)}: unmarked: {first} (put <!-- example: COMMAND --> before it)")
        for ex, _ in stale(document):
            stale_count += 1
            print(f"{_name(document)}: stale: {ex.command}")
    print(f"{total} examples in {len(docs)} documents, {stale_count} stale"
          + ("; run python -m scripts.readme_examples --write" if stale_count else ""))
    return 1 if stale_count else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
