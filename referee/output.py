"""Every file a command writes: checked against the inputs, written atomically.

Why: an audit tool must never destroy its input, and a report that looks whole must be
whole. So an output that is (or would next time be) an input is refused before anything
is opened; a file is written to a temporary file in the same folder, flushed to disk and
renamed over the target only when the command succeeds (an interrupted run leaves the
previous report, two runs at once leave one of the two whole reports); ``-`` is standard
output; and a write that fails (disk full, closed pipe) is one line, not a traceback.
"""

from __future__ import annotations

import codecs
import errno
import fnmatch
import glob
import io
import os
import stat
import sys
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TextIO, cast

from .errors import UserError
from .load.inputs import EXTENSIONS

STDOUT = "-"
#: The extensions an input folder is searched for.
HAND_HISTORY_EXTENSIONS = EXTENSIONS


class OutputError(UserError):
    """An output that may not or cannot be written (exit 2)."""


class PipeClosed(OutputError):
    """The reader of standard output (or of a pipe) went away: the command ends quietly."""


def describe(target: str) -> str:
    return "standard output" if target == STDOUT else target


def failure(target: str, err: OSError) -> OutputError:
    """The one-line error for a failed write to ``target``."""
    if err.errno == errno.EPIPE:
        return PipeClosed(f"cannot write {describe(target)}: the pipe is closed")
    return OutputError(f"cannot write {describe(target)}: {err.strerror or err}")


# --- never write over an input -----------------------------------------------------------

def guard(outputs: Iterable[tuple[str, str | None]], inputs: Iterable[str]) -> None:
    """Refuse (``OutputError``) an output that is an input, reaches one through a link,
    lies in an input folder where the next audit would read it, or is named twice.

    ``outputs`` are ``(option, path)`` pairs (``None`` or ``-`` write nothing to disk);
    ``inputs`` are the arguments as given: files, folders, globs, ``-``.
    """
    named = [(option, path) for option, path in outputs if path is not None]
    stdout = [option for option, path in named if path == STDOUT]
    if len(stdout) > 1:
        raise OutputError(f"{' and '.join(stdout)} both name standard output; only one of them can")
    files = [(option, path) for option, path in named if path != STDOUT]
    inputs = list(inputs)
    stdin = _stdin_file() if STDOUT in inputs else None
    inputs = [i for i in inputs if i != STDOUT]
    for index, (option, path) in enumerate(files):
        for other_option, other in files[index + 1:]:
            if _same_file(path, other):
                raise OutputError(f"{option} and {other_option} name the same file {path}")
        for argument in inputs:
            reason = _overlap(path, argument)
            if reason:
                raise OutputError(f"{option} {path} {reason}; the input is left untouched")
        if stdin is not None and _identity(path) == stdin:
            raise OutputError(f"{option} {path} is the file redirected to standard input (-); "
                              "the input is left untouched")


def _stdin_file() -> tuple[int, int] | None:
    """The device and inode of standard input when it is a regular file (``- < FILE``):
    writing the output there would replace the input while it is being read."""
    try:
        info = os.fstat(sys.stdin.fileno())
    except (OSError, ValueError, AttributeError):  # closed, or replaced by a non-file stream (tests)
        return None
    return (info.st_dev, info.st_ino) if stat.S_ISREG(info.st_mode) else None


def _identity(path: str) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino


def _overlap(output: str, argument: str) -> str:
    """Why writing ``output`` would harm the input ``argument`` (or ``""``)."""
    candidates = [argument]
    if not os.path.lexists(argument) and glob.has_magic(argument):
        candidates = glob.glob(argument, recursive=True)
        if _would_match(output, argument):
            return f"matches the input pattern {argument}: the next audit would read it"
    for candidate in candidates:
        if os.path.isdir(candidate):
            if _inside(output, candidate) and _is_hand_history_name(output):
                return f"is inside the input folder {candidate}: the next audit would read it"
        elif _same_file(output, candidate):
            return f"is the input {candidate}" + ("" if output == candidate else " (the same file)")
    return ""


def _same_file(a: str, b: str) -> bool:
    """The same file by real path, or by device and inode (a hard link)."""
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _inside(path: str, folder: str) -> bool:
    real, base = os.path.realpath(path), os.path.realpath(folder)
    return os.path.commonpath([real, base]) == base


def _is_hand_history_name(path: str) -> bool:
    return Path(path).suffix.lower() in HAND_HISTORY_EXTENSIONS


def _would_match(output: str, pattern: str) -> bool:
    return _is_hand_history_name(output) and (
        fnmatch.fnmatch(output, pattern)
        or fnmatch.fnmatch(os.path.abspath(output), os.path.abspath(pattern))
        or fnmatch.fnmatch(os.path.realpath(output), os.path.abspath(pattern)))


# --- writing -------------------------------------------------------------------------------

#: How report files (always UTF-8) write what UTF-8 cannot: only a lone surrogate (a
#: JSON input's ``"\ud800"``, a file name's undecodable byte), written as ``\ud800``:
#: in a JSON string the very escape that reads back as it, elsewhere a visible one. It
#: was an internal error, and the report was lost.
TEXT_ERRORS = "backslashreplace"


def utf8_stdout() -> None:
    """Standard output writes lone surrogates as report files do (see TEXT_ERRORS) when
    it is UTF-8; in another encoding a character it cannot write is an error that says
    so (GuardedWriter)."""
    stream = sys.stdout
    try:
        if isinstance(stream, io.TextIOWrapper) and codecs.lookup(stream.encoding).name == "utf-8":
            stream.reconfigure(errors=TEXT_ERRORS)
    except (AttributeError, LookupError, TypeError, ValueError):
        return

