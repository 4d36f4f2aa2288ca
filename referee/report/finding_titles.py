"""What a finding is, in a few words, for a ruling in a language other than English.

A finding's message (``Finding.message``) is written in English by the audit, with its
figures; a French ruling cannot quote it (issue 27: French without English inside). A
finding that compares two values is said from its values (report/ruling_words.py); one
without values (``V003``, ``S003``, a wallet's ``W004``) is said with its code, its slug
and this title, a catalogue message. English rulings keep the message itself.
"""

from __future__ import annotations

from ..i18n import N_
from ..models import codes

#: A title a finding code (every code of models/codes.py: a test checks).
TITLES = {
    codes.H000: N_("the file cannot be read, or is not a hand history"),
    codes.H001: N_("a record with a wrong type, a missing field or a value out of range"),
    codes.H002: N_("a field the format does not define"),
    codes.H003: N_("the same key twice in one record"),
    codes.H004: N_("a JSON Lines line that cannot be read as a record"),
    codes.H005: N_("the session's profile is unknown: its rounds are not ruled"),
    codes.H006: N_("rounds before any session line"),
    codes.H007: N_("a seat that belongs to no game"),
    codes.H008: N_("a record of the export that its mapping cannot read"),
    codes.H009: N_("an expression of the mapping found nothing in the file"),
    codes.H010: N_("a profile file takes a built-in's name but its rules differ"),
    codes.G001: N_("the same game recorded again with other cards"),
    codes.G002: N_("a player seated twice in one game: the repeated seat is not settled again"),
    codes.G003: N_("a cancelled game recorded as settled: every stake is refunded"),
    codes.K001: N_("the recorded player hand differs from the rules'"),
    codes.K002: N_("the recorded dealer hand differs from the rules'"),
    codes.K003: N_("the recorded dealer qualification differs from the rules'"),
    codes.P001: N_("the Ante's recorded result differs from the settlement"),
    codes.P002: N_("the Call's recorded result differs from the settlement"),
    codes.P003: N_("the bonus's recorded result differs from the settlement"),
    codes.P004: N_("the recorded net result differs from the settlement"),
    codes.P005: N_("the recorded balance follows from neither chain"),
    codes.P006: N_("the recorded outcome differs"),
    codes.P007: N_("the recorded total returned differs"),
    codes.S001: N_("the Call stake is not the profile's multiple of the Ante"),
    codes.S002: N_("the Ante differs from the session's stake"),
    codes.S003: N_("a round number already used, or a record repeated as it was: not ruled or counted again"),
    codes.S004: N_("round numbers skipped"),
    codes.S005: N_("the counted rounds differ from the number agreed"),
    codes.S006: N_("a bonus stake under a profile without a bonus: it is returned"),
    codes.S007: N_("a call the balance does not cover"),
    codes.S008: N_("a stake that is not a whole multiple of the profile's increment"),
    codes.S009: N_("a round written late"),
    codes.S010: N_("the same session recorded again: audited and counted once"),
    codes.S011: N_("a session recorded again with other content: both records are audited"),
    codes.V001: N_("a malformed deal recorded as valid or settled"),
    codes.V002: N_("a correct deal recorded as void"),
    codes.V003: N_("a void deal, correctly handled: stakes returned, round not counted (§07)"),
    codes.W001: N_("the wallet's debits differ from the stakes placed"),
    codes.W002: N_("the wallet's credits differ from what the rules return"),
    codes.W003: N_("the wallet's refunds do not match the game"),
    codes.W004: N_("the same wallet transaction twice"),
    codes.W005: N_("a wallet credit or cancel that names no debit before it"),
    codes.W006: N_("a wallet debit settled a second time"),
    codes.W007: N_("a wallet cancel of a debit already credited"),
    codes.W008: N_("a wallet round that nothing closed"),
    codes.W009: N_("a wallet balance that does not follow from the one before it"),
    codes.W010: N_("the wallet moved money for a seat the export does not show"),
    codes.B001: N_("an entry of the baseline that no finding matches any more"),
}
