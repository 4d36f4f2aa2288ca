"""A ruling in words (English or French): ``referee explain``, ``hand``, recall and the report.

:class:`RulingText` composes one round's ruling, section by section, and quotes the
profile's rules it applies (:func:`topic_of`); the words it is made of (a card, a hand,
the bottom line, a finding...) are in :mod:`referee.report.ruling_words`. Every sentence
is a catalogue message (``referee/locale``), filled from the facts of
:mod:`referee.audit.explain`; :mod:`referee.report.ruling_json` carries the same facts
as fields, so a script and a floor manager read the same ruling.
"""

from __future__ import annotations

import re
from typing import assert_never

from ..audit.explain import Explanation, Side
from ..escape import printable
from ..i18n import Messages
from ..profiles import DEFAULT_WORDS
from ..rules.money import fmt, signed
from ..rules.payout import Rule
from ..rules.profile import Topic, in_language
from ..rules.settlement import Line
from .ruling_words import (
    CATEGORY_WORDS,
    VOID_WORDS,
    WAGER_WORDS,
    bottom_words,
    cards_text,
    comparison_lines,
    finding_words,
    hand_words,
    recorded_words,
    result_words,
    threshold_words,
    token_text,
)
from .void_words import void_reason_words


def topic_of(rule: Rule) -> Topic | None:
    """The passage of the profile's rules that a wager settled by ``rule`` quotes."""
    match rule:
        case Rule.ANTE_PAYTABLE:
            return Topic.PAYTABLE
        case Rule.EVEN_MONEY | Rule.CALL_RETURNED:
            return Topic.NOT_QUALIFIED
        case Rule.CALL_ODDS | Rule.CALL_RETURNED_ON_WIN:
            return Topic.WIN
        case Rule.PUSH:
            return Topic.TIE
        case Rule.DEALER_WINS:
            return Topic.LOSE
        case Rule.FOLDED:
            return Topic.FOLD
        case Rule.BONUS_PAYTABLE | Rule.BONUS_MISSED:
            return Topic.BONUS
        case Rule.FORFEITED:
            return Topic.BONUS_FOLD
        case Rule.NOT_OFFERED:
            return None
        case Rule.VOID:
            return Topic.VOID
        case Rule.CANCELLED:  # the table's decision: no document of the rules speaks of it
            return None
        case _:
            assert_never(rule)


#: Who a ruling is for (``explain --for``): the auditor's (the default) names each finding
#: by its code, the profile by its SHA-256 and each rule quoted by its place in the docs;
#: the player's says the same ruling without them.
AUDIENCES = ("auditor", "player")
#: A reference to one of referee's documents in a profile's words, which a player cannot
#: open: ``(docs/rules.md#03-best-hand)``, ``(the rules of the game; docs/rules.md#x)``,
#: or ``: docs/rules.md#vivo`` at the end (a path with an anchor; an address,
#: ``https://...#x``, is one the player can open: kept).
_PATH = r"(?![A-Za-z][\w+.-]*://|/)[^\s()]*#[^\s()]*"
REFERENCE = re.compile(rf"\s*\({_PATH}\)|\s*;\s*{_PATH}(?=\))|\s*:\s*{_PATH}\s*\Z")


def without_references(text: str) -> str:
    """``text`` without its references to documents (the player's ruling)."""
    return REFERENCE.sub("", text).strip()