class GuardedWriter(io.TextIOBase):
    """A text stream whose failed writes raise :class:`OutputError` naming the target."""

    def __init__(self, inner: TextIO, target: str) -> None:
        super().__init__()
        self._inner = inner
        self.target = target

    def write(self, text: str) -> int:
        try:
            return self._inner.write(text)
        except OSError as err:
            raise failure(self.target, err) from None
        except UnicodeEncodeError as err:
            raise OutputError(f"cannot write {describe(self.target)}: its encoding ({err.encoding}) has no "
                              f"{err.object[err.start:err.end]!a}; write UTF-8 (PYTHONIOENCODING=utf-8) or "
                              "use --output FILE") from None

    def flush(self) -> None:
        try:
            self._inner.flush()
        except OSError as err:
            raise failure(self.target, err) from None

    def isatty(self) -> bool:
        return self._inner.isatty()

    def copy_from(self, source: int, offset: int, size: int) -> bool:
        """Append ``size`` bytes of UTF-8 text at ``offset`` of the file open as ``source``
        (a worker's spill file, see :mod:`referee.report.spill`) in the kernel, after what
        is buffered; False, with nothing written, when this stream cannot take the bytes
        as they are (no file descriptor, another encoding, a platform without
        ``sendfile`` to any file, a file that refuses it: one open to append, as ``>>``
        opens it)."""
        inner = self._inner
        try:
            fd = inner.fileno()
            encoding = codecs.lookup(inner.encoding).name
        except (OSError, ValueError, AttributeError, LookupError, TypeError):
            return False
        if encoding != "utf-8" or os.linesep != "\n" or not sys.platform.startswith("linux"):
            return False
        first = True
        try:
            inner.flush()
            while size > 0:
                try:
                    sent = os.sendfile(fd, source, offset, size)
                except OSError as err:  # a file open to append (``>> report``) refuses sendfile: EINVAL
                    if first and err.errno in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
                        return False
                    raise
                if sent == 0:
                    raise OSError(errno.EIO, "the worker's report text ended early")
                first = False
                offset += sent
                size -= sent
        except OSError as err:
            raise failure(self.target, err) from None
        return True

    def writable(self) -> bool:
        return True


def guarded(inner: TextIO, target: str) -> TextIO:
    """``inner`` with its write errors raised as :class:`OutputError` naming ``target``."""
    return cast(TextIO, GuardedWriter(inner, target))


@contextmanager
def open_output(target: str, mode: int | None = None) -> Iterator[TextIO]:
    """A text stream to ``target`` (``-``: standard output), replaced whole on success;
    ``mode``: the new file's permissions from its creation on (a private key's ``0o600``:
    never readable by others, not even for a moment), else those a plain ``open`` gives.

    A regular file (or a new one) is written to ``.NAME.XXXX.tmp`` in its folder, synced
    and renamed over ``target`` when the block ends without error; on any error or
    interrupt (``KeyboardInterrupt``, and SIGTERM through the entry wrapper) the temporary
    file is removed and ``target`` is as it was. A device or a pipe (``/dev/null``,
    ``/dev/full``, a FIFO) is written directly, never replaced.
    """
    if target == STDOUT:
        writer = guarded(sys.stdout, target)
        yield writer
        writer.flush()
        return
    if _is_special(target):
        fh = _open(target)
        try:
            writer = guarded(fh, target)
            yield writer
            writer.flush()
        finally:
            _close_quietly(fh)
        return
    temporary, fh = _temporary(target, mode)
    try:
        writer = guarded(fh, target)
        yield writer
        writer.flush()
        try:
            os.fsync(fh.fileno())
            fh.close()
            os.replace(temporary, target)
        except OSError as err:
            raise failure(target, err) from None
    except BaseException:
        _close_quietly(fh)
        _remove(temporary)
        raise


def _is_special(target: str) -> bool:
    try:
        mode = os.stat(target).st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def _open(target: str) -> TextIO:
    try:
        return open(target, "w", encoding="utf-8", errors=TEXT_ERRORS, newline="\n")
    except OSError as err:
        raise failure(target, err) from None


def _close_quietly(fh: TextIO) -> None:
    """Close after an error: the error already raised is the one to report."""
    with suppress(OSError):
        fh.close()


def _temporary(target: str, mode: int | None = None) -> tuple[str, TextIO]:
    """A new file beside ``target`` with ``mode``, or the mode a plain ``open`` would give
    (``mkstemp`` makes it ``0o600``: changed only to open it up)."""
    if os.path.isdir(target):
        raise OutputError(f"cannot write {target}: it is a directory")
    folder, name = os.path.split(os.path.abspath(target))
    try:
        fd, temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
    except OSError as err:
        if err.errno == errno.ENOENT and os.path.isdir(folder):  # /proc, /sys: a folder that takes no new file
            why = f"the folder {folder} takes no new file"
            raise OutputError(f"cannot write {target}: "
                              + (f"not a writable file ({why})" if os.path.lexists(target) else why)) from None
        raise failure(target, err) from None
    try:
        os.fchmod(fd, 0o666 & ~_umask() if mode is None else mode)
        return temporary, open(fd, "w", encoding="utf-8", errors=TEXT_ERRORS, newline="\n")
    except BaseException:
        os.close(fd)
        _remove(temporary)
        raise


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _remove(path: str) -> None:
    with suppress(OSError):
        os.unlink(path)
