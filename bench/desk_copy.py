"""A checked SQLite store copied row for row into a new PostgreSQL database (issue 48's
bench on both engines, without storing every log again through a server).

Run: python bench/desk_copy.py SQLITE_FILE postgresql://.../DATABASE. The database must
exist and be empty: its schema is made as ``check --store`` makes a new store (schema.py at
the current head, the same indexes), then every table's rows are copied as they are
(ids, digests and chains included, so ``store verify`` and the desk read them as stored),
in the order of their foreign keys, 5,000 rows a statement. Prints the rows copied and the
time taken.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    sys.path.insert(0, str(ROOT))
    import sqlalchemy as sa

    from referee.store import migrate, schema
    from referee.store.engine import engine, target

    source, destination = sys.argv[1], sys.argv[2]
    began = time.monotonic()
    reader = engine(target(source), readonly=True)
    writer = engine(target(destination))
    with reader.connect() as src, writer.connect() as dst:
        with dst.begin():
            migrate.made(dst)
            for table in ("store_meta", "chains", "alembic_version"):
                dst.exec_driver_sql(f"DELETE FROM {table}")
        for table in [*schema.metadata.sorted_tables, sa.table("alembic_version", sa.column("version_num"))]:
            copied = 0
            with dst.begin():
                rows = src.execution_options(yield_per=5_000).execute(sa.select(table))
                for part in rows.partitions():
                    dst.execute(table.insert(), [dict(r._mapping) for r in part])
                    copied += len(part)
            print(f"{table.name}: {copied:,} rows, {time.monotonic() - began:.0f} s", flush=True)
        with dst.begin():
            dst.exec_driver_sql("ANALYZE")
    reader.dispose()
    writer.dispose()


if __name__ == "__main__":
    main()
