"""The desk's language and pages: which language a request reads, and the templates that speak it.

The language is, in order: ``?lang=`` on the request (kept in a cookie, so the next page
speaks it too), that cookie, the browser's ``Accept-Language``, English. The words are
the project's gettext catalogue (context ``desk`` for the desk's own), the templates the
package's (``templates/desk/``), drawn by the report's Jinja2 environment: autoescaped,
so a player id with markup in it is shown as text.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import Any
from urllib.parse import quote, urlencode

from ..i18n import LANGUAGES, Messages
from ..report.pages import environment

LANG_COOKIE = "referee_lang"
#: A case's decision (the store's word) as the pages say it.
DECISION_WORDS = {"stands": "the table's payment stands", "owed_to_player": "an amount is owed to the player",
                  "owed_to_house": "an amount is owed to the house"}
CONTEXT = "desk"


def accepted(header: str | None) -> str | None:
    """The first language of ``Accept-Language`` (by its weights) that referee speaks."""
    if not header:
        return None
    ranked: list[tuple[float, int, str]] = []
    for index, part in enumerate(header.split(",")[:32]):
        name, _, params = part.strip().partition(";")
        weight = 1.0
        if params.strip().startswith("q="):
            try:
                weight = float(params.strip()[2:])
            except ValueError:
                weight = 0.0
        code = name.strip().split("-")[0].lower()
        if code in LANGUAGES and weight > 0:
            ranked.append((-weight, index, code))
    return min(ranked)[2] if ranked else None


def language(query: str | None, cookie: str | None, header: str | None) -> str:
    """The language of a request (see the module's docstring)."""
    for asked in (query, cookie):
        if asked and asked.lower() in LANGUAGES:
            return asked.lower()
    return accepted(header) or "en"


@lru_cache(maxsize=4)
def messages(lang: str) -> Messages:
    return Messages(lang)


@lru_cache(maxsize=4)
def templates(lang: str) -> Any:
    """The Jinja2 environment of ``lang`` (one a language: gettext is installed in it)."""
    env = environment(messages(lang))
    env.globals["d_"] = lambda message, **values: d_(lang, message, **values)
    env.globals["decision_words"] = DECISION_WORDS
    return env


def lang_link(path: str, query: Iterable[tuple[str, str]], lang: str) -> str:
    """The page at ``path`` in ``lang``: its whole query kept, only ``lang`` changed (the
    sheet's player, Find's search: a language link that dropped them showed another page)."""
    pairs = [(k, v) for k, v in query if k != "lang"]
    return f"{quote(path, safe='/')}?{urlencode([*pairs, ('lang', lang)])}"


def d_(lang: str, message: str, **values: object) -> str:
    """A word of the desk (catalogue context ``desk``) in ``lang``, its ``{fields}`` filled."""
    text = str(messages(lang).catalogue.pgettext(CONTEXT, message))
    return text.format(**values) if values else text
