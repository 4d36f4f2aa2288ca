"""The command line: argument handling only; the work is in the library."""

from __future__ import annotations

import contextlib
import errno
import importlib
import io
import os
import signal
import sys
from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path
from types import FrameType
from typing import Any, TextIO

import click

from . import __version__
from .audit.checker import Event, Options
from .audit.results import InputInfo, Summary
from .errors import UserError
from .load.inputs import Source, SourceError, expand
from .output import STDOUT, OutputError, PipeClosed, guard, guarded, open_output, utf8_stdout
from .pipeline import audit_stream, dispatch, events
from .policies import POLICIES
from .profiles import DEFAULT as DEFAULT_PROFILE
from .profiles import ProfileOrigin
from .report.base import Reporter, printable, summary_line
from .report.progress import Progress
from .rules.money import dumps

#: The report formats of ``check``, each with the module (in ``referee.report``) and
#: class of its reporter. Only the chosen format's module is imported: the JUnit one
#: alone pulls in xml.sax, urllib, http.client and ssl, the text one tabulate, and a
#: command pays for them at every start (``reporter_class``).
FORMATS: dict[str, tuple[str, str]] = {
    "text": ("text", "TextReporter"), "json": ("json", "JsonReporter"), "jsonl": ("jsonl", "JsonLinesReporter"),
    "github": ("github", "GithubReporter"), "junit": ("junit", "JunitReporter"),
}


def reporter_class(name: str) -> type[Reporter]:
    """The reporter of the format ``name`` (a key of :data:`FORMATS`), its module imported now."""
    module, cls = FORMATS[name]
    reporter: type[Reporter] = getattr(importlib.import_module(f".report.{module}", __package__), cls)
    return reporter


def use_color(choice: str, stream: TextIO) -> bool:
    """``--color``: ``auto`` colours a terminal unless ``NO_COLOR`` is set (no-color.org)."""
    if choice == "always":
        return True
    if choice == "never" or os.environ.get("NO_COLOR"):
        return False
    return stream.isatty()


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
        click.echo(f"referee: {message}", err=True)
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


@main.command()
@click.argument("files", nargs=-1, required=True)
@click.option("--profile", metavar="NAME|FILE", help="Rule profile for every session (overrides the file's).")
@click.option("--format", "fmt", type=click.Choice(sorted(FORMATS)), default=None,
              help="Report format [default: text; github when GITHUB_ACTIONS=true].")
@click.option("--output", "-o", metavar="FILE", default=None,
              help="Write the report to FILE (atomically; '-': standard output); the summary still goes to the "
                   "terminal.")
@click.option("--quiet", "-q", is_flag=True, help="Only findings and the summary.")
@click.option("--strict", is_flag=True, help="Warnings fail the check too.")
@click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True,
              help="Colour the text report; NO_COLOR is respected.")
@click.option("--verbose", "-v", is_flag=True, help="Say which YAML loader ran and other details on stderr.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
              help="Processes auditing files (and chunks of large JSON Lines files) [default: the number of cores].")
@click.option("--progress/--no-progress", default=None,
              help="Progress on stderr [default: on a terminal, with the text format, unless --quiet].")
@click.option("--all-rows", is_flag=True,
              help="Text format: every round of every session (by default, sessions over 200 rounds show "
                   "their flagged rounds).")
def check(files: tuple[str, ...], profile: str | None, fmt: str | None, output: str | None, quiet: bool,
          strict: bool, color: str, verbose: bool, jobs: int | None, progress: bool | None,
          all_rows: bool) -> None:
    """Audit hand-history FILES (YAML, JSON, JSON Lines; '-' for stdin; directories and globs).

    Exit status: 0 no findings, 1 findings, 2 unreadable input or bad usage.
    """
    _check_profile(profile)
    guard([("--output", output)], [*files, *([profile] if profile else [])])
    sources = _sources(files)
    jobs = jobs or os.cpu_count() or 1
    _tune_collector()
    if verbose:
        from .load.yamlio import LOADER_NAME

        click.echo(f"referee {__version__}: YAML loader {LOADER_NAME}; {len(sources)} input(s); "
                   f"up to {jobs} process(es)", err=True)
    name = fmt or ("github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text")
    options = Options(profile=profile)
    stdout = sys.stdout
    chosen = reporter_class(name)
    show = progress if progress is not None else (sys.stderr.isatty() and not quiet and not chosen.machine)
    to_file = output not in (None, STDOUT)
    with open_output(output or STDOUT) as out:
        extra = {"all_rows": all_rows} if name == "text" else {}
        reporters = [chosen(out, color=False if to_file else use_color(color, stdout), quiet=quiet,
                                   strict=strict, **extra)]
        if to_file:
            reporters.append(_SummaryOnly(guarded(stdout, STDOUT), strict=strict))
        stream = audit_stream(sources, options, reporters, jobs, _note)
        meter = Progress(sys.stderr, stream.total, stream.done) if show else None
        summary = dispatch(stream.events, reporters, meter)
    sys.exit(_exit_code(summary, strict))


