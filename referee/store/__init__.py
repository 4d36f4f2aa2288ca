"""The audit store: every audited source, session, game, seat, finding and ledger kept
in a database (SQLite by default, PostgreSQL for a store many machines share).

Why a package beside the pipeline: storing is one more consumer of the audit's events
(:mod:`referee.store.writer`, a reporter), and recall, explain, stats and report read
the store back (:mod:`referee.store.read`) into the very objects they read from files.
Only :mod:`referee.store.rows` and :mod:`referee.store.packing` (what goes in runs)
know the shape of the audit's events; only :mod:`referee.store.engine` knows which
database is behind a URL.

SQLAlchemy and Alembic are the optional extra ``referee[store]`` (psycopg the extra
``referee[postgres]``); nothing here is imported by a command that does not use a store.
"""

from __future__ import annotations

import zlib

from ..errors import UserError

STORE_EXTRA = "pip install 'referee[store]'"
POSTGRES_EXTRA = "pip install 'referee[postgres]'"


class StoreError(UserError):
    """A store that cannot be opened, read or written (exit 2); the message never shows
    a password."""


#: What decoding a stored row changed after it was stored raises (a bad JSON list, a
#: short byte string, a number where text was, a hand of too few cards, kept bytes that
#: no longer decompress): the readers that decode rows say it as a changed store.
DAMAGED = (KeyError, ValueError, TypeError, IndexError, zlib.error)
