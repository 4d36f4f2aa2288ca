"""The alerts ``referee monitor --record`` raises, kept with a digest of their inputs.
Nothing else changes: no column of another table is added, dropped or altered.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('alerts',
    sa.Column('id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), autoincrement=False, nullable=False),
    sa.Column('raised_us', sa.BigInteger(), nullable=False),
    sa.Column('host', sa.Text(), nullable=False),
    sa.Column('version', sa.Text(), nullable=False),
    sa.Column('segment', sa.Text(), nullable=False),
    sa.Column('value', sa.Text(), nullable=False),
    sa.Column('bet', sa.Text(), nullable=False),
    sa.Column('test', sa.Text(), nullable=False),
    sa.Column('window', sa.Text(), nullable=False),
    sa.Column('band', sa.Text(), nullable=False),
    sa.Column('games', sa.BigInteger(), nullable=False),
    sa.Column('seats', sa.BigInteger(), nullable=False),
    sa.Column('figures', sa.Text(), nullable=False),
    sa.Column('inputs', sa.BigInteger(), nullable=False),
    sa.Column('inputs_digest', sa.Text(), nullable=False),
    sa.Column('digest', sa.Text(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('alerts', schema=None) as batch_op:
        batch_op.create_index('ix_alerts_raised', ['raised_us'], unique=False)
        batch_op.create_index('ix_alerts_segment', ['segment', 'value'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('alerts', schema=None) as batch_op:
        batch_op.drop_index('ix_alerts_segment')
        batch_op.drop_index('ix_alerts_raised')
    op.drop_table('alerts')