def _stakes_fit(increment: Decimal, ante: Decimal, bonus: Decimal) -> None:
    """Refuse a stake the profile's own audit would reject (S008 on every round)."""
    from .rules.money import fmt

    for option, amount in (("--ante", ante), ("--bonus", bonus)):
        if amount and (amount < increment or amount % increment):
            raise click.BadParameter(f"{fmt(amount)} is not a multiple of the profile's stake increment "
                                     f"{fmt(increment)}", param_hint=option)


@main.command()
@click.option("--profile", "profile_name", default=DEFAULT_PROFILE, show_default=True, metavar="NAME|FILE",
              help="Rule profile to deal and settle under.")
@click.option("--sessions", type=click.IntRange(min=1), default=1, show_default=True)
@click.option("--rounds", type=click.IntRange(min=1), default=20, show_default=True,
              help="Counted rounds per session (a void deal adds a replay).")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--policy", type=click.Choice(POLICIES), default="always-call", show_default=True)
@click.option("--ante", type=click.FloatRange(min=0, min_open=True), default=1, show_default=True)
@click.option("--bonus", type=click.FloatRange(min=0), default=0, show_default=True,
              help="Bonus stake per round (profiles with a bonus).")
@click.option("--faults", type=click.FloatRange(0, 1), default=0.0, show_default=True,
              help="Probability that a round carries one injected fault.")
@click.option("--faults-manifest", metavar="FILE", default=None,
              help="Write the injected faults (session, round, kind, code) as JSON to FILE.")
@click.option("--format", "fmt", type=click.Choice(["yaml", "json", "jsonl"]), default="yaml", show_default=True)
@click.option("--output", "-o", metavar="FILE", default=None, help="The log to write ('-' or none: standard output).")
@click.option("--seats", metavar="N|A-B", default=None,
              help="Deal a live table in format 2: N seats a game, or A to B; --rounds counts games. Players mix "
                   "policies unless --policy is given.")
@click.option("--seat-lines", is_flag=True, help="With --seats and --format jsonl: one line a seat after its game.")
@click.option("--own-cards", is_flag=True, help="With --seats: each seat its own two cards (at most 22 seats).")
@click.pass_context
def simulate(ctx: click.Context, profile_name: str, sessions: int, rounds: int, seed: int, policy: str, ante: float,
             bonus: float, faults: float, faults_manifest: str | None, fmt: str, output: str | None,
             seats: str | None, seat_lines: bool, own_cards: bool) -> None:
    """Deal realistic hand histories, recorded as a correct table would, with faults on demand."""
    from decimal import Decimal

    from .profiles import ProfileError, resolve_profile
    from .simulate import Settings, write

    guard([("--output", output), ("--faults-manifest", faults_manifest)], [profile_name])
    try:
        loaded = resolve_profile(profile_name)
    except ProfileError as err:
        raise click.BadParameter(str(err), param_hint="--profile") from None
    profile = loaded.profile
    _stakes_fit(profile.stake_increment, Decimal(str(ante)), Decimal(str(bonus)))
    settings = Settings(profile, sessions, rounds, seed, policy, Decimal(str(ante)),  # type: ignore[arg-type]
                        Decimal(str(bonus)), faults, profile_reference=_profile_reference(loaded.origin, output))
    table = None
    if seats is not None:
        from .simulate_table import TableSettings, parse_seats

        try:
            span = parse_seats(seats)
        except ValueError as err:
            raise click.BadParameter(str(err), param_hint="--seats") from None
        chosen = ctx.get_parameter_source("policy") is not click.core.ParameterSource.DEFAULT
        table = TableSettings(profile, span, sessions, rounds, seed, policy if chosen else "mix",
                              Decimal(str(bonus)), faults, own_cards,
                              profile_reference=settings.profile_reference)
    with contextlib.ExitStack() as outputs:
        # Both files are committed together, the log last: an interrupted run leaves neither.
        out = outputs.enter_context(open_output(output or STDOUT))
        manifest = outputs.enter_context(open_output(faults_manifest)) if faults_manifest else None
        if table is not None:
            from .simulate_table import write_tables

            try:
                write_tables(table, fmt, out, seat_lines)
            except ValueError as err:
                raise click.UsageError(str(err)) from None
            if manifest is not None:
                import json

                json.dump([f.as_dict() for f in table.manifest], manifest, indent=1)
                manifest.write("\n")
            return
        write(settings, fmt, out)
        if manifest is not None:
            import json

            json.dump([f.as_dict() for f in settings.manifest], manifest, indent=1)
            manifest.write("\n")


