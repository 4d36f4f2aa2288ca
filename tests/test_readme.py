"""Every example output in the README is what the code prints (issue 20).

The examples are marked ``<!-- example: COMMAND -->`` in README.md; when an output
changes, regenerate them: ``python -m scripts.readme_examples --write``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scripts.readme_examples import README, Example, examples, render, scratch

EXAMPLES = examples(README.read_text(encoding="utf-8"))
FIX = "README example stale: run python -m scripts.readme_examples --write"


@pytest.fixture(scope="module")
def workdir():  # type: ignore[no-untyped-def]
    with scratch() as folder:
        yield Path(folder)


def _param(example: Example) -> object:
    slow = "referee stats" in example.command  # values every decision exactly
    return pytest.param(example, id=example.command[:60], marks=[pytest.mark.slow] if slow else [])


def test_the_readme_has_examples() -> None:
    commands = [ex.command for ex in EXAMPLES]
    assert "referee check samples/disputed.yaml --quiet" in commands
    assert any(c.startswith("referee recall") for c in commands) and len(commands) >= 8


@pytest.mark.parametrize("example", [_param(ex) for ex in EXAMPLES])
def test_example_is_what_the_code_prints(example: Example, workdir: Path) -> None:
    assert render(example, workdir) == example.body, FIX


def test_write_rewrites_a_stale_example(tmp_path: Path) -> None:
    from scripts.readme_examples import stale, write

    readme = tmp_path / "README.md"
    readme.write_text("Intro\n\n<!-- example: referee hand Ah Kd Qd Jd Td -->\n```\nold output\n```\n\nEnd\n",
                      encoding="utf-8")
    assert [ex.command for ex, _ in stale(readme)] == ["referee hand Ah Kd Qd Jd Td"]
    assert write(readme) == 1 and stale(readme) == []
    text = readme.read_text(encoding="utf-8")
    assert text.startswith("Intro\n\n<!-- example:") and text.endswith("```\n\nEnd\n") and "straight" in text
