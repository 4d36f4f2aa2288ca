"""No reference a user cannot open (issue 27): every rule a built-in profile cites is in
docs/rules.md, which ships with the project, at an anchor that exists; nothing shipped
or printed names the source documents' private folder (``seeds/``) or ``RULES.md``,
which are in neither a checkout nor a wheel; a French reader gets the citation in French."""

from __future__ import annotations

import re
from importlib import resources

import pytest
from markdown.extensions.toc import slugify

from referee.profiles import BUILTIN, resolve_profile
from referee.rules.profile import Passage, in_language

from .conftest import ROOT, SAMPLES, run

RULES_DOC = ROOT / "docs" / "rules.md"
UNREACHABLE = re.compile(r"seeds/|seeds? 0\d\d|RULES\.md|document 00\d")
POINTER = re.compile(r"docs/rules\.md#([A-Za-z0-9_-]+)")
#: Every built-in profile's rounds, in one file (tests/test_explain.py's cases).
PROFILE_ROUNDS = ROOT / "tests" / "data" / "rulings-profiles.yaml"


def _anchors() -> set[str]:
    """The ids mkdocs (and GitHub, for these ASCII headings) gives docs/rules.md's headings."""
    headings = re.findall(r"^#{1,6} (.+)$", RULES_DOC.read_text(encoding="utf-8"), flags=re.MULTILINE)
    return {str(slugify(h.strip(), "-")) for h in headings}


def _citations(name: str) -> list[str]:
    """Every citation a built-in prints, in each language: its source and its passages' cites."""
    profile = resolve_profile(name).profile
    found = [in_language(profile.source, lang) for lang in ("en", "fr")]
    return found + [p.where(lang) for p in profile.rules.values() for lang in ("en", "fr")]


def test_no_shipped_profile_names_a_document_outside_the_package() -> None:
    folder = resources.files("referee").joinpath("data")
    shipped = [folder.joinpath("builtin_profiles.json"),
               *(f for f in folder.joinpath("profiles").iterdir() if f.name.endswith(".yaml"))]
    assert len(shipped) == 1 + 2 * len(BUILTIN)
    for f in shipped:
        text = f.read_text(encoding="utf-8")
        assert not UNREACHABLE.search(text), (f.name, UNREACHABLE.search(text))


@pytest.mark.parametrize("name", BUILTIN)
def test_every_citation_points_at_an_anchor_of_docs_rules(name: str) -> None:
    anchors = _anchors()
    for cite in _citations(name):
        pointed = POINTER.findall(cite)
        assert pointed, f"{name}: {cite!r} does not point at docs/rules.md"
        assert set(pointed) <= anchors, f"{name}: {cite!r}: no such anchor in docs/rules.md"


@pytest.mark.parametrize("name", BUILTIN)
def test_a_citation_is_said_in_the_readers_language(name: str) -> None:
    profile = resolve_profile(name).profile
    passages: list[Passage] = list(profile.rules.values())
    assert passages
    for passage in passages:
        assert isinstance(passage.cite, dict) and set(passage.cite) == {"en", "fr"}
    assert isinstance(profile.source, dict) and set(profile.source) == {"en", "fr"}



@pytest.mark.parametrize("name", BUILTIN)
def test_docs_rules_holds_the_words_each_profile_quotes(name: str) -> None:
    """The wording a ruling quotes is in docs/rules.md (an elision ``[…]`` between two
    parts: each part is)."""
    doc = " ".join(" ".join(re.sub(r"^> ?", "", line) for line in RULES_DOC.read_text(encoding="utf-8")
                            .splitlines()).split())
    for passage in resolve_profile(name).profile.rules.values():
        for words in passage.text.values():
            for part in words.split("[…]"):
                part = " ".join(part.split())
                assert part in doc, f"{name}: {part!r} is not in docs/rules.md"


def _printed() -> list[tuple[str, ...]]:
    commands: list[tuple[str, ...]] = [("profiles",), *(("profiles", name) for name in BUILTIN),
                                       *(("par", "--profile", name, "--stored") for name in BUILTIN)]
    rounds: list[tuple[str, ...]] = [(str(SAMPLES / "clean.yaml"), "--round", "1"),
                                     (str(SAMPLES / "caribbean.yaml"), "--round", "1"),
                                     (str(SAMPLES / "void.yaml"), "--round", "4")]
    rounds += [(str(PROFILE_ROUNDS), "--round", "1", "--session", s) for s in ("bonus-aa", "caribbean", "bonus-100")]
    for lang in ("en", "fr"):
        for where in rounds:
            commands.append(("explain", *where, "--lang", lang))
            commands.append(("explain", *where, "--lang", lang, "--format", "json"))
    return commands


@pytest.mark.parametrize("args", _printed(), ids=" ".join)
def test_no_printed_citation_names_a_document_a_user_cannot_open(args: tuple[str, ...]) -> None:
    code, out = run(*args)
    assert code in (0, 1), out
    assert not UNREACHABLE.search(out), UNREACHABLE.search(out)
    if args[0] == "explain" and "--format" not in args:
        assert POINTER.search(out)  # the ruling cites its rules where a user can read them


def test_a_french_ruling_cites_in_french() -> None:
    _, english = run("explain", str(SAMPLES / "clean.yaml"), "--round", "1")
    _, french = run("explain", str(SAMPLES / "clean.yaml"), "--round", "1", "--lang", "fr")
    assert "§05 Qualification and settlement (docs/rules.md#05-qualification-and-settlement)" in english
    assert "§05 Qualification et règlement (docs/rules.md#05-qualification-and-settlement)" in french
    assert "profil vivo (le guide, §01-§09 : docs/rules.md#vivo)" in french

