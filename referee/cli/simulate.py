"""``referee simulate``: deal realistic hand histories under a profile, with faults on demand."""

from __future__ import annotations

import contextlib
from decimal import Decimal

import click

from ..output import STDOUT, guard, open_output
from ..policies import POLICIES
from ..profiles import DEFAULT as DEFAULT_PROFILE
from . import common
from .app import main


def _stakes_fit(increment: Decimal, ante: Decimal, bonus: Decimal) -> None:
    """Refuse a stake the profile's own audit would reject (S008 on every round)."""
    from ..rules.money import fmt

    for option, amount in (("--ante", ante), ("--bonus", bonus)):
        if amount and (amount < increment or amount % increment):
            raise click.BadParameter(f"{fmt(amount)} is not a multiple of the profile's stake increment "
                                     f"{fmt(increment)}", param_hint=option)


def _options_used(ctx: click.Context, seats: str | None, seat_lines: bool, own_cards: bool, fmt: str,
                  export: str | None, start: str | None = None, table: str | None = None) -> None:
    """Refuse an option this run would ignore: each one only means something beside others."""
    for option, given in (("--start", start), ("--table", table)):
        if given is not None and seats is None:
            raise click.UsageError(f"{option} needs --seats (times and table names are a live table's): add "
                                   f"--seats or drop {option}")
    if start is not None and export is not None:
        raise click.UsageError("--start does not apply with --export (an export times its games itself): drop "
                               "--start")
    if export is not None:
        _export_used(ctx, seats, seat_lines, own_cards, export)
    if seat_lines and (seats is None or fmt != "jsonl"):
        missing = " and ".join(o for o, absent in (("--seats", seats is None), ("--format jsonl", fmt != "jsonl"))
                               if absent)
        raise click.UsageError(f"--seat-lines needs {missing} (seat lines are a live table's JSON Lines): "
                               f"add {missing} or drop --seat-lines")
    if own_cards and seats is None:
        raise click.UsageError("--own-cards needs --seats (cards a seat are a live table's): add --seats or "
                               "drop --own-cards")
    if seats is not None and ctx.get_parameter_source("ante") is not click.core.ParameterSource.DEFAULT:
        raise click.UsageError("--ante does not apply with --seats (each player of a live table stakes their "
                               "own Ante, 1, 2 or 5): drop --ante")


#: Why: ``--output log.jsonl`` written as YAML (the old default) is a log that fails every line.
EXTENSIONS = {".json": "json", ".jsonl": "jsonl", ".ndjson": "jsonl", ".yaml": "yaml", ".yml": "yaml"}


def format_of(output: str | None) -> str:
    """The format an output's name asks for (yaml when it says nothing)."""
    suffix = "" if output is None else output[output.rfind("."):].lower() if "." in output else ""
    return EXTENSIONS.get(suffix, "yaml")


def _export_used(ctx: click.Context, seats: str | None, seat_lines: bool, own_cards: bool, export: str) -> None:
    """Refuse what an export cannot honour: it is a live table's, and it fixes its own shape."""
    if seats is None:
        raise click.UsageError("--export needs --seats (a provider's export is a live table's): add --seats or "
                               "drop --export")
    if ctx.get_parameter_source("fmt") is not click.core.ParameterSource.DEFAULT:
        raise click.UsageError(f"--format does not apply with --export (the export {export} has its own shape): "
                               "drop --format")
    if seat_lines:
        raise click.UsageError("--seat-lines does not apply with --export (seat lines are format 2's JSON Lines): "
                               "drop --seat-lines")
    if own_cards and export == "evolution-history":
        raise click.UsageError("--own-cards does not apply with --export evolution-history (one player hand a "
                               "game in that shape): drop --own-cards or export datafeed-csv")


