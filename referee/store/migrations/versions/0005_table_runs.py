"""Runs of a live table's clean games: a format-2 game the fast lane took is kept in a run
(its seats' records are their own lines of the kept bytes, not written again), with the
games' and players' ids in ``run_keys`` to find them. New columns of ``runs`` (NULL in a
run of format-1 rounds, whose rows and digests are unchanged), its index by time, and the
table ``run_keys``; nothing is dropped or altered.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("runs", schema=None) as batch_op:  # SQLite: ALTER TABLE ADD COLUMN, no copy
        batch_op.add_column(sa.Column("games", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("names", sa.Text(), nullable=True))
        batch_op.add_column(sa.Column("layout", sa.LargeBinary(), nullable=True))
        batch_op.add_column(sa.Column("time_min_us", sa.BigInteger(), nullable=True))
        batch_op.add_column(sa.Column("time_max_us", sa.BigInteger(), nullable=True))
        batch_op.add_column(sa.Column("last_number", sa.BigInteger(), nullable=True))
        batch_op.create_index("ix_runs_time", ["time_min_us", "time_max_us"], unique=False)
    op.create_table("run_keys",
    sa.Column("value", sa.Text(), nullable=False),
    sa.Column("kind", sa.Text(), nullable=False),
    sa.Column("run_id", sa.BigInteger(), autoincrement=False, nullable=False),
    sa.ForeignKeyConstraint(["run_id"], ["runs.id"], ),
    sa.PrimaryKeyConstraint("value", "kind", "run_id"),
    sqlite_with_rowid=False,
    )


def downgrade() -> None:
    op.drop_table("run_keys")
    with op.batch_alter_table("runs", schema=None) as batch_op:
        batch_op.drop_index("ix_runs_time")
        batch_op.drop_column("last_number")
        batch_op.drop_column("time_max_us")
        batch_op.drop_column("time_min_us")
        batch_op.drop_column("layout")
        batch_op.drop_column("names")
        batch_op.drop_column("games")
