"""What the two HTML pages share: ``referee report``'s disputed rounds and ``referee recall``'s.

Why apart from :mod:`referee.report.html` (the report's reporter, its ledger and
charts): recall renders the same templates, in the same words and with the same
pictures, without the report's sessions; both import this module, which imports
neither. Here are the Jinja2 environment, the words of the ``report`` catalogue
context (:func:`r_`), a round's status in words, a card as inline SVG and a disputed
round's block (its cards as pictures, the two hands, the bottom line, the ruling to
unfold).
"""

from __future__ import annotations

import html
import re
from collections.abc import Container, Iterable, Mapping
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any, TypedDict

from ..audit.explain import ExplainError, Explanation
from ..audit.explain_table import explain_seat
from ..audit.games import GameResult, SeatResult
from ..audit.results import Finding, SessionInfo
from ..escape import on_page
from ..i18n import N_, Messages
from ..rules.cards import SUIT_SYMBOLS, Card, CardError, parse_card
from .ruling import RulingText
from .ruling_words import bottom_words, hand_words

#: The catalogue context of the report's and recall's own words (kept apart from the rulings').
CONTEXT = "report"
RED_CARD = re.compile(r"\b(10|[2-9TJQKA])([♥♦])")


def environment(messages: Messages) -> Any:
    """The Jinja2 environment of both pages: the package's templates, autoescaped, in the reader's language."""
    try:
        import jinja2
    except ImportError:  # pragma: no cover - the report extra is missing
        raise ReportUnavailable("the HTML report needs Jinja2 and pygal: pip install 'referee[report]'") from None
    env = jinja2.Environment(loader=jinja2.PackageLoader("referee", "templates"), autoescape=True, finalize=on_page,
                             extensions=["jinja2.ext.i18n"], trim_blocks=False)
    env.install_gettext_translations(messages.catalogue, newstyle=True)  # type: ignore[attr-defined]
    return env


class ReportUnavailable(Exception):
    """An optional dependency of the HTML report is missing (exit 2)."""


def r_(m: Messages, message: str) -> str:
    """A word of the report or recall (catalogue context ``report``)."""
    return m.catalogue.pgettext(CONTEXT, message)


QUALIFIED_WORDS = {True: N_("qualifies"), False: N_("does not qualify")}


class CardRow(TypedDict):
    """A row of a disputed round's cards: its label and the cards as inline SVG (Markup)."""

    label: str
    svg: str


class RulingBlock(TypedDict):
    """A disputed round at a glance, as the templates read it (``text``: Markup)."""

    cards: list[CardRow]
    hands: list[str]
    bottom: str
    text: str


def status_words(status: str, m: Messages) -> str:
    """A round's status (``ok``, ``void``, ``cancelled``, ``bal. off -1``, codes) in the
    reader's language (a cancelled game's seat: the game's word, French "révoquée", not
    the plural of the report's column)."""
    if status.startswith("bal. off "):
        return r_(m, "bal. off {amount}").format(amount=status.removeprefix("bal. off "))
    if status == "cancelled":
        return m("cancelled")
    return r_(m, status) if status in ("ok", "void", "not ruled") else status


def svg_card(card: Card | None, m: Messages, token: str | None = None) -> str:
    """A small playing card as inline SVG: the rank above its suit, hearts and diamonds
    red; a card not seen (or not a card) is drawn face down with its token. A screen
    reader is told the card drawn (``10♠``; French ``R♥``), not its English token (``T♠``)."""
    if card is None:
        label = html.escape(token or "??")
        return (f'<svg class="card back" viewBox="0 0 40 56" width="30" height="42" role="img" aria-label="{label}">'
                '<rect x="1" y="1" width="38" height="54" rx="4"/>'
                f'<text x="20" y="33" text-anchor="middle" font-size="12">{label}</text></svg>')
    suit = SUIT_SYMBOLS[card.suit]
    rank = m.rank(card.rank)
    colour = "red" if suit in "♥♦" else "black"
    return (f'<svg class="card {colour}" viewBox="0 0 40 56" width="30" height="42" role="img" '
            f'aria-label="{html.escape(rank + suit)}"><rect x="1" y="1" width="38" height="54" rx="4"/>'
            f'<text x="20" y="24" text-anchor="middle" font-size="{16 if len(rank) > 1 else 19}">{rank}</text>'
            f'<text x="20" y="47" text-anchor="middle" font-size="20">{suit}</text></svg>')


def _parsed(token: str) -> Card | None:
    try:
        return parse_card(token)
    except CardError:
        return None


#: The card groups a live table's game deals once for every seat (the shared hand too, when it has one).
SHARED_GROUPS = ("Flop", "Turn", "River", "Dealer")


def card_groups(ex: Explanation) -> list[tuple[str, list[tuple[Card | None, str | None]]]]:
    """A ruling's cards by group (``Player``, ``Flop``, ``Turn``, ``River``, ``Dealer``:
    the English labels, catalogue messages): the cards as ruled, or (a void deal, whose
    cards could not all be read) as recorded."""
    r = ex.ruling
    if r.outcome == "void":
        return [(label, [(_parsed(t), t) for t in tokens]) for label, tokens in ex.recorded_cards]
    c = r.cards  # a Card is an int, and 2♣ is 0: "is not None", never its truth
    return [(label, [(card, None) for card in cards]) for label, cards in (
        ("Player", c.player), ("Flop", c.flop), ("Turn", (c.turn,) if c.turn is not None else ()),
        ("River", (c.river,) if c.river is not None else ()), ("Dealer", c.dealer)) if cards]


