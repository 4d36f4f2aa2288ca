"""Finding a rule profile by name or path (the only profile code that reads files)."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from decimal import Decimal, DecimalException
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from .errors import not_a_file
from .escape import quoted
from .i18n import N_
from .load.records import LineDict, line_at
from .models.common import DEFAULT_PROFILE, suggest
from .rules.category import as_word
from .rules.evaluator import CATEGORY_NAMES
from .rules.profile import Profile

BUILTIN = ("vivo", "caribbean", "bonus-aa", "bonus-100")
DEFAULT = DEFAULT_PROFILE


@dataclass(frozen=True, slots=True)
class ProfileProblem:
    """One problem of a profile file, where it is: read like a log's finding."""

    file: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.message}" if self.line else f"{self.file}: {self.message}"


class ProfileError(ValueError):
    """A profile that cannot be found or is not valid. ``problems`` lists every problem
    of an invalid file with its line; the message says them all, one a line."""

    def __init__(self, message: str, problems: list[ProfileProblem] | None = None) -> None:
        self.problems = problems or []
        super().__init__("\n".join([message, *map(str, self.problems)]))


@dataclass(frozen=True, slots=True, order=True)
class ProfileOrigin:
    """Where a profile came from, as a value: a built-in by name or a file by path.

    Code asks it (``builtin``, ``resolve()``) instead of taking apart the text reports
    print; ``str()`` is that text, ``builtin:vivo`` or the path, unchanged in every
    output.
    """

    kind: Literal["builtin", "file"]
    name: str  # the built-in's name, or the file's path as found

    @classmethod
    def of_builtin(cls, name: str) -> ProfileOrigin:
        return cls("builtin", name)

    @property
    def builtin(self) -> str | None:
        """The built-in's name, or None for a file."""
        return self.name if self.kind == "builtin" else None

    @property
    def label(self) -> str:
        """How a table of figures names it: the built-in's name, else the path."""
        return self.name

    def resolve(self) -> LoadedProfile:
        """The profile itself (cached: loaded once a process)."""
        return resolve_profile(self.name)

    def __str__(self) -> str:
        return f"builtin:{self.name}" if self.kind == "builtin" else self.name


@dataclass(frozen=True, slots=True)
class LoadedProfile:
    """A profile with where it came from and the digest of its bytes (for integrity)."""

    profile: Profile
    origin: ProfileOrigin
    sha256: str
    #: A file's line of its ``name`` key (1 when it cannot be told): where ``H010`` is said.
    name_line: int = 1

    @property
    def custom(self) -> bool:
        """A profile file, not one of the built-ins: reports name it as such."""
        return self.origin.kind == "file"


_cache: dict[tuple[str, str], LoadedProfile] = {}


def profile_label(name: str | None, origin: ProfileOrigin | str | None) -> str | None:
    """``name``, or ``name (from ORIGIN)`` when a profile that is not the built-in of that
    name calls itself by it: a report must not pass an operator's paytable off as vivo's."""
    if name in BUILTIN and origin is not None and str(origin) != f"builtin:{name}":
        return f"{name} (from {origin})"
    return name


def custom_words(name: str, origin: ProfileOrigin | str, sha256: str | None) -> str:
    """How every report names a profile that is not a built-in, where it says the profile:
    ``custom profile house-7 (logs/house.yaml, sha256 ...)``, so that nobody reads an
    operator's paytable as a published one (a file named ``vivo`` included)."""
    return f"custom profile {name} ({origin}, sha256 {sha256 or 'unknown'})"


#: How a session's profile is said when nobody named it (no ``--profile``), by why:
#: the session names none, or its header could not be read.
DEFAULT_WORDS = {"default": N_("the default: the session names none"),
                 "default-unread": N_("the default: the session's header could not be read")}

_NAME_LINE = re.compile(rb"^name\s*:")


def name_line(data: bytes) -> int:
    """The line of a profile file's top-level ``name`` key; 1 when it is not on a line of
    its own (a flow mapping)."""
    for number, line in enumerate(data.splitlines(), start=1):
        if _NAME_LINE.match(line):
            return number
    return 1


