"""``referee profiles``: the built-in rule profiles, one in full, a file checked, a template."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from .app import main


@main.command()
@click.argument("name", required=False)
@click.option("--template", is_flag=True,
              help="Print a commented profile to start a house's own from (Vivo's rules): > house.yaml")
def profiles(name: str | None, template: bool) -> None:
    """List the built-in profiles with their paytables, or show one in full (a built-in
    or a file: a file with problems has them all listed, with their lines)."""
    from tabulate import tabulate

    if template:
        from ..profile_template import TEMPLATE

        click.echo(TEMPLATE, nl=False)
        return

    from ..profiles import BUILTIN, ProfileError, builtin_text, resolve_profile
    from ..rules.evaluator import CATEGORY_NAMES
    from ..rules.money import fmt

    if name:
        try:
            loaded = resolve_profile(name)
        except ProfileError as err:
            raise click.BadParameter(str(err), param_hint="NAME") from None
        text = builtin_text(name).decode() if name in BUILTIN else Path(loaded.origin.name).read_text(encoding="utf-8")
        click.echo(f"# {loaded.origin} sha256 {loaded.sha256}")
        click.echo(text if text.endswith("\n") else text + "\n", nl=False)
        click.echo(_as_read(loaded.profile))
        _borrowed(loaded)
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


def _borrowed(loaded: Any) -> None:
    """A profile file that takes a built-in's name but rules otherwise: said where an
    operator checks the file, as ``check`` says it (H010, on stderr: the output stays the
    profile), and exit 1."""
    import sys

    from ..escape import printable
    from ..models import codes
    from ..profiles import borrowed_name

    problem = borrowed_name(loaded)
    if problem is not None:
        click.echo(printable(f"{problem.file}:{problem.line}: {codes.H010} [error] {problem.message}"), err=True)
        sys.exit(1)


def _as_read(profile: Any) -> str:
    """How a profile was read, after its text: the odds as numbers (``5:2`` is 2.5:1),
    the qualifier and the Call in words. Comment lines, so that the whole output is still
    the profile (``referee profiles vivo > house.yaml`` keeps working)."""
    from tabulate import tabulate

    from ..rules.evaluator import CATEGORY_NAMES
    from ..rules.money import fmt

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

