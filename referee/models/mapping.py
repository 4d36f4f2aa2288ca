"""A mapping file: how one provider's export becomes format 2 (issue 29).

Why a file and not a converter: nobody's table writes our format, and every export
shape differs (two levels of records, cards as ``TD``, ``10h``, ``HA`` or ``S_K``,
money as decimal strings or integer minor units, the money itself in a separate
wallet log). A mapping says, in YAML, where the records are, which JMESPath
expression gives each format-2 field, and how to read the cards, amounts, times and
words the provider writes. The importers (:mod:`referee.load.exports`) apply it; this
model is its one definition: validation, ``schemas/mapping.schema.json`` and
``docs/importers.md`` follow it.

Expressions are JMESPath (jmespath.org), evaluated on one record (a game, a seat, a
bet, a wallet transaction). A plain dotted path (``result.dealer.cards``,
``communityCards[3]``) is the common case and is read without the JMESPath engine;
anything else (``decisions[-1].type``, ``bets[?c=='Call'] | length(@)``) goes through it.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, StrictStr, field_validator, model_validator

from .explainers import StrictModel

Expression = Annotated[StrictStr, Field(min_length=1, max_length=1000,
                                        description="a JMESPath expression, evaluated on the record")]
#: Where records are: dotted keys, each optionally followed by ``[]`` (every item of a list).
RecordsPath = Annotated[StrictStr, Field(pattern=r"^(@|[A-Za-z_][\w-]*(\[\])?(\.[A-Za-z_][\w-]*(\[\])?)*|\[\])$",
                                         description="where the records are in a document: keys and [] "
                                                     "(every item of a list), e.g. data[].games[]; @ for "
                                                     "the document itself")]


class Csv(StrictModel):
    """How a CSV export is laid out."""

    delimiter: StrictStr = Field(default=",", min_length=1, max_length=1)
    preamble: int = Field(default=0, ge=0, le=100, description="lines before the header (a 'timepoint=...' line)")
    json_columns: list[StrictStr] = Field(default_factory=list,
                                          description="columns whose cells are JSON (read exactly, as the "
                                                      "rest of the row is)")


class SessionFields(StrictModel):
    """What names the session a game belongs to; games of one export file are one
    session per value of ``id`` in a row (a new session when it changes)."""

    id: Expression | None = Field(default=None, description="the session id (default: the file name)")
    table: Expression | None = Field(default=None, description="the table (two tables may share game ids)")
    currency: Expression | None = None
    profile: StrictStr | None = Field(default=None, description="a built-in profile name or a profile file for "
                                                                "every session (--profile overrides it)")


class OpeningBalances(StrictModel):
    """Opening balances written as a list of records (``[{uid: p1, amount: "100"}]``)."""

    at: Expression = Field(description="the list, on the document")
    player: Expression = Field(description="each item's player")
    amount: Expression = Field(description="each item's amount (read through money)")


class DocumentFields(StrictModel):
    """Expressions on the document itself (a JSON page), its records left out: what an
    export writes once, above or below its records, for all of them."""

    session: Expression | None = Field(default=None, description="the session id (session.id, on a record, "
                                                                 "wins when it finds one)")
    currency: Expression | None = Field(default=None, description="the currency (session.currency wins when it "
                                                                  "finds one)")
    opening_balances: Expression | OpeningBalances | None = Field(
        default=None, description="each player's opening balance: a map of player to amount, or a list read by "
                                  "at/player/amount")


class GameFields(StrictModel):
    """Expressions on a game record giving format 2's game fields."""

    id: Expression = Field(description="the game round's id")
    round: Expression | None = Field(default=None, description="the table's sequence number, when exported")
    started: Expression | None = None
    settled: Expression | None = None
    status: Expression | None = Field(default=None, description="read through words.status (settled, cancelled)")
    dealer_id: Expression | None = None
    player: Expression | None = Field(default=None, description="the shared player hand (absent: each seat's own)")
    flop: Expression | None = None
    turn: Expression | None = None
    river: Expression | None = None
    board: Expression | None = Field(default=None, description="the five community cards at once (flop, turn, "
                                                               "river), instead of flop/turn/river")
    dealer: Expression | None = None
    dealer_qualified: Expression | None = Field(default=None, description="the table's own word on qualification: "
                                                                          "audited on every seat")
    profile: Expression | None = Field(default=None, description="the game's rule profile (a variant named on "
                                                                 "each record), read through words.profile; a "
                                                                 "change of profile starts a new session")


