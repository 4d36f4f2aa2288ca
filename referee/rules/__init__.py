"""The rules engine: cards, hands, profiles and settlement. Pure: no I/O, no printing."""
