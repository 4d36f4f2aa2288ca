"""The store's schema: one definition for SQLite and PostgreSQL (SQLAlchemy Core).

What is kept, and why in this shape (``docs/store.md`` has the column-by-column list):

* ``sources``: each audited input once (by its SHA-256), its bytes in compressed
  ``chunks`` (a replay re-audits them: explain, stats and report from the store are
  those of the files, byte for byte), its counts, and its place in the hash chain.
* ``wallet_logs``, ``wallet_chunks``: the seamless-wallet logs an export was checked
  with (``check --mapping ... --wallet LOG``), each once by its SHA-256 however many
  exports and runs it was joined to, its bytes compressed as a source's are: a replay
  joins them again (the sources' ``options`` name them, by name and SHA-256).
* ``sessions``, ``games`` (format 2), ``findings``: what the reports say of them.
* ``settlements``: each distinct ruling's money and facts, once per source: every
  seat points at one, so a seat row stays narrow.
* ``seats``: one row a seat (a format-1 round is one seat) with its cards, hands,
  balance and status; ``runs``: the rounds the fast lane audited clean, a batch of
  consecutive rounds in one row (their settlements and cards packed), because a row a
  round cost more to write than the audit of the round; since 0005 also a live table's
  clean games, alike (``referee.store.tableruns``), found by game and player through
  ``run_keys``.

Amounts are exact: text (``str(Decimal)``) where they are shown, integers of
millionths (``*_u``) where they are summed (``NULL`` when an amount is not a whole
number of millionths). Flags are 0/1 integers, so that a row's digest is computed
alike from what is written and what is read back (``referee.store.digest``).

The migrations (``referee/store/migrations``) build exactly this; a test compares.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Column,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    SmallInteger,
    Table,
    Text,
    UniqueConstraint,
)

from .schema_base import Id, metadata

store_meta = Table(
    "store_meta", metadata,
    Column("id", SmallInteger, primary_key=True, autoincrement=False),
    #: The chain's last hash ('' for an empty store) and the last source's id.
    Column("head", Text, nullable=False),
    Column("sources", Integer, nullable=False),
    Column("writer", Text),
    Column("updated_us", BigInteger),
)

sources = Table(
    "sources", metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),
    Column("sha256", Text, nullable=False, unique=True),
    Column("name", Text, nullable=False),
    Column("kind", Text, nullable=False),
    Column("size", BigInteger, nullable=False),
    Column("readable", SmallInteger, nullable=False),
    Column("stored_us", BigInteger, nullable=False),
    Column("host", Text, nullable=False),
    Column("version", Text, nullable=False),
    Column("options", Text, nullable=False),
    Column("sessions", Integer, nullable=False),
    Column("games", Integer, nullable=False),
    Column("seats", BigInteger, nullable=False),
    Column("findings", Integer, nullable=False),
    Column("time_min_us", BigInteger),
    Column("time_max_us", BigInteger),
    Column("chunks", Integer, nullable=False),
    Column("rows_digest", Text, nullable=False),
    Column("digest", Text, nullable=False),
    Column("chain", Text, nullable=False),
)

chunks = Table(
    "chunks", metadata,
    Column("source_id", Integer, ForeignKey("sources.id"), primary_key=True, autoincrement=False),
    Column("seq", Integer, primary_key=True, autoincrement=False),
    #: The number of the first line that starts in the chunk (lines never span two).
    Column("first_line", BigInteger, nullable=False),
    Column("size", Integer, nullable=False),
    Column("sha256", Text, nullable=False),
    Column("data", LargeBinary, nullable=False),
)

profiles = Table(
    "profiles", metadata,
    Column("id", Integer, primary_key=True),
    Column("sha256", Text, nullable=False),
    Column("origin", Text, nullable=False),
    Column("name", Text, nullable=False),
    Column("content", LargeBinary, nullable=False),
    UniqueConstraint("origin", "sha256", name="uq_profiles_origin_sha256"),
)

sessions = Table(
    "sessions", metadata,
    Column("id", Id, primary_key=True, autoincrement=False),
    Column("source_id", Integer, ForeignKey("sources.id"), nullable=False),
    Column("seq", Integer, nullable=False),
    Column("ident", Text, nullable=False),
    Column("line", BigInteger, nullable=False),
    Column("format", SmallInteger, nullable=False),
    Column("profile", Text),
    Column("origin", Text),
    Column("profile_sha256", Text),
    Column("profile_id", Integer, ForeignKey("profiles.id")),
    Column("player", Text),
    Column("tbl", Text),
    Column("currency", Text),
    Column("idx", Integer, nullable=False),
    Column("ledger", Text),
    Column("players", Text),
    #: A live table's games by what became of them; a format-1 session's records and their
    #: digest (``{"records", "content"}``: a later check compares a session of its id with it).
    Column("counts", Text),
    Column("findings", Integer, nullable=False),
    Column("digest", Text, nullable=False),
    Index("ix_sessions_ident", "ident"),
    Index("ix_sessions_source", "source_id"),
    Index("ix_sessions_player", "player"),
    #: Since schema 0009: a table's sessions (the desk's search of a table's runs).
    Index("ix_sessions_tbl", "tbl"),
)

settlements = Table(
    "settlements", metadata,
    Column("id", Id, primary_key=True, autoincrement=False),
    Column("source_id", Integer, ForeignKey("sources.id"), nullable=False),
    Column("outcome", Text, nullable=False),
    Column("decision", Text),
    Column("void_kind", Text),
    Column("void_reason", Text),
    Column("player_cat", Text),
    Column("dealer_cat", Text),
    Column("bonus_cat", Text),
    Column("qualified", SmallInteger),
    Column("bonus_hit", SmallInteger),
    Column("ante_u", BigInteger),
    Column("main_staked_u", BigInteger),
    Column("bonus_staked_u", BigInteger),
    Column("main_net_u", BigInteger),
    Column("bonus_net_u", BigInteger),
    #: Every wager's line, exact: [[wager, stake, result, rule, odds, category], ...].
    Column("lines", Text, nullable=False),
    Column("digest", Text, nullable=False),
    Index("ix_settlements_source", "source_id"),
)

games = Table(
    "games", metadata,
    Column("id", Id, primary_key=True, autoincrement=False),
    Column("source_id", Integer, ForeignKey("sources.id"), nullable=False),
    Column("session_id", BigInteger, ForeignKey("sessions.id"), nullable=False),
    Column("line", BigInteger, nullable=False),
    Column("game", Text),
    Column("number", BigInteger),
    Column("tbl", Text),
    Column("status", Text),
    Column("kind", Text, nullable=False),
    Column("outcome", Text),
    Column("void_reason", Text),
    Column("player_hand", Text),
    Column("dealer_hand", Text),
    Column("qualified", SmallInteger),
    #: The cards as read, canonical (what a second record of the game must repeat).
    Column("cards", Text),
    Column("players", Text, nullable=False),
    #: A second record of a game already recorded (in this run or in the store).
    Column("second", SmallInteger, nullable=False),
    Column("time_us", BigInteger),
    Column("dealer", Text),
    Column("record", Text),
    Column("findings", Text),
    Column("digest", Text, nullable=False),
    Index("ix_games_game", "game"),
    Index("ix_games_session", "session_id", "id"),
    Index("ix_games_time", "time_us"),
    #: Since schema 0002: games by dealer and by table (stats --dealer/--table, the monitor's segments).
    Index("ix_games_dealer", "dealer", "id"),
    Index("ix_games_tbl", "tbl", "id"),
    #: Since schema 0009: a table's and a dealer's games newest first (the desk's search).
    Index("ix_games_tbl_time", "tbl", "time_us", "id"),
    Index("ix_games_dealer_time", "dealer", "time_us", "id"),
)

seats = Table(
    "seats", metadata,
    Column("id", Id, primary_key=True, autoincrement=False),
    Column("source_id", Integer, ForeignKey("sources.id"), nullable=False),
    Column("session_id", BigInteger, ForeignKey("sessions.id"), nullable=False),
    Column("game_id", BigInteger, ForeignKey("games.id")),
    Column("line", BigInteger, nullable=False),
    Column("number", BigInteger),
    Column("game", Text),
    Column("time_us", BigInteger),
    Column("player", Text),
    Column("decision", Text),
    #: counted, void, invalid, cancelled, copy (a seat written again), repeated (a verbatim copy).
    Column("kind", Text, nullable=False),
    Column("settlement_id", BigInteger, ForeignKey("settlements.id")),
    #: The cards as ruled, exact ([[player], [flop], turn, river, [dealer]], indices or
    #: null), and the five known at the decision packed 6 bits each (player 1 and 2,
    #: flop 1 to 3, from the low bits up; NULL unless all five were seen).
    Column("cards", Text),
    Column("known", BigInteger),
    Column("player_value", Integer),
    Column("dealer_value", Integer),
    Column("bonus_value", Integer),
    Column("balance", Text, nullable=False),
    Column("recorded_balance", Text),
    Column("status", Text, nullable=False),
    Column("record", Text),
    Column("findings", Text),
    Column("copy_line", BigInteger),
    Column("flags", SmallInteger, nullable=False),
    Column("digest", Text, nullable=False),
    Index("ix_seats_session", "session_id", "id"),
    Index("ix_seats_player", "player", "id"),
    Index("ix_seats_game", "game"),
    Index("ix_seats_number", "number"),
    Index("ix_seats_time", "time_us"),
    #: Since schema 0008: a game row's seats (the desk's game page, recall's check of a
    #: game's digest, which covers its seats').
    Index("ix_seats_game_row", "game_id"),
    #: Since schema 0009: a player's seat rows newest first (the desk's search by player).
    Index("ix_seats_player_time", "player", "time_us", "id"),
)

runs = Table(
    "runs", metadata,
    Column("id", Id, primary_key=True, autoincrement=False),
    Column("source_id", Integer, ForeignKey("sources.id"), nullable=False),
    Column("session_id", BigInteger, ForeignKey("sessions.id"), nullable=False),
    #: Its rounds are the seats ``first_seat`` to ``first_seat + rounds - 1``, at lines
    #: ``first_line + i``, numbered ``first_number + i``.
    Column("first_seat", BigInteger, nullable=False),
    Column("rounds", Integer, nullable=False),
    Column("first_line", BigInteger, nullable=False),
    Column("first_number", BigInteger, nullable=False),
    #: The rules' balance before the run: each round's is it plus the nets so far.
    Column("start_balance", Text, nullable=False),
    #: The settlements the run's rounds use (their ids), and each round's among them
    #: (two bytes a round, little-endian).
    Column("settlements", Text, nullable=False),
    Column("picks", LargeBinary, nullable=False),
    #: Nine bytes a round: the card indices in the order of POSITIONS.
    Column("cards", LargeBinary, nullable=False),
    Column("digest", Text, nullable=False),
    #: Since schema 0005: a run of a live table's clean games (format 2; NULL in a run of
    #: format-1 rounds, whose digest is over the columns above, as before). ``games``: how
    #: many; ``names``: their ids, the players and the dealers (JSON); ``layout``: each
    #: game's line, seats, dealer, second record, time and number, each seat's player and
    #: line (little-endian arrays, ``referee.store.tableruns``); the games' earliest and
    #: latest times. Each game's own line and seat lines are in the kept bytes: a seat's record
    #: is read from there, never written again.
    Column("games", Integer),
    Column("names", Text),
    Column("layout", LargeBinary),
    Column("time_min_us", BigInteger),
    Column("time_max_us", BigInteger),
    #: The greatest number of its games (``first_number`` the least: -1 when none has one).
    Column("last_number", BigInteger),
    Index("ix_runs_session", "session_id", "first_seat"),
    Index("ix_runs_number", "first_number"),
    Index("ix_runs_first", "first_seat"),
    Index("ix_runs_time", "time_min_us", "time_max_us"),
)
#: Since schema 0009: the longest time a run spans, found at once (the desk's search walks
#: runs back from a time and stops when no older run can reach its page).
Index("ix_runs_span", runs.c.time_max_us - runs.c.time_min_us)

#: Since schema 0005: the games and players of each run of a live table's clean games, to
#: find them by id (``recall --game``/``--player``, ``explain --store --game``, a game
#: recorded again). Derived from the run's ``names`` (``store verify`` looks each up). One
#: B-tree in SQLite (its key is the row: a row a game, written beside the audit).
run_keys = Table(
    "run_keys", metadata,
    Column("value", Text, primary_key=True),
    #: ``game`` or ``player``.
    Column("kind", Text, primary_key=True),
    Column("run_id", BigInteger, ForeignKey("runs.id"), primary_key=True, autoincrement=False),
    sqlite_with_rowid=False,
)

#: Since schema 0010: each clean game of a run by its dealer and time (a row a game; the
#: run and the game's place in it), so that a dealer's games are found newest (or oldest)
#: first by one walk of an index, as their game rows are (``ix_games_dealer_time``), not
#: by unpacking every run of the times asked (the desk's search by dealer, issue 48).
#: Derived from the run's layout (``store verify`` compares); a game without a dealer has
#: no row.
dealer_games = Table(
    "dealer_games", metadata,
    Column("run_id", BigInteger, ForeignKey("runs.id"), primary_key=True, autoincrement=False),
    Column("place", Integer, primary_key=True, autoincrement=False),
    Column("dealer", Text, nullable=False),
    Column("time_us", BigInteger),
    Index("ix_dealer_games_time", "dealer", "time_us", "run_id", "place"),
    sqlite_with_rowid=False,
)

findings = Table(
    "findings", metadata,
    Column("id", Id, primary_key=True, autoincrement=False),
    Column("source_id", Integer, ForeignKey("sources.id"), nullable=False),
    Column("session_id", BigInteger, ForeignKey("sessions.id")),
    Column("seq", Integer, nullable=False),
    Column("code", Text, nullable=False),
    Column("severity", Text, nullable=False),
    Column("message", Text, nullable=False),
    Column("file", Text, nullable=False),
    Column("line", BigInteger, nullable=False),
    Column("round", BigInteger),
    Column("field", Text),
    Column("expected", Text),
    Column("recorded", Text),
    Column("session", Text),
    Column("game", Text),
    Column("player", Text),
    Column("digest", Text, nullable=False),
    Index("ix_findings_session", "session_id"),
    Index("ix_findings_code", "code"),
    #: Since schema 0008: a game's findings by code (the desk's search by code).
    Index("ix_findings_game", "game", "code"),
)

#: Since schema 0010: each game row's finding codes (those of its findings: the game's and
#: its seats', once each) with its time, so that the games with a code are found newest (or
#: oldest) first by one walk of an index, however rare the code (the desk's search by code,
#: issue 48), not by walking every game row back in time. Derived from ``games`` and
#: ``findings`` (``store verify`` compares).
game_codes = Table(
    "game_codes", metadata,
    Column("game_id", BigInteger, ForeignKey("games.id"), primary_key=True, autoincrement=False),
    Column("code", Text, primary_key=True),
    Column("time_us", BigInteger),
    Index("ix_game_codes_time", "code", "time_us", "game_id"),
    sqlite_with_rowid=False,
)

#: Since schema 0003: the alerts ``referee monitor --record`` raised, each with a digest of
#: its inputs (the stored rows of the seats its window covers, in order), so that an alert
#: kept for years still says exactly what it was about.
alerts = Table(
    "alerts", metadata,
    Column("id", Id, primary_key=True, autoincrement=False),
    Column("raised_us", BigInteger, nullable=False),
    Column("host", Text, nullable=False),
    Column("version", Text, nullable=False),
    #: segment kind and value (``table``, ``T1``); bet (``ante+call``, ``bonus``, or ``deal``);
    #: test (``rtp``, or a deal test's name); window (``last 1,000 games``, ``day``...).
    Column("segment", Text, nullable=False),
    Column("value", Text, nullable=False),
    Column("bet", Text, nullable=False),
    Column("test", Text, nullable=False),
    Column("window", Text, nullable=False),
    #: The band it fell outside: ``99% sidak over 46 tests``.
    Column("band", Text, nullable=False),
    Column("games", BigInteger, nullable=False),
    Column("seats", BigInteger, nullable=False),
    #: The figures as ``monitor --format json`` gives them (JSON).
    Column("figures", Text, nullable=False),
    #: How many stored rows (seats, runs of clean rounds) its inputs are, and the SHA-256
    #: of their digests, one a line in store order.
    Column("inputs", BigInteger, nullable=False),
    Column("inputs_digest", Text, nullable=False),
    Column("digest", Text, nullable=False),
    Index("ix_alerts_raised", "raised_us"),
    Index("ix_alerts_segment", "segment", "value"),
)

#: Since schema 0004: the wallet logs exports were checked with (``check --mapping ...
#: --wallet LOG``), kept once each by the SHA-256 of their bytes (a log joined to several
#: exports, or in several runs, is one row), written in the transaction of the first
#: source that refers to them (``source_id``). A source's ``options`` name its logs in
#: order, with their SHA-256: that reference is in the source's digest and the chain, so
#: bytes changed here are found by ``store verify`` against it.
wallet_logs = Table(
    "wallet_logs", metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),
    Column("sha256", Text, nullable=False, unique=True),
    #: The name it was first given (``--wallet NAME``); each source's options keep its own.
    Column("name", Text, nullable=False),
    Column("size", BigInteger, nullable=False),
    Column("chunks", Integer, nullable=False),
    Column("stored_us", BigInteger, nullable=False),
    Column("source_id", Integer, ForeignKey("sources.id"), nullable=False),
    Column("digest", Text, nullable=False),
)

#: A piece of a wallet log's bytes, as ``chunks`` keeps a source's (about 256 KiB, cut at
#: a line end, zlib-compressed, with its own SHA-256).
wallet_chunks = Table(
    "wallet_chunks", metadata,
    Column("wallet_id", Integer, ForeignKey("wallet_logs.id"), primary_key=True, autoincrement=False),
    Column("seq", Integer, primary_key=True, autoincrement=False),
    Column("first_line", BigInteger, nullable=False),
    Column("size", Integer, nullable=False),
    Column("sha256", Text, nullable=False),
    Column("data", LargeBinary, nullable=False),
)

#: Since schema 0006: the head of each chain kept beside the sources' (whose head is
#: ``store_meta.head``): a row a chained table (``alerts`` first; ``referee.store.chains``
#: lists them), how many of its rows the chain covers, and its last link. A row added,
#: removed, changed or moved in a chained table breaks its chain; checkpoints sign each head.
chains = Table(
    "chains", metadata,
    Column("name", Text, primary_key=True),
    Column("size", BigInteger, nullable=False),
    Column("head", Text, nullable=False),
)

# The tables of the store's operations (alert groups and what was done about them, the
# desk's accounts, logins, cases and read log), defined on the same ``metadata``: one schema.
from .schema_operations import (  # noqa: E402
    alert_actions,
    alert_groups,
    alert_notifications,
    case_events,
    cases,
    desk_sessions,
    reads,
    users,
)

__all__ = [
    "Id", "alert_actions", "alert_groups", "alert_notifications", "alerts", "case_events", "cases", "chains",
    "chunks", "dealer_games", "desk_sessions", "findings", "game_codes", "games", "metadata", "profiles", "reads",
    "run_keys", "runs", "seats", "sessions", "settlements", "sources", "store_meta", "users", "wallet_chunks",
    "wallet_logs",
]
