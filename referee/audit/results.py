"""What an audit produces: findings, ledgers, sessions; games are :mod:`.games`.

These are plain data so that reporters (text, JSON, GitHub, JUnit...) only format,
and so that results cross process boundaries (``--jobs``) by pickling. The audit gives
one shape whatever the format a session was read from (:class:`SessionInfo.format`
says which): a round of format 1 is a game of one seat; :class:`RoundResult` is how a
format-1 reader (a reporter, ``explain``, ``recall``) sees such a game.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from ..models.codes import CODES, FindingCode, Severity
from ..models.rounds import Round
from ..profiles import DEFAULT_WORDS, ProfileOrigin
from ..rules.settlement import Ruling

ZERO = Decimal(0)


@dataclass(slots=True)
class Finding:
    """One disagreement between the record and the rules, or one input problem."""

    code: FindingCode
    message: str
    file: str
    line: int
    round: int | None = None
    field: str | None = None
    expected: Any = None
    recorded: Any = None
    session: str | None = None
    severity: Severity = "error"
    #: Format 2: the game and the player the finding is about.
    game: str | None = None
    player: str | None = None
    #: An imported export's own field path of ``field`` (``data[0].games[3].participants[1].bets[0].stake``).
    export_field: str | None = None

    def __post_init__(self) -> None:
        self.severity = CODES[self.code].severity


@dataclass(slots=True)
class RoundResult:
    """A game of one seat seen as the round it is: the record as validated, the ruling,
    the findings (the game's, then the seat's), the running balances
    (:func:`referee.audit.games.round_view` makes it)."""

    number: int | None
    file: str
    line: int
    session: str
    record: Round | None = None
    ruling: Ruling | None = None
    findings: list[Finding] = field(default_factory=list)
    balance: Decimal = ZERO
    recorded_balance: Decimal | None = None
    raw: Any = None
    #: A verbatim copy of the previous record: reported once (S003), not counted again.
    repeated: bool = False
    #: The table recorded the deal void (``void: true`` or ``outcome: void``).
    table_void: bool = False
    #: For a verbatim copy: the first record's result (its ruling is the round's).
    copy_of: RoundResult | None = None

    @property
    def outcome(self) -> str | None:
        return self.ruling.outcome if self.ruling else None


@dataclass(slots=True)
class Ledger:
    """Running totals of a session; never a list of rows, so memory stays flat."""

    opening_balance: Decimal = ZERO
    counted_rounds: int = 0
    void_rounds: int = 0
    invalid_rounds: int = 0
    #: Valid deals the table recorded void and then replayed (V002), kept with the session.
    table_voided: int = 0
    staked: Decimal = ZERO
    returned: Decimal = ZERO
    net: Decimal = ZERO
    recorded_net: Decimal = ZERO
    recorded_nets: int = 0
    closing_balance: Decimal = ZERO
    recorded_closing_balance: Decimal | None = None
    # Rounds by outcome (fold, win, lose, push, void).
    outcomes: dict[str, int] = field(default_factory=dict)
    #: What the rules give less what the table paid, summed each way over the rounds or
    #: seats (each their bottom line, audit/owed.py): so that a script reads what is
    #: owed to whom without summing rounds, and a round owed one way is not cancelled by
    #: another owed the other way. Both 0 or more.
    owed_player: Decimal = ZERO
    owed_house: Decimal = ZERO

    @property
    def rtp(self) -> float | None:
        """Return to player: everything returned over everything staked."""
        return float(self.returned / self.staked) if self.staked else None

    @property
    def verdict(self) -> str:
        return "player" if self.net > 0 else "bank" if self.net < 0 else "draw"

    def add_recorded(self, net: Decimal | int | None, balance: Decimal | None) -> None:
        """What the table recorded of a round or a seat: its net (summed, and counted)
        and its balance (the last one is the recorded closing balance)."""
        if net is not None:
            self.recorded_net += net
            self.recorded_nets += 1
        if balance is not None:
            self.recorded_closing_balance = balance

    def add_owed(self, owed: Decimal) -> None:
        """A round's or a seat's amount owed (over 0: to the player; under 0: to the house)."""
        if owed > 0:
            self.owed_player += owed
        elif owed < 0:
            self.owed_house -= owed


@dataclass(slots=True)
class SessionInfo:
    """A session as opened: enough for a reporter to print its heading."""

    id: str
    file: str
    line: int
    profile: str | None
    profile_origin: ProfileOrigin | None
    profile_sha256: str | None
    index: int = 0
    #: Who played, where the log says (format 1: the session's ``meta.player``), for ``recall --player``.
    player: str | None = None
    #: The format the session was read from: 1 (rounds) or 2 (a live table's games and
    #: seats). Reporters write a session in its own format's shape from the one result.
    format: int = 1
    #: Format 2's header: the table and the currency, kept as provenance.
    table: str | None = None
    currency: str | None = None
    #: Who chose the profile: ``option`` (``--profile``), ``session`` (the session's own
    #: ``profile``, or its export's mapping's), ``default`` (nobody: said as such) or
    #: ``default-unread`` (the session's header could not be read: the default, said so).
    profile_by: str = "session"

    @property
    def profile_defaulted(self) -> bool:
        """Nobody named the profile: the tool's default rules the session."""
        return self.profile_by in DEFAULT_WORDS and self.profile is not None

    @property
    def profile_label(self) -> str | None:
        """The profile's name as shown to people: with its origin when a custom profile
        takes a built-in's name (``vivo (from house.yaml)``)."""
        from ..profiles import profile_label

        return profile_label(self.profile, self.profile_origin)

    @property
    def custom_profile(self) -> bool:
        """Ruled by a profile file, not a built-in."""
        return self.profile_origin is not None and self.profile_origin.kind == "file"

    @property
    def profile_said(self) -> str:
        """The profile as every report says it where it says the session's profile:
        ``profile vivo``, ``profile vivo (the default: the session names none)``, or
        ``custom profile house-7 (logs/house.yaml, sha256 ...)`` for a file (one with a
        built-in's name too: nobody reads it as the published one)."""
        from ..profiles import custom_words

        if self.profile is None or self.profile_origin is None:
            return f"profile {self.profile or 'unknown'}"
        if self.custom_profile:
            return custom_words(self.profile, self.profile_origin, self.profile_sha256)
        if self.profile_defaulted:
            return f"profile {self.profile} ({DEFAULT_WORDS[self.profile_by]})"
        return f"profile {self.profile}"