def _table_name(name: str | None) -> str | None:
    """``--table``: a name a format-2 header can hold (printable, at most 100 characters)."""
    if name is None:
        return None
    if not name.strip() or len(name) > 100 or not name.isprintable():
        from ..escape import printable

        raise click.BadParameter(f"{printable(name[:40])!r}: expected a table's name, 1 to 100 printable "
                                 "characters", param_hint="--table")
    return name


def _tampering_used(seats: str | None, export: str | None, pay_short: tuple[str, ...],
                    rig_deal: tuple[str, ...]) -> None:
    """``--pay-short`` and ``--rig-deal`` are a live table's, written in format 2 (a provider's
    export carries its own shape of what was paid)."""
    for option, given in (("--pay-short", pay_short), ("--rig-deal", rig_deal)):
        if given and seats is None:
            raise click.UsageError(f"{option} needs --seats (it tampers with a live table): add --seats or drop "
                                   f"{option}")
        if given and export is not None:
            raise click.UsageError(f"{option} does not apply with --export (format 2 only): drop --export or "
                                   f"{option}")


def _dealt(option: str, name: str, dealt: list[str]) -> str:
    """A table this run deals, else a usage error naming those it does."""
    if name not in dealt:
        from ..escape import printable

        tables = dealt[0] if len(dealt) == 1 else f"{dealt[0]} to {dealt[-1]}"
        raise click.BadParameter(f"{printable(name[:40])!r}: no such table is dealt (this run deals {tables}: "
                                 "--sessions, --table)", param_hint=option)
    return name


def _shorts(given: tuple[str, ...], dealt: list[str], increment: Decimal) -> dict[str, Decimal]:
    """``--pay-short TABLE=AMOUNT``: each table's shortfall, a positive multiple of the stake increment."""
    from decimal import InvalidOperation

    from ..escape import printable
    from ..rules.money import fmt

    out: dict[str, Decimal] = {}
    for text in given:
        name, sep, amount = text.rpartition("=")
        try:
            short = Decimal(amount.strip())
        except InvalidOperation:
            short = Decimal(-1)
        if not sep or not short.is_finite() or short <= 0:
            raise click.BadParameter(f"{printable(text[:60])!r}: expected TABLE=AMOUNT, an amount over 0, such as "
                                     "T3=1", param_hint="--pay-short")
        if short % increment:
            raise click.BadParameter(f"{fmt(short)} is not a multiple of the profile's stake increment "
                                     f"{fmt(increment)}", param_hint="--pay-short")
        out[_dealt("--pay-short", name, dealt)] = short
    return out


def _bonus_offered(profile_name: str, has_bonus: bool, bonus: Decimal) -> None:
    """Refuse a bonus stake the profile has no bet for (it would be dealt without it)."""
    if bonus and not has_bonus:
        raise click.BadParameter(f"profile {profile_name} has no bonus bet: drop --bonus or choose a profile "
                                 "with one ('referee profiles' shows their bonus paytables)", param_hint="--bonus")


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
@click.option("--format", "fmt", type=click.Choice(["yaml", "json", "jsonl"]), default=None,
              help="The log's format  [default: by --output's extension (.json, .jsonl, .yaml), else yaml]")
@click.option("--output", "-o", metavar="FILE", default=None, help="The log to write ('-' or none: standard output).")
@click.option("--seats", metavar="N|A-B", default=None,
              help="Deal a live table in format 2: N seats a game, or A to B; --rounds counts games. Players mix "
                   "policies unless --policy is given.")
@click.option("--seat-lines", is_flag=True, help="With --seats and --format jsonl: one line a seat after its game.")
@click.option("--own-cards", is_flag=True, help="With --seats: each seat its own two cards (at most 22 seats).")
@click.option("--export", type=click.Choice(["evolution-history", "datafeed-csv", "seamless-wallet"]), default=None,
              help="With --seats: write the tables as a provider exports them rather than in format 2 "
                   "(seamless-wallet: CSV when --output ends with .csv).")
