"""``referee explain``: the full ruling of one round, or of a game's seats, in English or French."""

from __future__ import annotations

import contextlib
import sys

import click

from .. import __version__
from ..audit.stream import Options
from ..load.inputs import SourceError, expand
from ..rules.money import dumps
from . import common
from .app import main


@main.command()
@click.argument("file", required=False)
@click.option("--round", "number", type=click.IntRange(min=0), default=None, help="The round's number.")
@click.option("--game", default=None, metavar="ID", help="A live table's game (format 2): each seat's ruling.")
@click.option("--player", "player_id", default=None, metavar="P", help="With --game: only this player's seat.")
@click.option("--session", default=None, metavar="ID", help="The session, when the file holds several.")
@click.option("--profile", metavar="NAME|FILE",
              help="Rule profile (overrides the file's; with --mapping, needed when the mapping names none).")
@common.LANG_OPTION
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--for", "audience", type=click.Choice(["auditor", "player"]), default="auditor", show_default=True,
              help="Who reads the ruling: the auditor's names each finding's code, the profile's sha256 and "
                   "the docs' anchors; the player's says the same ruling without them (text only).")
@common.STORE_OPTION
@common.MAPPING_OPTION
@common.WALLET_OPTION
@common.WALLET_MAPPING_OPTION
def explain(file: str | None, number: int | None, game: str | None, player_id: str | None, session: str | None,
            profile: str | None, lang: str | None, fmt: str, audience: str, store: str | None,
            mapping: str | None, wallet: tuple[str, ...], wallet_mapping: str) -> None:
    """Explain the ruling of one round of FILE (or of a game's seats), card by card and rule by rule.

    A void deal and its replay share a number: both are explained, in order.
    Exit status: 0 the record agrees, 1 it differs, 2 no such round or unreadable input.
    """
    if (number is None) == (game is None):
        raise click.UsageError("give --round N (format 1) or --game ID (format 2)")
    if player_id is not None and game is None:
        raise click.UsageError("--player goes with --game")
    if audience == "player" and fmt == "json":
        raise click.UsageError("--for player is the ruling in words, for a player: it goes with --format text "
                               "(the JSON's fields are for programs, and keep the codes)")

    from ..audit.explain import ExplainError, explain_rounds
    from ..i18n import Messages, default_language
    from ..report.ruling import RulingText
    from ..report.ruling_json import explanation_json

    if file is None and store is None:
        raise click.MissingParameter(param_type="argument", param_hint="'FILE'")
    if store is not None and profile is not None:
        common.files_or_store((), store, profile)  # refused: a store keeps its own profiles
    common.check_profile(profile)
    common.read_through(mapping, store, wallet, wallet_mapping, profile)
    try:
        with contextlib.ExitStack() as stack:
            if store is not None:
                from ..store.read import Stored

                stored = stack.enter_context(Stored(store))
                chosen = stored.holding(game, number, session, file)
                [(source, options)] = stack.enter_context(stored.replay([chosen]))
            else:
                assert file is not None
                chosen_file = common.sources((file,), mapping)[0] if mapping else expand([file], common.note)[0]
                source, options = chosen_file, Options(profile=profile, mapping=mapping, wallet=wallet,
                                                       wallet_mapping=wallet_mapping)
            if game is not None:
                from ..audit.explain_table import explain_game

                explanations = explain_game(source, game, player_id, session, options)
            else:
                assert number is not None
                explanations = explain_rounds(source, number, session, options)
    except (SourceError, ExplainError) as err:
        raise click.UsageError(str(err)) from None
    messages = Messages(lang or default_language())
    if fmt == "json":
        doc = {"referee": __version__, "explanations": [explanation_json(e, messages) for e in explanations]}
        click.echo(dumps(doc, indent=2, ensure_ascii=False))
    else:
        click.echo("\n".join(RulingText(e, messages, audience).text() for e in explanations), nl=False)
    sys.exit(1 if any(f.severity != "info" for e in explanations for f in e.findings) else 0)

