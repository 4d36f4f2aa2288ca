"""From command-line arguments to the list of inputs, and each input opened for one pass.

Why a module of its own: what the arguments name is where an audit can silently check
nothing (a glob that matches only folders), check a file twice (given directly and
through its folder) or never end (a symbolic-link loop, ``/dev/zero``). Here every
argument must yield at least one input, each file is audited once (by device and
inode, whatever path or link named it), directories are walked once each (by real
path), and what is not a regular file (standard input, a pipe, a device) is copied to
a bounded temporary file after a sniff of its first bytes, so that every input is read
as a regular file of known size.
"""

from __future__ import annotations

import errno
import glob
import io
import os
import stat
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, BinaryIO

EXTENSIONS = (".yaml", ".yml", ".json", ".jsonl")
#: What a folder of providers' exports holds (``check --mapping``).
EXPORT_EXTENSIONS = (".json", ".jsonl", ".csv")
STDIN = "-"
#: What is read of an input to tell its kind (and binary data) before anything else.
HEAD_BYTES = 4096
#: At most this much is copied from standard input, a pipe or a device: the copy is on
#: disk, but a stream that never ends must not fill it.
MAX_STREAM_BYTES = 4 * 1024**3


class SourceError(Exception):
    """An argument that names nothing to audit (exit 2)."""


@dataclass(frozen=True, slots=True)
class Source:
    """One input as the arguments named it; ``path`` is None for standard input.

    Frozen: what happens while it is read belongs to a :class:`referee.load.reading.Reading`.
    """

    name: str
    path: Path | None
    #: The bytes themselves, for an input held in memory (a test, a fuzzer, a library
    #: caller); ``path`` is then None.
    data: bytes | None = field(default=None, repr=False)
    #: Found in a folder, not named: a file there that is not a hand history (a settings
    #: YAML, a profile beside the logs) is skipped with a notice, not refused.
    found: bool = False


