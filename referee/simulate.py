"""Dealing realistic sessions under a profile, optionally with the faults tables make.

Reproducibility: one ``random.Random(seed)`` (Python's MT19937, whose seeding and
``sample`` algorithm have been stable since Python 3.2) drives everything, in a fixed
order: the same arguments and seed give byte-identical output on any machine.

Each round deals nine cards with ``Random.sample`` over the 52: the first nine cards
of a uniformly shuffled full deck (§07), without shuffling the 43 that are never seen.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from random import Random
from typing import Any, Literal

from .audit import codes
from .audit.codes import FindingCode
from .rules.cards import DECK, Card
from .rules.evaluator import CATEGORY_NAMES
from .rules.hands import evaluate
from .rules.money import dumps, plain
from .rules.profile import Profile
from .rules.settlement import Deal, Ruling, settle
from .rules.strategy import bonus_edge, should_call

Policy = Literal["always-call", "simple", "optimal"]
POLICIES = ("always-call", "simple", "optimal")
FAULTS: dict[str, FindingCode] = {
    "wrong_net": codes.P004,
    "wrong_wager": codes.P001,
    "wrong_balance": codes.P005,
    "wrong_hand": codes.K001,
    "duplicate_card": codes.V001,
    "missing_river": codes.V001,
    "skipped_round": codes.S004,
    "repeated_round": codes.S003,
    "changed_stake": codes.S002,
}


@dataclass(slots=True)
class Injected:
    session: str
    round: int
    kind: str
    code: FindingCode
    ordinal: int = 0

    def as_dict(self) -> dict[str, Any]:
        """``round`` is the number as written in the file; ``ordinal`` the round's position."""
        return {"session": self.session, "round": self.round, "ordinal": self.ordinal, "kind": self.kind,
                "code": self.code}


@dataclass(slots=True)
class Settings:
    profile: Profile
    sessions: int = 1
    rounds: int = 20
    seed: int = 0
    policy: Policy = "always-call"
    ante: Decimal = Decimal(1)
    bonus: Decimal = Decimal(0)
    faults: float = 0.0
    manifest: list[Injected] = field(default_factory=list)


def simple_policy(player: list[Card], flop: list[Card]) -> bool:
    """A published-style rule of thumb: call with a pair or better, an ace or a king,
    four to a flush, or four to an open-ended straight; fold the rest."""
    five = player + flop
    if evaluate(five).category != "high_card":
        return True
    if any(c.rank >= 11 for c in player):
        return True
    suits = [c.suit for c in five]
    if max(suits.count(s) for s in range(4)) >= 4:
        return True
    ranks = {c.rank for c in five}
    return any(all(r + i in ranks for i in range(4)) for r in range(0, 9))


def optimal_policy(profile: Profile, player: list[Card], flop: list[Card], ante: Decimal, bonus: Decimal) -> bool:
    """Call exactly when the exact expected value of calling beats folding.

    Read from the decision table shipped with a built-in profile's PAR sheet (instant),
    else computed over all 1,070,190 completions (about 0.3 s). A bonus that a fold
    would forfeit changes the value of calling, so it is always computed then.
    """
    from .analysis.sheet import optimal_table

    edge = Fraction(0)
    if bonus:
        edge = bonus_edge(profile, evaluate(player + flop).value, Fraction(ante), Fraction(bonus))
    table = optimal_table(profile) if not edge else None
    if table is not None:
        return table.calls([int(c) for c in player], [int(c) for c in flop])
    return should_call(profile, [int(c) for c in player], [int(c) for c in flop], edge)


def _decide(settings: Settings, player: list[Card], flop: list[Card], ante: Decimal, bonus: Decimal) -> bool:
    if settings.policy == "always-call":
        return True
    if settings.policy == "optimal":
        return optimal_policy(settings.profile, player, flop, ante, bonus)
    return simple_policy(player, flop)


