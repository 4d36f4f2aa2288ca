"""Why a deal is void, in the reader's language (issue 27: "Détail : 8d is dealt twice").

The rules say why a deal is void in one English sentence (``Ruling.void.reason``: the
JSON reports' ``void_reason``, a stored ruling's). A French ruling must not quote it
in English, so each sentence the rules write is a catalogue message here, matched
against the reason and said again with its parts in the reader's words. Why match the
sentence rather than carry its parts: a ruling read back from an audit store keeps the
reason only, and both must read the same ("two paths, one answer"). A reason no
template matches is shown as written (a test runs every fault the simulator injects
through this, in French, and fails on English left in).
"""

from __future__ import annotations

import re
from functools import lru_cache

from ..i18n import N_, Messages

#: The card groups a reason names (context ``deal``); "player p-1001" is a seat's.
GROUPS = {"player": N_("player"), "flop": N_("flop"), "turn": N_("turn"), "river": N_("river"),
          "dealer": N_("dealer"), "dealer cards": N_("dealer cards")}
CONTEXT = "deal"

#: Each sentence of rules/settlement.py, rules/cards.py and audit/seats.py that says
#: why a deal is void; ``{group}``, ``{a}``, ``{b}`` and ``{missing}`` are card groups,
#: ``{why}`` is one of :data:`WHY` (what is wrong with a token).
REASONS = (
    N_("{card} is dealt twice ({a} and {b})"),
    N_("{group} card {i}: {token} is not a card: {why}"),
    N_("the {group} needs {want} cards, the record has {seen}"),
    N_("the dealer has 2 cards, the record has {seen}"),
    N_("a call without {missing}"),
)
EXPECTED = N_("expected a rank (2-9, 10 or T, J/V, Q/D, K/R, A) followed by a suit (c d h s or ♣ ♦ ♥ ♠)")
WHY = (
    N_("{suit} is not a suit (expected c d h s or ♣ ♦ ♥ ♠)"),
    N_("{rank} is not a rank (expected 2-9, 10 or T, J/V, Q/D, K/R, A)"),
    N_("rank {rank} has no suit; {expected}"),
    N_("suit {suit} has no rank; {expected}"),
    N_("empty; {expected}"),
    N_("too long for a card; {expected}"),
    N_("a card is written as text, got {type}; {expected}"),
    N_("this card must be known here, not unseen"),
)
GROUP_FIELDS = ("group", "a", "b")


@lru_cache(maxsize=32)
def _pattern(template: str) -> re.Pattern[str]:
    """The regular expression that reads a sentence written from ``template``."""
    parts = re.split(r"\{(\w+)\}", template)
    body = "".join(re.escape(p) if i % 2 == 0 else f"(?P<{p}>.+?)" for i, p in enumerate(parts))
    return re.compile(body + r"\Z")


def _read(text: str, templates: tuple[str, ...]) -> tuple[str, dict[str, str]] | None:
    for template in templates:
        found = _pattern(template).match(text)
        if found:
            return template, found.groupdict()
    return None


def group_words(label: str, m: Messages) -> str:
    """A card group (``player``, ``dealer``, a seat's ``player p-1001``) in words."""
    head, _, player = label.partition(" ")
    if label not in GROUPS and head == "player" and player:
        return f"{m.catalogue.pgettext(CONTEXT, 'player')} {player}"
    return m.catalogue.pgettext(CONTEXT, GROUPS[label]) if label in GROUPS else label


def why_words(why: str, m: Messages) -> str:
    """What is wrong with a token (rules/cards.py's diagnosis) in words."""
    read = _read(why, WHY) or _read(why, (EXPECTED,))
    if read is None:
        return why
    template, parts = read
    if "expected" in parts:
        parts["expected"] = m(EXPECTED) if parts["expected"] == EXPECTED else parts["expected"]
    return m(template).format(**parts) if template != EXPECTED else m(EXPECTED)


def void_reason_words(reason: str, m: Messages) -> str:
    """Why the deal is void, in the reader's language (English: as the rules wrote it)."""
    if m.language == "en":
        return reason
    read = _read(reason, REASONS)
    if read is None:
        return reason
    template, parts = read
    for key in GROUP_FIELDS:
        if key in parts:
            parts[key] = group_words(parts[key], m)
    if "missing" in parts:
        and_ = " " + m("and") + " "
        parts["missing"] = and_.join(group_words(g, m) for g in parts["missing"].split(" and "))
    if "why" in parts:
        parts["why"] = why_words(parts["why"], m)
    return m(template).format(**parts)