@dataclass(frozen=True, slots=True)
class Identity:
    """What says a file is still the one that was opened: an audit compares it at the
    start and at the end, and refuses the input if it changed."""

    device: int
    inode: int
    size: int
    mtime_ns: int

    @classmethod
    def of(cls, st: os.stat_result) -> Identity:
        return cls(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def expand(arguments: list[str], note: Callable[[str], None] | None = None,
           extensions: tuple[str, ...] = EXTENSIONS) -> list[Source]:
    """Files, ``-``, directories (searched for files with ``extensions``: hand histories
    unless told) and globs, each file once; ``note`` hears what was skipped and why (a
    duplicate, a dangling link)."""
    say = note or (lambda _: None)
    seen: dict[tuple[int, int] | str, str] = {}
    sources: list[Source] = []

    def add(name: str, path: Path | None, found: bool = False) -> bool:
        key: tuple[int, int] | str
        if path is None:
            key = STDIN
        else:
            try:
                st = path.stat()
            except OSError as err:
                if path.is_symlink():
                    say(f"{_shown(name)}: {_broken_link(path)}, skipped")
                    return False
                raise SourceError(f"{_shown(name)}: {err.strerror or err}") from None
            key = (st.st_dev, st.st_ino)
        if key in seen:
            say(f"{_shown(name)}: the same file as {_shown(seen[key])}, audited once")
            return True
        seen[key] = name
        sources.append(Source(name, path, found=found))
        return True

    for arg in arguments:
        if arg == STDIN:
            _check_stdin()
            add(STDIN, None)
            continue
        path = Path(arg)
        if path.is_dir():
            if not _walk(path, add, extensions):
                wanted = " or ".join(filter(None, [", ".join(f"*{e}" for e in extensions[:-1]), f"*{extensions[-1]}"]))
                raise SourceError(f"{_shown(arg)}: no {wanted} file in this directory")
        elif path.exists():
            add(arg, path)
        elif path.is_symlink():
            raise SourceError(f"{_shown(arg)}: {_broken_link(path)}")
        elif glob.has_magic(arg):
            _expand_glob(arg, add)
        else:
            raise SourceError(f"{_shown(arg)}: no such file or directory")
    return sources


def _shown(name: str) -> str:
    """A name as a message on standard error shows it: on its one line, escaped as the
    reports escape it (:func:`referee.report.base.printable`). A folder's file names and
    a link's target are nobody's word, and standard error is in a CI log too, where a
    line break in a name would start a line of its own (a workflow command)."""
    from ..escape import printable

    return printable(name)


def _broken_link(path: Path) -> str:
    """Why a link names no file: a loop of links, or a target that does not exist."""
    try:
        os.stat(path)
    except OSError as err:
        if err.errno == errno.ELOOP:
            return "a loop of symbolic links"
    return f"a dangling link (to {_shown(os.readlink(path))})"


def _expand_glob(pattern: str, add: Callable[..., bool]) -> None:
    matches = sorted(glob.glob(pattern, recursive=True))
    if not matches:
        raise SourceError(f"{_shown(pattern)}: no file matches this pattern")
    found = False
    for match in matches:
        path = Path(match)
        if path.is_dir():
            found = _walk(path, add) or found
        elif path.exists():
            found = add(match, path) or found
        elif path.is_symlink():
            add(match, path)  # reported as dangling
    if not found:
        raise SourceError(f"{_shown(pattern)}: matches no hand-history file (only folders without one, "
                          "or dangling links)")


def _walk(folder: Path, add: Callable[..., bool], extensions: tuple[str, ...] = EXTENSIONS) -> bool:
    """Every hand-history file under ``folder``, in path order; linked folders are
    followed, each real folder once (a link loop ends)."""
    found: list[Path] = []
    visited: set[str] = set()
    for root, dirs, files in os.walk(folder, followlinks=True):
        real = os.path.realpath(root)
        if real in visited:
            dirs[:] = []
            continue
        visited.add(real)
        found.extend(Path(root) / name for name in files if _wanted(name, extensions))
    added = False
    for path in sorted(found):
        if path.is_file() or (path.is_symlink() and not path.exists()):  # a dangling link is reported
            added = add(str(path), path, True) or added
    return added


def _wanted(name: str, extensions: tuple[str, ...]) -> bool:
    """A folder's file to audit: one of ``extensions``, or one compressed (``log.jsonl.gz``)."""
    from .compressed import is_compressed_name

    return os.path.splitext(name)[1].lower() in extensions or is_compressed_name(name, extensions)


def _check_stdin() -> None:
    if sys.stdin is None or sys.stdin.closed:
        raise SourceError("-: standard input is closed: nothing to audit")


@dataclass(slots=True)
class Opened:
    """An input ready for its one pass: a regular file (or the bounded copy of a
    stream), its first bytes, and, for a file, what it was when opened."""

    file: BinaryIO
    head: bytes
    size: int
    identity: Identity | None
    #: The bound a stream went past (only its start was kept), else 0.
    overflow: int = 0

    def close(self) -> None:
        self.file.close()


def open_input(source: Source, offset: int = 0) -> Opened:
    """Open an input for reading from ``offset``; streams are copied first (bounded).

    Raises OSError when it cannot be read.
    """
    if source.data is not None:
        return Opened(io.BytesIO(source.data[offset:]), source.data[:HEAD_BYTES], len(source.data), None)
    if source.path is None:
        stream = sys.stdin.buffer if sys.stdin is not None else None
        if stream is None or sys.stdin.closed:
            raise OSError(9, "standard input is closed")
        return _spool(stream)
    fh: BinaryIO = source.path.open("rb", buffering=0)
    try:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode):
            with fh:
                return _spool(fh)
        head = os.pread(fh.fileno(), HEAD_BYTES, 0)
        if offset:
            fh.seek(offset)
        return Opened(fh, head, st.st_size, Identity.of(st))
    except BaseException:
        fh.close()
        raise


def _spool(stream: IO[bytes]) -> Opened:
    """A stream copied to an anonymous temporary file, after a sniff: binary data (as
    from ``/dev/zero`` or ``/dev/urandom``) is not copied past its first bytes."""
    head = _read_exactly(stream, HEAD_BYTES)
    copy: BinaryIO = tempfile.TemporaryFile()  # noqa: SIM115 - owned by the Opened
    copy.write(head)
    size, overflow = len(head), 0
    if len(head) == HEAD_BYTES and b"\x00" not in head:
        while True:
            block = stream.read(1 << 20)
            if not block:
                break
            if size + len(block) > MAX_STREAM_BYTES:
                overflow = MAX_STREAM_BYTES
                break
            copy.write(block)
            size += len(block)
    copy.flush()
    copy.seek(0)
    raw: BinaryIO = open(os.dup(copy.fileno()), "rb", buffering=0)  # noqa: SIM115 - a plain reader of the copy
    copy.close()
    return Opened(raw, head, size, None, overflow)


def _read_exactly(stream: IO[bytes], n: int) -> bytes:
    parts: list[bytes] = []
    while n > 0:
        block = stream.read(n)
        if not block:
            break
        parts.append(block)
        n -= len(block)
    return b"".join(parts)