def borrowed_name(loaded: LoadedProfile) -> ProfileProblem | None:
    """``H010``'s words: a profile file that takes a built-in's name but rules otherwise,
    at its name line, naming each difference; None for a built-in, a file with a name of
    its own, or one that rules exactly as the built-in it is named after."""
    name = loaded.profile.name
    if not loaded.custom or name not in BUILTIN:
        return None
    from .rules.profile_diff import differences

    found = differences(loaded.profile, resolve_profile(name).profile, name)
    if not found:
        return None
    return ProfileProblem(str(loaded.origin), loaded.name_line,
                          f"profile {name} ({loaded.origin}) is not the built-in {name}: {'; '.join(found)}")


def builtin_text(name: str) -> bytes:
    return resources.files("referee").joinpath("data", "profiles", f"{name}.yaml").read_bytes()


def builtin_rules(name: str) -> bytes:
    """The words of a built-in's rules (``NAME.rules.yaml``), kept beside the profile so
    that the profile's bytes, and so its SHA-256 in every report, do not change with them."""
    return resources.files("referee").joinpath("data", "profiles", f"{name}.rules.yaml").read_bytes()


def resolve_profile(name_or_path: str, base_dir: Path | None = None) -> LoadedProfile:
    """A built-in by name, else a file (relative paths against ``base_dir`` first)."""
    key = (name_or_path, str(base_dir))
    cached = _cache.get(key)
    if cached is not None:
        return cached
    loaded = _from_kept(_kept, name_or_path, base_dir) if _kept is not None else _from_disk(name_or_path, base_dir)
    _cache[key] = loaded
    return loaded


def _from_disk(name_or_path: str, base_dir: Path | None) -> LoadedProfile:
    if name_or_path in BUILTIN:
        data, origin = builtin_text(name_or_path), ProfileOrigin.of_builtin(name_or_path)
        digest = hashlib.sha256(data).hexdigest()
        return LoadedProfile(_builtin(name_or_path, data, digest), origin, digest)
    path = _find(name_or_path, base_dir)
    try:
        data = path.read_bytes()
    except OSError as err:
        raise ProfileError(f"profile {name_or_path!r}: cannot read {path}: {err.strerror}") from None
    origin = ProfileOrigin("file", str(path))
    digest = hashlib.sha256(data).hexdigest()
    return LoadedProfile(parse_profile(data, str(origin)), origin, digest, name_line(data))


#: While an audit is replayed from a store: the bytes of every profile it was ruled by,
#: by origin (``builtin:vivo`` or the path as found then); no file is read.
_kept: dict[str, bytes] | None = None


@contextmanager
def kept_profiles(profiles: dict[str, bytes]) -> Iterator[None]:
    """Profiles resolved from ``profiles`` (origin -> bytes) instead of the disk: a
    stored audit is replayed with the very profiles it was ruled by, wherever it runs.
    A built-in that is not among them is the installed one."""
    global _kept
    saved, before = dict(_cache), _kept
    _cache.clear()
    _kept = dict(profiles)
    try:
        yield
    finally:
        _kept = before
        _cache.clear()
        _cache.update(saved)


def _from_kept(kept: dict[str, bytes], name_or_path: str, base_dir: Path | None) -> LoadedProfile:
    """What :func:`resolve_profile` finds among kept profiles: the candidates it would
    try on disk, in its order (relative to ``base_dir`` first), by the origin each gives."""
    if name_or_path in BUILTIN:
        origin = ProfileOrigin.of_builtin(name_or_path)
        data = kept.get(str(origin))
        if data is None or data == builtin_text(name_or_path):
            data = builtin_text(name_or_path)
            digest = hashlib.sha256(data).hexdigest()
            return LoadedProfile(_builtin(name_or_path, data, digest), origin, digest)
        return LoadedProfile(read_builtin(name_or_path, data, builtin_rules(name_or_path)), origin,
                             hashlib.sha256(data).hexdigest())
    path = Path(name_or_path)
    candidates = [str(base_dir / path)] if not path.is_absolute() and base_dir is not None else []
    for candidate in [*candidates, str(path)]:
        if candidate in kept:
            data = kept[candidate]
            return LoadedProfile(parse_profile(data, candidate), ProfileOrigin("file", candidate),
                                 hashlib.sha256(data).hexdigest(), name_line(data))
    raise _unknown(name_or_path)


