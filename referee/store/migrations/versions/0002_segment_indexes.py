"""Indexes for reading games by dealer and by table (``stats --dealer``/``--table`` from
the store, and the monitor's segments): a store of millions of games is searched, not
scanned. Nothing else changes: no column is added, dropped or altered.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-02
"""

from __future__ import annotations

from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.create_index("ix_games_dealer", ["dealer", "id"], unique=False)
        batch_op.create_index("ix_games_tbl", ["tbl", "id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_index("ix_games_tbl")
        batch_op.drop_index("ix_games_dealer")
