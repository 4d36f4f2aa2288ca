"""The JSON reports' records, field by field (``docs/format.md`` documents them).

Why: the JSON, JSON Lines and text reporters build these records from the audit's
results (:mod:`referee.report.base` for what both formats say, :mod:`referee.report.table`
for format 2's games, seats and players), and a script reads them back by name. As
TypedDicts a misspelt or forgotten field is a type error, not a changed report. The
order of the fields here is the order the reports write them (the builders write them
in that order; a TypedDict itself keeps none). Amounts are ``object``:
:func:`referee.rules.money.plain` gives an ``int`` for a whole number, else the
``Decimal``; a finding's ``expected`` and ``recorded`` are whatever the record held.
"""

from __future__ import annotations

from typing import NotRequired, TypedDict


class FindingJSON(TypedDict):
    """A finding; ``game`` and ``player`` for format 2 only, ``export_field`` for an imported export."""

    code: str
    name: str
    severity: str
    message: str
    file: str
    line: int
    session: str | None
    round: int | None
    field: str | None
    expected: object
    recorded: object
    game: NotRequired[str | None]
    player: NotRequired[str | None]
    export_field: NotRequired[str]


class SettlementJSON(TypedDict):
    """What the rules give a format-1 round."""

    ante: object
    call: object
    bonus: object
    net: object
    returned: object
    staked: object


class BalanceOffJSON(TypedDict):
    """A recorded balance that follows from neither chain (its ``P005``'s figures)."""

    recorded: object
    expected: object
    favours: str


class BottomJSON(TypedDict):
    """A round's or a seat's bottom line (audit/owed.py): what the table paid (``null``
    when the record does not say), what the rules give, ``owed`` (over 0 to the player,
    under 0 to the house) and to whom; the same fields ``explain --format json`` writes.
    ``paid`` is the wallet's when the seat has one, else the record's; ``recorded`` and
    ``wallet`` are each (``null`` when it does not say)."""

    paid: object
    recorded: object
    wallet: object
    rules: object
    owed: object
    owed_to: str | None
    balance: BalanceOffJSON | None


class RoundJSON(TypedDict):
    """A format-1 round (``bottom_line``: None when the round could not be ruled)."""

    round: int | None
    line: int
    outcome: str | None
    void_reason: str | None
    player_hand: str | None
    dealer_hand: str | None
    dealer_qualified: bool | None
    settlement: SettlementJSON | None
    bottom_line: BottomJSON | None
    balance: object
    recorded_balance: object
    findings: list[FindingJSON]


class MoneyJSON(TypedDict):
    """The money of a ledger (a format-1 session's, a player's, a table's)."""

    staked: object
    returned: object
    net: object
    rtp: float | None
    verdict: str
    opening_balance: object
    closing_balance: object
    recorded_closing_balance: object
    recorded_net: object
    owed_to_player: object
    owed_to_house: object


class LedgerJSON(TypedDict):
    """A format-1 session's ledger."""

    counted_rounds: int
    void_rounds: int
    invalid_rounds: int
    staked: object
    returned: object
    net: object
    rtp: float | None
    verdict: str
    opening_balance: object
    closing_balance: object
    recorded_closing_balance: object
    recorded_net: object
    owed_to_player: object
    owed_to_house: object


class SessionHeadJSON(TypedDict):
    """A session's opening fields; ``format``, ``table`` and ``currency`` for format 2 only."""

    id: str
    file: str
    line: int
    profile: str | None
    profile_origin: str | None
    profile_sha256: str | None
    #: Nobody named the profile (no ``--profile``, no session ``profile``): the default.
    profile_default: NotRequired[bool]
    #: A profile file ruled the session: ``custom profile NAME (FILE, sha256 ...)``.
    custom_profile: NotRequired[str]
    format: NotRequired[int]
    table: NotRequired[str | None]
    currency: NotRequired[str | None]


