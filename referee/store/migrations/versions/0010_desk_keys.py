"""The desk's searches by dealer and by finding code as walks of an index (issue 48).

``dealer_games``: each clean game of a run (the run, its place in it) by its dealer and
time, so that a dealer's games kept in runs are found newest first along
``ix_dealer_games_time`` as their game rows are along ``ix_games_dealer_time``.
``game_codes``: each game row's finding codes (those of the findings of its game in its
session) with its time, so that the games with a code are found along
``ix_game_codes_time``, however rare the code. Both derived (``referee.store.desk_keys``),
filled here from the runs' layouts and the rows; no column of another table is added,
dropped or altered.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-07
"""

from __future__ import annotations

import json
import sys
from array import array
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('dealer_games',
    sa.Column('run_id', sa.BigInteger(), nullable=False),
    sa.Column('place', sa.Integer(), nullable=False),
    sa.Column('dealer', sa.Text(), nullable=False),
    sa.Column('time_us', sa.BigInteger(), nullable=True),
    sa.ForeignKeyConstraint(['run_id'], ['runs.id'], ),
    sa.PrimaryKeyConstraint('run_id', 'place'),
    sqlite_with_rowid=False
    )
    op.create_table('game_codes',
    sa.Column('game_id', sa.BigInteger(), nullable=False),
    sa.Column('code', sa.Text(), nullable=False),
    sa.Column('time_us', sa.BigInteger(), nullable=True),
    sa.ForeignKeyConstraint(['game_id'], ['games.id'], ),
    sa.PrimaryKeyConstraint('game_id', 'code'),
    sqlite_with_rowid=False
    )
    _fill(op.get_bind())
    # the indexes made once the rows are in (one sort, not an insert into a B-tree a row)
    op.create_index('ix_dealer_games_time', 'dealer_games', ['dealer', 'time_us', 'run_id', 'place'], unique=False)
    op.create_index('ix_game_codes_time', 'game_codes', ['code', 'time_us', 'game_id'], unique=False)


def downgrade() -> None:
    op.drop_index('ix_game_codes_time', table_name='game_codes')
    op.drop_index('ix_dealer_games_time', table_name='dealer_games')
    op.drop_table('game_codes')
    op.drop_table('dealer_games')


#: The tables as this migration knows them (frozen here: the package's schema may change later).
_games = sa.table('games', sa.column('id'), sa.column('game'), sa.column('session_id'), sa.column('time_us'))
_findings = sa.table('findings', sa.column('id'), sa.column('game'), sa.column('session_id'), sa.column('code'))
_runs = sa.table('runs', sa.column('id'), sa.column('games'), sa.column('names'), sa.column('layout'))
_codes = sa.table('game_codes', sa.column('game_id'), sa.column('code'), sa.column('time_us'))
_dealt = sa.table('dealer_games', sa.column('run_id'), sa.column('place'), sa.column('dealer'), sa.column('time_us'))
#: A game's time when it has none, in a run's layout.
_NONE = -(1 << 63)


def _fill(conn: Any, batch: int = 500) -> None:
    """Each game row's codes (one statement), then each run's games by dealer, a batch of
    runs at a time, read from the run's layout (each game's line, 8 bytes, and seats, 4;
    its dealer among the names, 2; second record, 1; time, 8: ``referee.store.tableruns``)."""
    g, fi, r = _games, _findings, _runs
    codes = (sa.select(g.c.id, fi.c.code, g.c.time_us).distinct()
             .select_from(g.join(fi, sa.and_(fi.c.game == g.c.game, fi.c.session_id == g.c.session_id)))
             .where(g.c.game.is_not(None)))
    conn.execute(_codes.insert().from_select(['game_id', 'code', 'time_us'], codes))
    after = 0
    while True:
        runs = conn.execute(sa.select(r.c.id, r.c.games, r.c.names, r.c.layout)
                            .where(r.c.id > after, r.c.games.is_not(None)).order_by(r.c.id).limit(batch)).all()
        if not runs:
            return
        rows = []
        for run in runs:
            count, data, names = int(run.games), bytes(run.layout), json.loads(run.names)['dealers']
            picks, times = array('H'), array('q')
            picks.frombytes(data[12 * count:14 * count])
            times.frombytes(data[15 * count:23 * count])
            if sys.byteorder == 'big':
                picks.byteswap()
                times.byteswap()
            rows += [{'run_id': int(run.id), 'place': game, 'dealer': names[pick],
                      'time_us': None if when == _NONE else int(when)}
                     for game, (pick, when) in enumerate(zip(picks, times, strict=True)) if names[pick] is not None]
        if rows:
            conn.execute(_dealt.insert(), rows)
        after = int(runs[-1].id)