@click.option("--start", metavar="TIME", default=None,
              help="With --seats: the first game's start (ISO 8601, UTC without a zone); every game then has "
                   "'started' and 'settled' times, about a minute each.")
@click.option("--table", "table_name", metavar="NAME", default=None,
              help="With --seats: every session at this table, one shift after the other [default: session n "
                   "at table Tn].")
@click.option("--pay-short", "pay_short", metavar="TABLE=AMOUNT", multiple=True,
              help="With --seats: table TABLE pays every winning seat AMOUNT short, its records and wallet "
                   "agreeing (said in --faults-manifest, kind pay_short); for trying referee monitor's paid basis.")
@click.option("--rig-deal", "rig_deal", metavar="TABLE", multiple=True,
              help="With --seats: at table TABLE a dealer's hand that does not qualify is dealt again, once, after "
                   "the players decided; every record consistent (said in --faults-manifest, kind rigged_deal).")
@click.pass_context
def simulate(ctx: click.Context, profile_name: str, sessions: int, rounds: int, seed: int, policy: str, ante: float,
             bonus: float, faults: float, faults_manifest: str | None, fmt: str | None, output: str | None,
             seats: str | None, seat_lines: bool, own_cards: bool, export: str | None, start: str | None,
             table_name: str | None, pay_short: tuple[str, ...], rig_deal: tuple[str, ...]) -> None:
    """Deal realistic hand histories, recorded as a correct table would, with faults on demand."""
    from decimal import Decimal

    fmt = fmt or format_of(output)

    from ..profiles import ProfileError, resolve_profile
    from ..simulate import Settings, write

    _options_used(ctx, seats, seat_lines, own_cards, fmt, export, start, table_name)
    _tampering_used(seats, export, pay_short, rig_deal)
    guard([("--output", output), ("--faults-manifest", faults_manifest)], [profile_name])
    try:
        loaded = resolve_profile(profile_name)
    except ProfileError as err:
        raise click.BadParameter(str(err), param_hint="--profile") from None
    profile = loaded.profile
    _bonus_offered(profile.name, profile.bonus is not None, Decimal(str(bonus)))
    _stakes_fit(profile.stake_increment, Decimal(str(ante)), Decimal(str(bonus)))
    settings = Settings(profile, sessions, rounds, seed, policy, Decimal(str(ante)),  # type: ignore[arg-type]
                        Decimal(str(bonus)), faults, profile_reference=common.profile_reference(loaded.origin, output))
    table = None
    if seats is not None:
        from ..simulate_table import TableSettings, parse_seats, parse_start

        try:
            span = parse_seats(seats)
        except ValueError as err:
            raise click.BadParameter(str(err), param_hint="--seats") from None
        try:
            began = None if start is None else parse_start(start)
        except ValueError as err:
            raise click.BadParameter(str(err), param_hint="--start") from None
        chosen = ctx.get_parameter_source("policy") is not click.core.ParameterSource.DEFAULT
        table = TableSettings(profile, span, sessions, rounds, seed, policy if chosen else "mix",
                              Decimal(str(bonus)), faults, own_cards,
                              profile_reference=settings.profile_reference, start=began,
                              table=_table_name(table_name))
        dealt = [table.table] if table.table is not None else [f"T{n + 1}" for n in range(sessions)]
        table.pay_short = _shorts(pay_short, dealt, profile.stake_increment)
        table.rigged = frozenset(_dealt("--rig-deal", name, dealt) for name in rig_deal)
    with contextlib.ExitStack() as outputs:
        # Both files are committed together, the log last: an interrupted run leaves neither.
        out = outputs.enter_context(open_output(output or STDOUT))
        manifest = outputs.enter_context(open_output(faults_manifest)) if faults_manifest else None
        if table is not None:
            from ..simulate_export import write_export
            from ..simulate_table import write_tables

            try:
                if export is not None:
                    write_export(table, export, out, wallet_csv=(output or "").endswith(".csv"))
                else:
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