@dataclass(slots=True)
class PlayerLedger:
    player_id: str
    ledger: Ledger


@dataclass(slots=True)
class SessionResult:
    """A closed session: its ledger (over every seat: a round is a seat), every finding
    in it (its games' included), each player's own ledger (format 2), and its games by
    what became of them (a :class:`referee.audit.games.GameCounts`)."""

    info: SessionInfo
    ledger: Ledger
    findings: list[Finding]
    players: list[PlayerLedger] = field(default_factory=list)
    games: Any = None
    #: Format 1, a session with an id: what its records say, digested (its header, each
    #: round), and how many rounds and other records it held; two records of one session
    #: are compared by them (``S010``/``S011``, :class:`referee.audit.duplicates.SessionIndex`).
    digest: str | None = None
    records: int = 0


@dataclass(slots=True)
class InputInfo:
    file: str
    kind: str
    size: int
    sha256: str
    readable: bool
    #: An export read through a mapping (``check --mapping``): its origin and SHA-256.
    mapping: str | None = None
    mapping_sha256: str | None = None
    #: A wallet log audited alone: the transactions read.
    transactions: int = 0
    #: A compressed log (``gzip``, ``bzip2``, ``xz``, ``zstd``): ``size`` and ``sha256``
    #: are of the bytes on disk, these of the text audited.
    compression: str | None = None
    text_size: int = 0
    text_sha256: str = ""
    #: Found in a folder and not a hand history (why): skipped, not audited.
    skipped: str | None = None

    @property
    def hashed(self) -> bool:
        """Its bytes were read and hashed (whole, or up to where a problem stopped the
        reading); False when it could not even be opened: then it has no size or SHA-256
        to report, and a report saying ``0 bytes`` and an empty digest would misstate it."""
        return self.sha256 != ""


