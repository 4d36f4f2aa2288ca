"""A ruling as JSON: ``referee explain --format json``, recall's rulings and ``referee hand``.

Why apart from :mod:`referee.report.ruling` (the ruling in words): the JSON carries the
same facts as the words, as fields, so a script and a floor manager read the same
ruling; it is built from those words' module (the bottom line's sentence and the
ruling's text ride along in the JSON) and nothing in words needs it, so the arrow
points one way. ``hand_report`` is here because ``referee hand`` writes both: its
sentences come from the words' module, its fields from this one.
"""

from __future__ import annotations

from typing import TypedDict

from ..audit.explain import Explanation, Side
from ..i18n import Messages
from ..models.common import Recorded
from ..rules.cards import rank_char
from ..rules.category import Category
from ..rules.money import plain
from ..rules.tiebreak import TieBreak
from .base import bottom_json
from .ruling import RulingText
from .ruling_words import CATEGORY_WORDS, RECORDED_AMOUNTS, bottom_words, cards_text, comparison_lines, hand_words


class HandJSON(TypedDict):
    """A side's hand: its category, best five and the private cards that play."""

    category: str
    description: str
    best_five: list[str]
    private_cards_playing: list[str]
    board_plays: bool


class StepJSON(TypedDict):
    """One step of a tie-break: a category's name, or a rank's character, each side."""

    role: str
    index: int
    player: str | int
    dealer: str | int
    decides: bool


class TieBreakJSON(TypedDict):
    steps: list[StepJSON]
    winner: str


def hand_json(side: Side | None) -> HandJSON | None:
    if side is None:
        return None
    return {
        "category": side.hand.category, "description": side.hand.description,
        "best_five": [str(c) for c in side.play.best_five],
        "private_cards_playing": [str(c) for c in side.play.private],
        "board_plays": not side.play.private,
    }


def tie_break_json(tb: TieBreak | None) -> TieBreakJSON | None:
    if tb is None:
        return None
    steps: list[StepJSON] = []
    for s in tb.steps:
        if s.role == "category":
            player: str | int = Category.at(s.first).value
            dealer: str | int = Category.at(s.second).value
        else:
            player, dealer = rank_char(s.first), rank_char(s.second)
        steps.append({"role": s.role, "index": s.index, "player": player, "dealer": dealer, "decides": s.decides})
    return {"steps": steps, "winner": tb.winner}


def explanation_json(ex: Explanation, m: Messages) -> dict[str, object]:
    r = ex.ruling
    c = r.cards
    return {
        "file": ex.file, "line": ex.line, "session": ex.session, "round": ex.number,
        **({"game": ex.game, "player_id": ex.player_id} if ex.game is not None else {}),
        "language": m.language,
        "profile": {"name": ex.profile.name, "origin": ex.profile_origin, "sha256": ex.profile_sha256,
                    **({"default": True} if ex.profile_default is not None else {})},
        "cards": None if r.outcome == "void" else {
            "player": [str(x) if x is not None else "??" for x in c.player],
            "flop": [str(x) if x is not None else "??" for x in c.flop],
            "turn": None if c.turn is None else str(c.turn), "river": None if c.river is None else str(c.river),
            "dealer": [str(x) if x is not None else "??" for x in c.dealer],
        },
        "outcome": "cancelled" if r.cancelled else r.outcome,
        "void": None if r.void is None else {"kind": r.void.kind, "reason": r.void.reason},
        "player": hand_json(ex.player), "dealer": hand_json(ex.dealer),
        "dealer_qualified": r.dealer_qualified,
        "qualifier": ex.profile.dealer_qualifier.words(),
        "comparison": tie_break_json(ex.comparison),
        "wagers": [{"wager": line.wager.value, "stake": plain(line.stake), "net": plain(line.result),
                    "rule": line.rule.code, "odds": plain(line.odds),
                    "category": line.category.value if line.category else None} for line in r.lines],
        "net": plain(r.net), "staked": plain(r.staked), "returned": plain(r.returned),
        "sections": list(ex.sections),
        "bottom_line": {**bottom_json(ex.bottom), "text": bottom_words(ex.bottom, m)},
        "findings": [{"code": f.code, "field": f.field, "recorded": plain(f.recorded), "expected": plain(f.expected),
                      "message": f.message} for f in ex.findings],
        "recorded": recorded_json(ex.recorded),
        "wallet": None if ex.wallet is None else {
            "debits": plain(ex.wallet.debits), "credits": plain(ex.wallet.credits),
            "refunds": plain(ex.wallet.refunds)},
        "text": RulingText(ex, m).text(),
    }


def recorded_json(recorded: Recorded | None) -> dict[str, object] | None:
    """What the table recorded of the result: the outcome (``void: true`` is ``void``) and
    the amounts, each ``null`` when not recorded; ``null`` when nothing is."""
    if recorded is None:
        return None
    outcome = recorded.outcome or ("void" if recorded.void else None)
    return {"outcome": outcome, **{name: plain(getattr(recorded, name)) for name in RECORDED_AMOUNTS}}


def hand_report(groups: list[list[str]], m: Messages) -> tuple[str, dict[str, object]]:
    """``referee hand``: one or two hands in words and as JSON."""
    from ..rules.hands import evaluate
    from ..rules.tiebreak import tie_break

    hands = [evaluate(g) for g in groups]
    labels = [m("First hand"), m("Second hand")] if len(hands) == 2 else [m("Hand")]
    lines: list[str] = []
    entries = []
    for label, group, hand in zip(labels, groups, hands, strict=False):
        five = hand.best_five_of(group)
        lines.append(m("{side}: {hand}: {cards}").format(side=label, hand=hand_words(hand, m),
                                                         cards=cards_text(five, m)))
        lines.append("  " + m("category: {category}").format(category=m(CATEGORY_WORDS[hand.category])))
        entries.append({"cards": list(group), "category": hand.category, "description": hand.description,
                        "best_five": [str(c) for c in five]})
    doc: dict[str, object] = {"hands": entries}
    if len(hands) == 2:
        tb = tie_break(hands[0], hands[1])
        lines.extend(comparison_lines(tb, m, m("the first hand wins"), m("the second hand wins")))
        winner = {"player": "first", "dealer": "second", "tie": "tie"}[tb.winner]
        doc["winner"] = winner
        doc["comparison"] = tie_break_json(tb)
    return "\n".join(lines) + "\n", doc
