"""The player policies ``simulate`` deals with, by name.

Apart from :mod:`referee.simulate` so that the command line can offer them as choices
without importing the simulator (and the strategy tables) at every start.
"""

from __future__ import annotations

from typing import Literal

Policy = Literal["always-call", "simple", "optimal"]
POLICIES = ("always-call", "simple", "optimal")