class SeatFields(StrictModel):
    """Expressions on a seat record (a participant) giving format 2's seat fields."""

    player_id: Expression
    decision: Expression = Field(description="read through words.decision (call, fold)")
    player: Expression | None = Field(default=None, description="the seat's own two cards; when every seat "
                                                                "of a game shows the same two, they are the "
                                                                "game's shared hand (a feed repeats it on each row)")
    bets: Expression | None = Field(default=None, description="the seat's bets (each read by 'bet'); else "
                                                              "ante/call/bonus below")
    ante: Expression | None = None
    call: Expression | None = None
    bonus: Expression | None = None
    returned: Expression | None = Field(default=None, description="total paid back, stakes included")
    net: Expression | None = Field(default=None, description="what the seat won or lost, stakes deducted "
                                                            "(format 2's recorded.net)")
    void: Expression | None = Field(default=None, description="the table voided the seat's deal: true or false "
                                                             "(format 2's recorded.void)")
    balance: Expression | None = Field(default=None, description="the player's balance after the game")
    wallet: Expression | None = Field(default=None, description="the seat's wallet moves inline (a list, each "
                                                               "read by 'transaction': action, id, amount, "
                                                               "reference)")


class BetFields(StrictModel):
    """Expressions on one bet of a seat."""

    code: Expression = Field(description="read through words.bet (ante, call, bonus)")
    stake: Expression
    payout: Expression | None = Field(default=None, description="what the bet paid back, stake included")


class TransactionFields(StrictModel):
    """Expressions on one wallet-log transaction."""

    action: Expression = Field(description="read through words.action (debit, credit, cancel)")
    user: Expression | None = Field(default=None, description="the player (a wallet log: required; a seat's "
                                                              "inline wallet: the seat's)")
    round: Expression | None = Field(default=None, description="the game round the money is for (a wallet log: "
                                                               "required; a seat's inline wallet: the game's)")
    id: Expression = Field(description="the transaction id")
    amount: Expression
    reference: Expression | None = Field(default=None, description="the debit a credit or cancel settles")
    table: Expression | None = None
    balance: Expression | None = Field(default=None, description="the player's balance after it")
    time: Expression | None = None


#: The longest card token a pattern is tried on: no notation spells a card in more
#: (``10 of hearts`` is 12), and a longer token is no card whatever the pattern says.
MAX_CARD_TOKEN = 32


def card_pattern(text: str) -> Any:
    """``text`` compiled by RE2, the linear-time engine: a user's pattern answers in time
    linear in the token whatever it says (Python's ``re`` backtracks: ``^(?P<rank>(?:A+)+)
    (?P<suit>[SHDC])$`` took 6.5 s on one 28-character token, doubling with each more).
    What RE2 cannot do in linear time (back-references, look-around) it refuses:
    ValueError saying why."""
    import re2

    options = re2.Options()
    options.log_errors = False  # its reasons come back in the exception, not on stderr
    try:
        return re2.compile(text, options=options)
    except re2.error as err:
        why = err.args[0].decode("utf-8", "replace") if err.args and isinstance(err.args[0], bytes) else str(err)
        raise ValueError(f"not a regular expression this tool runs (RE2 syntax, no back-references or "
                         f"look-around): {why}") from None


class Cards(StrictModel):
    """How the export writes a card."""

    order: Literal["rank-suit", "suit-rank"] = "rank-suit"
    separator: StrictStr = Field(default="", max_length=3, description="between rank and suit (S_K: '_')")
    ranks: dict[StrictStr, StrictStr] = Field(default_factory=dict,
                                              description="extra rank spellings -> A K Q J T 9..2 (10 and T "
                                                          "are always read)")
    suits: dict[StrictStr, StrictStr] = Field(default_factory=dict,
                                              description="extra suit spellings -> s h d c (letters in either "
                                                          "case and the symbols are always read)")
    pattern: StrictStr | None = Field(default=None, max_length=500,
                                      description="a regular expression with named groups 'rank' and 'suit', "
                                                  "for any other notation")

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, value: str | None) -> str | None:
        if value is None:
            return None
        compiled = card_pattern(value)
        missing = {"rank", "suit"} - set(compiled.groupindex)
        if missing:
            raise ValueError(f"the pattern needs the named groups 'rank' and 'suit' (missing: "
                             f"{', '.join(sorted(missing))})")
        return value

    @model_validator(mode="after")
    def _one_reading(self) -> Cards:
        spellings(self)
        return self

    @field_validator("ranks")
    @classmethod
    def _ranks(cls, value: dict[str, str]) -> dict[str, str]:
        return _spelled(value, "AKQJT98765432", "rank")

    @field_validator("suits")
    @classmethod
    def _suits(cls, value: dict[str, str]) -> dict[str, str]:
        return _spelled(value, "shdc", "suit")


