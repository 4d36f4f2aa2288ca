"""``check``'s configuration file and its options of selection and baseline, settled
into what the check runs with: the command line over the file, the file over the
defaults (docs/configuration.md)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

from ..configuration import ConfigError, Configuration, find, load
from ..report.view import FileRule, Rule, View, check_code

#: ``--config``, ``--isolated``, selection, exclusion, ``--exit-zero`` and the baseline,
#: as ``check`` takes them (applied to its function in this order).
OPTIONS = [
    click.option("--config", "config", metavar="FILE", default=None,
                 help="The configuration file ([tool.referee] of a pyproject.toml, or a referee.toml) [default: the "
                      "nearest .referee.toml, referee.toml or pyproject.toml with [tool.referee], from the working "
                      "directory up]."),
    click.option("--isolated", is_flag=True, help="Read no configuration file."),
    click.option("--select", "select", metavar="CODES", multiple=True,
                 help="Show only these findings: codes or prefixes, comma-separated (P,W00,S003; ALL); replaces the "
                      "configuration's select."),
    click.option("--extend-select", "extend_select", metavar="CODES", multiple=True,
                 help="Codes or prefixes shown on top of those selected."),
    click.option("--ignore", "ignore", metavar="CODES", multiple=True,
                 help="Codes or prefixes not shown nor counted (the summary says how many); on top of the "
                      "configuration's."),
    click.option("--exclude", "exclude", metavar="GLOB", multiple=True,
                 help="Leave out the files found in the folders (and globs) given that GLOB matches (a path, a "
                      "folder or a name); a file named as an argument is always audited."),
    click.option("--exit-zero", "exit_zero", is_flag=True, default=None,
                 help="Exit 0 even with findings (2 still when an input could not be read)."),
    click.option("--baseline", "baseline", metavar="FILE", default=None,
                 help="Hide the findings this baseline accepts (written by --write-baseline); an entry that no "
                      "longer matches is said (B001)."),
    click.option("--write-baseline", "write_baseline", metavar="FILE", default=None,
                 help="Write the findings shown today to FILE as accepted (each with a reason to fill in), then "
                      "exit 0."),
]


def options(command: Callable[..., Any]) -> Callable[..., Any]:
    """``command`` with every option of :data:`OPTIONS`."""
    for option in reversed(OPTIONS):
        command = option(command)
    return command


@dataclass(slots=True)
class Settled:
    """What the check runs with, once the configuration and the command line are settled."""

    profile: str | None
    strict: bool
    format: str | None
    view: View
    #: Globs that leave files out of folders, each with the folder it is read against.
    exclude: list[tuple[str, Path]] = field(default_factory=list)
    #: The origin of those globs, as the note says it (``--exclude``, ``pyproject.toml``).
    exclude_origins: list[str] = field(default_factory=list)
    write_baseline: str | None = None
    config: Configuration | None = None


def _codes(values: tuple[str, ...], option: str) -> tuple[str, ...]:
    out = []
    for value in values:
        for part in value.split(","):
            if not part.strip():
                continue
            try:
                out.append(check_code(part, option))
            except ValueError as err:
                raise click.BadParameter(str(err).split(": ", 1)[1], param_hint=option) from None
    return tuple(out)


def _config_codes(value: str, where: str) -> str:
    try:
        return check_code(value, where)
    except ValueError as err:
        raise ConfigError(str(err)) from None


def configuration(config: str | None, isolated: bool, formats: tuple[str, ...]) -> Configuration | None:
    """The configuration file read: ``--config``'s, none under ``--isolated``, else the nearest."""
    if config is not None and isolated:
        raise click.UsageError("--config and --isolated contradict each other: give one")
    if isolated:
        return None
    path = Path(config) if config is not None else find(Path.cwd())
    if path is None:
        return None
    if config is not None and not path.is_file():
        raise click.BadParameter(f"{config}: no such file", param_hint="--config")
    return load(path, _config_codes, formats)


def settle(kw: dict[str, Any], profile: str | None, strict: bool | None, fmt: str | None,
           formats: tuple[str, ...]) -> Settled:
    """The command line's values (``kw``: the options of :data:`OPTIONS`) over the configuration's."""
    cfg = configuration(kw["config"], kw["isolated"], formats)
    select, extend, ignore = (_codes(kw[name], option) for name, option in
                              (("select", "--select"), ("extend_select", "--extend-select"), ("ignore", "--ignore")))
    origin = cfg.shown if cfg is not None else ""
    rules: list[Rule] = []
    if not select and cfg is not None and cfg.select is not None:
        rules += [Rule(_prefix(c), True, origin) for c in cfg.select]
    elif not select:
        rules.append(Rule("", True, "default"))
    if cfg is not None:
        rules += [Rule(_prefix(c), True, origin) for c in cfg.extend_select]
        rules += [Rule(_prefix(c), False, origin) for c in cfg.ignore]
    rules += [Rule(_prefix(c), True, "--select") for c in select]
    rules += [Rule(_prefix(c), True, "--extend-select") for c in extend]
    rules += [Rule(_prefix(c), False, "--ignore") for c in ignore]
    per_file = tuple(FileRule(glob, tuple(_prefix(c) for c in listed), origin)
                     for glob, listed in (cfg.per_file_ignores if cfg is not None else ()))
    write = kw["write_baseline"]
    if write is not None and kw["baseline"] is not None:
        raise click.UsageError("--baseline and --write-baseline: give one (writing a baseline reads none)")
    view = View(tuple(rules), per_file, cfg.root if cfg is not None else Path.cwd(),
                _baseline(kw["baseline"], cfg) if write is None else None,
                write is not None  # a baseline written is today's findings accepted: exit 0, as the report says
                or bool(kw["exit_zero"] if kw["exit_zero"] is not None else cfg is not None and cfg.exit_zero),
                (cfg.shown, cfg.sha256, cfg.keys) if cfg is not None else None,
                Path(write).resolve().parent if write is not None else None,
                "--select" if select or cfg is None or cfg.select is None else origin)
    settled = Settled(profile if profile is not None else (cfg.profile if cfg is not None else None),
                      bool(strict if strict is not None else cfg is not None and cfg.strict),
                      fmt if fmt is not None else (cfg.format if cfg is not None else None), view,
                      write_baseline=write, config=cfg)
    if cfg is not None and cfg.exclude:
        settled.exclude += [(glob, cfg.root) for glob in cfg.exclude]
        settled.exclude_origins.append(cfg.shown)
    if kw["exclude"]:
        settled.exclude += [(glob, Path.cwd()) for value in kw["exclude"] for glob in value.split(",") if glob]
        settled.exclude_origins.append("--exclude")
    return settled


def _prefix(code: str) -> str:
    return "" if code == "ALL" else code


def _baseline(option: str | None, cfg: Configuration | None) -> Any:
    """The baseline read: ``--baseline``'s, else the configuration's, else none."""
    from ..report import baseline as baselines

    if option is not None:
        return baselines.read(option, option)
    if cfg is not None and cfg.baseline is not None:
        import os

        return baselines.read(cfg.baseline, os.path.relpath(cfg.baseline))
    return None
