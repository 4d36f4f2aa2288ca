"""The wallet logs an export was checked with (``check --mapping ... --wallet LOG``), kept.

Why kept apart from the sources: a wallet log is not audited as a source of its own (its
money fills the exports' seats), and one log is often joined to many exports, page after
page and run after run; so its bytes are kept once, by their SHA-256, in ``wallet_logs``
and ``wallet_chunks`` (compressed pieces, as a source's ``chunks``), written in the
transaction of the first source that refers to them. Each source names its logs in its
``options`` (``"wallets": [{"name", "sha256"}, ...]``, in the order given): that reference
is covered by the source's digest and the chain, so a log's bytes changed afterwards no
longer hash to what the source names (``store verify`` says which).

A store written before schema 0004 kept the logs' names only (``"wallet": [names]``): its
sources cannot be audited again with their logs, and a replay says so.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..load.inputs import Source
from . import digest, schema
from .chunks import Chunker

#: Pieces written at once (each about 256 KiB before compression).
WRITE_PIECES = 64


@dataclass(frozen=True, slots=True)
class WalletLog:
    """A ``--wallet`` log of the run being stored: its name as given, the file its bytes
    are read from (standard input copied to one), and their SHA-256 before the audit
    (None: it cannot be read to be kept)."""

    name: str
    source: Source
    sha256: str | None


@dataclass(frozen=True, slots=True)
class WalletRef:
    """A stored source's reference to a wallet log: the name it was given, and its SHA-256."""

    name: str
    sha256: str


def refs(options: dict[str, Any]) -> tuple[WalletRef, ...]:
    """The wallet logs a source's stored options name, in order (none before schema 0004)."""
    return tuple(WalletRef(str(w["name"]), str(w["sha256"])) for w in options.get("wallets", ()))


def names_only(options: dict[str, Any]) -> tuple[str, ...]:
    """The wallet logs' names of a source stored before their bytes were kept (``wallet``)."""
    return tuple(str(name) for name in options.get("wallet", ()))


class KeptWallet:
    """One wallet log's bytes being kept, in the transaction of the source that first
    refers to it: its row first (the pieces point at it), its pieces as the chunker
    gives them (read, hashed, cut and compressed on another core), its size, count and
    digest at the end."""

    def __init__(self, conn: Any, log: WalletLog, wallet_id: int, source_id: int,
                 write: Callable[[str, list[tuple[Any, ...]]], None]) -> None:
        assert log.sha256 is not None
        self.conn = conn
        self.log = log
        self.id = wallet_id
        self.source_id = source_id
        self.write = write
        self.stored_us = time.time_ns() // 1000
        self.size = 0
        self.pieces = 0
        #: Each piece's SHA-256, in order, and the row's digest once finished: what is read back.
        self.shas: list[str] = []
        self.digest = ""
        conn.execute(schema.wallet_logs.insert().values(
            id=wallet_id, sha256=log.sha256, name=log.name, size=0, chunks=0, stored_us=self.stored_us,
            source_id=source_id, digest=""))
        self.chunker = Chunker(log.source)
        self.chunker.start()

    def drain(self, wait: bool) -> None:
        """The pieces ready (all of them, to the end, when ``wait``) written."""
        batch: list[tuple[Any, ...]] = []
        for seq, first_line, size, sha, data in self.chunker.ready(wait):
            batch.append((self.id, seq, first_line, size, sha, data))
            self.size += size
            self.pieces += 1
            self.shas.append(sha)
            if len(batch) >= WRITE_PIECES:
                self.write("wallet_chunks", batch)
                batch = []
        if batch:
            self.write("wallet_chunks", batch)

    def finish(self) -> str | None:
        """Every piece written and the row completed; or why the log cannot be kept (its
        bytes are not those hashed before the audit)."""
        self.drain(wait=True)
        if self.chunker.error is not None:
            raise self.chunker.error
        if self.chunker.sha256 != self.log.sha256:
            return f"its wallet log {self.log.name} changed while it was kept"
        values = {"id": self.id, "sha256": self.log.sha256, "name": self.log.name, "size": self.size,
                  "chunks": self.pieces, "stored_us": self.stored_us, "source_id": self.source_id}
        own = self.digest = digest.of(tuple(values[c] for c in digest.columns("wallet_logs")))
        w = schema.wallet_logs
        self.conn.execute(w.update().where(w.c.id == self.id).values(size=self.size, chunks=self.pieces, digest=own))
        return None

    def stop(self) -> None:
        """The chunker stopped (the source is abandoned: its transaction rolls this back)."""
        self.chunker.halt()


def begin_kept(conn: Any, logs: list[WalletLog], problem: str | None, source_id: int,
               write: Callable[[str, list[tuple[Any, ...]]], None]) -> list[KeptWallet]:
    """The run's wallet logs not in the store yet, each once (by SHA-256), begun on the
    source's transaction: the source refers to them, so they are kept with it (none when
    the source will not be kept: ``problem`` says why)."""
    from sqlalchemy import func, select

    if problem is not None:
        return []
    wanted: dict[str, WalletLog] = {}
    for log in logs:
        if log.sha256 is not None:
            wanted.setdefault(log.sha256, log)
    if not wanted:
        return []
    w = schema.wallet_logs
    stored = set(conn.execute(select(w.c.sha256).where(w.c.sha256.in_(list(wanted)))).scalars())
    first = int(conn.execute(select(func.max(w.c.id))).scalar() or 0) + 1
    missing = [log for sha, log in wanted.items() if sha not in stored]
    return [KeptWallet(conn, log, first + i, source_id, write) for i, log in enumerate(missing)]
