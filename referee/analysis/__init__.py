"""Statistics over audited rounds: return to player, fairness of the deal, decisions."""
