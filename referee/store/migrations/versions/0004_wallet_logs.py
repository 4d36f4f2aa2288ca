"""The wallet logs exports were checked with (``check --mapping ... --wallet LOG``), kept
once each by their SHA-256, their bytes compressed in pieces as a source's are, so that an
export checked with its wallet log replays from the store. Nothing else changes: no column
of another table is added, dropped or altered (a source's ``options`` text names its logs).

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('wallet_logs',
    sa.Column('id', sa.Integer(), autoincrement=False, nullable=False),
    sa.Column('sha256', sa.Text(), nullable=False),
    sa.Column('name', sa.Text(), nullable=False),
    sa.Column('size', sa.BigInteger(), nullable=False),
    sa.Column('chunks', sa.Integer(), nullable=False),
    sa.Column('stored_us', sa.BigInteger(), nullable=False),
    sa.Column('source_id', sa.Integer(), nullable=False),
    sa.Column('digest', sa.Text(), nullable=False),
    sa.ForeignKeyConstraint(['source_id'], ['sources.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('sha256')
    )
    op.create_table('wallet_chunks',
    sa.Column('wallet_id', sa.Integer(), autoincrement=False, nullable=False),
    sa.Column('seq', sa.Integer(), autoincrement=False, nullable=False),
    sa.Column('first_line', sa.BigInteger(), nullable=False),
    sa.Column('size', sa.Integer(), nullable=False),
    sa.Column('sha256', sa.Text(), nullable=False),
    sa.Column('data', sa.LargeBinary(), nullable=False),
    sa.ForeignKeyConstraint(['wallet_id'], ['wallet_logs.id'], ),
    sa.PrimaryKeyConstraint('wallet_id', 'seq')
    )


def downgrade() -> None:
    op.drop_table('wallet_chunks')
    op.drop_table('wallet_logs')