#: The built-ins as read (``python -m referee.profiles`` writes it): each one's profile
#: as validated, with the SHA-256 of its two files. Why: reading it spares a command
#: that uses a built-in the YAML parser, whose import alone is 10 ms of every start. A
#: built-in whose files no longer match (edited, not written again) is read from them.
BUILTIN_READ = "builtin_profiles.json"


def _builtin(name: str, data: bytes, digest: str) -> Profile:
    rules = builtin_rules(name)
    read = _builtins_read().get(name)
    if read is not None and read["sha256"] == [digest, hashlib.sha256(rules).hexdigest()]:
        return Profile.model_validate(read["profile"])
    return read_builtin(name, data, rules)


def read_builtin(name: str, data: bytes, rules: bytes) -> Profile:
    """A built-in from its files: the profile, and its rules' words unless it has its own."""
    origin = str(ProfileOrigin.of_builtin(name))
    profile = parse_profile(data, origin)
    return profile if profile.rules else _with_rules(profile, rules, f"{origin}.rules")


def _builtins_read() -> dict[str, Any]:
    try:
        text = resources.files("referee").joinpath("data", BUILTIN_READ).read_bytes()
    except OSError:  # pragma: no cover - a stripped install: every built-in is read from its files
        return {}
    read: dict[str, Any] = json.loads(text)
    return read


def builtins_read_text() -> str:
    """What ``referee/data/builtin_profiles.json`` holds: every built-in read from its files."""
    read = {}
    for name in BUILTIN:
        data, rules = builtin_text(name), builtin_rules(name)
        read[name] = {"sha256": [hashlib.sha256(data).hexdigest(), hashlib.sha256(rules).hexdigest()],
                      "profile": read_builtin(name, data, rules).model_dump(mode="json")}
    return json.dumps(read, indent=1, ensure_ascii=False) + "\n"


def _unknown(name_or_path: str) -> ProfileError:
    """A profile that is neither a built-in nor a file: said as what the path is (a folder,
    a device), not ``no such file`` when something is there."""
    import os

    from .models.common import closest

    what = not_a_file(name_or_path) if os.path.lexists(name_or_path) else "no such file"
    meant = closest(name_or_path, BUILTIN) if "/" not in name_or_path else None
    hint = f"; did you mean {meant!r}?" if meant else ""  # a built-in's name one slip away (bonus-aaa)
    return ProfileError(f"unknown profile {name_or_path!r}: not a built-in ({', '.join(BUILTIN)}) and {what}{hint}")


def _find(name_or_path: str, base_dir: Path | None) -> Path:
    path = Path(name_or_path)
    if not path.is_absolute() and base_dir is not None and (base_dir / path).is_file():
        return base_dir / path
    if path.is_file():
        return path
    raise _unknown(name_or_path)


def parse_profile(data: bytes, origin: str) -> Profile:
    """A profile from its YAML; every problem at once (with lines and did-you-mean) in
    one :class:`ProfileError`. The notations the tool prints are read too: odds ``3:1``,
    ``returned``, categories ``two pair``, ranks ``4`` or ``10`` unquoted."""
    import yaml  # here: only a profile read from its YAML needs it (see BUILTIN_READ)

    from .load.yamlio import YamlInputError, describe_yaml_error, load_documents

    try:
        documents = list(load_documents(data))
    except YamlInputError as err:
        raise _invalid(origin, [ProfileProblem(origin, err.line, err.message)]) from None
    except yaml.YAMLError as err:
        message, line = describe_yaml_error(err)
        raise _invalid(origin, [ProfileProblem(origin, line, message)]) from None
    except ValueError as err:  # decoding
        raise _invalid(origin, [ProfileProblem(origin, 0, f"not UTF-8 text: {err}")]) from None
    if len(documents) != 1 or not isinstance(documents[0], dict):
        raise _invalid(origin, [ProfileProblem(origin, 1, "expected one YAML mapping (key: value lines)")])
    document = documents[0]
    found = normalise(document)
    problems = [ProfileProblem(origin, line, message) for line, message in found]
    try:
        profile = Profile.model_validate(document)
    except ValidationError as err:
        said = {message.split(":")[0] for _, message in found}  # one problem per key
        problems += [ProfileProblem(origin, line, message) for line, message in explain_errors(err, document)
                     if message.split(":")[0] not in said]
        profile = None
    if problems or profile is None:
        raise _invalid(origin, sorted(problems, key=lambda p: p.line))
    return profile


