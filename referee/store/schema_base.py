"""What every table of the store's schema is defined on: one ``metadata``, one id type.

Apart from :mod:`referee.store.schema` so that the tables of the store's operations
(:mod:`referee.store.schema_operations`) are defined on the same metadata without the
two modules importing each other.
"""

from __future__ import annotations

from sqlalchemy import BigInteger, Integer, MetaData

#: A 64-bit id that is SQLite's rowid there (an alias of ``INTEGER PRIMARY KEY``).
Id = BigInteger().with_variant(Integer(), "sqlite")

metadata = MetaData()
