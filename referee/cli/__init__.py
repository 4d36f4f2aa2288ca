"""The command line: argument handling only; the work is in the library.

One module a command (``check``, ``simulate``, ``explain``...), each adding itself to
the ``referee`` group of :mod:`referee.cli.app`; :mod:`referee.cli.common` holds what
they share. Importing this package registers every command.
"""

from __future__ import annotations

from . import (
           alerts,
           cases,
           check,
           explain,
           hand,
           import_,
           mappings,
           monitor,
           par,
           profiles,
           recall,
           report,
           rule,
           schema,
           serve,
           simulate,
           stats,
           store,
           users,
)
from .app import RefereeGroup, entry, main, run_guarded
from .common import FORMATS, reporter_class, use_color

__all__ = ["FORMATS", "RefereeGroup", "alerts", "cases", "check", "entry", "explain", "hand", "import_", "main",
           "mappings", "monitor", "par", "profiles", "recall", "report", "reporter_class", "rule", "run_guarded",
           "schema", "serve", "simulate", "stats", "store", "use_color", "users"]