class InputJSON(TypedDict):
    file: str
    kind: str
    #: Null, with ``sha256``, for an input that could not be opened.
    size: int | None
    sha256: str | None
    readable: bool
    #: A compressed log only: its compression, and the size and SHA-256 of its text.
    compression: NotRequired[str]
    uncompressed_size: NotRequired[int]
    uncompressed_sha256: NotRequired[str]


class OriginJSON(TypedDict):
    """A profile or mapping the run read, and its SHA-256."""

    origin: str
    sha256: str


class CustomProfileJSON(TypedDict):
    """A profile file a session was ruled by (not a built-in)."""

    name: str
    origin: str
    sha256: str


class SummaryJSON(TypedDict):
    """The run's summary; ``games``, ``transactions``, ``mappings``, ``ignored``, ``configuration``
    and ``baseline`` only when there are any."""

    files: int
    sessions: int
    rounds: int
    counted_rounds: int
    void_rounds: int
    invalid_rounds: int
    staked: object
    returned: object
    net: object
    findings: int
    by_severity: dict[str, int]
    by_code: dict[str, int]
    unreadable_files: int
    exit_code: int
    profiles: list[OriginJSON]
    custom_profiles: NotRequired[list[CustomProfileJSON]]
    owed_to_player: object
    owed_to_house: object
    games: NotRequired[dict[str, int]]
    transactions: NotRequired[int]
    mappings: NotRequired[list[OriginJSON]]
    #: ``check``'s view: findings hidden, by what hid them (``--ignore``, ``pyproject.toml``, ``baseline FILE``).
    ignored: NotRequired[dict[str, int]]
    #: The configuration file and the baseline read (``check``).
    configuration: NotRequired[ConfigurationJSON]
    baseline: NotRequired[PathJSON]


class PathJSON(TypedDict):
    """A file the run read beside its inputs (a configuration, a baseline), and its SHA-256."""

    path: str
    sha256: str


class ConfigurationJSON(PathJSON):
    """The configuration file read, and the keys it sets (``profile``, ``ignore``...)."""

    sets: list[str]


class RefereeJSON(TypedDict):
    name: str
    version: str
    format_version: int


class SeatJSON(TypedDict):
    """A format-2 seat."""

    player_id: str | None
    line: int
    outcome: str | None
    decision: str | None
    settlement: dict[str, object] | None
    bottom_line: BottomJSON | None
    balance: object
    recorded_balance: object
    findings: list[FindingJSON]


class GameHeadJSON(TypedDict):
    """A format-2 game's own fields, before its seats; ``pointer`` for an imported game."""

    game: str | None
    line: int
    round: int | None
    status: str | None
    outcome: str | None
    void_reason: str | None
    player_hand: str | None
    dealer_hand: str | None
    dealer_qualified: bool | None
    pointer: NotRequired[str]


class GameJSON(GameHeadJSON):
    """A format-2 game, its seats and its own findings."""

    seats: list[SeatJSON]
    findings: list[FindingJSON]


class PlayerLedgerJSON(MoneyJSON):
    """A player's games (a seat each) and money (``verdict`` is the player's result).

    The fields are written games first, then the money: the builder spells the order."""

    games: int
    counted_games: int
    void_games: int
    cancelled_games: int
    invalid_games: int


class TableLedgerJSON(MoneyJSON):
    """A table session's games and seats, and the money over every seat (written games first)."""

    games: int
    counted_games: int
    void_games: int
    cancelled_games: int
    invalid_games: int
    #: Records of a game already recorded: never among ``games``.
    second_records: int
    players: int
    seats: int
    counted_seats: int
    void_seats: int
    cancelled_seats: int
    invalid_seats: int


class PlayerJSON(TypedDict):
    player_id: str
    ledger: PlayerLedgerJSON


class SessionTailJSON(TypedDict):
    """What a format-2 session's record says after its games."""

    players: list[PlayerJSON]
    ledger: TableLedgerJSON
