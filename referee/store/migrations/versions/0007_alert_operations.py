"""Alert operations (issue 47): the alert groups ``monitor --record`` keeps (one a cause,
led by the segment that explains the rest, with the ids of its alerts), what was done
about them (``referee alerts ack|resolve``: who, when, a note) and each webhook delivery
of one (``monitor --notify``). All three are chained as the alerts are (a row each in
``chains``, empty: no store kept any before). Nothing else changes: no column of another
table is added, dropped or altered.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

_Id = sa.BigInteger().with_variant(sa.Integer(), 'sqlite')
#: The chains this migration starts (``referee.store.chains.CHAINED`` names them too).
CHAINS = ("alert_groups", "alert_actions", "alert_notifications")


def upgrade() -> None:
    op.create_table('alert_groups',
    sa.Column('id', _Id, autoincrement=False, nullable=False),
    sa.Column('raised_us', sa.BigInteger(), nullable=False),
    sa.Column('host', sa.Text(), nullable=False),
    sa.Column('version', sa.Text(), nullable=False),
    sa.Column('lead', sa.Text(), nullable=False),
    sa.Column('basis', sa.Text(), nullable=False),
    sa.Column('bet', sa.Text(), nullable=False),
    sa.Column('window', sa.Text(), nullable=False),
    sa.Column('z', sa.Text(), nullable=True),
    sa.Column('segments', sa.Text(), nullable=False),
    sa.Column('band', sa.Text(), nullable=False),
    sa.Column('first_game', sa.Text(), nullable=True),
    sa.Column('last_game', sa.Text(), nullable=True),
    sa.Column('since', sa.Text(), nullable=True),
    sa.Column('until', sa.Text(), nullable=True),
    sa.Column('figures', sa.Text(), nullable=False),
    sa.Column('alert_ids', sa.Text(), nullable=False),
    sa.Column('inputs_digest', sa.Text(), nullable=False),
    sa.Column('digest', sa.Text(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index('ix_alert_groups_lead', 'alert_groups', ['lead', 'basis'], unique=False)
    op.create_table('alert_actions',
    sa.Column('id', _Id, autoincrement=False, nullable=False),
    sa.Column('group_id', _Id, nullable=False),
    sa.Column('action', sa.Text(), nullable=False),
    sa.Column('who', sa.Text(), nullable=False),
    sa.Column('at_us', sa.BigInteger(), nullable=False),
    sa.Column('note', sa.Text(), nullable=False),
    sa.Column('host', sa.Text(), nullable=False),
    sa.Column('digest', sa.Text(), nullable=False),
    sa.ForeignKeyConstraint(['group_id'], ['alert_groups.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index('ix_alert_actions_group', 'alert_actions', ['group_id'], unique=False)
    op.create_table('alert_notifications',
    sa.Column('id', _Id, autoincrement=False, nullable=False),
    sa.Column('group_id', _Id, nullable=False),
    sa.Column('url', sa.Text(), nullable=False),
    sa.Column('format', sa.Text(), nullable=False),
    sa.Column('attempts', sa.Integer(), nullable=False),
    sa.Column('status', sa.Integer(), nullable=True),
    sa.Column('outcome', sa.Text(), nullable=False),
    sa.Column('delivered', sa.SmallInteger(), nullable=False),
    sa.Column('first_us', sa.BigInteger(), nullable=False),
    sa.Column('last_us', sa.BigInteger(), nullable=False),
    sa.Column('digest', sa.Text(), nullable=False),
    sa.ForeignKeyConstraint(['group_id'], ['alert_groups.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_index('ix_alert_notifications_group', 'alert_notifications', ['group_id'], unique=False)
    chains = sa.table('chains', sa.column('name', sa.Text()), sa.column('size', sa.BigInteger()),
                      sa.column('head', sa.Text()))
    op.bulk_insert(chains, [{"name": name, "size": 0, "head": ""} for name in CHAINS])


def downgrade() -> None:
    op.execute(sa.text("DELETE FROM chains WHERE name IN ('alert_groups', 'alert_actions', 'alert_notifications')"))
    op.drop_index('ix_alert_notifications_group', table_name='alert_notifications')
    op.drop_table('alert_notifications')
    op.drop_index('ix_alert_actions_group', table_name='alert_actions')
    op.drop_table('alert_actions')
    op.drop_index('ix_alert_groups_lead', table_name='alert_groups')
    op.drop_table('alert_groups')
