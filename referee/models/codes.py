"""The finding codes: stable names scripts and CI rules rely on, like a linter's.

Each code is one typed constant here with its documentation (``codes.P005``); every
emitter uses the constants, never a bare string, so a typo fails at import or in mypy
(``FindingCode`` is a distinct type: ``Finding("P05", ...)`` does not type-check).
``docs/findings.md`` is generated from this catalogue (a test keeps them in step).
Codes are never renumbered: a code that is retired stays reserved.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal, NewType

Severity = Literal["error", "warning", "info"]
SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}
FindingCode = NewType("FindingCode", str)


@dataclass(frozen=True, slots=True)
class Code:
    code: FindingCode
    name: str
    severity: Severity
    summary: str
    example: str = ""


_ALL: list[Code] = []


def _code(code: str, name: str, severity: Severity, summary: str, example: str = "") -> FindingCode:
    """Register one code in the catalogue and give back its typed constant."""
    typed = FindingCode(code)
    _ALL.append(Code(typed, name, severity, summary, example))
    return typed


H000: Final = _code(
    "H000", "unreadable-file", "error",
    "The file cannot be read as a whole (not found, not UTF-8, invalid YAML or JSON, binary, empty), or is "
    "not a hand history: a document with none of `session`, `rounds`, `sessions`, `games` at its top, a JSON "
    "Lines file whose first line is no session, round or game (a provider's export, a CI workflow); the "
    "message names what was found. Exit code 2.",
    "a YAML file with an unclosed bracket; `export.json` with only `data` and `uuid` at its top",
)
H001: Final = _code(
    "H001", "invalid-record", "error",
    "A round or session header has a wrong type, a missing field or a value out of range. A round whose "
    "deal or stakes cannot be read is not ruled, but keeps its number and counts toward the agreed "
    "rounds, and its recorded balance, when readable, anchors the table's chain. A bad optional field (in "
    "`recorded`, `time`, `meta`) is reported on that field, with a did-you-mean for category and outcome "
    "words, and the round is still ruled and every other field audited.",
    "`ante: abc`, `decision: raise`, `player: [14, Kd]`, `player_hand: two pairs` (did you mean "
    "'two_pair'?)",
)
H002: Final = _code(
    "H002", "unknown-field", "error",
    "A field the format does not define, with a did-you-mean for typos; put free data under `meta:`. An "
    "unknown field in `recorded` is left out and the round still ruled; elsewhere in a round, the round is not "
    "ruled (it keeps its number). A misspelt required field (`desicion:`) is this one finding, which says "
    "the field is missing, not also an H001.",
    "`dealr: [Qs, Qc]` (did you mean 'dealer'?)",
)
H003: Final = _code(
    "H003", "duplicate-key", "error",
    "The same key twice in one mapping: which one the table meant is unknown. In a YAML or JSON document "
    "the file is not audited (exit 2); in JSON Lines only that line is lost.",
    "two `ante:` lines in one round",
)
H004: Final = _code(
    "H004", "unreadable-record", "error",
    "A JSON Lines line that is not a JSON object with a `session` or `round` key. A broken round line "
    "that still shows its number keeps that number (its nets are unknown: the next recorded balance "
    "re-anchors). A broken session line: the rounds up to the next readable session line belong to no "
    "session, and this one finding says how many were skipped and on which lines.",
    "a truncated last line",
)
H005: Final = _code(
    "H005", "unknown-profile", "error",
    "The session's profile is neither built in nor a readable, valid profile file; its rounds are not ruled.",
    "`profile: vivo2`",
)
H006: Final = _code(
    "H006", "orphan-round", "error",
    "JSON Lines rounds before any session line: one finding for the run, saying how many and on which "
    "lines.",
)
H007: Final = _code(
    "H007", "orphan-seat", "error",
    "A format-2 seat that belongs to no game: a JSON Lines seat line that does not follow its game's line; "
    "also a game in a format-1 session or a round in a format-2 one.",
    '`{"game": "8812345", "seat": {...}}` after the line of game 8812344',
)
H008: Final = _code(
    "H008", "export-misfit", "error",
    "A record of a provider's export that its mapping cannot read (referee check --mapping, referee import): "
    "the mapping key, its expression, the record's own path and what was found there. The record (or the "
    "seat) is not audited; the rest of the export is.",
    "seat.ante: 'bets[0].stake' found '1,00' in data[0].games[3].participants[1] (expected an amount such as "
    "1.50)",
)
H009: Final = _code(
    "H009", "mapping-finds-nothing", "warning",
    "An optional expression of the mapping (a status, the dealer's qualification, a payout, a balance) "
    "found nothing in any game record of an export file: the field is read as absent in every game, which "
    "is what a slip in the expression looks like. Once per key and file.",
    "game.status: 'sttus' found nothing in any of the 120 game record(s) of this file",
)
H010: Final = _code(
    "H010", "profile-name-borrowed", "error",
    "A profile file that calls itself by a built-in's name (vivo, caribbean, bonus-aa, bonus-100) but whose "
    "rules differ from that built-in's: every report would read its paytable as the published one. Once per "
    "profile file and audit, at its name line (in the first session it rules), naming each difference; the "
    "rounds are still ruled by the file, and every report names it as a custom profile. Rename the profile, "
    "or use the built-in.",
    "profile vivo (logs/vivo.yaml) is not the built-in vivo: royal_flush 1:1, the built-in vivo pays 100:1",
)
G001: Final = _code(
    "G001", "game-cards-differ", "error",
    "The same game id recorded twice (two lines, two files) with different cards: one deal has one set of "
    "cards.",
    "game 8812344 with river 2♠ in one export and 3♠ in another",
)
G002: Final = _code(
    "G002", "player-twice", "error",
    "A player seated twice in one game (in one record, or in two records of the same game); a repeated seat "
    "is not settled a second time.",
    "p-1001 twice among the seats of game 8812344",
)
G003: Final = _code(
    "G003", "cancelled-game-paid", "error",
    "A cancelled game whose seat is recorded as settled (an outcome or a non-zero result): a cancelled game "
    "refunds every stake.",
    "`status: cancelled` with `recorded: {outcome: win, net: 3}`",
)
K001: Final = _code(
    "K001", "player-hand", "error",
    "The recorded player hand category differs from the rules' evaluation. After a fold that records turn "
    "and river, the hand at the fold (two cards and the flop) and the seven-card hand are both right.",
    "`player_hand: two_pair` for A♥ K♦ on A♠ 7♦ 4♣ 9♥ 2♠ (a pair of aces)",
)
K002: Final = _code(
    "K002", "dealer-hand", "error",
    "The recorded dealer hand category differs from the rules' evaluation.",
)
K003: Final = _code(
    "K003", "dealer-qualified", "error",
    "The recorded dealer qualification differs from the profile's qualifier (a pair of 4s or better under "
    "the built-in profiles, §05); the message names the qualifier in force.",
    "`dealer_qualified: true` with a pair of 3s",
)
P001: Final = _code(
    "P001", "ante-result", "error",
    "The Ante's recorded net result differs from the profile's settlement.",
    "`ante: 1` for a flush against an unqualified dealer under vivo (the paytable gives 2)",
)
P002: Final = _code(
    "P002", "call-result", "error",
    "The Call's recorded net result differs from the settlement.",
)
P003: Final = _code(
    "P003", "bonus-result", "error",
    "The bonus stake's recorded net result differs from the settlement.",
)
P004: Final = _code(
    "P004", "net-result", "error",
    "The round's recorded net result differs from the settlement. A balance that follows from the ruled "
    "net beside it is right: P004 alone.",
    "`net: 2` for the §09 example (the rules give +3)",
)
P005: Final = _code(
    "P005", "running-balance", "error",
    "The recorded balance follows neither from the last recorded balance plus the nets the table recorded "
    "since, nor from it plus the ruled nets since (docs/ledger.md); the message says which chain it "
    "breaks and by how much. One break is one finding: the next balance may follow from the new figure or "
    "from the ones before it.",
    "balance 3 after 0 and a net of +2",
)
P006: Final = _code(
    "P006", "outcome", "error",
    "The recorded outcome (fold, win, lose, push, void) differs.",
)
P007: Final = _code(
    "P007", "returned", "error",
    "The recorded total returned (stakes included) differs.",
)
S001: Final = _code(
    "S001", "call-multiple", "error",
    "The recorded Call stake is not the profile's multiple of the Ante on a call, or not 0 on a fold (a "
    "fold places no Call stake).",
    "`ante: 1, call: 1` under vivo (Call is 2 × Ante); `call: 2` on a fold",
)
S002: Final = _code(
    "S002", "stake-changed", "error",
    "The Ante differs from the session's stake under a profile whose stakes are fixed (§07). The stake is "
    "the Ante most of the session's rounds so far used, so one odd Ante is one finding (an odd first Ante "
    "is found on round 2) and a stake change that lasts is one, at the change. The bonus stake may change "
    "between rounds.",
)
S003: Final = _code(
    "S003", "duplicate-round", "error",
    "A round number already used (not the replay of a deal that was void or recorded void), or a record "
    "repeated verbatim (then not ruled or counted again); either way the next round is in order.",
)
S004: Final = _code(
    "S004", "missing-round", "error",
    "Round numbers skipped.",
    "round 7 follows round 5",
)
S005: Final = _code(
    "S005", "round-count", "warning",
    "Counted rounds differ from the number the session's header agrees (`rounds_agreed`, §07; a session "
    "that states none is not checked). Void deals do not count; rounds that cannot be ruled do; a valid deal "
    "the table voided (V002) counts either way, as that finding is the root cause.",
)
S006: Final = _code(
    "S006", "bonus-not-offered", "error",
    "A bonus stake under a profile without a bonus; it is returned.",
)
S007: Final = _code(
    "S007", "insufficient-funds", "error",
    "A call that neither the rules' balance nor the table's covers, under a profile that needs funds for "
    "the Call (caribbean) and a session with an opening balance. A void deal risks nothing and is not "
    "checked.",
)
S008: Final = _code(
    "S008", "stake-increment", "error",
    "A stake that is not a whole multiple of the profile's stake increment (e.g. a fractional unit).",
    "`ante: 0.005` with an increment of 0.01",
)
S009: Final = _code(
    "S009", "round-order", "error",
    "A round number lower than expected that was never used: a round written late. Two rounds written "
    "in each other's place are one S009, on the late one.",
    "rounds 1, 3, 2, 4: round 2 is out of order (expected 4)",
)
S010: Final = _code(
    "S010", "session-repeated", "warning",
    "A format-1 session recorded again with the same header and the same rounds (the same file given twice, "
    "a copy with a comment added, two exports whose windows overlap): the second record is not audited, "
    "counted, reported or stored again, and this one finding at its header names the first. A warning, not "
    "an error: nothing is counted twice, so no total is wrong; `--strict` fails on it. The records are "
    "compared as read (values and their types), not as bytes: comments, spacing and the file's format do "
    "not count. A session without an id (named after its file) is never compared.",
    "`check a.yaml b.yaml` where b.yaml is a.yaml with one comment line added",
)
S011: Final = _code(
    "S011", "session-conflict", "error",
    "A format-1 session id recorded again with other content (a round added, left out or changed, another "
    "header): one session played has one record, so at most one of them is right and the referee cannot "
    "tell which. Both are audited and counted, each with its own findings; this finding, at the second "
    "record's header, names both places.",
    "session `table-7/evening` in two files, one round's `net` 3 in one and 1 in the other",
)
V001: Final = _code(
    "V001", "void-settled", "error",
    "A malformed deal (§07: a card not among the 52, a card twice, a wrong count, a call without turn, "
    "river or dealer cards) recorded as valid or settled: all stakes must be returned. A token that is "
    "not a card is reported on its own field, naming the card when one edit of it spells one.",
)
V002: Final = _code(
    "V002", "valid-recorded-void", "error",
    "A correct deal recorded as void (`void: true` or `outcome: void`); the table's replay under the same "
    "number is in order and counts instead of it.",
)
V003: Final = _code(
    "V003", "void-deal", "info",
    "A void deal, correctly handled: reported with its reason (a token that is not a card on its own "
    "field); stakes returned, not counted.",
)
W001: Final = _code(
    "W001", "wallet-debit", "error",
    "The wallet's debits for a seat differ from the stakes placed (Ante, Bonus, and the Call when called).",
    "debits of 1 for a call on an Ante of 1 (stakes 3)",
)
W002: Final = _code(
    "W002", "wallet-credit", "error",
    "The wallet's credits for a seat differ from what the rules return (stakes kept plus winnings; nothing "
    "for a void or cancelled game, whose stakes are refunded).",
    "a credit of 5 where the §09 example returns 6",
)
W003: Final = _code(
    "W003", "wallet-refund", "error",
    "The wallet's cancels and refunds for a seat do not match the game: a void or cancelled game refunds "
    "every stake; any other game refunds nothing.",
    "a cancelled game with no refund",
)
W004: Final = _code(
    "W004", "wallet-duplicate-transaction", "error",
    "The same wallet transaction id twice in a session: one transaction moves money once. In a wallet log "
    "read alone, the repeat is this one finding and is otherwise left out: it settles nothing, opens no "
    "round, and the next balance may follow from the one before it or from the repeat's.",
)
W005: Final = _code(
    "W005", "wallet-orphan-settlement", "error",
    "A wallet log's credit or cancel whose `reference` names no debit seen before it of the same player and "
    "round (an unknown id, a credit's id, another player's or round's debit), or names none. Its round is "
    "not also reported open (W008): the orphan is taken as that round's settlement.",
    '`{"action": "credit", "transaction": "tx9", "reference": "tx7"}` where no debit tx7 came before',
)
W006: Final = _code(
    "W006", "wallet-settled-twice", "error",
    "A wallet log's debit settled a second time: a second credit naming it, a cancel naming it twice, or a "
    "credit naming a cancelled debit. The second settlement is this one finding; the debit stays settled "
    "by the first.",
    "two credits with `reference: tx1`",
)
W007: Final = _code(
    "W007", "wallet-cancel-after-credit", "error",
    "A wallet log's cancel of a debit already credited, or of a debit whose round a credit already settled: "
    "a settled stake cannot be given back. This one finding, not also W006.",
    "debit tx1, credit tx2 naming tx1, then cancel tx3 naming tx1",
)
W008: Final = _code(
    "W008", "wallet-round-open", "error",
    "A round of a wallet log (a player's `round`) with a debit that no credit (a credit of 0 closes a lost "
    "round) nor cancel closed by the end of the log: once per round, at the line of its first debit still "
    "open. A duplicate debit (W004) does not open a round.",
    "debit tx1 for round g1, then nothing for g1",
)
W009: Final = _code(
    "W009", "wallet-balance", "error",
    "A wallet log's balance after that is not the player's previous balance after plus the amount (a debit "
    "takes it, a credit or cancel adds it); checked only when both balances are present, the first "
    "transaction of a player sets the chain. One break is one finding: the next balance may follow from "
    "the recorded figure or from the expected one.",
    "balance 98 after 100 and a debit of 1",
)
W010: Final = _code(
    "W010", "wallet-unmatched", "error",
    "A wallet log joined to an export (check --mapping ... --wallet LOG) moved money for a game and player "
    "that no record of the export seats: a bet the history does not show, or a record the history lacks. "
    "Once per game and player, at its first transaction.",
    "a debit of 5 for player p-9 in game T1-000123, which the history's participants do not list",
)
B001: Final = _code(
    "B001", "baseline-entry-unmatched", "info",
    "An entry of the baseline read (`check --baseline FILE`) that no finding of its file matches any more: "
    "the finding was fixed, so the entry can go and the baseline shrinks. Said at the entry's line in the "
    "baseline; only entries of files audited in this run are judged.",
    "`P005 in logs/a.yaml, session s1, round 10` after round 10's balance was corrected",
)

CODES: dict[str, Code] = {c.code: c for c in _ALL}


def severity_of(code: FindingCode | str) -> Severity:
    return CODES[code].severity


def markdown_table() -> str:
    """The docs table of every code (docs/findings.md is this text)."""
    lines = [
        "# Finding codes",
        "",
        "Generated from `referee/models/codes.py` (`python -m referee.models.codes > docs/findings.md`); "
        "`tests/test_docs.py` fails when this file is stale.",
        "Severities: `error` fails the check (exit 1); `warning` fails it only with `--strict`; "
        "`info` never does.",
        "",
        "| code | name | severity | meaning | example |",
        "| --- | --- | --- | --- | --- |",
    ]
    for c in _ALL:
        lines.append(f"| `{c.code}` | {c.name} | {c.severity} | {c.summary} | {c.example} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":  # pragma: no cover - python -m referee.models.codes > docs/findings.md
    print(markdown_table(), end="")