def card_rows(ex: Explanation, m: Messages, only: Container[str] | None = None,
              labels: Mapping[str, str] | None = None) -> list[CardRow]:
    """A ruling's cards as pictures, a row a group (only the groups in ``only``; a group's
    label replaced by ``labels``, in words): the one way both pages draw cards."""
    from markupsafe import Markup

    return [{"label": (labels or {}).get(label) or m(label),
             "svg": Markup("".join(svg_card(card, m, token) for card, token in group))}
            for label, group in card_groups(ex) if only is None or label in only]


def _words(ex: Explanation, m: Messages) -> tuple[list[str], str, str]:
    """A ruling's two hands, its bottom line and its full text (Markup)."""
    from markupsafe import Markup

    r = ex.ruling
    hands = []
    if ex.player is not None:
        hands.append(m("{label}: {cards}").format(label=m("Player"), cards=hand_words(ex.player.hand, m)))
    if ex.dealer is not None:
        qualified = "" if r.dealer_qualified is None else f" ({r_(m, QUALIFIED_WORDS[r.dealer_qualified])})"
        hands.append(m("{label}: {cards}").format(label=m("Dealer"), cards=hand_words(ex.dealer.hand, m) + qualified))
    return hands, bottom_words(ex.bottom, m), Markup(_cards(RulingText(ex, m).text()))


def ruling_block(ex: Explanation, m: Messages) -> RulingBlock:
    """A disputed round at a glance: its cards as pictures, the two hands and the bottom
    line; the full ruling's text to unfold."""
    hands, bottom, text = _words(ex, m)
    return {"cards": card_rows(ex, m), "hands": hands, "bottom": bottom, "text": text}


class SeatBlock(TypedDict, total=False):
    """A disputed seat of a live table's game: its player, its findings' codes, its own
    cards (none at a shared hand), hands, bottom line and ruling; or why it has none."""

    player: str
    codes: str
    own: list[CardRow]
    hands: list[str]
    bottom: str
    text: str
    error: str


class GameBlock(TypedDict):
    """A live table's game at a glance: the cards it dealt every seat, drawn once, then
    each seat asked about with its own cards and ruling."""

    shared: list[CardRow]
    seats: list[SeatBlock]


@dataclass(frozen=True, slots=True)
class SeatRuling:
    """A seat to draw: its player, whether it holds its own cards, its ruling
    (``explain --game G --player P``'s) or why there is none, and its findings' codes."""

    player: str | None
    own: bool
    ruling: Explanation | str
    codes: str = ""


def game_block(seats: Iterable[SeatRuling], m: Messages) -> GameBlock:
    """A live table's game: the board and the dealer's cards (and a shared hand) once,
    from the first seat ruled (every seat is dealt them), then each seat: its own two
    cards when it has them, its hands, bottom line and full ruling."""
    shared: list[CardRow] = []
    out: list[SeatBlock] = []
    for seat in seats:
        head: SeatBlock = {"player": seat.player or "?", "codes": seat.codes}
        if isinstance(seat.ruling, str):
            out.append({**head, "error": seat.ruling})
            continue
        if not shared:
            groups = (*SHARED_GROUPS, *(() if seat.own else ("Player",)))
            shared = card_rows(seat.ruling, m, groups, {"Player": r_(m, "Shared hand")})
        hands, bottom, text = _words(seat.ruling, m)
        own = card_rows(seat.ruling, m, ("Player",)) if seat.own else []
        out.append({**head, "own": own, "hands": hands, "bottom": bottom, "text": text})
    return {"shared": shared, "seats": out}


def disputed_seats(game: GameResult) -> list[SeatResult]:
    """The seats of a live table's game whose record parts from the rules: a finding more
    than a note on the seat, or on the game (then every seat, each ruled with it)."""
    def bad(findings: Iterable[Finding]) -> bool:
        return any(f.severity != "info" for f in findings)

    if bad(game.findings):
        return list(game.seats)
    return [seat for seat in game.seats if bad(seat.findings)]


def disputed_game(game: GameResult) -> GameResult | None:
    """What a page keeps of a live table's game with a disputed seat (None without one):
    the game with only those seats, each record a model. Why: a seat read plain keeps its
    msgspec struct, made where the audit read it, which does not pickle (``--jobs``)."""
    seats = disputed_seats(game)
    if not seats:
        return None
    return replace(game, seats=[replace(seat, record=_model(seat.record)) for seat in seats], raw=None)


def _model(record: Any) -> Any:
    """A seat's record as the struct :class:`referee.models.table.Seat` (a plain struct's
    fields, as ``recall --store`` reads a stored one back)."""
    import msgspec

    if not isinstance(record, msgspec.Struct):
        return record
    from ..models.decode import convert
    from ..models.table import Seat

    return convert(msgspec.to_builtins(record, builtin_types=(Decimal,)), Seat)


def seat_ruling(info: SessionInfo, game: GameResult, seat: SeatResult) -> SeatRuling:
    """A live table's seat as :func:`game_block` draws it: its ruling as ``explain --game
    G --player P`` gives it (why there is none when it cannot be ruled)."""
    ruling: Explanation | str
    try:
        ruling = explain_seat(info, game, seat)
    except ExplainError as err:
        ruling = str(err)
    own = seat.record is not None and getattr(seat.record, "player", None) is not None
    codes = " ".join(sorted({f.code for f in (*game.findings, *seat.findings)}))
    return SeatRuling(seat.player_id, own, ruling, codes)


def _cards(text: str) -> str:
    """Escape a ruling's text and colour hearts and diamonds red."""
    return RED_CARD.sub(r'<span class="red">\1\2</span>', html.escape(text))
