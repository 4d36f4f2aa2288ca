"""The command line's frame: the ``referee`` group, its exit statuses and its entry.

Every command is a module of this package that adds itself to :data:`main`; the work
is in the library, the modules only handle arguments."""

from __future__ import annotations

import contextlib
import errno
import io
import os
import signal
import sys
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any

import click

from .. import __version__
from ..errors import UserError
from ..escape import printable_lines
from ..output import OutputError, PipeClosed, utf8_stdout

#: Exit statuses (the table in README.md and docs/limits.md).
EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE, EXIT_INTERRUPTED, EXIT_PIPE_CLOSED, EXIT_TERMINATED = 0, 1, 2, 130, 141, 143


#: Set to show the traceback of an unexpected error (otherwise one line, exit 2).
DEBUG_VARIABLE = "REFEREE_DEBUG"


class Terminated(BaseException):
    """SIGTERM, raised in the main process so that it unwinds like Ctrl-C: temporary
    output files are removed and the previous report stays."""


class RefereeGroup(click.Group):
    """The one entry wrapper of every command: whatever happens, one line on stderr at
    most and an exit status from the table (0 clean, 1 findings, 2 usage, input, output or
    internal problems, 130 Ctrl-C, 141 output pipe closed, 143 SIGTERM); never a
    traceback, never 1 for anything but findings."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        kwargs["standalone_mode"] = False
        sys.exit(run_guarded(lambda: super(RefereeGroup, self).main(*args, **kwargs)))

    # Click's own ``main`` turns a closed pipe (an ``OSError`` EPIPE out of a command's
    # ``click.echo``, or out of ``--help``) into exit status 1, the status of findings:
    # ``referee store verify audit.db | head -0`` said "a record changed" of an intact
    # store. Raised here as PipeClosed instead, it reaches run_guarded: a quiet 141.

    def make_context(self, *args: Any, **kwargs: Any) -> click.Context:
        with pipe_closed():
            return super().make_context(*args, **kwargs)

    def invoke(self, ctx: click.Context) -> Any:
        with pipe_closed():
            return super().invoke(ctx)


@contextlib.contextmanager
def pipe_closed() -> Iterator[None]:
    """An ``OSError`` EPIPE (writing to a pipe whose reader went away) as :class:`PipeClosed`."""
    try:
        yield
    except OSError as err:
        if err.errno != errno.EPIPE:
            raise
        raise PipeClosed("cannot write standard output: the pipe is closed") from None


def run_guarded(call: Callable[[], Any]) -> int:
    """Run ``call`` (a command) and turn its outcome into an exit status."""
    previous = _catch_sigterm()
    try:
        try:
            status = _status(call())
        except SystemExit as stop:
            status = _status(stop.code)
        sys.stdout.flush()
        return status
    except (PipeClosed, BrokenPipeError):
        _silence_stdout()
        return EXIT_PIPE_CLOSED
    except UserError as err:
        return _fail(str(err), stdout_broken=isinstance(err, OutputError))
    except click.ClickException as err:
        err.show()
        return EXIT_USAGE
    except (click.Abort, KeyboardInterrupt) as err:
        if isinstance(err.__cause__, EOFError):
            return _fail("standard input was closed")
        click.echo("referee: interrupted", err=True)
        return EXIT_INTERRUPTED
    except Terminated:
        click.echo("referee: terminated", err=True)
        return EXIT_TERMINATED
    except OSError as err:
        return _os_error(err)
    except Exception as err:
        if os.environ.get(DEBUG_VARIABLE):
            raise
        first = (str(err).splitlines() or [""])[0]
        return _fail(f"internal error: {type(err).__name__}: {first} (set {DEBUG_VARIABLE}=1 for the traceback)")
    finally:
        _restore_sigterm(previous)


def _status(code: object) -> int:
    if code is None:
        return EXIT_CLEAN
    if isinstance(code, int):
        return code
    click.echo(f"referee: {code}", err=True)
    return EXIT_USAGE


def _fail(message: str, stdout_broken: bool = False) -> int:
    if stdout_broken:
        _silence_stdout()
    with contextlib.suppress(OSError):
        click.echo(f"referee: {printable_lines(message)}", err=True)  # names in it escaped
    return EXIT_USAGE


def _os_error(err: OSError) -> int:
    """An OSError no code caught: most likely writing standard output (``> /dev/full``)."""
    import errno

    if err.errno == errno.EPIPE:
        _silence_stdout()
        return EXIT_PIPE_CLOSED
    try:
        sys.stdout.flush()
    except OSError:
        return _fail(f"cannot write standard output: {err.strerror or err}", stdout_broken=True)
    if err.filename:
        return _fail(f"{err.filename}: {err.strerror or err}")
    if err.errno in (errno.ENOSPC, errno.EIO, errno.EFBIG, errno.EDQUOT):
        return _fail(f"cannot write the output: {err.strerror}", stdout_broken=True)
    return _fail(err.strerror or str(err))


def _silence_stdout() -> None:
    """Point standard output at /dev/null so that the interpreter's last flush of what is
    still buffered fails neither loudly nor with status 120 (the Python docs' recipe)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass  # not a real file (a test runner's capture)


def _catch_sigterm() -> Any:
    """SIGTERM raises :class:`Terminated` in this process; a forked worker that inherits
    the handler dies as by default."""
    main_pid = os.getpid()

    def handler(signum: int, frame: FrameType | None) -> None:
        if os.getpid() != main_pid:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)
            return
        raise Terminated

    try:
        return signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread
        return None


def _restore_sigterm(previous: Any) -> None:
    if previous is not None:
        with contextlib.suppress(ValueError):
            signal.signal(signal.SIGTERM, previous)


@click.group(cls=RefereeGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="referee")
def main() -> None:
    """Casino Hold'em hand-history referee: re-rules recorded rounds and audits the ledger."""


class _Closed(io.TextIOBase):
    """A standard stream the command was started without: each write fails with EBADF,
    so a report to it is ``referee: cannot write standard output: Bad file descriptor``
    (status 2), not an internal error."""

    def write(self, text: str) -> int:
        raise OSError(errno.EBADF, os.strerror(errno.EBADF))

    def isatty(self) -> bool:
        return False

    def writable(self) -> bool:
        return True


def entry() -> None:
    """The ``referee`` command and ``python -m referee``: :func:`main`, then out at once.

    Why: by then every report is written, synced and closed and the exit status is
    known; what is left is the interpreter tearing down its objects one by one (the
    evaluator's tables alone are some 10^5), 30 to 50 ms of every run that nobody waits
    for usefully (bench/RESULTS.md). Exit handlers still run and the standard streams are
    flushed first; only the teardown is skipped. :func:`main` itself (what tests invoke)
    returns as any click command does."""
    if sys.stdout is None:  # started without it (``>&-``): a report to it fails as with any tool
        sys.stdout = _Closed()
    else:
        utf8_stdout()
    if sys.stderr is None:  # (``2>&-``): messages have nowhere to go; the status still says
        sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - the process's own stream, for its life
    try:
        main()
    except SystemExit as stop:
        if not isinstance(stop.code, int):
            raise
        status = stop.code
    else:  # pragma: no cover - RefereeGroup.main always exits
        status = 0
    try:
        sys.stdout.flush()  # never None here: replaced above when the command had none
        sys.stderr.flush()
    except (OSError, ValueError):
        sys.exit(status)  # let the interpreter deal with a stream it cannot flush
    import atexit

    atexit._run_exitfuncs()
    os._exit(status)

