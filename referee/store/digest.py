"""Tamper evidence: each stored row's digest, each source's digest of its rows, the chain.

What a digest is of: the row's values in the order of its table's columns (without the
digest itself), as Python writes them (``repr`` of the tuple: text, integers, bytes and
NULL only; the schema keeps flags as 0/1 integers for this). So the writer and
``referee store verify`` compute it alike, from what is written and from what is read.

A source's ``rows_digest`` is over the digests of all its rows, table by table in id
order (and its chunks' SHA-256): a row added, removed or re-digested changes it. The
source's own ``digest`` is over its columns (``rows_digest`` included), and its
``chain`` is the SHA-256 of the previous source's chain followed by its digest: a
source changed, removed or put in another place breaks the chain from there on.
"""

from __future__ import annotations

import hashlib
from functools import cache
from typing import Any

from . import schema

#: The tables whose rows a source's ``rows_digest`` covers, in its order.
ROW_TABLES = ("sessions", "settlements", "games", "seats", "runs", "findings")


@cache
def columns(table: str) -> tuple[str, ...]:
    """The columns a row's digest is over, in order."""
    skip = {"digest", "chain"} if table == "sources" else {"digest"}
    return tuple(c.name for c in schema.metadata.tables[table].columns if c.name not in skip)


def covered(table: str, values: tuple[Any, ...]) -> tuple[Any, ...]:
    """What a row's digest is over, from its values in the order of :func:`columns`: a
    run of format-1 rounds' is over the columns ``runs`` had before schema 0005 (the
    others are NULL in it: its digest is the one an older referee wrote); a run of a live
    table's games' over all of them."""
    if table == "runs":
        games = columns("runs").index("games")
        if values[games] is None:
            return values[:games]
    return values


def of(values: tuple[Any, ...]) -> str:
    return hashlib.sha256(repr(values).encode("utf-8", "surrogatepass")).hexdigest()


def chained(previous: str, digest: str) -> str:
    return hashlib.sha256(f"{previous}{digest}".encode()).hexdigest()


class RowsDigest:
    """A source's ``rows_digest``, fed row digests table by table (any interleaving:
    each table keeps its own running hash) and the chunks' SHA-256 in order."""

    def __init__(self) -> None:
        self.tables = {name: hashlib.sha256() for name in ("chunks", *ROW_TABLES)}
        #: How many digests it was fed (rows and chunks).
        self.count = 0

    def add(self, table: str, digest: str) -> None:
        self.tables[table].update(digest.encode("ascii"))
        self.count += 1

    def hexdigest(self) -> str:
        whole = hashlib.sha256()
        for name in ("chunks", *ROW_TABLES):
            whole.update(f"{name}:{self.tables[name].hexdigest()}\n".encode())
        return whole.hexdigest()