@dataclass(slots=True)
class Summary:
    """Totals over every input, and the exit code they call for."""

    files: int = 0
    sessions: int = 0
    rounds: int = 0
    counted_rounds: int = 0
    void_rounds: int = 0
    invalid_rounds: int = 0
    staked: Decimal = ZERO
    returned: Decimal = ZERO
    net: Decimal = ZERO
    by_code: dict[str, int] = field(default_factory=dict)
    by_severity: dict[str, int] = field(default_factory=dict)
    unreadable: int = 0
    #: Every profile a session was ruled by: origin -> sha256 (the report's integrity block).
    profiles: dict[str, str] = field(default_factory=dict)
    #: The profile files among them (not built-ins): origin -> (name, sha256), named in
    #: the summary of every report.
    custom_profiles: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: ``H010`` said in this audit: (profile file, words), each kept once.
    borrowed: set[tuple[str, str]] = field(default_factory=set)
    #: Format 2: games by what became of them, and their seats (seats also count as rounds).
    games: dict[str, int] = field(default_factory=dict)
    #: Wallet logs audited alone: their transactions.
    transactions: int = 0
    #: Every mapping an export was read through: origin -> sha256 (the integrity block).
    mappings: dict[str, str] = field(default_factory=dict)
    #: What is owed each way over every session (their ledgers' sums, :class:`Ledger`).
    owed_player: Decimal = ZERO
    owed_house: Decimal = ZERO
    #: Format-1 sessions given again with the same content (``S010``): read and compared,
    #: not counted again (a check of nothing but such repeats still checked something).
    repeated: int = 0
    #: Findings the report's view left out (``check``'s selection and baseline,
    #: :mod:`referee.report.view`): how many, by what hid them (``--ignore``, ``pyproject.toml``).
    ignored: dict[str, int] = field(default_factory=dict)
    #: The configuration file read: (path as shown, SHA-256, the keys it sets); the integrity block.
    configuration: tuple[str, str, tuple[str, ...]] | None = None
    #: The baseline read: (path as shown, SHA-256).
    baseline: tuple[str, str] | None = None
    #: ``--exit-zero``: findings do not fail the check (exit 0); unread inputs still do (2).
    exit_zero: bool = False

    def add(self, result: SessionResult) -> None:
        """A closed session, counted as its format counts: rounds, or games and seats."""
        if result.info.format == 2:
            self.add_table(result, result.games)
        else:
            self.add_session(result)

    def add_table(self, result: SessionResult, counts: Any) -> None:
        """A format-2 session: its games (a :class:`referee.audit.games.GameCounts`) and its
        money; its seats are not format-1 rounds."""
        self.sessions += 1
        self.staked += result.ledger.staked
        self.returned += result.ledger.returned
        self.net += result.ledger.net
        self.owed_player += result.ledger.owed_player
        self.owed_house += result.ledger.owed_house
        for name in ("games", "counted", "void", "cancelled", "invalid", "seats", "second_records"):
            self.games[name] = self.games.get(name, 0) + getattr(counts, name)

    def count(self, finding: Finding) -> None:
        self.by_code[finding.code] = self.by_code.get(finding.code, 0) + 1
        self.by_severity[finding.severity] = self.by_severity.get(finding.severity, 0) + 1

    def add_session(self, result: SessionResult) -> None:
        self.sessions += 1
        ledger = result.ledger
        self.counted_rounds += ledger.counted_rounds
        self.void_rounds += ledger.void_rounds
        self.invalid_rounds += ledger.invalid_rounds
        self.rounds += ledger.counted_rounds + ledger.void_rounds + ledger.invalid_rounds
        self.staked += ledger.staked
        self.returned += ledger.returned
        self.net += ledger.net
        self.owed_player += ledger.owed_player
        self.owed_house += ledger.owed_house

    @property
    def findings(self) -> int:
        return sum(self.by_code.values())

    def exit_code(self, strict: bool = False) -> int:
        """0 clean, 1 findings, 2 an input not read in full, or nothing audited at all
        (no round nor game: a check that checked nothing must not pass)."""
        if self.unreadable:
            return 2
        failing = self.by_severity.get("error", 0) + (self.by_severity.get("warning", 0) if strict else 0)
        if failing:
            return 0 if self.exit_zero else 1
        return 2 if self.rounds == 0 and not self.games.get("games") and not self.transactions and not self.repeated \
            else 0
