"""A source read back after its commit: are its rows those the writer wrote?

Why: the writer computes each row's digest, the source's ``rows_digest`` and its link in
the chain from what it sends; a database may keep something else (a trigger that drops
or changes rows on insert, a rule, a faulty driver), and ``check --store`` would say
``1 source stored`` of rows that are not there. So once a source is committed, its row
digests are read back on a new connection (what any later reader sees), by the id ranges
the writer gave them (a primary key's range, whatever the store's size), with its chunks,
its own record, the store's head and the wallet logs kept with it (each one's record and
its pieces' SHA-256), and compared with what was written.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from . import StoreError, digest, schema
from .engine import Target
from .wallets import KeptWallet


def check(engine: Any, store: Target, source_id: int, name: str, ids: dict[str, tuple[int, int]],
          written: digest.RowsDigest, record: dict[str, Any], wallets: Sequence[KeptWallet] = ()) -> None:
    """Raise a StoreError naming the source when what is stored of it is not ``written``
    (its rows, each table's ``ids`` from first to last but one), ``record`` (its own
    row's ``rows_digest``, ``digest``, ``chain``: the store's head) and ``wallets`` (the
    logs kept with it)."""
    import sqlalchemy as sa

    found = digest.RowsDigest()
    with engine.connect() as conn:
        c = schema.chunks
        for sha in conn.execute(sa.select(c.c.sha256).where(c.c.source_id == source_id).order_by(c.c.seq)).scalars():
            found.add("chunks", sha)
        for table_name in digest.ROW_TABLES:
            table = schema.metadata.tables[table_name]
            first, end = ids[table_name]
            query = sa.select(table.c.digest).where(table.c.id >= first, table.c.id < end,
                                                    table.c.source_id == source_id).order_by(table.c.id)
            for value in conn.execute(query).scalars():
                found.add(table_name, value)
        s = schema.sources
        row = conn.execute(sa.select(s.c.rows_digest, s.c.digest, s.c.chain).where(s.c.id == source_id)).first()
        head = conn.execute(sa.select(schema.store_meta.c.head)).scalar()
        logs = [kept.log.name for kept in wallets if not _wallet_as_written(conn, kept)]
        conn.rollback()
    said = []
    if found.hexdigest() != written.hexdigest():
        said.append(f"its rows read back are not those written ({written.count:,} written, {found.count:,} read "
                    "back)")
    if row is None or tuple(row) != (record["rows_digest"], record["digest"], record["chain"]):
        said.append("its own record read back is not the one written")
    elif head != record["chain"]:
        said.append("the store's head read back is not its link in the chain")
    said += [f"its wallet log {log} read back is not the one written" for log in logs]
    if said:
        raise StoreError(store.scrub(
            f"store {store.shown}: source {source_id} ({name}) was committed, but {'; '.join(said)}: something in "
            f"the database (a trigger, a rule) dropped or changed them; run referee store verify {store.shown}"))


def _wallet_as_written(conn: Any, kept: KeptWallet) -> bool:
    """Whether a wallet log kept with the source reads back as written: its row's digest,
    its pieces' SHA-256 in order."""
    import sqlalchemy as sa

    w, c = schema.wallet_logs, schema.wallet_chunks
    row = conn.execute(sa.select(w.c.digest).where(w.c.id == kept.id)).scalar()
    pieces = list(conn.execute(sa.select(c.c.sha256).where(c.c.wallet_id == kept.id).order_by(c.c.seq)).scalars())
    return row == kept.digest and pieces == kept.shas
