"""``referee recall``: a round and the ones before it, with rulings and running balances."""

from __future__ import annotations

import sys

import click

from ..audit.stream import Options
from ..output import STDOUT, guard, open_output
from ..rules.money import dumps
from . import common
from .app import main


@main.command()
@click.argument("files", nargs=-1)
@click.option("--player", default=None, metavar="ID",
              help="Whose rounds (format 1: a session's meta.player, or a round's meta.player).")
@click.option("--session", default=None, metavar="ID", help="Which session.")
@click.option("--round", "number", type=click.IntRange(min=0), default=None, help="The round numbered N.")
@click.option("--game", default=None, metavar="ID",
              help="The game with this id (a log of single rounds: a round's meta: {game: ...}).")
@click.option("--at", "at", default=None, metavar="TIME",
              help="The last round at or before TIME (ISO 8601; no zone means UTC).")
@click.option("--last", type=click.IntRange(min=1, max=10_000), default=10, show_default=True,
              help="How many games, ending with the one asked for (the game and the nine before it); "
                   "a live table's game is every seat of it.")
@click.option("--profile", metavar="NAME|FILE", help="Rule profile for every session (overrides the file's).")
@common.LANG_OPTION
@click.option("--format", "fmt", type=click.Choice(["text", "json", "html"]), default="text", show_default=True)
@click.option("--output", "-o", metavar="FILE", default=None,
              help="Write to FILE (atomically) instead of the terminal ('-': standard output).")
@common.STORE_OPTION
def recall(files: tuple[str, ...], player: str | None, session: str | None, number: int | None, game: str | None,
           at: str | None, last: int, profile: str | None, lang: str | None, fmt: str, output: str | None,
           store: str | None) -> None:
    """Recall a round and the ones before it (default: the last round and the nine before
    it) with their rulings and the running balance, from FILES (files, directories, globs).
    At a live table (format 2) a game is every seat of it, and --last counts games.

    --player or --session may be left out when the files hold one. Exit status: 0 the
    rounds recalled agree with the rules, 1 one differs (a finding, or a recorded balance
    off the rules' chain; or, with --store, a stored record
    read changed after it was stored), 2 nothing found or unreadable input.
    """
    from ..i18n import Messages, default_language
    from ..recall import Query, RecallError, parse_time
    from ..recall import recall as run_recall
    from ..report.pages import ReportUnavailable
    from ..report.recall import render_html, render_json, render_text

    if sum(x is not None for x in (number, game, at)) > 1:
        raise click.UsageError("choose one of --round, --game and --at")
    try:
        when = parse_time(at) if at is not None else None
    except ValueError:
        raise click.BadParameter(f"{at!r} is not a time (ISO 8601, e.g. 2026-11-29T21:30)",
                                 param_hint="--at") from None
    common.files_or_store(files, store, profile)
    common.check_profile(profile)
    query = Query(player, session, number, game, when, last)
    try:
        if store is not None:
            from ..store.read import Stored
            from ..store.recall import recall as store_recall

            with Stored(store) as stored:
                found = store_recall(stored, query, files)
        else:
            guard([("--output", output)], [*files, *([profile] if profile else [])])
            found = run_recall(common.sources(files), query, Options(profile=profile))
    except RecallError as err:
        raise click.UsageError(str(err)) from None
    messages = Messages(lang or default_language())
    if fmt == "json":
        text = dumps(render_json(found, messages), indent=2, ensure_ascii=False) + "\n"
    elif fmt == "html":
        try:
            text = render_html(found, messages)
        except (ReportUnavailable, ImportError) as err:
            raise click.UsageError(common.report_extra(err)) from None
    else:
        text = render_text(found, messages)
    with open_output(output or STDOUT) as out:
        out.write(text)
    for changed in found.changed:  # what was shown is not what was stored: said, never silent
        click.echo(f"referee: store {found.store}: {changed}; referee store verify names every change", err=True)
    unreadable = found.unreadable
    # a recorded balance off the rules' chain differs from the rules, its finding in the window or not
    differs = any(any(f.severity != "info" for f in v.findings) or bool(v.off) for m in found.matches for v in m.rows)
    sys.exit(2 if unreadable else 1 if differs or found.changed else 0)

