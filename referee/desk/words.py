"""The desk's language and pages: which language a request reads, and the templates that speak it.

The language is, in order: ``?lang=`` on the request (kept in a cookie, so the next page
speaks it too), that cookie, the browser's ``Accept-Language``, English. The words are
the project's gettext catalogue (context ``desk`` for the desk's own), the templates the
package's (``templates/desk/``), drawn by the report's Jinja2 environment: autoescaped,
so a player id with markup in it is shown as text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from decimal import Decimal
from functools import lru_cache
from typing import Any
from urllib.parse import quote, urlencode

from ..errors import Count, Term
from ..i18n import LANGUAGES, Messages
from ..monitor.cells import BETS, CALENDAR_WINDOWS, KINDS
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
    env.filters["number"] = lambda n: number(lang, n)
    env.filters["segment"] = lambda text: segment_words(lang, text)
    env.filters["window"] = lambda text: window_words(lang, text)
    env.filters["bet"] = lambda text: d_(lang, str(text)) if text in BET_NAMES else text
    return env


def query_link(path: str, query: Iterable[tuple[str, str]], **changed: str | None) -> str:
    """The page at ``path`` with its whole query kept but the ``changed`` keys, each set to
    its value after the rest (None: left out). Why one function: a link that dropped the
    query showed another page (the sheet's language link lost its player, Find's its
    search); the language links, Find's next and previous pages and its did-you-mean
    all keep it so."""
    pairs = [(k, v) for k, v in query if k not in changed]
    pairs += [(k, v) for k, v in changed.items() if v is not None]
    return f"{quote(path, safe='/')}?{urlencode(pairs)}"


def d_(lang: str, message: str, **values: object) -> str:
    """A word of the desk (catalogue context ``desk``) in ``lang``, its ``{fields}`` filled:
    a :class:`~referee.errors.Term` said in ``lang`` too, a :class:`~referee.errors.Count`
    with its thousands grouped as ``lang`` groups them (:func:`number`)."""
    text = str(messages(lang).catalogue.pgettext(CONTEXT, message))
    if not values:
        return text
    said = {k: d_(lang, v) if isinstance(v, Term) else number(lang, v) if isinstance(v, Count) else v
            for k, v in values.items()}
    return text.format(**said)


def number(lang: str, n: int | Decimal | str | None) -> str:
    """A count as ``lang`` writes it: ``2,968`` in English; ``2 968`` in French (a no-break
    space, so a number never breaks across lines), its decimals after a comma (``-7,2``).
    Nothing for None; a text that is no number, as it is."""
    if n is None:
        return ""
    try:
        text = f"{n:,}" if isinstance(n, int) else f"{Decimal(n):,}"
    except ArithmeticError:
        return str(n)
    if lang != "fr":
        return text
    whole, point, decimals = text.partition(".")
    return whole.replace(",", "\u00a0") + ("," + decimals if point else "")


#: A field of a form or a query as its page labels it (else its name, as the API's is).
FIELD_WORDS = {"player": "Player", "table": "Table", "dealer": "Dealer", "since": "From (UTC)", "until": "To (UTC)",
               "game": "Game id", "code": "Finding code", "min_owed": "Owed at least", "at": "Time (UTC)",
               "amount": "Amount owed", "note": "Note", "decision": "Decision", "status": "Status",
               "case_id": "Case", "name": "Name", "role": "Role", "password": "Password", "username": "User name"}
#: What a value refused by its type says (pydantic's error types), in the desk's words:
#: pydantic's own sentences are English, and quote its input.
PROBLEM_WORDS = {
    "decimal_parsing": "not an amount (a decimal number, such as 4 or 12.50)",
    "decimal_type": "not an amount (a decimal number, such as 4 or 12.50)",
    "decimal_max_digits": "too many digits", "decimal_max_places": "too many decimals",
    "decimal_whole_digits": "too many digits",
    "datetime_parsing": "not a date and time (for example 2026-12-06T21:30)",
    "datetime_from_date_parsing": "not a date and time (for example 2026-12-06T21:30)",
    "datetime_type": "not a date and time (for example 2026-12-06T21:30)",
    "int_parsing": "not a whole number", "int_type": "not a whole number", "int_from_float": "not a whole number",
    "bool_parsing": "not yes or no",
    "less_than_equal": "at most {limit}", "less_than": "under {limit}",
    "greater_than_equal": "at least {limit}", "greater_than": "over {limit}",
    "string_too_long": "at most {limit} characters", "string_too_short": "at least {limit} characters",
    "missing": "required", "string_pattern_mismatch": "not one of the values taken",
    "literal_error": "not one of the values taken", "enum": "not one of the values taken",
}
_LIMITS = ("le", "lt", "ge", "gt", "max_length", "min_length")


def problem_words(lang: str, errors: Iterable[Mapping[str, Any]]) -> str:
    """Values refused by their types (pydantic's errors), said in ``lang``: each field as
    its page labels it and what it must be (``Dû au moins : pas un montant (...)``), never
    the value given (it may be a password)."""
    said = []
    for e in errors:
        loc = [str(p) for p in e.get("loc", ()) if not isinstance(p, int)]
        name = loc[-1] if loc else "?"
        field = d_(lang, FIELD_WORDS[name]) if name in FIELD_WORDS else name
        limit = next((e.get("ctx", {}).get(k) for k in _LIMITS if k in e.get("ctx", {})), None)
        what = PROBLEM_WORDS.get(str(e.get("type")), "not taken")
        shown = number(lang, limit) if isinstance(limit, int | Decimal) and not isinstance(limit, bool) else limit
        said.append(d_(lang, "{field}: {problem}", field=field, problem=d_(lang, what, limit=shown)))
    return d_(lang, "; ").join(said)


_GROUPED = re.compile(r"[0-9]{1,3}(?:[ \u00a0\u202f][0-9]{3})+(?:,[0-9]+)?")


def decimal_text(text: str, lang: str) -> str:
    """An amount as typed on a page, as the store and the search read one (digits and a
    point): the one parser of the case forms and Find's "Owed at least". A decimal comma
    is read as a point (``4,50``); in French the thousands may be grouped by spaces
    (``1 000,50``). In English a comma before exactly three digits (``1,000``) is a
    thousands separator, not a decimal comma: left as typed, so it is refused as no
    amount rather than read as 1. Anything else is left as typed, for the rule to refuse."""
    text = text.strip()
    if lang == "fr" and _GROUPED.fullmatch(text):
        text = re.sub(r"[ \u00a0\u202f]", "", text)
    whole, comma, decimals = text.partition(",")
    if not comma or "." in text or "," in decimals or not decimals.isdigit():
        return text
    if lang != "fr" and len(decimals) == 3:
        return text
    return f"{whole}.{decimals}"


#: The monitor's names of a segment's kind (``table CH-7``), a bet (its sums' and the
#: deal test's) and a calendar window, which Watch says in its reader's language.
SEGMENT_KINDS = tuple(kind for kind in KINDS if kind != "all")
BET_NAMES = (*BETS, "deal")
CALENDAR_NAMES = tuple(name for name, _ in CALENDAR_WINDOWS)
_LAST = re.compile(r"last ([0-9,]+) games")


def segment_words(lang: str, text: str | None) -> str:
    """A monitor's segment (``table CH-7``, ``stake ante <= 1``, ``all all``) in ``lang``:
    its kind said, its value (a table's, a player's id) as it is."""
    kind, _, value = str(text or "").partition(" ")
    if kind == "all":
        return d_(lang, "every table")
    if kind in SEGMENT_KINDS and value:
        return d_(lang, "{kind} {value}", kind=Term(kind), value=value)
    return str(text or "")


def window_words(lang: str, text: str | None) -> str:
    """A monitor's window (``last 10,000 games``, ``week``) in ``lang``."""
    text = str(text or "")
    last = _LAST.fullmatch(text)
    if last:
        return d_(lang, "last {count} games", count=Count(int(last.group(1).replace(",", ""))))
    return d_(lang, text) if text in CALENDAR_NAMES else text
