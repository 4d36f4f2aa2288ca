"""Finding a rule profile by name or path (the only profile code that reads files)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from pydantic import ValidationError

from .load.yamlio import YamlInputError, load_documents
from .rules.profile import Profile

BUILTIN = ("vivo", "caribbean", "bonus-aa", "bonus-100")
DEFAULT = "vivo"


class ProfileError(ValueError):
    """A profile that cannot be found or is not valid; the message names the field."""


@dataclass(frozen=True, slots=True)
class LoadedProfile:
    """A profile with where it came from and the digest of its bytes (for integrity)."""

    profile: Profile
    origin: str
    sha256: str


_cache: dict[tuple[str, str], LoadedProfile] = {}


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
    if name_or_path in BUILTIN:
        data, origin = builtin_text(name_or_path), f"builtin:{name_or_path}"
    else:
        path = _find(name_or_path, base_dir)
        try:
            data = path.read_bytes()
        except OSError as err:
            raise ProfileError(f"profile {name_or_path!r}: cannot read {path}: {err.strerror}") from None
        origin = str(path)
    profile = parse_profile(data, origin)
    if name_or_path in BUILTIN and not profile.rules:
        profile = _with_rules(profile, builtin_rules(name_or_path), f"{origin}.rules")
    loaded = LoadedProfile(profile, origin, hashlib.sha256(data).hexdigest())
    _cache[key] = loaded
    return loaded


def _find(name_or_path: str, base_dir: Path | None) -> Path:
    path = Path(name_or_path)
    if not path.is_absolute() and base_dir is not None and (base_dir / path).is_file():
        return base_dir / path
    if path.is_file():
        return path
    raise ProfileError(
        f"unknown profile {name_or_path!r}: not a built-in ({', '.join(BUILTIN)}) and no such file"
    )


def parse_profile(data: bytes, origin: str) -> Profile:
    try:
        documents = list(load_documents(data))
    except YamlInputError as err:
        raise ProfileError(f"profile {origin}:{err.line}: {err.message}") from None
    except Exception as err:  # yaml.YAMLError and decoding errors
        raise ProfileError(f"profile {origin}: not valid YAML: {str(err).splitlines()[0]}") from None
    if len(documents) != 1 or not isinstance(documents[0], dict):
        raise ProfileError(f"profile {origin}: expected one YAML mapping")
    try:
        return Profile.model_validate(documents[0])
    except ValidationError as err:
        first = err.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "(top)"
        raise ProfileError(f"profile {origin}: {field}: {first['msg']}") from None


def _with_rules(profile: Profile, data: bytes, origin: str) -> Profile:
    documents = list(load_documents(data))
    try:
        return Profile.model_validate({**profile.model_dump(exclude={"rules"}), "rules": documents[0]})
    except ValidationError as err:  # pragma: no cover - a test loads every built-in
        raise ProfileError(f"profile {origin}: {err.errors()[0]['msg']}") from None


def load_profile(name_or_path: str) -> Profile:
    """A built-in profile by name (``vivo``, ``caribbean``, ``bonus-aa``, ``bonus-100``) or a file."""
    return resolve_profile(name_or_path).profile
