"""The tables of the store's operations, beside the audit's (:mod:`referee.store.schema`):
the alert groups ``monitor --record`` keeps and what was done about them (schema 0007),
the desk's accounts, cases and read log (schema 0008). Every one but ``users`` is appended
only and chained (:mod:`referee.store.chains`).
"""

from __future__ import annotations

from sqlalchemy import BigInteger, Column, ForeignKey, Index, Integer, SmallInteger, Table, Text

from .schema_base import Id, metadata

#: Since schema 0008: the desk's accounts (``referee users``, ``referee serve``). A row is
#: changed in place (a password set again, an account disabled): it is not evidence, so it
#: is neither digested nor chained, and its ``password`` (an Argon2id hash, never the
#: password) is never printed or exported.
users = Table(
    "users", metadata,
    Column("id", Id, primary_key=True, autoincrement=False),
    Column("name", Text, nullable=False, unique=True),
    #: viewer, floor, risk, auditor or admin (``referee.store.accounts.ROLES``).
    Column("role", Text, nullable=False),
    Column("password", Text, nullable=False),
    Column("disabled", SmallInteger, nullable=False),
    Column("created_us", BigInteger, nullable=False),
    Column("changed_us", BigInteger, nullable=False),
)

#: Since schema 0008: a dispute opened on a game and a seat (its player). The row is the
#: opening and never changes (chained: ``referee.store.chains``); what became of the case
#: (decided, closed) is its events', in ``case_events``.
cases = Table(
    "cases", metadata,
    Column("id", Id, primary_key=True, autoincrement=False),
    Column("game", Text, nullable=False),
    Column("player", Text, nullable=False),
    Column("opened_us", BigInteger, nullable=False),
    #: The account that opened it (its name, as it was then).
    Column("actor", Text, nullable=False),
    Column("note", Text, nullable=False),
    Column("digest", Text, nullable=False),
    Index("ix_cases_game", "game", "player"),
    Index("ix_cases_player", "player"),
)

#: Since schema 0008: every change of a case, appended (chained): ``opened``, ``decided``
#: (``decision``: stands, owed_to_player or owed_to_house; ``amount`` the exact decimal
#: text owed, NULL when the payment stands), ``closed``; who, when and the note.
case_events = Table(
    "case_events", metadata,
    Column("id", Id, primary_key=True, autoincrement=False),
    Column("case_id", BigInteger, ForeignKey("cases.id"), nullable=False),
    Column("at_us", BigInteger, nullable=False),
    Column("actor", Text, nullable=False),
    Column("kind", Text, nullable=False),
    Column("decision", Text),
    Column("amount", Text),
    Column("note", Text, nullable=False),
    Column("digest", Text, nullable=False),
    Index("ix_case_events_case", "case_id", "id"),
)

#: Since schema 0008: each read of a player's records through the desk (who, what, when,
#: whose), appended (chained): what the data-protection officer is shown.
reads = Table(
    "reads", metadata,
    Column("id", Id, primary_key=True, autoincrement=False),
    Column("at_us", BigInteger, nullable=False),
    Column("actor", Text, nullable=False),
    #: What was read: ``game``, ``recall``, ``search``, ``case``... (the desk's words).
    Column("what", Text, nullable=False),
    #: Whose records: the player's id (or the game's, when a whole game was read).
    Column("subject", Text, nullable=False),
    Column("digest", Text, nullable=False),
    Index("ix_reads_subject", "subject", "id"),
    Index("ix_reads_actor", "actor", "id"),
    Index("ix_reads_at", "at_us"),
)

#: Since schema 0009: the desk's open logins (``referee serve``), shared by its worker
#: processes: the SHA-256 of the cookie's token (the token itself is never stored), the
#: account's name, the CSRF token its forms carry, when it started and when it was last
#: seen (microseconds since 1970 UTC; ``seen_us`` written again at most once a minute). Not
#: evidence: neither digested nor chained; a row is deleted when its session ends.
desk_sessions = Table(
    "desk_sessions", metadata,
    Column("token", Text, primary_key=True),
    Column("user", Text, nullable=False),
    Column("csrf", Text, nullable=False),
    Column("started_us", BigInteger, nullable=False),
    Column("seen_us", BigInteger, nullable=False),
    Index("ix_desk_sessions_user", "user"),
)

#: Since schema 0007: the alert groups ``monitor --record`` kept (one a cause: its lead
#: segment, the segments it explains, the lead cell's figures, the games behind it and the
#: ids of its rows in ``alerts``), chained as the alerts are (``referee.store.chains``).
alert_groups = Table(
    "alert_groups", metadata,
    Column("id", Id, primary_key=True, autoincrement=False),
    Column("raised_us", BigInteger, nullable=False),
    Column("host", Text, nullable=False),
    Column("version", Text, nullable=False),
    #: ``table T3``; ``rules`` or ``paid``; the lead cell's bet and window.
    Column("lead", Text, nullable=False),
    Column("basis", Text, nullable=False),
    Column("bet", Text, nullable=False),
    Column("window", Text, nullable=False),
    #: The lead's z as Python's exact text of the float (``repr``: the digest reads it back
    #: alike on both databases), NULL when it has none.
    Column("z", Text),
    #: Its segments, lead first (a JSON list of ``kind value``).
    Column("segments", Text, nullable=False),
    Column("band", Text, nullable=False),
    Column("first_game", Text),
    Column("last_game", Text),
    Column("since", Text),
    Column("until", Text),
    #: The group as ``monitor --format json`` wrote it in ``alert_groups`` (JSON): every
    #: field it has, those above included.
    Column("figures", Text, nullable=False),
    #: The ids of its alerts (a JSON list of ``alerts.id``), and the SHA-256 of their
    #: inputs' digests (what the group was computed from).
    Column("alert_ids", Text, nullable=False),
    Column("inputs_digest", Text, nullable=False),
    Column("digest", Text, nullable=False),
    Index("ix_alert_groups_lead", "lead", "basis"),
)

#: Since schema 0007: what someone did about an alert group (``referee alerts ack|resolve``):
#: who, when, a note; appended only, chained.
alert_actions = Table(
    "alert_actions", metadata,
    Column("id", Id, primary_key=True, autoincrement=False),
    Column("group_id", Id, ForeignKey("alert_groups.id"), nullable=False),
    #: ``ack`` or ``resolve``.
    Column("action", Text, nullable=False),
    Column("who", Text, nullable=False),
    Column("at_us", BigInteger, nullable=False),
    Column("note", Text, nullable=False),
    Column("host", Text, nullable=False),
    Column("digest", Text, nullable=False),
    Index("ix_alert_actions_group", "group_id"),
)

#: Since schema 0007: each webhook delivery of an alert group (``monitor --notify URL
#: --record``): where (the URL without its path, query or user: they may be its secret),
#: in which format, how many attempts, the last HTTP status, the outcome, when.
alert_notifications = Table(
    "alert_notifications", metadata,
    Column("id", Id, primary_key=True, autoincrement=False),
    Column("group_id", Id, ForeignKey("alert_groups.id"), nullable=False),
    Column("url", Text, nullable=False),
    Column("format", Text, nullable=False),
    Column("attempts", Integer, nullable=False),
    Column("status", Integer),
    #: ``delivered``, or why not (``HTTP 503``, ``timed out``...).
    Column("outcome", Text, nullable=False),
    Column("delivered", SmallInteger, nullable=False),
    Column("first_us", BigInteger, nullable=False),
    Column("last_us", BigInteger, nullable=False),
    Column("digest", Text, nullable=False),
    Index("ix_alert_notifications_group", "group_id"),
)
