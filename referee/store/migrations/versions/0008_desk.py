"""The desk's tables (issue 48): ``users`` (accounts, Argon2id hashes), ``cases`` and
``case_events`` (disputes and every change of them) and ``reads`` (each read of a
player's records). The last three are chained (``referee.store.chains``): their rows in
``chains`` start empty. Two indexes for the desk's questions: ``seats`` by game row
(``ix_seats_game_row``: a game's seats) and ``findings`` by game and code
(``ix_findings_game``). No column of another table is added, dropped or altered.

Revision ID: 0008
Revises: 0007 (rechained after the alert operations of issue 47 when the desk merged them)
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

_ID = sa.BigInteger().with_variant(sa.Integer(), 'sqlite')


def upgrade() -> None:
    op.create_table('users',
    sa.Column('id', _ID, autoincrement=False, nullable=False),
    sa.Column('name', sa.Text(), nullable=False),
    sa.Column('role', sa.Text(), nullable=False),
    sa.Column('password', sa.Text(), nullable=False),
    sa.Column('disabled', sa.SmallInteger(), nullable=False),
    sa.Column('created_us', sa.BigInteger(), nullable=False),
    sa.Column('changed_us', sa.BigInteger(), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('name')
    )
    op.create_table('cases',
    sa.Column('id', _ID, autoincrement=False, nullable=False),
    sa.Column('game', sa.Text(), nullable=False),
    sa.Column('player', sa.Text(), nullable=False),
    sa.Column('opened_us', sa.BigInteger(), nullable=False),
    sa.Column('actor', sa.Text(), nullable=False),
    sa.Column('note', sa.Text(), nullable=False),
    sa.Column('digest', sa.Text(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('cases', schema=None) as batch_op:
        batch_op.create_index('ix_cases_game', ['game', 'player'], unique=False)
        batch_op.create_index('ix_cases_player', ['player'], unique=False)
    op.create_table('case_events',
    sa.Column('id', _ID, autoincrement=False, nullable=False),
    sa.Column('case_id', sa.BigInteger(), nullable=False),
    sa.Column('at_us', sa.BigInteger(), nullable=False),
    sa.Column('actor', sa.Text(), nullable=False),
    sa.Column('kind', sa.Text(), nullable=False),
    sa.Column('decision', sa.Text(), nullable=True),
    sa.Column('amount', sa.Text(), nullable=True),
    sa.Column('note', sa.Text(), nullable=False),
    sa.Column('digest', sa.Text(), nullable=False),
    sa.ForeignKeyConstraint(['case_id'], ['cases.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('case_events', schema=None) as batch_op:
        batch_op.create_index('ix_case_events_case', ['case_id', 'id'], unique=False)
    op.create_table('reads',
    sa.Column('id', _ID, autoincrement=False, nullable=False),
    sa.Column('at_us', sa.BigInteger(), nullable=False),
    sa.Column('actor', sa.Text(), nullable=False),
    sa.Column('what', sa.Text(), nullable=False),
    sa.Column('subject', sa.Text(), nullable=False),
    sa.Column('digest', sa.Text(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('reads', schema=None) as batch_op:
        batch_op.create_index('ix_reads_actor', ['actor', 'id'], unique=False)
        batch_op.create_index('ix_reads_at', ['at_us'], unique=False)
        batch_op.create_index('ix_reads_subject', ['subject', 'id'], unique=False)
    with op.batch_alter_table('seats', schema=None) as batch_op:
        batch_op.create_index('ix_seats_game_row', ['game_id'], unique=False)
    with op.batch_alter_table('findings', schema=None) as batch_op:
        batch_op.create_index('ix_findings_game', ['game', 'code'], unique=False)
    chains = sa.table('chains', sa.column('name', sa.Text()), sa.column('size', sa.BigInteger()),
                      sa.column('head', sa.Text()))
    op.bulk_insert(chains, [{"name": name, "size": 0, "head": ""} for name in ("cases", "case_events", "reads")])


def downgrade() -> None:
    op.execute("DELETE FROM chains WHERE name IN ('cases', 'case_events', 'reads')")
    for table, indexes in (('reads', ('ix_reads_subject', 'ix_reads_at', 'ix_reads_actor')),
                           ('case_events', ('ix_case_events_case',)),
                           ('cases', ('ix_cases_player', 'ix_cases_game'))):
        with op.batch_alter_table(table, schema=None) as batch_op:
            for index in indexes:
                batch_op.drop_index(index)
        op.drop_table(table)
    op.drop_table('users')
    with op.batch_alter_table('findings', schema=None) as batch_op:
        batch_op.drop_index('ix_findings_game')
    with op.batch_alter_table('seats', schema=None) as batch_op:
        batch_op.drop_index('ix_seats_game_row')
