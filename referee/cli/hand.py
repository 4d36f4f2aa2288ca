"""``referee hand``: what 5 to 7 cards make, and which of two hands wins and why."""

from __future__ import annotations

import click

from ..rules.money import dumps
from . import common
from .app import main


@main.command()
@click.argument("cards", nargs=-1, required=True)
@click.option("--vs", "versus", multiple=True, metavar="CARDS",
              help="A second hand to compare with (quoted, or --vs repeated for each card).")
@common.LANG_OPTION
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def hand(cards: tuple[str, ...], versus: tuple[str, ...], lang: str | None, fmt: str) -> None:
    """The category, best five and description of 5 to 7 CARDS; with --vs, which wins and why."""

    from ..i18n import Messages, default_language
    from ..report.ruling_json import hand_report
    from ..rules.cards import CardError
    from ..rules.hands import HandError

    messages = Messages(lang or default_language())
    groups = [_split(cards)] + ([_split(versus)] if versus else [])
    try:
        text, doc = hand_report(groups, messages)
    except (CardError, HandError) as err:
        raise click.BadParameter(str(err) + _quote_hint(groups), param_hint="CARDS") from None
    click.echo(dumps(doc, indent=2, ensure_ascii=False) if fmt == "json" else text, nl=fmt == "json")


def _quote_hint(groups: list[list[str]]) -> str:
    """How to give the second hand, when its cards were likely read as the first's.

    Unquoted, ``--vs 2c 3c 4c 5c 6c`` takes 2c alone: click reads the cards after it as
    the first hand's, which then has more than 7 cards and the second fewer than 5.
    Without ``--vs``, 10 to 14 cards are most likely two hands given as one.
    """
    if len(groups) < 2:
        first = len(groups[0])
        return "; two hands? give the second after --vs (--vs \"2c 3c ...\")" if 10 <= first <= 14 else ""
    if not (len(groups[0]) > 7 or len(groups[1]) < 5):
        return ""
    example = f"{groups[1][0]} ..." if groups[1] else "2c 3c ..."
    return f'; quote the hand after --vs (--vs "{example}"), or give --vs before each of its cards'


def _split(tokens: tuple[str, ...]) -> list[str]:
    return [t for token in tokens for t in token.replace(",", " ").split()]

