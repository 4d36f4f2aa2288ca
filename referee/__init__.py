"""referee: the Casino Hold'em hand-history referee and audit tool.

The public API of the rules engine::

    import referee
    cards = ["Ah", "Kd", "As", "7d", "4c", "9h", "2s"]
    hand = referee.evaluate(cards)  # one shared object per hand value
    hand.category, hand.description, hand.best_five_of(cards)
    player, dealer = referee.evaluate_deal(["Ah", "Kd"], ["Qs", "Qc"], ["As", "7d", "4c", "9h", "2s"])
    profile = referee.load_profile("vivo")
    ruling = referee.settle(profile, referee.Deal(ante=Decimal(1), ...))

Each name is imported from its module when first asked for (PEP 562): importing a
submodule, as the ``referee`` command does (:mod:`referee.start`), then imports only
what that submodule needs, when it needs it.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .profiles import BUILTIN as BUILTIN_PROFILES
    from .profiles import ProfileError, load_profile
    from .rules.batch import evaluate_batch
    from .rules.cards import DECK, Card, CardError, parse_card, parse_cards
    from .rules.category import Category
    from .rules.hands import CATEGORIES, HandError, HandValue, evaluate, evaluate_deal
    from .rules.profile import Profile
    from .rules.settlement import Deal, Ruling, settle

__version__ = "0.1.0"

#: The public names by the module (and name) they come from.
_SOURCES: dict[str, tuple[str, str]] = {
    "BUILTIN_PROFILES": ("profiles", "BUILTIN"), "ProfileError": ("profiles", "ProfileError"),
    "load_profile": ("profiles", "load_profile"),
    **{name: ("rules.cards", name) for name in ("DECK", "Card", "CardError", "parse_card", "parse_cards")},
    "Category": ("rules.category", "Category"),
    **{name: ("rules.hands", name) for name in ("CATEGORIES", "HandError", "HandValue", "evaluate", "evaluate_deal")},
    "evaluate_batch": ("rules.batch", "evaluate_batch"),
    "Profile": ("rules.profile", "Profile"),
    **{name: ("rules.settlement", name) for name in ("Deal", "Ruling", "settle")},
}

__all__ = [
    "BUILTIN_PROFILES", "CATEGORIES", "DECK", "Card", "CardError", "Category", "Deal", "HandError",
    "HandValue", "Profile", "ProfileError", "Ruling", "__version__", "evaluate", "evaluate_batch", "evaluate_deal",
    "load_profile", "parse_card", "parse_cards", "settle",
]


def __getattr__(name: str) -> Any:
    source = _SOURCES.get(name)
    if source is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f".{source[0]}", __name__), source[1])
    globals()[name] = value  # asked once
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_SOURCES})