def _invalid(origin: str, problems: list[ProfileProblem]) -> ProfileError:
    count = f"{len(problems)} problems" if len(problems) != 1 else "1 problem"
    return ProfileError(f"profile {origin} is not valid ({count}):", problems)


ODDS = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(?::|to)\s*(\d+(?:\.\d+)?)\s*$")
FRENCH_RANKS = {"R": "K", "D": "Q", "V": "J", "10": "T"}


def normalise(document: dict[str, Any]) -> list[tuple[int, str]]:
    """Rewrite, in place, the notations people copy from the tool's own output into the
    profile's canonical values; the problems found on the way (odds that are not exact)."""
    problems: list[tuple[int, str]] = []
    for table, where in ((document.get("ante_paytable"), "ante_paytable"),
                         (_get(document, "bonus", "paytable"), "bonus.paytable")):
        if isinstance(table, dict):
            _rename_keys(table)
            for key in list(table):
                table[key] = _odds(table[key], f"{where}.{key}", _line(table, key), problems)
    if "call_win_odds" in document:
        value = document["call_win_odds"]
        document["call_win_odds"] = 0 if value == "returned" else _odds(
            value, "call_win_odds", _line(document, "call_win_odds"), problems)
    if isinstance(document.get("ante_when_not_qualified"), str):
        document["ante_when_not_qualified"] = _word(document["ante_when_not_qualified"])
    for threshold in (document.get("dealer_qualifier"), _get(document, "bonus", "minimum")):
        if isinstance(threshold, dict):
            if isinstance(threshold.get("category"), str):
                threshold["category"] = _word(threshold["category"])
            rank = threshold.get("rank")
            if isinstance(rank, (int, str)) and not isinstance(rank, bool):
                text = str(rank).strip().upper()
                threshold["rank"] = FRENCH_RANKS.get(text, text)
    return problems


def _get(document: dict[str, Any], *path: str) -> Any:
    value: Any = document
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def _line(mapping: Any, key: str) -> int:
    return mapping.line_of(key) if isinstance(mapping, LineDict) else 0


def _word(text: str) -> str:
    """``Two Pair``, ``two-pair``, ``even money`` -> ``two_pair``, ``even_money``: as a hand
    history reads its words (one function, :func:`referee.rules.category.as_word`)."""
    word: str = as_word(text)
    return word


def _rename_keys(table: dict[str, Any]) -> None:
    for key in list(table):
        new = _word(key) if isinstance(key, str) else key
        if new != key and new not in table:
            table[new] = table.pop(key)
            if isinstance(table, LineDict):
                table.lines[new] = table.lines.get(key, table.line)


def _odds(value: Any, where: str, line: int, problems: list[tuple[int, str]]) -> Any:
    """``3:1`` (or ``3 to 1``) -> 3; ``3:2`` -> 1.5; odds that are not an exact decimal are a problem."""
    if not isinstance(value, str):
        return value
    match = ODDS.match(value)
    if match is None:
        return value  # the model says what is wrong with it
    won, staked = Decimal(match[1]), Decimal(match[2])
    if not staked:
        problems.append((line, f"{where}: odds {quoted(value)} stake nothing"))
        return value
    try:
        odds = won / staked
        if odds * staked != won:
            problems.append((line, f"{where}: odds {quoted(value)} are not an exact decimal; write the net payout per "
                                   f"unit, e.g. {odds.quantize(Decimal('0.0001'))}"))
            return value
    except DecimalException:  # a quotient too long to round to 4 places: no decimal error is a crash
        problems.append((line, f"{where}: odds {quoted(value)} are out of range"))
        return value
    return odds.normalize() if odds == odds.to_integral_value() else odds