class RulingText:
    """Builds the text of one explanation, line by line: the bottom line first, then the
    cards, the hands and the rules, each part quoting the words of the rule it applies;
    for the ``audience`` :data:`AUDIENCES` names."""

    def __init__(self, ex: Explanation, m: Messages, audience: str = "auditor") -> None:
        self.ex, self.m = ex, m
        self.player = audience == "player"
        self.lines: list[str] = []
        self.quoted: set[tuple[str, str]] = set()

    def text(self) -> str:
        ex, m = self.ex, self.m
        r = ex.ruling
        self.say(self.heading_line())
        self.heading(m("Bottom line"))
        self.say("  " + bottom_words(ex.bottom, m))
        self.cards()
        if r.outcome == "void":
            self.void()
        elif r.outcome == "fold":
            self.heading(m("Decision"))
            self.say("  " + m("The player folds: the Ante is lost and the round ends."))
        else:
            self.hands()
            self.qualification()
            self.comparison()
        self.settlement()
        self.heading(m("Rules applied"))
        self.say("  " + self.profile_said())
        self.record()
        return "\n".join(self.lines) + "\n"

    def profile_said(self) -> str:
        """The profile the round was ruled by: a file is a custom profile, named as such
        (as every report names it), whatever name it gives itself."""
        ex, m = self.ex, self.m
        custom = not str(ex.profile_origin).startswith("builtin:")
        profile = ex.profile.name  # a built-in by its own name; a file said custom below, whatever it calls itself
        source = in_language(ex.profile.source, m.language)
        if self.player:
            source = without_references(source)
            if custom:
                said = (m("custom profile {profile} ({source})").format(profile=profile, source=source) if source
                        else m("custom profile {profile}").format(profile=profile))
            else:
                said = (m("profile {profile} ({source})").format(profile=profile, source=source) if source
                        else m("profile {profile}").format(profile=profile))
        elif custom:
            said = m("custom profile {name} ({origin}, sha256 {sha256})").format(
                name=profile, origin=ex.profile_origin, sha256=ex.profile_sha256)
        else:
            said = m("profile {profile} ({source}), sha256 {sha256}").format(
                profile=profile, source=source or ex.profile_origin, sha256=ex.profile_sha256)
        if ex.profile_default is not None:
            said += f"; {m(DEFAULT_WORDS[ex.profile_default])}"
        return said

    def heading_line(self) -> str:
        """Which game or round and session: for the auditor with the file and line of its
        record, for the player without them (a player's sheet names no file of ours)."""
        ex, m = self.ex, self.m
        if self.player:
            if ex.game is not None:
                return m("Game {game}, player {player}, session {session}").format(
                    game=ex.game, player=ex.player_id, session=ex.session)
            return m("Round {number}, session {session}").format(number=ex.number, session=ex.session)
        if ex.game is not None:
            return m("Game {game}, player {player}, session {session} ({file}, line {line})").format(
                game=ex.game, player=ex.player_id, session=ex.session, file=ex.file, line=ex.line)
        return m("Round {number}, session {session} ({file}, line {line})").format(
            number=ex.number, session=ex.session, file=ex.file, line=ex.line)

    def say(self, line: str) -> None:
        """A line of the ruling, as a person reads it: the names in it (a session, game or
        player id, a file) with their control and invisible characters escaped."""
        self.lines.append(printable(line))

    def heading(self, title: str) -> None:
        self.lines.extend(["", title])

    def quote(self, topic: Topic | None) -> None:
        """The profile's words for ``topic``, once a ruling; nothing if it has none."""
        passage = self.ex.profile.rules.get(topic) if topic is not None else None
        if passage is None:
            return
        text, language = passage.quote(self.m.language)
        cite = passage.where(self.m.language)
        if self.player:
            cite = without_references(cite)
        if (cite, text) in self.quoted:
            return
        self.quoted.add((cite, text))
        quoted = f"« {text} »" if language == "fr" else f"\"{text}\""
        if language != self.m.language:
            quoted += " " + self.m("(in French)" if language == "fr" else "(in English)")
        self.say("  " + self.m("{cite}: {quote}").format(cite=cite, quote=quoted))

    def cards(self) -> None:
        m, c, r = self.m, self.ex.ruling.cards, self.ex.ruling
        self.heading(m("Cards as dealt"))
        if r.outcome == "void":
            self.say("  " + m("As recorded (the game was cancelled, so they settle nothing):" if r.cancelled
                              else "As recorded (the deal is void, so not read as cards):"))
            for label, tokens in self.ex.recorded_cards:
                self.say("  " + m("{label}: {cards}").format(
                    label=m(label), cards=" ".join(token_text(t, m) for t in tokens)))
        else:
            rows = [(m("Player"), c.player), (m("Flop"), c.flop), (m("Turn"), (c.turn,) if c.turn is not None else ()),
                    (m("River"), (c.river,) if c.river is not None else ()), (m("Dealer"), c.dealer)]
            width = max(len(label) for label, _ in rows)
            for label, group in rows:
                self.say(f"  {label:<{width}}  {cards_text(group, m) if group else '—'}")
        stakes = ", ".join(f"{m(WAGER_WORDS[line.wager])} {fmt(line.stake)}" for line in r.lines)
        decision = m("Call") if r.call_stake else m("Fold")
        self.say("  " + m("Decision: {decision}; stakes: {stakes}").format(decision=decision, stakes=stakes))

    def void(self) -> None:
        m, r = self.m, self.ex.ruling
        assert r.void is not None
        if r.cancelled:
            self.cancelled()
            return
        self.heading(m("Void deal"))
        self.say("  " + m("The deal is incorrect: {what}.").format(what=m(VOID_WORDS[r.void.kind])))
        self.say("  " + m("Detail: {reason}").format(reason=void_reason_words(r.void.reason, m)))
        self.say("  " + m("Every stake is returned; the round is not counted and is dealt again."))

    def cancelled(self) -> None:
        """A cancelled game: every stake refunded, and what the table did instead, in its
        record and its wallet (the findings, below, say where they differ)."""
        m, ex = self.m, self.ex
        self.heading(m("Cancelled game"))
        self.say("  " + m("The table cancelled the game: every stake is refunded and the game is not counted; "
                          "the rules give 0 to every seat."))
        self.say("  " + recorded_words(ex.recorded, m, cancelled=True))
        if ex.wallet is None:
            self.say("  " + m("No wallet moves are recorded for the seat."))
        else:
            moves = m("Wallet moves: debits {debits}, credits {credits}, cancels and refunds {refunds}.")
            self.say("  " + moves.format(debits=fmt(ex.wallet.debits), credits=fmt(ex.wallet.credits),
                                         refunds=fmt(ex.wallet.refunds)))

    def side(self, label: str, side: Side) -> None:
        m = self.m
        self.say("  " + m("{side}: {hand}: {cards}").format(
            side=label, hand=hand_words(side.hand, m), cards=cards_text(side.play.best_five, m)))
        used = len(side.play.private)
        if used == 0:
            playing = m("the board plays (no private card)")
        elif used == 1:
            playing = m("1 private card plays: {cards}").format(cards=cards_text(side.play.private, m))
        else:
            playing = m("2 private cards play: {cards}").format(cards=cards_text(side.play.private, m))
        self.say("    " + playing)

    def hands(self) -> None:
        m, ex = self.m, self.ex
        self.heading(m("Best five of seven"))
        if ex.player is not None:
            self.side(m("Player"), ex.player)
        if ex.dealer is not None:
            self.side(m("Dealer"), ex.dealer)
        self.quote(Topic.BEST_FIVE)

    def qualification(self) -> None:
        m, ex = self.m, self.ex
        self.heading(m("Qualification"))
        if ex.dealer is None:
            return
        words = dict(hand=hand_words(ex.dealer.hand, m), threshold=threshold_words(ex.profile.dealer_qualifier, m))
        if ex.ruling.dealer_qualified:
            self.say("  " + m("The dealer qualifies: {hand} is {threshold}.").format(**words))
        else:
            self.say("  " + m("The dealer does not qualify ({threshold} needed): {hand}.").format(**words))
            self.say("  " + m("The hands are not compared: the Ante is paid and the Call returned."))
        self.quote(Topic.QUALIFICATION)

    def comparison(self) -> None:
        m, tb = self.m, self.ex.comparison
        if tb is None:
            return
        self.heading(m("Comparison"))
        for line in comparison_lines(tb, m):
            self.say("  " + line)
        ex = self.ex
        if tb.winner == "tie" and ex.player and ex.dealer and not ex.player.play.private and not ex.dealer.play.private:
            self.say("  " + m("The board plays for both: a tie."))
        if tb.winner == "player":
            self.say("  " + m("The dealer qualifies but loses."))
        elif tb.winner == "dealer":
            self.say("  " + m("The qualified dealer wins."))
        self.quote(Topic.RANKING)

    def settlement(self) -> None:
        m, r = self.m, self.ex.ruling
        self.heading(m("Settlement"))
        for line in r.lines:
            self.say("  " + m("{wager} {stake}: {result}: {why}").format(
                wager=m(WAGER_WORDS[line.wager]), stake=fmt(line.stake), result=result_words(line, m),
                why=self.why(line)))
        self.say("  " + m("Net {net}; total returned with the stakes {returned}.").format(
            net=signed(r.net), returned=fmt(r.returned)))
        for line in r.lines:
            self.quote(topic_of(line.rule))

    def why(self, line: Line) -> str:
        """The rule in words: one sentence a rule, and mypy checks that none is missing."""
        m, ex = self.m, self.ex
        category = m(CATEGORY_WORDS[line.category]) if line.category else ""
        odds = fmt(line.odds) if line.odds is not None else ""
        match line.rule:
            case Rule.ANTE_PAYTABLE:
                return m("Ante paytable, {category} {odds}:1").format(category=category, odds=odds)
            case Rule.EVEN_MONEY:
                return m("even money: the dealer does not qualify")
            case Rule.CALL_ODDS:
                return m("the Call pays {odds}:1 when the player beats a qualified dealer").format(odds=odds)
            case Rule.CALL_RETURNED:
                return m("the dealer does not qualify")
            case Rule.CALL_RETURNED_ON_WIN:
                return m("the profile returns the Call when the player beats a qualified dealer")
            case Rule.PUSH:
                return m("exact tie: the stake is returned")
            case Rule.BONUS_MISSED:
                minimum = ex.profile.bonus.minimum if ex.profile.bonus else None
                below = threshold_words(minimum, m) if minimum else ""
                return m("the player's five cards are not {minimum}").format(minimum=below)
            case Rule.DEALER_WINS:
                return m("the qualified dealer wins")
            case Rule.FOLDED:
                return m("lost by the fold")
            case Rule.FORFEITED:
                return m("the fold forfeits the bonus")
            case Rule.BONUS_PAYTABLE:
                name = ex.profile.bonus.name if ex.profile.bonus else ""
                return m("{name} paytable, {category} {odds}:1").format(name=name, category=category, odds=odds)
            case Rule.NOT_OFFERED:
                return m("the profile has no bonus")
            case Rule.VOID:
                return m("the deal is void: every stake is returned")
            case Rule.CANCELLED:
                return m("the game was cancelled: every stake is refunded")
            case _:
                assert_never(line.rule)

    def record(self) -> None:
        m, ex = self.m, self.ex
        self.heading(m("The record"))
        if not ex.findings:
            self.say("  " + m("The record agrees with the ruling (or records nothing more to check)."))
            return
        for f in ex.findings:
            self.say("  " + finding_words(f.code, f.field, f.recorded, f.expected, f.message, m, self.player))
