"""The finding codes: stable names scripts and CI rules rely on, like a linter's.

Each code is one typed constant here with its documentation (``codes.P005``; its shape,
``Code``, in :mod:`.catalogue`); emitters use the constants, never a bare string, so a typo
fails in mypy (``Finding("P05", ...)`` does not type-check). ``docs/findings.md`` is
generated from it. Codes are never renumbered: a retired code stays reserved.
"""

from __future__ import annotations

from typing import Final

from .catalogue import SEVERITY_ORDER as SEVERITY_ORDER
from .catalogue import Code as Code
from .catalogue import FindingCode as FindingCode
from .catalogue import Severity as Severity
from .catalogue import markdown

_ALL: list[Code] = []


def _code(code: str, name: str, severity: Severity, summary: str, example: str = "", *, fix: str = "",
          title: str) -> FindingCode:
    """Register one code in the catalogue and give back its typed constant."""
    typed = FindingCode(code)
    _ALL.append(Code(typed, name, severity, summary, example, fix, title))
    return typed


H000: Final = _code(
    "H000", "unreadable-file", "error",
    "The file cannot be read as a whole (not found, not UTF-8, invalid YAML or JSON, binary, empty), or is "
    "not a hand history: a document with none of `session`, `rounds`, `sessions`, `games` at its top, a JSON "
    "Lines file whose first line is no session, round or game (a provider's export, a CI workflow); the "
    "message names what was found. Exit code 2.",
    "a YAML file with an unclosed bracket; `export.json` with only `data` and `uuid` at its top",
    fix="Open the file named and check it is the log you meant (a settings file or a profile is no log; a "
        "provider's export is read with `--mapping`), that it is whole and UTF-8, and mend the syntax at the line "
        "given. Nothing in it was audited.",
    title="the file cannot be read, or is not a hand history",
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
    fix="Compare the record at the line given with the format (docs/format.md, `referee schema`) and correct the "
        "value at the system that wrote it; the rest of the session was audited, so mend this record and run "
        "again.",
    title="a record with a wrong type, a missing field or a value out of range",
)
H002: Final = _code(
    "H002", "unknown-field", "error",
    "A field the format does not define, with a did-you-mean for typos; put free data under `meta:`. An "
    "unknown field in `recorded` is left out and the round still ruled; elsewhere in a round, the round is not "
    "ruled (it keeps its number). A misspelt required field (`desicion:`) is this one finding, which says "
    "the field is missing, not also an H001.",
    "`dealr: [Qs, Qc]` (did you mean 'dealer'?)",
    fix="Correct the field's name (the did-you-mean gives the likely one) or move your own data under `meta:`; "
        "when the exporting system added the field, ask its owner whether the format changed.",
    title="a field the format does not define",
)
H003: Final = _code(
    "H003", "duplicate-key", "error",
    "The same key twice in one mapping: which one the table meant is unknown. In a YAML or JSON document "
    "the file is not audited (exit 2); in JSON Lines only that line is lost.",
    "two `ante:` lines in one round",
    fix="Find out from the game server which of the two values the table used, keep that one and remove the "
        "other; a key written twice comes from a faulty exporter, so check it too.",
    title="the same key twice in one record",
)
H004: Final = _code(
    "H004", "unreadable-record", "error",
    "A JSON Lines line that is not a JSON object with a `session` or `round` key. A broken round line "
    "that still shows its number keeps that number (its nets are unknown: the next recorded balance "
    "re-anchors). A broken session line: the rounds up to the next readable session line belong to no "
    "session, and this one finding says how many were skipped and on which lines.",
    "a truncated last line",
    fix="Look at the line named: a truncated last line is a log still being written or a copy cut short (audit a "
        "finished copy); any other broken line means the writer emitted bad JSON: export that session again.",
    title="a JSON Lines line that cannot be read as a record",
)
H005: Final = _code(
    "H005", "unknown-profile", "error",
    "The session's profile is neither built in nor a readable, valid profile file; its rounds are not ruled.",
    "`profile: vivo2`",
    fix="Check the profile named in the session header (`referee profiles` lists the built-ins), or that the "
        "profile file beside the log exists and is valid (`referee profiles FILE`); or give `--profile`.",
    title="the session's profile is unknown: its rounds are not ruled",
)
H006: Final = _code(
    "H006", "orphan-round", "error",
    "JSON Lines rounds before any session line: one finding for the run, saying how many and on which "
    "lines.",
    fix="Find the session these rounds belong to: the log was cut or joined badly. Export the session again, "
        "whole, its session line first.",
    title="rounds before any session line",
)
H007: Final = _code(
    "H007", "orphan-seat", "error",
    "A format-2 seat that belongs to no game: a JSON Lines seat line that does not follow its game's line; "
    "also a game in a format-1 session or a round in a format-2 one.",
    '`{"game": "8812345", "seat": {...}}` after the line of game 8812344',
    fix="Write each seat after its own game's line (export the table's log again, in order), and keep format-1 "
        "rounds and format-2 games in separate sessions.",
    title="a seat that belongs to no game",
)
H008: Final = _code(
    "H008", "export-misfit", "error",
    "A record of a provider's export that its mapping cannot read (referee check --mapping, referee import): "
    "the mapping key, its expression, the record's own path and what was found there. The record (or the "
    "seat) is not audited; the rest of the export is.",
    "seat.ante: 'bets[0].stake' found '1,00' in data[0].games[3].participants[1] (expected an amount such as "
    "1.50)",
    fix="Compare the record's own value (the message quotes it and its path) with the mapping's expression: mend "
        "the mapping when the provider's export changed shape, or ask the provider about the record when the "
        "value is wrong.",
    title="a record of the export that its mapping cannot read",
)
H009: Final = _code(
    "H009", "mapping-finds-nothing", "warning",
    "An optional expression of the mapping (a status, the dealer's qualification, a payout, a balance) "
    "found nothing in any game record of an export file: the field is read as absent in every game, which "
    "is what a slip in the expression looks like. Once per key and file.",
    "game.status: 'sttus' found nothing in any of the 120 game record(s) of this file",
    fix="Try the key's expression on one record of the export: a misspelt path reads as absent everywhere. "
        "Correct it, or remove the key when the provider never sends that field.",
    title="an expression of the mapping found nothing in the file",
)
H010: Final = _code(
    "H010", "profile-name-borrowed", "error",
    "A profile file that calls itself by a built-in's name (vivo, caribbean, bonus-aa, bonus-100) but whose "
    "rules differ from that built-in's: every report would read its paytable as the published one. Once per "
    "profile file and audit, at its name line (in the first session it rules), naming each difference; the "
    "rounds are still ruled by the file, and every report names it as a custom profile. Rename the profile, "
    "or use the built-in.",
    "profile vivo (logs/vivo.yaml) is not the built-in vivo: royal_flush 1:1, the built-in vivo pays 100:1",
    fix="Ask the operator which paytable the table paid. If it was the published one, audit with --profile NAME "
        "(it pins every session) and treat every payout the file ruled otherwise as owed; if the table really "
        "pays the file's table, have the file renamed so no report reads it as the built-in.",
    title="a profile file takes a built-in's name but its rules differ",
)
G001: Final = _code(
    "G001", "game-cards-differ", "error",
    "The same game id recorded twice (two lines, two files) with different cards: one deal has one set of "
    "cards.",
    "game 8812344 with river 2♠ in one export and 3♠ in another",
    fix="Find both records (the message names their files and lines) and establish from the game server or the "
        "dealer's video which cards were dealt. One game sent with two sets of cards is an integrity incident to "
        "escalate, not a typo.",
    title="the same game recorded again with other cards",
)
G002: Final = _code(
    "G002", "player-twice", "error",
    "A player seated twice in one game (in one record, or in two records of the same game); a repeated seat "
    "is not settled a second time.",
    "p-1001 twice among the seats of game 8812344",
    fix="Check the table's seating for that game: a player twice is either a repeated record (remove it at the "
        "source) or a real second bet the platform should have refused (escalate it).",
    title="a player seated twice in one game: the repeated seat is not settled again",
)
G003: Final = _code(
    "G003", "cancelled-game-paid", "error",
    "A cancelled game whose seat is recorded as settled (an outcome or a non-zero result): a cancelled game "
    "refunds every stake.",
    "`status: cancelled` with `recorded: {outcome: win, net: 3}`",
    fix="Check whether the game was really cancelled: if so, reverse the seat's settlement and refund every "
        "stake; if not, the status recorded is wrong at the source.",
    title="a cancelled game recorded as settled: every stake is refunded",
)
K001: Final = _code(
    "K001", "player-hand", "error",
    "The recorded player hand category differs from the rules' evaluation. After a fold that records turn "
    "and river, the hand at the fold (two cards and the flop) and the seven-card hand are both right.",
    "`player_hand: two_pair` for A♥ K♦ on A♠ 7♦ 4♣ 9♥ 2♠ (a pair of aces)",
    fix="Evaluate the hand (`referee explain --round N`, or `referee hand` with the cards): when the rules agree "
        "with referee, the table's hand evaluator is wrong, and every hand it rated may be too.",
    title="the recorded player hand differs from the rules'",
)
K002: Final = _code(
    "K002", "dealer-hand", "error",
    "The recorded dealer hand category differs from the rules' evaluation.",
    fix="As for K001, for the dealer's hand (`referee explain` shows it); a wrong dealer hand often means a wrong "
        "result too: check the settlement that followed.",
    title="the recorded dealer hand differs from the rules'",
)
K003: Final = _code(
    "K003", "dealer-qualified", "error",
    "The recorded dealer qualification differs from the profile's qualifier (a pair of 4s or better under "
    "the built-in profiles, §05); the message names the qualifier in force.",
    "`dealer_qualified: true` with a pair of 3s",
    fix="Compare the qualifier of the profile in force (`referee profiles NAME`) with the table's configuration: "
        "a difference means the table plays other rules than the audit's profile, or its qualification check is "
        "wrong.",
    title="the recorded dealer qualification differs from the rules'",
)
P001: Final = _code(
    "P001", "ante-result", "error",
    "The Ante's recorded net result differs from the profile's settlement.",
    "`ante: 1` for a flush against an unqualified dealer under vivo (the paytable gives 2)",
    fix="See the paytable line the rules used (`referee explain --round N`) and compare it with the table's "
        "configured paytable: a difference every time is a wrong paytable, a single one a settlement to correct "
        "with the player.",
    title="the Ante's recorded result differs from the settlement",
)
P002: Final = _code(
    "P002", "call-result", "error",
    "The Call's recorded net result differs from the settlement.",
    fix="See the showdown and the Call's result (`referee explain --round N`) and correct the player's "
        "settlement; many in one session point to the table's comparison of hands.",
    title="the Call's recorded result differs from the settlement",
)
P003: Final = _code(
    "P003", "bonus-result", "error",
    "The bonus stake's recorded net result differs from the settlement.",
    fix="Compare the bonus paytable of the profile with the table's, for the player's two cards and the flop "
        "(`referee explain --round N`), and correct the settlement.",
    title="the bonus's recorded result differs from the settlement",
)
P004: Final = _code(
    "P004", "net-result", "error",
    "The round's recorded net result differs from the settlement. A balance that follows from the ruled "
    "net beside it is right: P004 alone.",
    "`net: 2` for the §09 example (the rules give +3)",
    fix="Compare the round's net with its stakes' results (`referee explain --round N`): when they agree and only "
        "the net is off, the writer summed them wrongly; otherwise correct the settlement with the player.",
    title="the recorded net result differs from the settlement",
)
P005: Final = _code(
    "P005", "running-balance", "error",
    "The recorded balance follows neither from the last recorded balance plus the nets the table recorded "
    "since, nor from it plus the ruled nets since (docs/ledger.md); the message says which chain it "
    "breaks and by how much. One break is one finding: the next balance may follow from the new figure or "
    "from the ones before it.",
    "balance 3 after 0 and a net of +2",
    fix="The message names the chain broken and by how much: look for the money that moved between the two "
        "balances outside the log (a deposit, a withdrawal, an adjustment) or a round settled wrongly before it "
        "(docs/ledger.md).",
    title="the recorded balance follows from neither chain",
)
P006: Final = _code(
    "P006", "outcome", "error",
    "The recorded outcome (fold, win, lose, push, void) differs.",
    fix="Compare the recorded outcome with the ruling (`referee explain --round N`): a wrong outcome with the "
        "right money is a recording fault; with wrong money, correct the settlement too.",
    title="the recorded outcome differs",
)
P007: Final = _code(
    "P007", "returned", "error",
    "The recorded total returned (stakes included) differs.",
    fix="Check the total returned against the stakes and results (`referee explain --round N`): the player gets "
        "back every stake kept plus the winnings; correct the settlement.",
    title="the recorded total returned differs",
)
S001: Final = _code(
    "S001", "call-multiple", "error",
    "The recorded Call stake is not the profile's multiple of the Ante on a call, or not 0 on a fold (a "
    "fold places no Call stake).",
    "`ante: 1, call: 1` under vivo (Call is 2 × Ante); `call: 2` on a fold",
    fix="Check the Call the table took: under the profile it is its multiple of the Ante, and nothing on a fold. "
        "Another amount means a wrong bet was accepted, or the audit's profile is not the table's.",
    title="the Call stake is not the profile's multiple of the Ante",
)
S002: Final = _code(
    "S002", "stake-changed", "error",
    "The Ante differs from the session's stake under a profile whose stakes are fixed (§07). The stake is "
    "the Ante most of the session's rounds so far used, so one odd Ante is one finding (an odd first Ante "
    "is found on round 2) and a stake change that lasts is one, at the change. The bonus stake may change "
    "between rounds.",
    fix="Find out whether the table let the stake change mid-session: if so, its configuration or the profile is "
        "wrong; if not, find why the recorded Ante differs.",
    title="the Ante differs from the session's stake",
)
S003: Final = _code(
    "S003", "duplicate-round", "error",
    "A round number already used (not the replay of a deal that was void or recorded void), or a record "
    "repeated verbatim (then not ruled or counted again); either way the next round is in order.",
    fix="Check the number at the source: a verbatim repeat is a record written twice (remove it at the exporter); "
        "a new deal under a used number needs the game server's own numbering to place it.",
    title="a round number already used, or a record repeated as it was: not ruled or counted again",
)
S004: Final = _code(
    "S004", "missing-round", "error",
    "Round numbers skipped.",
    "round 7 follows round 5",
    fix="Get the missing rounds from the game server: the log was cut or rounds were lost in export, and money "
        "may have moved in rounds the audit never saw.",
    title="round numbers skipped",
)
S005: Final = _code(
    "S005", "round-count", "warning",
    "Counted rounds differ from the number the session's header agrees (`rounds_agreed`, §07; a session "
    "that states none is not checked). Void deals do not count; rounds that cannot be ruled do; a valid deal "
    "the table voided (V002) counts either way, as that finding is the root cause.",
    fix="Compare the rounds played with those the header agreed: a session ended early (find out why) or rounds "
        "missing from the log (see S004).",
    title="the counted rounds differ from the number agreed",
)
S006: Final = _code(
    "S006", "bonus-not-offered", "error",
    "A bonus stake under a profile without a bonus; it is returned.",
    fix="The profile has no bonus: find out whether the table offered one (then its configuration or the profile "
        "is wrong), and check that the bonus stake went back to the player.",
    title="a bonus stake under a profile without a bonus: it is returned",
)
S007: Final = _code(
    "S007", "insufficient-funds", "error",
    "A call that neither the rules' balance nor the table's covers, under a profile that needs funds for "
    "the Call (caribbean) and a session with an opening balance. A void deal risks nothing and is not "
    "checked.",
    fix="Check the player's balance before the Call: the table accepted a stake the player could not cover. Find "
        "the deposit missing from the log, or mend the table's funds check.",
    title="a call the balance does not cover",
)
S008: Final = _code(
    "S008", "stake-increment", "error",
    "A stake that is not a whole multiple of the profile's stake increment (e.g. a fractional unit).",
    "`ante: 0.005` with an increment of 0.01",
    fix="Check the stake against the table's smallest unit: a fractional stake is a client or integration fault; "
        "find where the amount was formed.",
    title="a stake that is not a whole multiple of the profile's increment",
)
S009: Final = _code(
    "S009", "round-order", "error",
    "A round number lower than expected that was never used: a round written late. Two rounds written "
    "in each other's place are one S009, on the late one.",
    "rounds 1, 3, 2, 4: round 2 is out of order (expected 4)",
    fix="Compare the log's order with the game server's: a round written late is a writer's fault; a deal played "
        "out of order is an incident to escalate.",
    title="a round written late",
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
    fix="Leave the copy out of the audit (or of the folder the logs are collected in); if two exports overlap, "
        "ask for them cut at session boundaries. Nothing is counted twice meanwhile.",
    title="the same session recorded again: audited and counted once",
)
S011: Final = _code(
    "S011", "session-conflict", "error",
    "A format-1 session id recorded again with other content (a round added, left out or changed, another "
    "header): one session played has one record, so at most one of them is right and the referee cannot "
    "tell which. Both are audited and counted, each with its own findings; this finding, at the second "
    "record's header, names both places.",
    "session `table-7/evening` in two files, one round's `net` 3 in one and 1 in the other",
    fix="Compare the two records at the places named and find out from the game server which one the table "
        "played; keep that one, and treat the other as a changed record (an integrity incident to report).",
    title="a session recorded again with other content: both records are audited",
)
V001: Final = _code(
    "V001", "void-settled", "error",
    "A malformed deal (§07: a card not among the 52, a card twice, a wrong count, a call without turn, "
    "river or dealer cards) recorded as valid or settled: all stakes must be returned. A token that is "
    "not a card is reported on its own field, naming the card when one edit of it spells one.",
    fix="The deal was malformed (the message names the card or the count): every stake goes back to the player. "
        "Correct the settlement and check the shuffler or the dealer's input that made the deal.",
    title="a malformed deal recorded as valid or settled",
)
V002: Final = _code(
    "V002", "valid-recorded-void", "error",
    "A correct deal recorded as void (`void: true` or `outcome: void`); the table's replay under the same "
    "number is in order and counts instead of it.",
    fix="Find out why a correct deal was voided (a dealer's or operator's action, a false fault signal) and check "
        "the stakes of the voided deal went back; the replay under the same number counts instead.",
    title="a correct deal recorded as void",
)
V003: Final = _code(
    "V003", "void-deal", "info",
    "A void deal, correctly handled: reported with its reason (a token that is not a card on its own "
    "field); stakes returned, not counted.",
    fix="Nothing to correct: the void deal was handled right. Many of them at one table still point to a shuffler "
        "or card reader worth a look.",
    title="a void deal, correctly handled: stakes returned, round not counted (§07)",
)
W001: Final = _code(
    "W001", "wallet-debit", "error",
    "The wallet's debits for a seat differ from the stakes placed (Ante, Bonus, and the Call when called).",
    "debits of 1 for a call on an Ante of 1 (stakes 3)",
    fix="Compare the wallet's debits for the seat with the stakes in the game record: a missing or extra debit "
        "means the wallet and the game disagree; reconcile with the wallet provider.",
    title="the wallet's debits differ from the stakes placed",
)
W002: Final = _code(
    "W002", "wallet-credit", "error",
    "The wallet's credits for a seat differ from what the rules return (stakes kept plus winnings; nothing "
    "for a void or cancelled game, whose stakes are refunded).",
    "a credit of 5 where the §09 example returns 6",
    fix="Compare the wallet's credit with the ruling (`referee explain`): the player is credited the stakes kept "
        "plus the winnings; correct the credit with the wallet provider.",
    title="the wallet's credits differ from what the rules return",
)
W003: Final = _code(
    "W003", "wallet-refund", "error",
    "The wallet's cancels and refunds for a seat do not match the game: a void or cancelled game refunds "
    "every stake; any other game refunds nothing.",
    "a cancelled game with no refund",
    fix="Check the game's status: a void or cancelled game refunds every stake in the wallet, any other game "
        "none; reconcile the refund with the wallet provider.",
    title="the wallet's refunds do not match the game",
)
W004: Final = _code(
    "W004", "wallet-duplicate-transaction", "error",
    "The same wallet transaction id twice in a session: one transaction moves money once. In a wallet log "
    "read alone, the repeat is this one finding and is otherwise left out: it settles nothing, opens no "
    "round, and the next balance may follow from the one before it or from the repeat's.",
    fix="Find both transactions with that id at the wallet provider: if money moved twice, reverse the repeat; if "
        "not, mend the integration that sent the id twice.",
    title="the same wallet transaction twice",
)
W005: Final = _code(
    "W005", "wallet-orphan-settlement", "error",
    "A wallet log's credit or cancel whose `reference` names no debit seen before it of the same player and "
    "round (an unknown id, a credit's id, another player's or round's debit), or names none. Its round is "
    "not also reported open (W008): the orphan is taken as that round's settlement.",
    '`{"action": "credit", "transaction": "tx9", "reference": "tx7"}` where no debit tx7 came before',
    fix="Find the debit the credit or cancel should name: a debit missing from the log, or a reference the "
        "integration wrote wrongly; reconcile with the wallet provider.",
    title="a wallet credit or cancel that names no debit before it",
)
W006: Final = _code(
    "W006", "wallet-settled-twice", "error",
    "A wallet log's debit settled a second time: a second credit naming it, a cancel naming it twice, or a "
    "credit naming a cancelled debit. The second settlement is this one finding; the debit stays settled "
    "by the first.",
    "two credits with `reference: tx1`",
    fix="Check at the wallet provider whether the debit was paid twice: if so, reverse the second settlement; if "
        "not, mend the integration's reference.",
    title="a wallet debit settled a second time",
)
W007: Final = _code(
    "W007", "wallet-cancel-after-credit", "error",
    "A wallet log's cancel of a debit already credited, or of a debit whose round a credit already settled: "
    "a settled stake cannot be given back. This one finding, not also W006.",
    "debit tx1, credit tx2 naming tx1, then cancel tx3 naming tx1",
    fix="Check whether the stake was both paid out and given back: then the player was paid twice, so reverse the "
        "cancel. A settled stake is never refunded.",
    title="a wallet cancel of a debit already credited",
)
W008: Final = _code(
    "W008", "wallet-round-open", "error",
    "A round of a wallet log (a player's `round`) with a debit that no credit (a credit of 0 closes a lost "
    "round) nor cancel closed by the end of the log: once per round, at the line of its first debit still "
    "open. A duplicate debit (W004) does not open a round.",
    "debit tx1 for round g1, then nothing for g1",
    fix="Find the round's settlement: a credit (0 for a lost round) or a cancel closes every debit. A log cut "
        "short ends with open rounds; otherwise the player's stake is held.",
    title="a wallet round that nothing closed",
)
W009: Final = _code(
    "W009", "wallet-balance", "error",
    "A wallet log's balance after that is not the player's previous balance after plus the amount (a debit "
    "takes it, a credit or cancel adds it); checked only when both balances are present, the first "
    "transaction of a player sets the chain. One break is one finding: the next balance may follow from "
    "the recorded figure or from the expected one.",
    "balance 98 after 100 and a debit of 1",
    fix="Compare the wallet's balances with the player's transactions around the line: a movement missing from "
        "the log, or a balance the wallet computed wrongly; reconcile with the wallet provider.",
    title="a wallet balance that does not follow from the one before it",
)
W010: Final = _code(
    "W010", "wallet-unmatched", "error",
    "A wallet log joined to an export (check --mapping ... --wallet LOG) moved money for a game and player "
    "that no record of the export seats: a bet the history does not show, or a record the history lacks. "
    "Once per game and player, at its first transaction.",
    "a debit of 5 for player p-9 in game T1-000123, which the history's participants do not list",
    fix="Check the export for the game and player named: a bet the history lacks is a missing record (get it from "
        "the provider), or money moved for no game (escalate).",
    title="the wallet moved money for a seat the export does not show",
)
B001: Final = _code(
    "B001", "baseline-entry-unmatched", "info",
    "An entry of the baseline read (`check --baseline FILE`) that no finding of its file matches any more: "
    "the finding was fixed, so the entry can go and the baseline shrinks. Said at the entry's line in the "
    "baseline; only entries of files audited in this run are judged.",
    "`P005 in logs/a.yaml, session s1, round 10` after round 10's balance was corrected",
    fix="Write the baseline again (`--write-baseline FILE`: the reasons already given are kept) or delete the "
        "entry named, so the baseline lists only the findings still accepted.",
    title="an entry of the baseline that no finding matches any more",
)

CODES: dict[str, Code] = {c.code: c for c in _ALL}


def markdown_table() -> str:
    """The docs of every code (docs/findings.md is this text): :mod:`.catalogue` writes it."""
    return markdown(_ALL)


if __name__ == "__main__":  # pragma: no cover - python -m referee.models.codes > docs/findings.md
    print(markdown_table(), end="")