class _Session:
    """Deals one session's rounds with its running numbering and balances."""

    def __init__(self, settings: Settings, rng: Random, session_id: str) -> None:
        self.s = settings
        self.rng = rng
        self.id = session_id
        self.balance = opening_balance(settings)
        self.number_shift = 0
        self.balance_drift = Decimal(0)
        self.last_void = False

    def rounds(self) -> Iterator[dict[str, Any]]:
        counted = 0
        number = 0
        while counted < self.s.rounds:
            number += 1
            fault = self._draw_fault(number)
            record, void = self._round(number, fault)
            self.last_void = void
            counted += not void
            yield record

    def _draw_fault(self, number: int) -> str | None:
        if not self.s.faults or self.rng.random() >= self.s.faults:
            return None
        # A repeated number right after a void deal would read as its replay (§07), so not there.
        first_or_replay = number == 1 or self.last_void
        kinds = [k for k in FAULTS if not first_or_replay or k not in ("changed_stake", "repeated_round")]
        return kinds[self.rng.randrange(len(kinds))]

    def _round(self, number: int, fault: str | None) -> tuple[dict[str, Any], bool]:
        cards = [DECK[i] for i in self.rng.sample(range(52), 9)]
        player, dealer, flop, turn, river = cards[0:2], cards[2:4], cards[4:7], cards[7], cards[8]
        ante = self.s.ante * 2 if fault == "changed_stake" else self.s.ante
        bonus = self.s.bonus if self.s.profile.bonus is not None else Decimal(0)
        call = _decide(self.s, player, flop, ante, bonus)
        if self.s.profile.call_requires_funds and self.balance < ante * (1 + self.s.profile.call_multiple) + bonus:
            call = False  # cannot cover the Call: the player must fold (seeds/004)
        if fault == "missing_river" and not call:
            fault = "duplicate_card"
        deal = Deal(ante, player, flop, "call" if call else "fold", turn if call else None,
                    river if call else None, dealer if call else None, bonus)
        ruling = settle(self.s.profile, deal)
        record = self._record(number, deal, ruling)
        if fault is not None:
            self._inject(fault, record, number)
        return record, fault in ("duplicate_card", "missing_river")

    def _record(self, number: int, deal: Deal, ruling: Ruling) -> dict[str, Any]:
        self.balance += ruling.net
        record: dict[str, Any] = {"round": number + self.number_shift, "ante": plain(deal.ante)}
        if deal.bonus:
            record["bonus"] = plain(deal.bonus)
        record["player"] = [str(c) for c in deal.player]
        record["flop"] = [str(c) for c in deal.flop]
        record["decision"] = deal.decision
        if deal.decision == "call":
            record["turn"] = str(deal.turn)
            record["river"] = str(deal.river)
            record["dealer"] = [str(c) for c in deal.dealer or ()]
        recorded: dict[str, Any] = {"void": False, "outcome": ruling.outcome}
        if ruling.player_hand is not None:
            recorded["player_hand"] = ruling.player_hand.category
        if ruling.dealer_hand is not None:
            recorded["dealer_hand"] = ruling.dealer_hand.category
            recorded["dealer_qualified"] = ruling.dealer_qualified
        recorded["ante"] = plain(ruling.ante)
        recorded["call"] = plain(ruling.call)
        if deal.bonus:
            recorded["bonus"] = plain(ruling.bonus)
        recorded["net"] = plain(ruling.net)
        recorded["balance"] = plain(self.balance + self.balance_drift)
        record["recorded"] = recorded
        return record

    def _inject(self, kind: str, record: dict[str, Any], number: int) -> None:
        recorded = record["recorded"]
        if kind == "wrong_net":
            recorded["net"] = plain(Decimal(str(recorded["net"])) + 1)
            recorded["balance"] = plain(Decimal(str(recorded["balance"])) + 1)
            self.balance_drift += 1
        elif kind == "wrong_wager":
            recorded["ante"] = plain(Decimal(str(recorded["ante"])) + 1)
        elif kind == "wrong_balance":
            self.balance_drift += 5
            recorded["balance"] = plain(Decimal(str(recorded["balance"])) + 5)
        elif kind == "wrong_hand":
            current = CATEGORY_NAMES.index(recorded["player_hand"])
            recorded["player_hand"] = CATEGORY_NAMES[(current + 1) % len(CATEGORY_NAMES)]
        elif kind == "duplicate_card":
            record["flop"][2] = record["player"][0]
        elif kind == "missing_river":
            del record["river"]
        elif kind == "skipped_round":
            self.number_shift += 1
            record["round"] += 1
        elif kind == "repeated_round":
            record["round"] -= 1
        self.s.manifest.append(Injected(self.id, record["round"], kind, FAULTS[kind], number))


def opening_balance(settings: Settings) -> Decimal:
    """0, or where the profile needs funds for the Call a bankroll of 100 full rounds' stakes."""
    if not settings.profile.call_requires_funds:
        return Decimal(0)
    return 100 * (settings.ante * (1 + settings.profile.call_multiple) + settings.bonus)


def simulate(settings: Settings) -> Iterator[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """Each session's header and its rounds, in order."""
    rng = Random(settings.seed)
    for index in range(settings.sessions):
        session_id = f"sim-{settings.profile.name}-{settings.seed}-{index + 1}"
        header = {"id": session_id, "profile": settings.profile.name, "rounds_agreed": settings.rounds,
                  "opening_balance": plain(opening_balance(settings))}
        dealer = _Session(settings, rng, session_id)
        yield header, list(dealer.rounds())


_NOT_YAML = re.compile("[\x7f-\x9f\ufeff\ufffe\uffff]")


def _flow(value: Any) -> str:
    """A JSON scalar or flow list, which YAML reads alike, with the characters YAML
    forbids raw (DEL, C1 controls, BOM) escaped as JSON escapes them."""
    return _NOT_YAML.sub(lambda m: f"\\u{ord(m.group()):04x}", dumps(value, ensure_ascii=False))


def yaml_session(header: dict[str, Any], rounds: list[dict[str, Any]]) -> str:
    """A session as block YAML; values are JSON scalars and flow lists, which YAML reads alike."""
    lines = ["session:"] + [f"  {k}: {_flow(v)}" for k, v in header.items()] + ["rounds:"]
    for r in rounds:
        first = True
        for key, value in r.items():
            prefix = "  - " if first else "    "
            first = False
            if key == "recorded":
                lines.append(f"{prefix}recorded:")
                lines.extend(f"      {k}: {_flow(v)}" for k, v in value.items())
            else:
                lines.append(f"{prefix}{key}: {_flow(value)}")
    return "\n".join(lines) + "\n"


def write(settings: Settings, fmt: str, out: Any) -> None:
    """Write every session in ``yaml`` (one document each), ``json`` or ``jsonl``."""
    if fmt == "json":
        out.write('{"version": 1, "sessions": [')
    for index, (header, rounds) in enumerate(simulate(settings)):
        if fmt == "yaml":
            out.write(("---\n" if index else "") + yaml_session(header, rounds))
        elif fmt == "jsonl":
            out.write(dumps({"session": header}) + "\n")
            for r in rounds:
                out.write(dumps(r, separators=(",", ":")) + "\n")
        else:
            body = dumps({"session": header, "rounds": rounds}, indent=1)
            out.write(("," if index else "") + "\n" + body)
    if fmt == "json":
        out.write("\n]}\n")
