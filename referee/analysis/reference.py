"""Exact reference figures (docs/rules.md, "Reference figures"), for the statistical tests.

The seven-card counts are checked by ``scripts/enumerate7.py`` (all 133,784,560 hands);
the theoretical returns under optimal play come from the published exact solver
(``vivo``) or, for other profiles, from the PAR sheet when it exists.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..profiles import ProfileOrigin

SEVEN_CARD_HANDS = 133_784_560
SEVEN_CARD_COUNTS = {
    "royal_flush": 4_324, "straight_flush": 37_260, "four_of_a_kind": 224_848, "full_house": 3_473_184,
    "flush": 4_047_644, "straight": 6_180_020, "three_of_a_kind": 6_461_620, "two_pair": 31_433_400,
    "pair": 58_627_800, "high_card": 23_294_460,
}
DEALER_QUALIFIES = 101_378_140



@dataclass(frozen=True, slots=True)
class OptimalPlay:
    """The PAR sheet's figures for optimal play (fields in the order ``stats`` writes them)."""

    net_per_ante: float
    net_per_wagered: float
    call_rate: float
    source: str


def optimal(origin: ProfileOrigin) -> OptimalPlay | None:
    """Under optimal play: expected net per Ante (minus the house edge), per unit
    wagered (minus the element of risk) and the call rate, from the PAR sheet shipped
    for a built-in profile (``referee par``); None for a profile of one's own."""
    from .sheet import stored_sheet

    if origin.builtin is None:
        return None
    sheet = stored_sheet(origin.builtin)
    if sheet is None:
        return None
    main = sheet["main"]
    return OptimalPlay(-main["house_edge"], -main["element_of_risk"], main["call_rate"]["probability"],
                       "referee par (exact enumeration)")
