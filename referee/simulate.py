"""Dealing realistic sessions under a profile, optionally with the faults tables make.

Reproducibility: one ``random.Random(seed)`` (Python's MT19937, whose seeding and
``sample`` algorithm have been stable since Python 3.2) drives everything, in a fixed
order: the same arguments and seed give byte-identical output on any machine.

Each round deals nine cards with ``Random.sample`` over the 52: the first nine cards
of a uniformly shuffled full deck (§07), without shuffling the 43 that are never seen.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from copy import deepcopy
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from random import Random
from typing import Literal, TextIO

from .audit.ledger import advance, judge, lose_track, reanchor
from .audit.ledger import opening as ledger_opening
from .models import codes
from .models.codes import FindingCode
from .models.rounds import FORMAT_VERSION
from .models.written import InjectedFault, RecordedLine, RoundLine, SessionLine
from .policies import POLICIES as POLICIES
from .policies import Policy as Policy
from .rules.cards import DECK, Card
from .rules.evaluator import CATEGORY_NAMES
from .rules.hands import evaluate
from .rules.money import dumps, plain
from .rules.profile import Profile
from .rules.settlement import Deal, Ruling, settle
from .rules.strategy import bonus_edge, should_call

#: Every fault kind and the one finding it must give (the manifest says so per fault).
FAULTS: dict[str, FindingCode] = {
    "wrong_net": codes.P004,          # net +1 and the balance carries it (the wallet was paid wrong)
    "net_only": codes.P004,           # net +1 beside a right balance (only the field was wrong)
    "wrong_wager": codes.P001,        # the Ante's result +1
    "wrong_balance": codes.P005,      # balance +5, carried on by the table
    "balance_slip": codes.P005,       # balance +7 this round only, right again the next
    "wrong_hand": codes.K001,         # the next category
    "mistyped_field": codes.H001,     # player_hand spelt "two pairs": the round is still ruled
    "duplicate_card": codes.V001,     # a card twice, settled as valid
    "missing_river": codes.V001,      # a call without a river, settled as valid
    "non_card_token": codes.V001,     # a transcription slip ("Kdd"), settled as valid
    "void_as_loss": codes.V001,       # a card twice, recorded as a loss
    "recorded_void": codes.V002,      # a valid deal recorded void, replayed under its number
    "skipped_round": codes.S004,
    "repeated_round": codes.S003,     # a round numbered as the one before
    "duplicated_record": codes.S003,  # the same record written twice
    "swapped_rounds": codes.S009,     # two rounds written in each other's place: the late one is out of order
    "changed_stake": codes.S002,      # one round at twice the Ante
    "wrong_call_stake": codes.S001,   # call: 2 × Ante on a fold, or 1 × Ante on a call
    "broken_line": codes.H004,        # JSON Lines only: a round line cut short
    "broken_session_line": codes.H004,  # JSON Lines only: a session line cut short
}
#: Void deals the table settled as valid: the audit keeps the rules' chain from before
#: beside the table's (docs/ledger.md), so the table may correct itself next round.
SETTLED_VOID = ("duplicate_card", "missing_river", "non_card_token", "void_as_loss")
#: The steps of the balance faults (``_inject``).
BALANCE_STEPS = {"wrong_balance": Decimal(5), "balance_slip": Decimal(7)}
#: Faults of the JSON Lines text itself, drawn only when writing JSON Lines.
LINE_FAULTS = ("broken_line", "broken_session_line")
#: What a recorded result says of the hands, dropped where a table records none.
_HANDS: tuple[Literal["player_hand", "dealer_hand", "dealer_qualified"], ...] = (
    "player_hand", "dealer_hand", "dealer_qualified")
#: A recorded result's stakes, dropped where the table records the round void.
_STAKES: tuple[Literal["ante", "call", "bonus"], ...] = ("ante", "call", "bonus")
#: Faults whose rounds the table voids and replays.
VOID_FAULTS = ("duplicate_card", "missing_river", "non_card_token", "void_as_loss", "recorded_void")


@dataclass(slots=True)
class Injected:
    session: str
    round: int | None
    kind: str
    code: FindingCode
    ordinal: int = 0
    line: int | None = None
    record: RoundLine | SessionLine | None = None

    def as_dict(self) -> InjectedFault:
        """``round`` is the number as written in the file; ``ordinal`` the round's position;
        ``codes`` every finding the fault must give; ``line`` where (JSON Lines output)."""
        return {"session": self.session, "round": self.round, "ordinal": self.ordinal, "kind": self.kind,
                "code": self.code, "codes": [self.code], "line": self.line}


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
    #: The output format: faults of the JSON Lines text are drawn only for ``jsonl``.
    format: str = "yaml"
    #: What the sessions' ``profile`` field says: the profile's name by default; for a
    #: profile file, a path that ``referee check`` resolves (see ``referee.cli._profile_reference``).
    profile_reference: str | None = None
    #: The records whose JSON Lines line is written cut short (``broken_line``,
    #: ``broken_session_line``), by ``id``; the value keeps the record alive so that
    #: no other record can take its ``id``.
    broken: dict[int, object] = field(default_factory=dict)


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


def recorded_result(ruling: Ruling, balance: Decimal) -> RecordedLine:
    """A round's ``recorded`` fields as a table would write them, in their order: shared
    by the single-seat simulation and simulate --seats (simulate_table.py) so that both
    write the same shape. The bonus is there when one was staked."""
    recorded: RecordedLine = {"outcome": ruling.outcome}
    if ruling.player_hand is not None:
        recorded["player_hand"] = ruling.player_hand.category
    if ruling.dealer_hand is not None:
        recorded["dealer_hand"] = ruling.dealer_hand.category
        recorded["dealer_qualified"] = ruling.dealer_qualified
    recorded["ante"] = plain(ruling.ante)
    recorded["call"] = plain(ruling.call)
    if ruling.bonus_stake:
        recorded["bonus"] = plain(ruling.bonus)
    recorded["net"] = plain(ruling.net)
    recorded["balance"] = plain(balance)
    return recorded


class _Session:
    """Deals one session's rounds with its running numbering and balances.

    Faults are drawn where the audit can see them: a fault the state around it would
    hide (a wrong balance right after a round whose nets are unreadable, a second slip
    on a slip, a stake change that would become the session's stake) is not drawn
    there; docs/ledger.md says why each is undetectable.
    """

    def __init__(self, settings: Settings, rng: Random, session_id: str) -> None:
        self.s = settings
        self.rng = rng
        self.id = session_id
        self.balance = opening_balance(settings)
        self.number_shift = 0
        self.balance_drift = Decimal(0)
        self.last_void = False
        self.last_fault: str | None = None
        self.antes = [0, 0]  # rounds at the session's Ante, at a changed one
        self.slip = Decimal(0)
        #: The balance chain as the audit reads it, to draw no balance fault it cannot see.
        self.chain = ledger_opening(self.balance)
        self.last_net = Decimal(0)  # the rules' net of the round just dealt

    def rounds(self) -> Iterator[RoundLine]:
        counted = 0
        number = 0
        while counted < self.s.rounds:
            number += 1
            fault = self._draw_fault(number, self.s.rounds - counted)
            if fault == "swapped_rounds":
                yield from self._swapped(number)
                number += 1
                counted += 2
                continue
            record, void = self._round(number, fault)
            self.last_void = void
            self.last_fault = fault
            self._chain(fault, record)
            counted += not void
            yield record
            if fault == "duplicated_record":
                copy = deepcopy(record)
                self.s.manifest[-1].record = copy
                yield copy

    def _swapped(self, number: int) -> Iterator[RoundLine]:
        """Rounds ``number`` and ``number + 1``, dealt and settled in that order (each
        balance follows the one before in play), written the other way round."""
        first, _ = self._round(number, None)
        self._chain(None, first)
        second, _ = self._round(number + 1, None)
        self._chain(None, second)
        self.s.manifest.append(Injected(self.id, first["round"], "swapped_rounds", FAULTS["swapped_rounds"], number,
                                        record=first))
        self.last_void = False
        self.last_fault = "swapped_rounds"
        yield second
        yield first

    def _chain(self, fault: str | None, record: RoundLine) -> None:
        """The round on the balance chain as the audit reads it (``referee.audit.ledger``,
        docs/ledger.md): which balances the audit would take as right next round."""
        recorded = record["recorded"]
        if fault == "broken_line":
            self.chain = lose_track(self.chain)  # its nets cannot be read
            return
        table_net = Decimal(str(recorded["net"]))
        ruled_net = Decimal(0) if fault in SETTLED_VOID else self.last_net
        self.chain = advance(self.chain, table_net, ruled_net)
        balance = Decimal(str(recorded["balance"]))
        broke = judge(self.chain, balance) is not None
        self.chain = reanchor(self.chain, balance, broke, None, keep=fault in SETTLED_VOID and table_net != 0)

    def _hidden_steps(self) -> set[str]:
        """The balance faults the audit would not see next round: a wrong balance that
        follows from some anchor it keeps (after a void deal the table paid, the rules'
        chain from before it reads as the table correcting itself)."""
        anchors = self.chain.anchors
        if not anchors or anchors[0].table is None:
            return set()
        table = anchors[0].balance + anchors[0].table
        offsets = {a.balance + since - table for a in anchors for since in (a.table, a.ruled) if since is not None}
        return {kind for kind, step in BALANCE_STEPS.items() if step in offsets}

    def _draw_fault(self, number: int, left: int) -> str | None:
        if not self.s.faults or self.rng.random() >= self.s.faults:
            return None
        excluded = {"broken_session_line"}
        if left < 2 or number == 1 or self.last_void or self.last_fault in ("skipped_round", "repeated_round",
                                                                                "broken_line"):
            excluded.add("swapped_rounds")  # two rounds it has, after a round in its place
        if self.s.format != "jsonl":
            excluded |= set(LINE_FAULTS)
        if number == 1 or self.last_void:
            # A repeated or skipped number right after a void deal would read as its replay (§07).
            excluded |= {"changed_stake", "repeated_round", "skipped_round", "broken_line"}
        if self.last_fault == "broken_line":
            excluded |= {"wrong_balance", "balance_slip"}  # no chain to check them against
        if self.last_fault == "repeated_round":
            excluded.add("repeated_round")  # the number one less was never used: it would be in order
        if self.last_fault == "skipped_round":
            # The next number would continue the sequence from before the skip: the skipped
            # round would read as one misnumbered round (docs/ledger.md, "Numbering").
            excluded.add("repeated_round")
        if self.last_fault == "balance_slip":
            excluded |= {"balance_slip"}  # a second slip of the same size reads as the first carried on
        excluded |= self._hidden_steps()
        if self.antes[0] < self.antes[1] + 1 or not self.s.profile.fixed_stakes:
            excluded.add("changed_stake")  # it would be the session's stake, not an odd one
        kinds = [k for k in FAULTS if k not in excluded]
        return kinds[self.rng.randrange(len(kinds))]

    def _round(self, number: int, fault: str | None) -> tuple[RoundLine, bool]:
        cards = [DECK[i] for i in self.rng.sample(range(52), 9)]
        player, dealer, flop, turn, river = cards[0:2], cards[2:4], cards[4:7], cards[7], cards[8]
        ante = self.s.ante * 2 if fault == "changed_stake" else self.s.ante
        if fault != "broken_line":
            self.antes[ante != self.s.ante] += 1
        bonus = self.s.bonus if self.s.profile.bonus is not None else Decimal(0)
        call = _decide(self.s, player, flop, ante, bonus)
        if self.s.profile.call_requires_funds and self.balance < ante * (1 + self.s.profile.call_multiple) + bonus:
            call = False  # cannot cover the Call: must fold (docs/rules.md#caribbean-the-rules-of-the-game)
        if fault == "missing_river" and not call:
            fault = "duplicate_card"
        deal = Deal(ante, player, flop, "call" if call else "fold", turn if call else None,
                    river if call else None, dealer if call else None, bonus)
        ruling = settle(self.s.profile, deal)
        self.last_net = ruling.net
        record = self._record(number, deal, ruling)
        if fault is not None:
            self._inject(fault, record, number, ruling)
        return record, fault in VOID_FAULTS

    def _record(self, number: int, deal: Deal, ruling: Ruling) -> RoundLine:
        self.balance += ruling.net
        record: RoundLine = {"round": number + self.number_shift, "ante": plain(deal.ante)}
        if deal.bonus:
            record["bonus"] = plain(deal.bonus)
        record["player"] = [str(c) for c in deal.player]
        record["flop"] = [str(c) for c in deal.flop]
        record["decision"] = deal.decision
        if deal.decision == "call":
            record["turn"] = str(deal.turn)
            record["river"] = str(deal.river)
            record["dealer"] = [str(c) for c in deal.dealer or ()]
        record["recorded"] = {"void": False, **recorded_result(ruling, self.balance + self.balance_drift)}
        return record

    def _inject(self, kind: str, record: RoundLine, number: int, ruling: Ruling) -> None:
        recorded = record["recorded"]
        if kind in ("wrong_net", "net_only"):
            recorded["net"] = plain(Decimal(str(recorded["net"])) + 1)
            if kind == "wrong_net":
                recorded["balance"] = plain(Decimal(str(recorded["balance"])) + 1)
                self.balance_drift += 1
        elif kind == "wrong_wager":
            recorded["ante"] = plain(Decimal(str(recorded["ante"])) + 1)
        elif kind in ("wrong_balance", "balance_slip"):
            step = BALANCE_STEPS[kind]
            self.balance_drift += step if kind == "wrong_balance" else 0
            recorded["balance"] = plain(Decimal(str(recorded["balance"])) + step)
        elif kind == "wrong_hand":
            current = CATEGORY_NAMES.index(recorded["player_hand"])
            recorded["player_hand"] = CATEGORY_NAMES[(current + 1) % len(CATEGORY_NAMES)]
        elif kind == "mistyped_field":  # "two pairs": no category however written ("two pair" is one)
            recorded["player_hand"] = str(recorded["player_hand"]).replace("_", " ") + "s"
        elif kind in ("duplicate_card", "void_as_loss"):
            record["flop"][2] = record["player"][0]
            if kind == "void_as_loss":
                self._settle_as(recorded, ruling, -ruling.staked, "lose")
        elif kind == "missing_river":
            del record["river"]
        elif kind == "non_card_token":
            record["flop"][1] += record["flop"][1][-1]  # "Kd" -> "Kdd": one deletion away from the card
        elif kind == "recorded_void":
            for name in _HANDS:
                recorded.pop(name, None)
            for stake in _STAKES:
                recorded.pop(stake, None)
            self._settle_as(recorded, ruling, Decimal(0), "void")
            recorded["void"] = True
            self.number_shift -= 1  # the table replays the deal under the same number (§07)
        elif kind == "skipped_round":
            self.number_shift += 1
            record["round"] += 1
        elif kind == "repeated_round":
            record["round"] -= 1
        elif kind == "changed_stake":
            pass  # dealt at twice the Ante in _round
        elif kind == "wrong_call_stake":
            record["call"] = plain(Decimal(str(record["ante"])) * (2 if record["decision"] == "fold" else 1))
        elif kind == "broken_line":
            self.s.broken[id(record)] = record
        self.s.manifest.append(Injected(self.id, record["round"], kind, FAULTS[kind], number, record=record))

    def _settle_as(self, recorded: RecordedLine, ruling: Ruling, net: Decimal, outcome: str) -> None:
        """The table settled the round with ``net`` instead of the rules' net; its balance follows."""
        self.balance_drift += net - ruling.net
        recorded["outcome"] = outcome
        recorded["net"] = plain(net)
        recorded["balance"] = plain(self.balance + self.balance_drift)
        if outcome == "lose":
            for name in _HANDS:
                recorded.pop(name, None)
            recorded["ante"] = plain(-ruling.ante_stake)
            recorded["call"] = plain(-ruling.call_stake)
            if "bonus" in recorded:
                recorded["bonus"] = plain(-ruling.bonus_stake)


def opening_balance(settings: Settings) -> Decimal:
    """0, or where the profile needs funds for the Call a bankroll of 100 full rounds' stakes."""
    if not settings.profile.call_requires_funds:
        return Decimal(0)
    return 100 * (settings.ante * (1 + settings.profile.call_multiple) + settings.bonus)


def simulate(settings: Settings) -> Iterator[tuple[SessionLine, list[RoundLine]]]:
    """Each session's header and its rounds, in order."""
    rng = Random(settings.seed)
    for index in range(settings.sessions):
        session_id = f"sim-{settings.profile.name}-{settings.seed}-{index + 1}"
        header: SessionLine = {"id": session_id, "profile": settings.profile_reference or settings.profile.name,
                  "rounds_agreed": settings.rounds,
                  "opening_balance": plain(opening_balance(settings))}
        broken = settings.faults > 0 and settings.format == "jsonl" and rng.random() < settings.faults / 2
        first = len(settings.manifest)
        dealer = _Session(settings, rng, session_id)
        rounds = list(dealer.rounds())
        if broken:
            # Its rounds belong to no session: the faults in them are never audited; one
            # finding at the session line says how many rounds were skipped.
            del settings.manifest[first:]
            settings.broken[id(header)] = header
            settings.manifest.append(Injected(session_id, None, "broken_session_line",
                                              FAULTS["broken_session_line"], record=header))
        yield header, rounds


_NOT_YAML = re.compile("[\x7f-\x9f\ufeff\ufffe\uffff]")


def _flow(value: object) -> str:
    """A JSON scalar or flow list, which YAML reads alike, with the characters YAML
    forbids raw (DEL, C1 controls, BOM) escaped as JSON escapes them."""
    return _NOT_YAML.sub(lambda m: f"\\u{ord(m.group()):04x}", dumps(value, ensure_ascii=False))


def yaml_session(header: Mapping[str, object], rounds: Sequence[Mapping[str, object]]) -> str:
    """A session as block YAML; values are JSON scalars and flow lists, which YAML reads alike."""
    lines = ["session:"] + [f"  {k}: {_flow(v)}" for k, v in header.items()] + ["rounds:"]
    for r in rounds:
        first = True
        for key, value in r.items():
            prefix = "  - " if first else "    "
            first = False
            if key == "recorded" and isinstance(value, Mapping):
                lines.append(f"{prefix}recorded:")
                lines.extend(f"      {k}: {_flow(v)}" for k, v in value.items())
            else:
                lines.append(f"{prefix}{key}: {_flow(value)}")
    return "\n".join(lines) + "\n"


def write(settings: Settings, fmt: str, out: TextIO) -> None:
    """Write every session in ``yaml`` (one document each), ``json`` or ``jsonl``.

    For JSON Lines the manifest also gets the line of each fault."""
    settings.format = fmt
    if fmt == "json":
        out.write(f'{{"version": {FORMAT_VERSION}, "sessions": [')
    line = 0
    for index, (header, rounds) in enumerate(simulate(settings)):
        if fmt == "yaml":
            out.write(("---\n" if index else "") + yaml_session(header, rounds))
        elif fmt == "jsonl":
            lines: dict[int, int] = {}
            for record, text in [(header, dumps({"session": header}))] + [
                    (r, dumps(r, separators=(",", ":"))) for r in rounds]:
                line += 1
                lines[id(record)] = line
                out.write((text[: len(text) // 2] if id(record) in settings.broken else text) + "\n")
            for injected in settings.manifest:
                if injected.record is not None and id(injected.record) in lines:
                    injected.line = lines[id(injected.record)]
        else:
            body = dumps({"session": header, "rounds": rounds}, indent=1)
            out.write(("," if index else "") + "\n" + body)
    if fmt == "json":
        out.write("\n]}\n")
