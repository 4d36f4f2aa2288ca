"""The record models: what a hand history may say, one module a format.

* :mod:`referee.models.common`: what both formats share (amounts, cards, a table's record);
* :mod:`referee.models.rounds`: format 1, a session of rounds (one player);
* :mod:`referee.models.table`: format 2, the live table (games and their seats);
* :mod:`referee.models.codes`: the finding codes every layer names problems by.

They are the formats' single definition: validation, the JSON Schemas in ``schemas/``
and ``docs/format.md`` follow them.
"""
