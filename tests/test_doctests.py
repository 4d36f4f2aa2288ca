"""The examples in the package's docstrings run (issue 17): an example that no longer
holds fails here, so the documentation of a function cannot drift from what it does."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

import referee

PACKAGE = Path(referee.__file__).parent
# Every module, namespace packages included (pkgutil skips folders without __init__.py);
# __main__ runs the command line when imported.
MODULES = sorted(
    ".".join(("referee", *path.relative_to(PACKAGE).with_suffix("").parts)).removesuffix(".__init__")
    for path in PACKAGE.rglob("*.py") if path.name != "__main__.py"
)
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=FLAGS, report=True)
    assert result.failed == 0, f"{result.failed} docstring example(s) of {name} failed (the output above)"


@pytest.mark.parametrize("name", ["referee.rules.cards", "referee.rules.money", "referee.rules.hands"])
def test_the_rules_core_has_examples(name: str) -> None:
    """The modules a newcomer reads first show how they are called."""
    finder = doctest.DocTestFinder()
    examples = sum(len(t.examples) for t in finder.find(importlib.import_module(name)))
    assert examples >= 3, name
