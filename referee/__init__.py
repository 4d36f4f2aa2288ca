"""referee: the Casino Hold'em hand-history referee and audit tool.

The public API of the rules engine::

    import referee
    cards = ["Ah", "Kd", "As", "7d", "4c", "9h", "2s"]
    hand = referee.evaluate(cards)  # one shared object per hand value
    hand.category, hand.description, hand.best_five_of(cards)
    player, dealer = referee.evaluate_deal(["Ah", "Kd"], ["Qs", "Qc"], ["As", "7d", "4c", "9h", "2s"])
    profile = referee.load_profile("vivo")
    ruling = referee.settle(profile, referee.Deal(ante=Decimal(1), ...))
"""

from __future__ import annotations

from .profiles import BUILTIN as BUILTIN_PROFILES
from .profiles import ProfileError, load_profile
from .rules.cards import DECK, Card, CardError, parse_card, parse_cards
from .rules.category import Category
from .rules.hands import CATEGORIES, HandError, HandValue, evaluate, evaluate_batch, evaluate_deal
from .rules.profile import Profile
from .rules.settlement import Deal, Ruling, settle

__version__ = "0.1.0"

__all__ = [
    "BUILTIN_PROFILES", "CATEGORIES", "DECK", "Card", "CardError", "Category", "Deal", "HandError",
    "HandValue", "Profile", "ProfileError", "Ruling", "__version__", "evaluate", "evaluate_batch", "evaluate_deal",
    "load_profile", "parse_card", "parse_cards", "settle",
]