@main.command()
@click.argument("name", type=click.Choice(["hand-history", "table-history", "profile"]), default="hand-history")
def schema(name: str) -> None:
    """Print the JSON Schema of a hand history (format 1), a table history (format 2) or a rule profile."""
    from .schemas import text

    click.echo(text(name), nl=False)


@main.command()
@click.argument("name", required=False)
@click.option("--template", is_flag=True,
              help="Print a commented profile to start a house's own from (Vivo's rules): > house.yaml")
def profiles(name: str | None, template: bool) -> None:
    """List the built-in profiles with their paytables, or show one in full (a built-in
    or a file: a file with problems has them all listed, with their lines)."""
    from tabulate import tabulate

    if template:
        from .profile_template import TEMPLATE

        click.echo(TEMPLATE, nl=False)
        return

    from .profiles import BUILTIN, ProfileError, builtin_text, resolve_profile
    from .rules.evaluator import CATEGORY_NAMES
    from .rules.money import fmt

    if name:
        try:
            loaded = resolve_profile(name)
        except ProfileError as err:
            raise click.BadParameter(str(err), param_hint="NAME") from None
        text = builtin_text(name).decode() if name in BUILTIN else Path(loaded.origin.name).read_text(encoding="utf-8")
        click.echo(f"# {loaded.origin} sha256 {loaded.sha256}")
        click.echo(text if text.endswith("\n") else text + "\n", nl=False)
        click.echo(_as_read(loaded.profile))
        return
    loaded_all = [resolve_profile(n).profile for n in BUILTIN]
    rows = []
    for category in reversed(CATEGORY_NAMES):
        row = [category.replace("_", " ")]
        for p in loaded_all:
            bonus = p.bonus.paytable.get(category) if p.bonus else None
            row.append(f"{fmt(p.ante_paytable[category])}:1"
                        + (f" / {fmt(bonus)}:1" if bonus is not None else ""))
        rows.append(row)
    rows.append(["Call win"] + [f"{fmt(p.call_win_odds)}:1" if p.call_win_odds else "returned" for p in loaded_all])
    rows.append(["Ante, dealer not qualified"] + [p.ante_when_not_qualified.value for p in loaded_all])
    click.echo(tabulate(rows, headers=["Ante (/ bonus)", *list(BUILTIN)]))


