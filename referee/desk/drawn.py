"""A game as the desk's pages draw it: the bottom line first, the cards as SVG, each seat labelled.

The pictures and words are the report's (:mod:`referee.report.pages`: a card as SVG, the
hands; :mod:`referee.report.ruling_words`: the bottom line, what was recorded, a finding
in plain words), so the desk, the report and ``explain`` say a ruling the same way.
``player=True`` is the player's view (the dispute sheet): findings without their codes,
the ruling as ``explain --for player`` words it.
"""

from __future__ import annotations

import html
from typing import Any

from markupsafe import Markup

from ..i18n import Messages
from ..report.pages import RED_CARD, SHARED_GROUPS, card_rows, r_
from ..report.ruling_words import bottom_words, finding_words, hand_words, recorded_words
from ..rules.money import signed
from .views import _time


def game(d: Any, player: bool, only: str | None = None) -> dict[str, Any]:
    """The values of a game's page (or sheet: ``only`` one player's seat)."""
    m = Messages(d.language)
    seats = [s for s in d.seats if only is None or s.player_id == only]
    ruled = [s.explanation for s in d.seats if s.explanation is not None]
    own = len({tuple(ex.ruling.cards.player) for ex in ruled}) > 1 or len(d.seats) == 1
    shared: list[Any] = []
    if ruled:
        groups = (*SHARED_GROUPS, *(() if own else ("Player",)))
        shared = card_rows(ruled[0], m, groups, {"Player": r_(m, "Shared hand")})
    return {"id": d.game, "table": d.table, "dealer": d.dealer, "time": _time(d.time), "source": d.source,
            "line": d.line, "session": d.session, "lang": d.language, "shared": shared,
            "seats": [seat(s, m, player, own) for s in seats],
            "findings": [finding_words(f.code, f.field, f.recorded, f.expected, f.message, m, player=player)
                         for f in d.findings],
            "also_in": list(d.also_in), "changed": list(d.changed)}


def seat(s: Any, m: Messages, player: bool, own: bool) -> dict[str, Any]:
    ex = s.explanation
    hands: list[str] = []
    if ex is not None and ex.player is not None:
        hands.append(m("{label}: {cards}").format(label=m("Player"), cards=hand_words(ex.player.hand, m)))
    if ex is not None and ex.dealer is not None:
        hands.append(m("{label}: {cards}").format(label=m("Dealer"), cards=hand_words(ex.dealer.hand, m)))
    wallet = None
    if s.wallet is not None:
        wallet = signed(s.wallet.credits + s.wallet.refunds - s.wallet.debits)
    owed = None if s.bottom is None or s.bottom.paid is None else s.bottom.owed
    return {
        "player": s.player_id,
        "outcome": s.outcome,
        "bottom": bottom_words(s.bottom, m) if s.bottom is not None else (s.problem or ""),
        "owed": owed,
        "rules": None if s.net is None else signed(s.net),
        "recorded": recorded_words(s.recorded, m, cancelled=s.outcome == "cancelled"),
        "wallet": wallet,
        "own": card_rows(ex, m, ("Player",)) if ex is not None and own else [],
        "hands": hands,
        "findings": [finding_words(f.code, f.field, f.recorded, f.expected, f.message, m, player=player)
                     for f in s.findings],
        "codes": sorted({f.code for f in s.findings}),
        "text": Markup(RED_CARD.sub(r'<span class="red">\1\2</span>', html.escape(s.text or ""))),
        "problem": s.problem,
    }
