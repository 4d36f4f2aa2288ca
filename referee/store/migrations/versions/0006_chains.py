"""The heads of the chains kept beside the sources' (``store_meta.head``): one row a
chained table, its name, how many rows its chain covers and its head. The first is
``alerts`` (``monitor --record``): until now an alert deleted left no trace. Nothing else
changes: no column of another table is added, dropped or altered.

The alerts already kept are chained here, in id order, as ``referee.store.chains``
chains them (the SHA-256 of the previous link's hex followed by the alert's digest).

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-07
"""

from __future__ import annotations

import hashlib

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    chains = op.create_table('chains',
    sa.Column('name', sa.Text(), nullable=False),
    sa.Column('size', sa.BigInteger(), nullable=False),
    sa.Column('head', sa.Text(), nullable=False),
    sa.PrimaryKeyConstraint('name')
    )
    head, size = "", 0
    for (digest,) in op.get_bind().execute(sa.text("SELECT digest FROM alerts ORDER BY id")):
        head = hashlib.sha256(f"{head}{digest}".encode()).hexdigest()
        size += 1
    op.bulk_insert(chains, [{"name": "alerts", "size": size, "head": head}])


def downgrade() -> None:
    op.drop_table('chains')
