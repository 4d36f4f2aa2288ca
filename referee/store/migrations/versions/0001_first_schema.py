"""The store's first schema: sources and their chunks, profiles, sessions, settlements,
games, seats, runs of clean rounds, findings, and the chain's head (``store_meta``).

Revision ID: 0001
Revises:
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('profiles',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('sha256', sa.Text(), nullable=False),
    sa.Column('origin', sa.Text(), nullable=False),
    sa.Column('name', sa.Text(), nullable=False),
    sa.Column('content', sa.LargeBinary(), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('origin', 'sha256', name='uq_profiles_origin_sha256')
    )
    op.create_table('sources',
    sa.Column('id', sa.Integer(), autoincrement=False, nullable=False),
    sa.Column('sha256', sa.Text(), nullable=False),
    sa.Column('name', sa.Text(), nullable=False),
    sa.Column('kind', sa.Text(), nullable=False),
    sa.Column('size', sa.BigInteger(), nullable=False),
    sa.Column('readable', sa.SmallInteger(), nullable=False),
    sa.Column('stored_us', sa.BigInteger(), nullable=False),
    sa.Column('host', sa.Text(), nullable=False),
    sa.Column('version', sa.Text(), nullable=False),
    sa.Column('options', sa.Text(), nullable=False),
    sa.Column('sessions', sa.Integer(), nullable=False),
    sa.Column('games', sa.Integer(), nullable=False),
    sa.Column('seats', sa.BigInteger(), nullable=False),
    sa.Column('findings', sa.Integer(), nullable=False),
    sa.Column('time_min_us', sa.BigInteger(), nullable=True),
    sa.Column('time_max_us', sa.BigInteger(), nullable=True),
    sa.Column('chunks', sa.Integer(), nullable=False),
    sa.Column('rows_digest', sa.Text(), nullable=False),
    sa.Column('digest', sa.Text(), nullable=False),
    sa.Column('chain', sa.Text(), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('sha256')
    )
    op.create_table('store_meta',
    sa.Column('id', sa.SmallInteger(), autoincrement=False, nullable=False),
    sa.Column('head', sa.Text(), nullable=False),
    sa.Column('sources', sa.Integer(), nullable=False),
    sa.Column('writer', sa.Text(), nullable=True),
    sa.Column('updated_us', sa.BigInteger(), nullable=True),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_table('chunks',
    sa.Column('source_id', sa.Integer(), autoincrement=False, nullable=False),
    sa.Column('seq', sa.Integer(), autoincrement=False, nullable=False),
    sa.Column('first_line', sa.BigInteger(), nullable=False),
    sa.Column('size', sa.Integer(), nullable=False),
    sa.Column('sha256', sa.Text(), nullable=False),
    sa.Column('data', sa.LargeBinary(), nullable=False),
    sa.ForeignKeyConstraint(['source_id'], ['sources.id'], ),
    sa.PrimaryKeyConstraint('source_id', 'seq')
    )
    op.create_table('sessions',
    sa.Column('id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), autoincrement=False, nullable=False),
    sa.Column('source_id', sa.Integer(), nullable=False),
    sa.Column('seq', sa.Integer(), nullable=False),
    sa.Column('ident', sa.Text(), nullable=False),
    sa.Column('line', sa.BigInteger(), nullable=False),
    sa.Column('format', sa.SmallInteger(), nullable=False),
    sa.Column('profile', sa.Text(), nullable=True),
    sa.Column('origin', sa.Text(), nullable=True),
    sa.Column('profile_sha256', sa.Text(), nullable=True),
    sa.Column('profile_id', sa.Integer(), nullable=True),
    sa.Column('player', sa.Text(), nullable=True),
    sa.Column('tbl', sa.Text(), nullable=True),
    sa.Column('currency', sa.Text(), nullable=True),
    sa.Column('idx', sa.Integer(), nullable=False),
    sa.Column('ledger', sa.Text(), nullable=True),
    sa.Column('players', sa.Text(), nullable=True),
    sa.Column('counts', sa.Text(), nullable=True),
    sa.Column('findings', sa.Integer(), nullable=False),
    sa.Column('digest', sa.Text(), nullable=False),
    sa.ForeignKeyConstraint(['profile_id'], ['profiles.id'], ),
    sa.ForeignKeyConstraint(['source_id'], ['sources.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('sessions', schema=None) as batch_op:
        batch_op.create_index('ix_sessions_ident', ['ident'], unique=False)
        batch_op.create_index('ix_sessions_player', ['player'], unique=False)
        batch_op.create_index('ix_sessions_source', ['source_id'], unique=False)

    op.create_table('settlements',
    sa.Column('id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), autoincrement=False, nullable=False),
    sa.Column('source_id', sa.Integer(), nullable=False),
    sa.Column('outcome', sa.Text(), nullable=False),
    sa.Column('decision', sa.Text(), nullable=True),
    sa.Column('void_kind', sa.Text(), nullable=True),
    sa.Column('void_reason', sa.Text(), nullable=True),
    sa.Column('player_cat', sa.Text(), nullable=True),
    sa.Column('dealer_cat', sa.Text(), nullable=True),
    sa.Column('bonus_cat', sa.Text(), nullable=True),
    sa.Column('qualified', sa.SmallInteger(), nullable=True),
    sa.Column('bonus_hit', sa.SmallInteger(), nullable=True),
    sa.Column('ante_u', sa.BigInteger(), nullable=True),
    sa.Column('main_staked_u', sa.BigInteger(), nullable=True),
    sa.Column('bonus_staked_u', sa.BigInteger(), nullable=True),
    sa.Column('main_net_u', sa.BigInteger(), nullable=True),
    sa.Column('bonus_net_u', sa.BigInteger(), nullable=True),
    sa.Column('lines', sa.Text(), nullable=False),
    sa.Column('digest', sa.Text(), nullable=False),
    sa.ForeignKeyConstraint(['source_id'], ['sources.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('settlements', schema=None) as batch_op:
        batch_op.create_index('ix_settlements_source', ['source_id'], unique=False)

    op.create_table('findings',
    sa.Column('id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), autoincrement=False, nullable=False),
    sa.Column('source_id', sa.Integer(), nullable=False),
    sa.Column('session_id', sa.BigInteger(), nullable=True),
    sa.Column('seq', sa.Integer(), nullable=False),
    sa.Column('code', sa.Text(), nullable=False),
    sa.Column('severity', sa.Text(), nullable=False),
    sa.Column('message', sa.Text(), nullable=False),
    sa.Column('file', sa.Text(), nullable=False),
    sa.Column('line', sa.BigInteger(), nullable=False),
    sa.Column('round', sa.BigInteger(), nullable=True),
    sa.Column('field', sa.Text(), nullable=True),
    sa.Column('expected', sa.Text(), nullable=True),
    sa.Column('recorded', sa.Text(), nullable=True),
    sa.Column('session', sa.Text(), nullable=True),
    sa.Column('game', sa.Text(), nullable=True),
    sa.Column('player', sa.Text(), nullable=True),
    sa.Column('digest', sa.Text(), nullable=False),
    sa.ForeignKeyConstraint(['session_id'], ['sessions.id'], ),
    sa.ForeignKeyConstraint(['source_id'], ['sources.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('findings', schema=None) as batch_op:
        batch_op.create_index('ix_findings_code', ['code'], unique=False)
        batch_op.create_index('ix_findings_session', ['session_id'], unique=False)

    op.create_table('games',
    sa.Column('id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), autoincrement=False, nullable=False),
    sa.Column('source_id', sa.Integer(), nullable=False),
    sa.Column('session_id', sa.BigInteger(), nullable=False),
    sa.Column('line', sa.BigInteger(), nullable=False),
    sa.Column('game', sa.Text(), nullable=True),
    sa.Column('number', sa.BigInteger(), nullable=True),
    sa.Column('tbl', sa.Text(), nullable=True),
    sa.Column('status', sa.Text(), nullable=True),
    sa.Column('kind', sa.Text(), nullable=False),
    sa.Column('outcome', sa.Text(), nullable=True),
    sa.Column('void_reason', sa.Text(), nullable=True),
    sa.Column('player_hand', sa.Text(), nullable=True),
    sa.Column('dealer_hand', sa.Text(), nullable=True),
    sa.Column('qualified', sa.SmallInteger(), nullable=True),
    sa.Column('cards', sa.Text(), nullable=True),
    sa.Column('players', sa.Text(), nullable=False),
    sa.Column('second', sa.SmallInteger(), nullable=False),
    sa.Column('time_us', sa.BigInteger(), nullable=True),
    sa.Column('dealer', sa.Text(), nullable=True),
    sa.Column('record', sa.Text(), nullable=True),
    sa.Column('findings', sa.Text(), nullable=True),
    sa.Column('digest', sa.Text(), nullable=False),
    sa.ForeignKeyConstraint(['session_id'], ['sessions.id'], ),
    sa.ForeignKeyConstraint(['source_id'], ['sources.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('games', schema=None) as batch_op:
        batch_op.create_index('ix_games_game', ['game'], unique=False)
        batch_op.create_index('ix_games_session', ['session_id', 'id'], unique=False)
        batch_op.create_index('ix_games_time', ['time_us'], unique=False)

    op.create_table('runs',
    sa.Column('id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), autoincrement=False, nullable=False),
    sa.Column('source_id', sa.Integer(), nullable=False),
    sa.Column('session_id', sa.BigInteger(), nullable=False),
    sa.Column('first_seat', sa.BigInteger(), nullable=False),
    sa.Column('rounds', sa.Integer(), nullable=False),
    sa.Column('first_line', sa.BigInteger(), nullable=False),
    sa.Column('first_number', sa.BigInteger(), nullable=False),
    sa.Column('start_balance', sa.Text(), nullable=False),
    sa.Column('settlements', sa.Text(), nullable=False),
    sa.Column('picks', sa.LargeBinary(), nullable=False),
    sa.Column('cards', sa.LargeBinary(), nullable=False),
    sa.Column('digest', sa.Text(), nullable=False),
    sa.ForeignKeyConstraint(['session_id'], ['sessions.id'], ),
    sa.ForeignKeyConstraint(['source_id'], ['sources.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('runs', schema=None) as batch_op:
        batch_op.create_index('ix_runs_first', ['first_seat'], unique=False)
        batch_op.create_index('ix_runs_number', ['first_number'], unique=False)
        batch_op.create_index('ix_runs_session', ['session_id', 'first_seat'], unique=False)

    op.create_table('seats',
    sa.Column('id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), autoincrement=False, nullable=False),
    sa.Column('source_id', sa.Integer(), nullable=False),
    sa.Column('session_id', sa.BigInteger(), nullable=False),
    sa.Column('game_id', sa.BigInteger(), nullable=True),
    sa.Column('line', sa.BigInteger(), nullable=False),
    sa.Column('number', sa.BigInteger(), nullable=True),
    sa.Column('game', sa.Text(), nullable=True),
    sa.Column('time_us', sa.BigInteger(), nullable=True),
    sa.Column('player', sa.Text(), nullable=True),
    sa.Column('decision', sa.Text(), nullable=True),
    sa.Column('kind', sa.Text(), nullable=False),
    sa.Column('settlement_id', sa.BigInteger(), nullable=True),
    sa.Column('cards', sa.Text(), nullable=True),
    sa.Column('known', sa.BigInteger(), nullable=True),
    sa.Column('player_value', sa.Integer(), nullable=True),
    sa.Column('dealer_value', sa.Integer(), nullable=True),
    sa.Column('bonus_value', sa.Integer(), nullable=True),
    sa.Column('balance', sa.Text(), nullable=False),
    sa.Column('recorded_balance', sa.Text(), nullable=True),
    sa.Column('status', sa.Text(), nullable=False),
    sa.Column('record', sa.Text(), nullable=True),
    sa.Column('findings', sa.Text(), nullable=True),
    sa.Column('copy_line', sa.BigInteger(), nullable=True),
    sa.Column('flags', sa.SmallInteger(), nullable=False),
    sa.Column('digest', sa.Text(), nullable=False),
    sa.ForeignKeyConstraint(['game_id'], ['games.id'], ),
    sa.ForeignKeyConstraint(['session_id'], ['sessions.id'], ),
    sa.ForeignKeyConstraint(['settlement_id'], ['settlements.id'], ),
    sa.ForeignKeyConstraint(['source_id'], ['sources.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('seats', schema=None) as batch_op:
        batch_op.create_index('ix_seats_game', ['game'], unique=False)
        batch_op.create_index('ix_seats_number', ['number'], unique=False)
        batch_op.create_index('ix_seats_player', ['player', 'id'], unique=False)
        batch_op.create_index('ix_seats_session', ['session_id', 'id'], unique=False)
        batch_op.create_index('ix_seats_time', ['time_us'], unique=False)



    meta = sa.table("store_meta", sa.column("id", sa.SmallInteger()), sa.column("head", sa.Text()),
                    sa.column("sources", sa.Integer()))
    op.bulk_insert(meta, [{"id": 1, "head": "", "sources": 0}])


def downgrade() -> None:
    with op.batch_alter_table('seats', schema=None) as batch_op:
        batch_op.drop_index('ix_seats_time')
        batch_op.drop_index('ix_seats_session')
        batch_op.drop_index('ix_seats_player')
        batch_op.drop_index('ix_seats_number')
        batch_op.drop_index('ix_seats_game')

    op.drop_table('seats')
    with op.batch_alter_table('runs', schema=None) as batch_op:
        batch_op.drop_index('ix_runs_session')
        batch_op.drop_index('ix_runs_number')
        batch_op.drop_index('ix_runs_first')

    op.drop_table('runs')
    with op.batch_alter_table('games', schema=None) as batch_op:
        batch_op.drop_index('ix_games_time')
        batch_op.drop_index('ix_games_session')
        batch_op.drop_index('ix_games_game')

    op.drop_table('games')
    with op.batch_alter_table('findings', schema=None) as batch_op:
        batch_op.drop_index('ix_findings_session')
        batch_op.drop_index('ix_findings_code')

    op.drop_table('findings')
    with op.batch_alter_table('settlements', schema=None) as batch_op:
        batch_op.drop_index('ix_settlements_source')

    op.drop_table('settlements')
    with op.batch_alter_table('sessions', schema=None) as batch_op:
        batch_op.drop_index('ix_sessions_source')
        batch_op.drop_index('ix_sessions_player')
        batch_op.drop_index('ix_sessions_ident')

    op.drop_table('sessions')
    op.drop_table('chunks')
    op.drop_table('store_meta')
    op.drop_table('sources')
    op.drop_table('profiles')
