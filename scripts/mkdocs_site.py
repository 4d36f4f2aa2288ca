"""MkDocs hooks: one set of Markdown files that reads the same on GitHub and in the site.

The documentation is written for the repository: README.md links ``docs/check.md``, a
page of ``docs/`` links ``../README.md`` or ``../bench/RESULTS.md`` or
``../samples/table.yaml``, and GitHub follows all of them. The site (``mkdocs.yml``,
``docs_dir: docs``) is built from the same files, unchanged on disk:

* README.md is the site's home page (``index.md``): one landing page, not two to keep alike;
* every repository file a page links outside ``docs/`` (bench/RESULTS.md, a sample) is
  put in the site at its repository path, a Markdown file as a page;
* each link is rewritten from its repository path to its place in the site, so MkDocs
  then checks it (``--strict``: a link to a missing file or a missing heading fails);
* headings get GitHub's anchors (``--format json`` is ``#--format-json``), so an anchor
  that works on GitHub is the one the site has, and the strict build checks it.

Used by ``mkdocs.yml`` (``hooks:``); ``tests/test_docs.py`` builds the site strictly.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import Files
    from mkdocs.structure.pages import Page

ROOT = Path(__file__).resolve().parent.parent
DOCS = "docs"
README = "README.md"
HOME = "index.md"

FENCE = re.compile(r"^\s*(```|~~~)")
CODE_SPAN = re.compile(r"(`+).*?\1")
LINK = re.compile(r"(?P<head>!?\[[^\]\n]*\]\()(?P<target>[^)\s]+)(?P<tail>(?:\s+\"[^\"\n]*\")?\))")
EXTERNAL = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|//|#)", re.I)


def github_slug(text: str, separator: str = "-") -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, each space a hyphen."""
    del separator  # GitHub's is always '-'
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def site_path(repo_path: str) -> str:
    """Where the repository file ``repo_path`` (posix, from the root) is in the site."""
    if repo_path == README:
        return HOME
    if repo_path.startswith(DOCS + "/"):
        return repo_path[len(DOCS) + 1:]
    return repo_path


def repo_path_of(abs_src_path: str) -> str:
    """The repository path (posix, from the root) of a page's source file."""
    return Path(abs_src_path).resolve().relative_to(ROOT).as_posix()


def _outside_code(line: str) -> Iterator[tuple[int, int]]:
    """The spans of ``line`` outside inline code."""
    start = 0
    for match in CODE_SPAN.finditer(line):
        yield start, match.start()
        start = match.end()
    yield start, len(line)


def links(markdown: str) -> Iterator[tuple[int, re.Match[str]]]:
    """Every inline link or image of ``markdown`` outside code: (line index, match)."""
    fenced = False
    for index, line in enumerate(markdown.split("\n")):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if fenced:
            continue
        for start, end in _outside_code(line):
            for match in LINK.finditer(line, start, end):
                yield index, match


def resolve(page_repo_path: str, target: str) -> str | None:
    """The repository path a relative link of ``page_repo_path`` names, or None (external, an
    anchor of the page itself, or outside the repository)."""
    if EXTERNAL.match(target):
        return None
    path = target.split("#", 1)[0]
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(page_repo_path), path))
    return None if joined.startswith("..") or joined == "." else joined


def rewrite(markdown: str, page_repo_path: str) -> str:
    """``markdown`` with each link to a repository file pointed at that file's place in the site."""
    lines = markdown.split("\n")
    here = posixpath.dirname(site_path(page_repo_path))
    for index, match in reversed(list(links(markdown))):
        target = match["target"]
        repo = resolve(page_repo_path, target)
        if repo is None or not (ROOT / repo).exists():
            continue  # MkDocs reports a link it cannot follow (strict: the build fails)
        anchor = target[len(target.split("#", 1)[0]):]
        new = posixpath.relpath(site_path(repo), here or ".") + anchor
        line = lines[index]
        lines[index] = line[:match.start("target")] + new + line[match.end("target"):]
    return "\n".join(lines)


def extra_files(start: list[str]) -> list[str]:
    """The repository files outside ``docs/`` that the pages link, followed through linked Markdown."""
    seen: set[str] = set()
    todo = list(start)
    found: list[str] = []
    while todo:
        page = todo.pop()
        if page in seen:
            continue
        seen.add(page)
        text = (ROOT / page).read_text(encoding="utf-8")
        for _, match in links(text):
            repo = resolve(page, match["target"])
            if repo is None or repo.startswith(DOCS + "/") or not (ROOT / repo).is_file():
                continue
            if repo != README and repo not in found:
                found.append(repo)
            if repo.endswith(".md"):
                todo.append(repo)
    return sorted(found)


# MkDocs' hook functions (https://www.mkdocs.org/user-guide/configuration/#hooks).

def on_config(config: MkDocsConfig) -> MkDocsConfig:
    config.mdx_configs.setdefault("toc", {})["slugify"] = github_slug
    return config


def on_files(files: Files, config: MkDocsConfig) -> Files:
    from mkdocs.structure.files import File

    if files.get_file_from_path(HOME) is not None:
        raise ValueError("docs/index.md would hide README.md, the site's home page: remove it")
    files.append(File.generated(config, HOME, abs_src_path=str(ROOT / README)))
    pages = [README] + [f"{DOCS}/{f.src_uri}" for f in files.documentation_pages() if f.src_uri != HOME]
    for repo in extra_files(pages):
        files.append(File.generated(config, repo, abs_src_path=str(ROOT / repo)))
    return files


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    del config, files
    source = page.file.abs_src_path
    assert source is not None, "every page here is a file of the repository"
    return rewrite(markdown, repo_path_of(source))
