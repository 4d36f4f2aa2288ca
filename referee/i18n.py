"""Languages: the standard library's gettext over the catalogues in ``referee/locale``.

Messages are written in English in the code and translated by catalogue
(``locale/fr/LC_MESSAGES/referee.po``, compiled to ``.mo`` with ``pybabel compile``),
so that a translator edits one file and a test can prove every message is
translated. Rank letters are translated in the ``rank`` context (K → R, Q → D, J → V:
the French guide's roi, dame, valet).
"""

from __future__ import annotations

import gettext
import os
from collections.abc import Mapping
from decimal import Decimal
from functools import lru_cache
from pathlib import Path

from .rules.cards import rank_char

DOMAIN = "referee"
LOCALE_DIR = Path(__file__).with_name("locale")
LANGUAGES = ("en", "fr")


def default_language(environ: Mapping[str, str] = os.environ) -> str:
    """The language of the environment's locale (POSIX order: LC_ALL, LC_MESSAGES,
    LANG), if referee speaks it, else English."""
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(name)
        if value:
            code = value.split(".")[0].split("_")[0].lower()
            return code if code in LANGUAGES else "en"
    return "en"


class Messages:
    """The translations of one language."""

    def __init__(self, language: str) -> None:
        self.language = language
        self.catalogue = _catalogue(language)

    def __call__(self, message: str) -> str:
        return self.catalogue.gettext(message)

    def plural(self, singular: str, plural: str, n: int | Decimal) -> str:
        """The form of a message for ``n`` things (gettext's ``ngettext``), by the
        language's rule: English singular for 1 only, French for 0 and 1 (and for an
        amount under 2: "1,5 est dû", "15 sont dus"). Why not ``'s' * (n != 1)``: a
        French count of 0 is singular, and a French verb agrees with its amount."""
        return self.catalogue.ngettext(singular, plural, int(abs(Decimal(n))))

    def rank(self, rank: int) -> str:
        """A rank as written in hand descriptions (``K``; French ``R``)."""
        return self.catalogue.pgettext("rank", rank_char(rank))


@lru_cache(maxsize=4)
def _catalogue(language: str) -> gettext.NullTranslations:
    if language == "en":
        return gettext.NullTranslations()
    return gettext.translation(DOMAIN, LOCALE_DIR, [language])


def N_(message: str) -> str:
    """Marks a message for the catalogue without translating it here (gettext's ``N_``)."""
    return message
