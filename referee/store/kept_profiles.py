"""The rule profiles a store keeps: each session's row names the profile it was ruled
by, kept once (by origin and SHA-256) with its very bytes, so that a stored game can be
re-ruled years later by the rules it was ruled by, without the file."""

from __future__ import annotations

import hashlib
from typing import Any

from . import schema


def kept(conn: Any, origin: str, sha256: str, name: str, source: Any) -> int | None:
    """The id of the profile ``(origin, sha256)`` in the store, written now if it is not
    there; None when its bytes (read from ``source``, the session's profile origin) are
    no longer those it was ruled by: the replay then says the profile is missing."""
    from sqlalchemy import select

    p = schema.profiles
    found = conn.execute(select(p.c.id).where(p.c.origin == origin, p.c.sha256 == sha256)).scalar()
    if found is not None:
        return int(found)
    content = profile_bytes(source)
    if content is None or hashlib.sha256(content).hexdigest() != sha256:
        return None
    result = conn.execute(p.insert().values(sha256=sha256, origin=origin, name=name, content=content))
    return int(result.inserted_primary_key[0])


def profile_bytes(origin: Any) -> bytes | None:
    """The bytes of the profile a session was ruled by (a built-in's from the package)."""
    from ..profiles import builtin_text

    try:
        if origin.builtin is not None:
            return builtin_text(origin.builtin)
        with open(origin.name, "rb") as fh:
            data: bytes = fh.read()
        return data
    except OSError:
        return None
