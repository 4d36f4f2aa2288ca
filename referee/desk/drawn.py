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
from ..report.ruling_words import bottom_words, finding_words, hand_words, money_words, recorded_words
from ..rules.money import fmt, signed
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
        "currency": None if s.bottom is None else s.bottom.currency,
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


def cases(g: dict[str, Any], found: list[Any]) -> list[dict[str, Any]]:
    """The cases on a game as its page lists them: by seat (in the game's order), then
    oldest first; each its id, player, status, decision and amount in the seat's currency."""
    currency = {s["player"]: s["currency"] for s in g["seats"]}
    order = {p: i for i, p in enumerate(currency)}
    return [{"id": c.id, "player": c.player, "status": c.status, "decision": c.decision,
             "amount": None if c.amount is None else _money(c.amount, currency.get(c.player))}
            for c in sorted(found, key=lambda c: (order.get(c.player, len(order)), c.id))]


def case_form(g: dict[str, Any], found: list[Any], asked: str | None) -> dict[str, Any] | None:
    """The case form's defaults: the seat the page was opened for (``?player=``), else
    the one seat with an amount owed when exactly one has, else the first; its decision
    and amount as the rules give them (what is owed, in the seat's currency); the case
    the seat has already, when it has one (one not closed is decided there; one closed
    needs the form's ``force``: :func:`referee.store.cases.open_case`)."""
    seats = g["seats"]
    if not seats:
        return None
    owed = [s for s in seats if s["owed"]]
    chosen = next((s for s in seats if s["player"] == asked), owed[0] if len(owed) == 1 else seats[0])
    due = chosen["owed"] or 0
    earlier = [c for c in found if c.player == chosen["player"]]
    held = next((c for c in earlier if c.status != "closed"), None)
    return {"player": chosen["player"], "players": [s["player"] for s in seats],
            "decision": "owed_to_player" if due > 0 else "owed_to_house" if due < 0 else "stands",
            "amount": fmt(abs(due)) if due else "", "currency": chosen["currency"],
            "owed": _money(abs(due), chosen["currency"]) if due else None,
            "held": held.id if held is not None else None,
            "closed": earlier[-1].id if earlier and held is None else None}


def _money(amount: Any, currency: str | None) -> str:
    """An amount with its currency when the session says one (``4 EUR``), as a bottom line says it."""
    return money_words(fmt(amount), currency)