#: The spellings every mapping reads, before its own ``ranks`` and ``suits``.
BASE_RANKS: dict[str, str] = {**{r: r for r in "AKQJT98765432"}, **{r.lower(): r for r in "AKQJT"}, "10": "T"}
BASE_SUITS: dict[str, str] = {**{s: s for s in "shdc"}, **{s.upper(): s for s in "shdc"},
                              "\u2660": "s", "\u2665": "h", "\u2666": "d", "\u2663": "c",
                              "\u2664": "s", "\u2661": "h", "\u2662": "d", "\u2667": "c"}


def spellings(cards: Cards) -> dict[str, str]:
    """Every token the notation reads, as the card it is (``Ah``): a token read two
    ways (``10h`` as ten of hearts and as a rank '1' of suit '0h') is refused when the
    mapping is loaded, not guessed at."""
    ranks, suits = {**BASE_RANKS, **cards.ranks}, {**BASE_SUITS, **cards.suits}
    tokens: dict[str, str] = {}
    for rank_text, rank in ranks.items():
        for suit_text, suit in suits.items():
            parts = (rank_text, suit_text) if cards.order == "rank-suit" else (suit_text, rank_text)
            token = cards.separator.join(parts)
            card = rank + suit
            if tokens.setdefault(token, card) != card:
                raise ValueError(f"the card notation reads {token!r} two ways: as {tokens[token]} and as {card} "
                                 "(change cards.ranks, cards.suits or cards.separator)")
    return tokens


def _spelled(value: dict[str, str], allowed: str, what: str) -> dict[str, str]:
    for spelling, meant in value.items():
        if meant not in allowed or len(meant) != 1:
            raise ValueError(f"{spelling!r} -> {meant!r}: a {what} is one of {' '.join(allowed)}")
    return value


class Money(StrictModel):
    """How the export writes an amount: never read through a binary float."""

    unit: Literal["decimal", "minor"] = Field(default="decimal", description="decimal: '1.50' or 1.5 as written "
                                                                            "(exact); minor: whole numbers of "
                                                                            "1/factor")
    factor: int = Field(default=100, ge=1, le=10**9, description="minor units in one unit of the currency")


class Times(StrictModel):
    """How the export writes a time."""

    kind: Literal["iso8601", "epoch-s", "epoch-ms", "naive"] = "iso8601"
    zone: StrictStr | None = Field(default=None, description="naive: the IANA zone the times are in "
                                                             "(Europe/Malta)")
    format: StrictStr | None = Field(default=None, description="naive: a strptime format (default: ISO 8601 "
                                                               "without an offset)")


class Words(StrictModel):
    """The provider's words for format 2's: anything not listed is read as format 2 reads
    words (any case: Call, FOLD)."""

    # Why a Literal a map: a wrong meaning is then reported at its own word's line, with a
    # did-you-mean (``Resolved: setled``), and the JSON Schema lists what each map allows.
    bet: dict[StrictStr, Literal["ante", "call", "bonus", "ignore"]] = Field(
        default_factory=dict, description="bet codes -> ante, call, bonus (or ignore)")
    status: dict[StrictStr, Literal["settled", "cancelled"]] = Field(
        default_factory=dict, description="status words -> settled, cancelled")
    decision: dict[StrictStr, Literal["call", "fold"]] = Field(
        default_factory=dict, description="decision words -> call, fold")
    action: dict[StrictStr, Literal["debit", "credit", "cancel"]] = Field(
        default_factory=dict, description="wallet actions -> debit, credit, cancel")
    profile: dict[StrictStr, StrictStr] = Field(
        default_factory=dict, description="the export's variant words -> profile names or files (game.profile); a "
                                          "word not listed is read as a profile name")


