"""The record models: what a hand history may say, one module a format.

* :mod:`referee.models.common`: what both formats share (amounts, cards, a table's record)
  and :func:`~referee.models.decode.convert`, a record decoded once and strictly;
* :mod:`referee.models.rounds`: format 1, a session of rounds (one player);
* :mod:`referee.models.table`: format 2, the live table (games and their seats);
* :mod:`referee.models.explainers`: the same records as pydantic models, the did-you-mean
  validation run only when a strict decode fails, and the session headers and documents;
* :mod:`referee.models.codes`: the finding codes every layer names problems by.

A record (a round, a game, a seat, a wallet move, what the table recorded) is one frozen
msgspec struct from the reader to the audit, the store and the reports. The JSON Schemas
in ``schemas/`` and ``docs/format.md`` follow the explainers, which a test proves agree
with the structs field by field and constraint by constraint.
"""