def _as_read(profile: Any) -> str:
    """How a profile was read, after its text: the odds as numbers (``5:2`` is 2.5:1),
    the qualifier and the Call in words. Comment lines, so that the whole output is still
    the profile (``referee profiles vivo > house.yaml`` keeps working)."""
    from tabulate import tabulate

    from .rules.evaluator import CATEGORY_NAMES
    from .rules.money import fmt

    bonus = profile.bonus
    rows = []
    for category in reversed(CATEGORY_NAMES):
        pays = bonus.paytable.get(category) if bonus else None
        rows.append([category.replace("_", " "), f"{fmt(profile.ante_paytable[category])}:1",
                     *([f"{fmt(pays)}:1" if pays is not None else "loses"] if bonus else [])])
    table = tabulate(rows, headers=["hand", "Ante pays", *([f"{bonus.name} pays"] if bonus else [])],
                     disable_numparse=True)
    call = f"{fmt(profile.call_win_odds)}:1" if profile.call_win_odds else "returned"
    facts = [f"Call: {fmt(profile.call_multiple)} x the Ante, pays {call} against a qualified dealer",
             f"dealer qualifies with {profile.dealer_qualifier.words()}",
             f"Ante when the dealer does not qualify: {profile.ante_when_not_qualified.value}",
             f"stakes in steps of {fmt(profile.stake_increment)}"]
    if bonus:
        facts.append(f"{bonus.name}: paid from {bonus.minimum.words()}; "
                     + ("a fold forfeits it" if bonus.fold_forfeits else "paid even on a fold"))
    lines = ["as read:", *table.splitlines(), *facts]
    return "\n".join("# " + line for line in lines)


LANG_OPTION = click.option(
    "--lang", type=click.Choice(["en", "fr"]), default=None,
    help="Language of the ruling [default: from LC_ALL / LC_MESSAGES / LANG, else en].",
)


@main.command()
@click.argument("file")
@click.option("--round", "number", type=click.IntRange(min=0), default=None, help="The round's number.")
@click.option("--game", default=None, metavar="ID", help="A live table's game (format 2): each seat's ruling.")
@click.option("--player", "player_id", default=None, metavar="P", help="With --game: only this player's seat.")
@click.option("--session", default=None, metavar="ID", help="The session, when the file holds several.")
@click.option("--profile", metavar="NAME|FILE", help="Rule profile (overrides the file's).")
@LANG_OPTION
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def explain(file: str, number: int | None, game: str | None, player_id: str | None, session: str | None,
            profile: str | None, lang: str | None, fmt: str) -> None:
    """Explain the ruling of one round of FILE (or of a game's seats), card by card and rule by rule.

    A void deal and its replay share a number: both are explained, in order.
    Exit status: 0 the record agrees, 1 it differs, 2 no such round or unreadable input.
    """
    if (number is None) == (game is None):
        raise click.UsageError("give --round N (format 1) or --game ID (format 2)")
    if player_id is not None and game is None:
        raise click.UsageError("--player goes with --game")

    from .audit.explain import ExplainError, explain_rounds
    from .i18n import Messages, default_language
    from .report.ruling import RulingText, explanation_json

    _check_profile(profile)
    try:
        sources = expand([file], _note)
        if game is not None:
            from .audit.explain_table import explain_game

            explanations = explain_game(sources[0], game, player_id, session, Options(profile=profile))
        else:
            assert number is not None
            explanations = explain_rounds(sources[0], number, session, Options(profile=profile))
    except (SourceError, ExplainError) as err:
        raise click.UsageError(str(err)) from None
    messages = Messages(lang or default_language())
    if fmt == "json":
        doc = {"referee": __version__, "explanations": [explanation_json(e, messages) for e in explanations]}
        click.echo(dumps(doc, indent=2, ensure_ascii=False))
    else:
        click.echo("\n".join(RulingText(e, messages).text() for e in explanations), nl=False)
    sys.exit(1 if any(f.severity != "info" for e in explanations for f in e.findings) else 0)


@main.command()
@click.argument("cards", nargs=-1, required=True)
@click.option("--vs", "versus", multiple=True, metavar="CARDS",
              help="A second hand to compare with (quoted, or --vs repeated for each card).")
@LANG_OPTION
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def hand(cards: tuple[str, ...], versus: tuple[str, ...], lang: str | None, fmt: str) -> None:
    """The category, best five and description of 5 to 7 CARDS; with --vs, which wins and why."""

    from .i18n import Messages, default_language
    from .report.ruling import hand_report
    from .rules.cards import CardError
    from .rules.hands import HandError

    messages = Messages(lang or default_language())
    groups = [_split(cards)] + ([_split(versus)] if versus else [])
    try:
        text, doc = hand_report(groups, messages)
    except (CardError, HandError) as err:
        raise click.BadParameter(str(err), param_hint="CARDS") from None
    click.echo(dumps(doc, indent=2, ensure_ascii=False) if fmt == "json" else text, nl=fmt == "json")