def explain_errors(err: ValidationError, document: Any) -> list[tuple[int, str]]:
    """Each pydantic error in plain words, with the line of the key it is about."""
    out = []
    for error in err.errors(include_url=False):
        loc = tuple(error["loc"])
        is_key = bool(loc) and loc[-1] == "[key]"
        path_loc = loc[:-1] if is_key else loc
        path = ".".join(str(p) for p in path_loc) or "(top)"
        line = line_at(document, path_loc, getattr(document, "line", 1) or 1)
        out.append((line, f"{path}: {_plain(error, path_loc, is_key)}"))
    return out


def _plain(error: Any, loc: tuple[Any, ...], is_key: bool) -> str:
    kind = error["type"]
    value = error.get("input")
    got = f"got {quoted(value)}" if not isinstance(value, (dict, list)) else f"got a {type(value).__name__}"
    ctx = error.get("ctx") or {}
    if kind == "extra_forbidden":
        return f"unknown key{suggest(str(loc[-1]), _fields(loc[:-1]))}"
    if kind in ("literal_error", "enum"):
        choices = re.findall(r"'([^']*)'", str(ctx.get("expected", "")))
        what = ("unknown hand category" if is_key or loc[-1] == "category" else "unknown rank" if loc[-1] == "rank"
                else "unknown value")
        return f"{what} {quoted(value)}{suggest(str(value), choices)}"
    if kind == "missing":
        return "required key is missing"
    if kind == "value_error":
        return str(error["msg"]).removeprefix("Value error, ")
    words = {
        "decimal_parsing": "expected a number (odds may be written 3:1)", "decimal_type": "expected a number",
        "int_parsing": "expected a whole number", "int_type": "expected a whole number",
        "bool_parsing": "expected true or false", "bool_type": "expected true or false",
        "string_type": "expected text", "dict_type": "expected a mapping (key: value lines)",
        "model_type": "expected a mapping (key: value lines)",
        "string_pattern_mismatch": "expected lowercase letters, digits, '.', '_' or '-'",
        "greater_than_equal": f"must be at least {ctx.get('ge')}", "greater_than": f"must be more than {ctx.get('gt')}",
        "less_than_equal": f"must be at most {ctx.get('le')}", "less_than": f"must be less than {ctx.get('lt')}",
        "decimal_max_places": f"at most {ctx.get('decimal_places')} decimal places",
        "decimal_max_digits": f"at most {ctx.get('max_digits')} digits",
        "finite_number": "must be a finite number",
    }
    if kind in words:
        return f"{words[kind]}, {got}"
    return f"{str(error['msg']).replace('Input should be', 'should be')}, {got}"


def _fields(loc: tuple[Any, ...]) -> tuple[str, ...]:
    """The keys a mapping at ``loc`` may hold, for did-you-mean."""
    from .rules.profile import BonusRule, HandThreshold

    if loc in (("dealer_qualifier",), ("bonus", "minimum")):
        return tuple(HandThreshold.model_fields)
    if loc == ("bonus",):
        return tuple(BonusRule.model_fields)
    if loc in (("ante_paytable",), ("bonus", "paytable")):
        return tuple(CATEGORY_NAMES)
    return tuple(Profile.model_fields)


def _with_rules(profile: Profile, data: bytes, origin: str) -> Profile:
    from .load.yamlio import load_documents

    documents = list(load_documents(data))
    try:
        return Profile.model_validate({**profile.model_dump(exclude={"rules"}), "rules": documents[0]})
    except ValidationError as err:  # pragma: no cover - a test loads every built-in
        raise ProfileError(f"profile {origin}: {err.errors()[0]['msg']}") from None


def load_profile(name_or_path: str) -> Profile:
    """A built-in profile by name (``vivo``, ``caribbean``, ``bonus-aa``, ``bonus-100``) or a file."""
    return resolve_profile(name_or_path).profile


if __name__ == "__main__":
    (Path(__file__).parent / "data" / BUILTIN_READ).write_text(builtins_read_text(), encoding="utf-8")