class Conventions(StrictModel):
    """How a wallet log settles its rounds, when it does not say it line by line. The
    defaults are the strict reading (every settlement names its debit, a lost round is
    closed by a credit of 0); a provider whose log does neither says so here, and the
    money-only audit reads its log as the provider writes it, not as a stream of W005
    and W008."""

    unreferenced: Literal["orphan", "settles-round"] = Field(
        default="orphan", description="a credit or cancel with no reference: orphan (W005), or settles-round (it "
                                      "settles the open debits of its player's round)")
    uncredited: Literal["open", "lost"] = Field(
        default="open", description="a round no credit closes: open (W008 at the log's end), or lost (closed by "
                                    "the player's next round or the log's end)")


#: The keys of a games mapping that name the profile its games are ruled by, in the
#: order they are asked: the first one set wins. A key added to the model (a profile a
#: game, say) is one more entry here, and every check that no export goes unnamed
#: (``check --mapping`` without ``--profile``) asks it too.
PROFILE_KEYS: tuple[tuple[str, str], ...] = (("session", "profile"), ("game", "profile"))


class Mapping(StrictModel):
    """One export shape, read into format 2 (``kind: games``) or into wallet transactions
    (``kind: wallet``)."""

    mapping: Literal[1] = Field(description="the mapping format's version: 1")
    description: StrictStr = Field(default="", max_length=2000)
    kind: Literal["games", "wallet"] = "games"
    input: Literal["json", "jsonl", "csv"] = Field(description="json: one document a file (pages); jsonl: one "
                                                               "record a line; csv: one record a row")
    records: RecordsPath = Field(default="@", description="json: where the records are in a document")
    group: Expression | None = Field(default=None, description="one seat a record (CSV): consecutive records "
                                                               "with the same value are one game")
    seats: Expression | None = Field(default=None, description="the game record's list of seats (participants); "
                                                               "absent with 'group': each record is a seat")
    csv: Csv = Field(default_factory=Csv)
    session: SessionFields = Field(default_factory=SessionFields)
    document: DocumentFields | None = Field(default=None, description="fields of the document beside its "
                                                                      "records (input: json)")
    game: GameFields | None = None
    seat: SeatFields | None = None
    bet: BetFields | None = None
    transaction: TransactionFields | None = None
    cards: Cards = Field(default_factory=Cards)
    money: Money = Field(default_factory=Money)
    times: Times = Field(default_factory=Times)
    words: Words = Field(default_factory=Words)
    conventions: Conventions = Field(default_factory=Conventions,
                                     description="a wallet log's settlement conventions (kind: wallet)")

    def names_profile(self) -> str | None:
        """The first of :data:`PROFILE_KEYS` this mapping sets (``session.profile``), or None:
        then its exports are ruled by the profile ``--profile`` names, and by none unless it does."""
        for section, key in PROFILE_KEYS:
            fields = getattr(self, section, None)
            if fields is not None and getattr(fields, key, None) is not None:
                return f"{section}.{key}"
        return None

    @model_validator(mode="after")
    def _complete(self) -> Mapping:
        if self.kind == "wallet":
            if self.transaction is None:
                raise ValueError("a wallet mapping needs 'transaction' (the fields of one transaction)")
            if self.transaction.user is None or self.transaction.round is None:
                raise ValueError("a wallet log's transaction needs 'user' and 'round' (whose money, for which "
                                 "game)")
            return self
        if self.document is not None and self.input != "json":
            raise ValueError("'document' reads a JSON page beside its records: input json")
        if self.conventions != Conventions():
            raise ValueError("'conventions' say how a wallet log settles its rounds: a mapping of kind wallet")
        if self.game is None or self.seat is None:
            raise ValueError("a games mapping needs 'game' and 'seat'")
        if self.seat.wallet is not None and self.transaction is None:
            raise ValueError("seat.wallet needs 'transaction' (the fields of one move: action, id, amount)")
        if self.seat.bets is not None and self.bet is None:
            raise ValueError("seat.bets needs 'bet' (the fields of one bet)")
        if self.seat.bets is None and self.seat.ante is None:
            raise ValueError("a seat needs its stakes: 'seat.bets' (with 'bet') or 'seat.ante'")
        if self.game.board is not None and any((self.game.flop, self.game.turn, self.game.river)):
            raise ValueError("game.board gives flop, turn and river at once: not with game.flop/turn/river")
        if self.seats is None and self.group is None:
            raise ValueError("say where the seats are: 'seats' (a list in each game record) or 'group' (one "
                             "seat a record, grouped into games)")
        return self


def mapping_schema() -> dict[str, object]:
    """The JSON Schema of a mapping file (what ``schemas/mapping.schema.json`` commits)."""
    schema = Mapping.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "referee export mapping, version 1"
    return schema