def _split(tokens: tuple[str, ...]) -> list[str]:
    return [t for token in tokens for t in token.replace(",", " ").split()]


@main.command()
@click.argument("files", nargs=-1, required=True)
@click.option("--profile", metavar="NAME|FILE", help="Rule profile for every session (overrides the file's).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--confidence", type=click.FloatRange(0.5, 0.9999), default=0.99, show_default=True,
              help="Confidence of the intervals and level of the tests.")
@click.option("--decisions/--no-decisions", default=True, show_default=True,
              help="Value every decision exactly (from the cached per-situation table, built on first use).")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, help="Processes [default: the cores].")
def stats(files: tuple[str, ...], profile: str | None, fmt: str, confidence: float, decisions: bool,
          jobs: int | None) -> None:
    """Statistical audit of FILES: return to player, fairness of the deal, decision audit.

    Exit status: 0 nothing suspect, 1 a flag or a suspect test, 2 unreadable input or bad usage.
    """
    from .analysis.decisions import value_all
    from .analysis.observe import observe
    from .analysis.stats import Inputs, compute
    from .report.stats import render

    _check_profile(profile)
    sources = _sources(files)
    inputs: list[InputInfo] = []
    observations = observe(_kept(events(sources, Options(profile=profile)), inputs))
    unreadable = [i.file for i in inputs if not i.readable]
    for name in unreadable:
        click.echo(f"{printable(name)}: cannot be read in full; run referee check on it", err=True)
    if not unreadable and not observations.rounds:
        click.echo("nothing to describe: no round of the inputs was ruled (none, or all void or invalid); "
                   "run referee check on them", err=True)
        sys.exit(2)
    values = None
    if decisions:
        count = len({(r.profile, r.known) for r in observations.rounds if r.known is not None})
        show = sys.stderr.isatty()
        with click.progressbar(length=count, label="valuing decisions", file=sys.stderr) if show \
                else contextlib.nullcontext() as bar:
            values = value_all(observations.rounds, jobs or os.cpu_count() or 1,
                               bar.update if bar is not None else None)
    result = compute(Inputs(observations, values, confidence))
    if fmt == "json":
        click.echo(dumps({"referee": {"version": __version__}, **result.to_json()}, indent=1, ensure_ascii=False))
    else:
        click.echo(render(result), nl=False)
    sys.exit(2 if unreadable else 1 if result.suspect else 0)


@main.command()
@click.argument("files", nargs=-1, required=True)
@click.option("--player", default=None, metavar="ID",
              help="Whose rounds (format 1: a session's meta.player, or a round's meta.player).")
@click.option("--session", default=None, metavar="ID", help="Which session.")
@click.option("--round", "number", type=click.IntRange(min=0), default=None, help="The round numbered N.")
@click.option("--game", default=None, metavar="ID", help="The game with this id (format 1: a round's meta.game).")
@click.option("--at", "at", default=None, metavar="TIME",
              help="The last round at or before TIME (ISO 8601; no zone means UTC).")
@click.option("--last", type=click.IntRange(min=1, max=10_000), default=10, show_default=True,
              help="How many rounds, ending with the one asked for (the round and the nine before it).")
@click.option("--profile", metavar="NAME|FILE", help="Rule profile for every session (overrides the file's).")
@LANG_OPTION
@click.option("--format", "fmt", type=click.Choice(["text", "json", "html"]), default="text", show_default=True)
@click.option("--output", "-o", metavar="FILE", default=None,
              help="Write to FILE (atomically) instead of the terminal ('-': standard output).")
