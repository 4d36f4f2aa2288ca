"""The desk at scale (issue 48): its login sessions kept in the store, and the indexes
that make each of its questions a bounded walk of an index.

``desk_sessions``: one row a login (the SHA-256 of the cookie's token, never the token;
the user; the CSRF token; when it started and was last seen), so that several server
processes (``referee serve --workers N``) share them and a restart logs no one out. Not
evidence: neither digested nor chained, and deleted when the session ends.

Indexes: a table's and a dealer's games in time order (``ix_games_tbl_time``,
``ix_games_dealer_time``), a player's seat rows in time order (``ix_seats_player_time``),
a table's sessions (``ix_sessions_tbl``, which the search of a table's runs starts from),
and the longest time a run of clean games spans (``ix_runs_span``, an index on
``time_max_us - time_min_us``: the search walks runs back in time from where it is asked
and stops once no older run can reach the page). No column of another table is added,
dropped or altered.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

INDEXES = (
    ('games', 'ix_games_tbl_time', ['tbl', 'time_us', 'id']),
    ('games', 'ix_games_dealer_time', ['dealer', 'time_us', 'id']),
    ('seats', 'ix_seats_player_time', ['player', 'time_us', 'id']),
    ('sessions', 'ix_sessions_tbl', ['tbl']),
)


def upgrade() -> None:
    op.create_table('desk_sessions',
    sa.Column('token', sa.Text(), nullable=False),
    sa.Column('user', sa.Text(), nullable=False),
    sa.Column('csrf', sa.Text(), nullable=False),
    sa.Column('started_us', sa.BigInteger(), nullable=False),
    sa.Column('seen_us', sa.BigInteger(), nullable=False),
    sa.PrimaryKeyConstraint('token')
    )
    with op.batch_alter_table('desk_sessions', schema=None) as batch_op:
        batch_op.create_index('ix_desk_sessions_user', ['user'], unique=False)
    for table, name, columns in INDEXES:
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.create_index(name, columns, unique=False)
    span = 'time_max_us - time_min_us'  # PostgreSQL takes an expression in parentheses, as create_all writes it
    op.create_index('ix_runs_span', 'runs', [sa.text(span if op.get_bind().dialect.name == 'sqlite' else f'({span})')],
                    unique=False)


def downgrade() -> None:
    op.drop_index('ix_runs_span', table_name='runs')
    for table, name, _ in reversed(INDEXES):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_index(name)
    with op.batch_alter_table('desk_sessions', schema=None) as batch_op:
        batch_op.drop_index('ix_desk_sessions_user')
    op.drop_table('desk_sessions')