def recall(files: tuple[str, ...], player: str | None, session: str | None, number: int | None, game: str | None,
           at: str | None, last: int, profile: str | None, lang: str | None, fmt: str, output: str | None) -> None:
    """Recall a round and the ones before it (default: the last round and the nine before
    it) with their rulings and the running balance, from FILES (files, directories, globs).

    --player or --session may be left out when the files hold one. Exit status: 0 the
    rounds recalled agree with the rules, 1 one differs, 2 nothing found or unreadable input.
    """
    from .i18n import Messages, default_language
    from .recall import Query, RecallError, parse_time
    from .recall import recall as run_recall
    from .report.html import ReportUnavailable
    from .report.recall import render_html, render_json, render_text

    if sum(x is not None for x in (number, game, at)) > 1:
        raise click.UsageError("choose one of --round, --game and --at")
    try:
        when = parse_time(at) if at is not None else None
    except ValueError:
        raise click.BadParameter(f"{at!r} is not a time (ISO 8601, e.g. 2026-11-29T21:30)",
                                 param_hint="--at") from None
    _check_profile(profile)
    guard([("--output", output)], [*files, *([profile] if profile else [])])
    sources = _sources(files)
    query = Query(player, session, number, game, when, last)
    try:
        found = run_recall(sources, query, Options(profile=profile))
    except RecallError as err:
        raise click.UsageError(str(err)) from None
    messages = Messages(lang or default_language())
    if fmt == "json":
        text = dumps(render_json(found, messages), indent=2, ensure_ascii=False) + "\n"
    elif fmt == "html":
        try:
            text = render_html(found, messages)
        except (ReportUnavailable, ImportError) as err:
            raise click.UsageError(_report_extra(err)) from None
    else:
        text = render_text(found, messages)
    with open_output(output or STDOUT) as out:
        out.write(text)
    unreadable = found.unreadable
    differs = any(f.severity != "info" for m in found.matches for v in m.rows for f in v.findings)
    sys.exit(2 if unreadable else 1 if differs else 0)


@main.command()
@click.argument("files", nargs=-1, required=True)
@click.option("--output", "-o", metavar="FILE", required=True,
              help="The HTML file to write ('-': standard output, the summary then on stderr).")
@click.option("--profile", metavar="NAME|FILE", help="Rule profile for every session (overrides the file's).")
@LANG_OPTION
@click.option("--strict", is_flag=True, help="Warnings fail too (exit status).")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
              help="Processes auditing files (and chunks of large JSON Lines files) [default: the number of cores].")
def report(files: tuple[str, ...], output: str, profile: str | None, lang: str | None, strict: bool,
           jobs: int | None) -> None:
    """Write the audit of FILES as one self-contained HTML file (charts inline, no network).

    Exit status as for check: 0 no findings, 1 findings, 2 unreadable input or bad usage.
    """
    from .i18n import default_language
    from .report.html import HtmlReporter, ReportUnavailable

    _check_profile(profile)
    guard([("--output", output)], [*files, *([profile] if profile else [])])
    sources = _sources(files)
    _tune_collector()
    terminal = guarded(sys.stderr if output == STDOUT else sys.stdout, STDOUT)
    with open_output(output) as out:
        try:
            reporter = HtmlReporter(out, strict=strict, lang=lang or default_language())
        except (ReportUnavailable, ImportError) as err:
            raise click.UsageError(_report_extra(err)) from None
        reporters = [reporter, _SummaryOnly(terminal)]
        stream = audit_stream(sources, Options(profile=profile), reporters, jobs or os.cpu_count() or 1, _note)
        summary = dispatch(stream.events, reporters)
    sys.exit(_exit_code(summary, strict))


@main.command()
@click.option("--profile", "profile_name", default=DEFAULT_PROFILE, show_default=True, metavar="NAME|FILE")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, help="Processes [default: the cores].")
@click.option("--stored", is_flag=True, help="Print the sheet shipped with referee (built-in profiles) at once.")
@click.option("--check", "check_stored", is_flag=True,
              help="Recompute and compare with the shipped sheet; exit 1 if they differ.")
def par(profile_name: str, fmt: str, jobs: int | None, stored: bool, check_stored: bool) -> None:
    """The exact PAR sheet of a profile under optimal play: house edge, element of risk,
    call rate, outcome probabilities, the Ante table and the bonus, by enumerating every
    deal (about 10 minutes for a full sheet on 2 cores; needs NumPy: referee[par])."""
    from .analysis.par import ParUnavailable
    from .analysis.sheet import compute_sheet, differences, stored_sheet
    from .profiles import BUILTIN, ProfileError, resolve_profile
    from .report.par import render

    try:
        profile = resolve_profile(profile_name).profile
    except ProfileError as err:
        raise click.BadParameter(str(err), param_hint="--profile") from None
    shipped = stored_sheet(profile_name) if profile_name in BUILTIN else None
    if stored:
        if shipped is None:
            raise click.UsageError(f"no sheet is shipped for {profile_name!r}; compute it (without --stored)")
        sheet = shipped
    else:
        from .analysis.par import flop_classes

        total = len(flop_classes(tuple(range(52))))
        show = sys.stderr.isatty()
        try:
            with click.progressbar(length=total, label="flops", file=sys.stderr) if show \
                    else contextlib.nullcontext() as bar:
                sheet = compute_sheet(profile, jobs or os.cpu_count() or 1, bar.update if bar is not None else None)
        except ParUnavailable as err:
            raise click.UsageError(str(err)) from None
    if check_stored:
        if shipped is None:
            raise click.UsageError(f"no sheet is shipped for {profile_name!r} to compare with")
        found = differences(shipped, sheet)
        for line in found:
            click.echo(f"differs: {line}", err=True)
        click.echo(f"{profile_name}: the computed sheet {'differs from' if found else 'matches'} the shipped one",
                   err=True)
    click.echo(dumps(sheet, indent=1) if fmt == "json" else render(sheet), nl=fmt == "json")
    sys.exit(1 if check_stored and found else 0)


def _sources(files: tuple[str, ...]) -> list[Source]:
    """The inputs the arguments name, or a usage error (exit 2) saying which names nothing."""
    try:
        return expand(list(files), _note)
    except SourceError as err:
        raise click.UsageError(str(err)) from None


def _profile_reference(origin: ProfileOrigin, output: str | None) -> str | None:
    """How a simulated log names a profile file so that ``referee check`` audits it as is:
    relative to the log's folder (where check looks first), absolute for standard output.
    None for a built-in: the sessions name it."""
    if origin.builtin is not None:
        return None
    path = os.path.abspath(origin.name)
    if output in (None, STDOUT):
        return path
    return os.path.relpath(path, os.path.dirname(os.path.abspath(output)))


def _note(message: str) -> None:
    click.echo(f"referee: {message}", err=True)


def _exit_code(summary: Summary, strict: bool) -> int:
    """The summary's exit code; nothing audited at all is exit 2, never a pass."""
    code = summary.exit_code(strict)
    if code == 2 and summary.rounds == 0 and not summary.games.get("games") and not summary.unreadable:
        click.echo("referee: nothing audited: the inputs hold no round", err=True)
    return code


def _kept(stream: Iterator[Event], inputs: list[InputInfo]) -> Iterator[Event]:
    """The events, keeping what each input was (readable or not) on the way."""
    for event in stream:
        if isinstance(event, InputInfo):
            inputs.append(event)
        yield event


REPORT_EXTRA = "pip install 'referee[report]'"


def _report_extra(err: Exception) -> str:
    """The message for a missing report extra, with the install line said once: the HTML
    report's own message already carries it, a bare ImportError does not."""
    text = str(err)
    return text if REPORT_EXTRA in text else f"{text}; install the report extra: {REPORT_EXTRA}"


def _check_profile(profile: str | None) -> None:
    """``--profile`` names a built-in or a readable, valid file: else a usage error (exit 2)
    before any input is read, not a finding pinned to each session's header."""
    if profile is None:
        return
    from .profiles import ProfileError, resolve_profile

    try:
        resolve_profile(profile)
    except ProfileError as err:
        raise click.BadParameter(str(err), param_hint="--profile") from None


def _tune_collector() -> None:
    """An audit builds millions of short-lived objects and no cycles worth chasing:
    collect the young generation less often (bench/RESULTS.md has the figures)."""
    import gc

    gc.freeze()
    gc.set_threshold(100_000, 50, 100)


class _SummaryOnly(Reporter):
    """With ``--output``, the terminal still gets the findings count."""

    def finish(self, summary: Summary, inputs: list[InputInfo]) -> None:
        self.out.write(summary_line(summary) + "\n")


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


if __name__ == "__main__":  # pragma: no cover
    entry()
