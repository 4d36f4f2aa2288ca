"""Issue 44, step 2: what the full audit (``REFEREE_FAST=0``) remembers of a clean seat so
that the next one alike costs less: a memoised ruling copied by hand, the scaled lines of
a memoised settlement, the stakes found right, a partial record's agreement, a seat's
book and its JSON. Each is found again only where it says the same; these check that a
remembered answer never stands for a different question (the golden files and ledger
cases check the reports, both ways)."""

from __future__ import annotations

import json
from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import Any

import msgspec
import pytest

from referee.audit import seats
from referee.audit.compare import agrees
from referee.audit.fast import SHARED_LINES, SettleMemo
from referee.audit.games import GameResult, SeatResult, book, seat_book
from referee.audit.results import Ledger
from referee.audit.stakes import check_placed
from referee.load.plain import fast_round, plain_data
from referee.models import codes
from referee.models.codes import FindingCode
from referee.models.common import Recorded
from referee.models.rounds import Round
from referee.profiles import resolve_profile
from referee.report.table import _seat_json, seat_dict
from referee.rules.profile import Profile
from referee.rules.settlement import Ruling

from .conftest import run

LINE = (b'{"round":1,"ante":1,"player":["4s","3s"],"flop":["7d","5s","5c"],"decision":"call","turn":"9s",'
        b'"river":"Qc","dealer":["Qh","9c"],"recorded":{"void":false,"outcome":"lose","player_hand":"pair",'
        b'"dealer_hand":"two_pair","dealer_qualified":true,"ante":-1,"call":-2,"net":-3,"balance":-3}}')


def _profile(name: str = "vivo") -> Profile:
    loaded = resolve_profile(name, None)
    return loaded.profile


def _round(line: bytes = LINE) -> Round:
    found = fast_round(line)
    assert found is not None
    return msgspec.convert(plain_data(found, 2), Round, strict=True)


def _settled(model: Round, memo: SettleMemo) -> Ruling:
    ruling = memo.settle(model)
    assert ruling is not None
    return ruling


def test_a_memoised_ruling_is_the_ruling_init_makes() -> None:
    """``Ruling.alike`` (a memo's ruling with another deal's cards and hands) and
    ``Ruling.restaked`` (other stakes' lines) make what ``__init__`` makes: equal,
    written alike, with the same sums."""
    memo = SettleMemo(_profile())
    first = _settled(_round(), memo)
    again = _settled(_round(LINE.replace(b'"4s","3s"', b'"4d","3d"')), memo)
    assert again is not first and again.lines is first.lines
    made = Ruling(again.outcome, again.cards, again.lines, None, again.player_hand, again.dealer_hand,
                  again.bonus_hand, again.dealer_qualified)
    assert again == made and repr(again) == repr(made) and (again.net, again.staked) == (made.net, made.staked)
    lines = seats.scaled(first, Decimal(3), Decimal(0)).lines
    restaked = first.restaked(lines, Decimal(-9), Decimal(9), None)
    made = Ruling(first.outcome, first.cards, lines, None, first.player_hand, first.dealer_hand, None,
                  first.dealer_qualified)
    assert restaked == made and (restaked.net, restaked.staked) == (made.net, made.staked) == (Decimal(-9), Decimal(9))


def test_scaled_lines_of_a_memoised_settlement_are_kept_by_stakes_as_written() -> None:
    """A memoised unit settlement at a seat's stakes is scaled once per stakes as written
    (its lines then shared as the memo's); ``2`` and ``2.0`` stay apart (a seat's lines
    keep its stakes as written), and a settlement not memoised is scaled every time."""
    memo = SettleMemo(_profile())
    unit = _settled(_round(), memo)
    two = seats.scaled(unit, Decimal(2), Decimal(0))
    again = seats.scaled(unit, Decimal(2), Decimal(0))
    written = seats.scaled(unit, Decimal("2.0"), Decimal(0))
    assert again.lines is two.lines and SHARED_LINES[id(two.lines)] is two.lines
    assert written.lines is not two.lines and str(written.lines[0].stake) == "2.0"
    assert two.net == -6 and two.staked == 6
    alone = Ruling(unit.outcome, unit.cards, tuple(list(unit.lines)), None, unit.player_hand, unit.dealer_hand,
                   None, unit.dealer_qualified)  # the same settlement, not the memo's lines
    assert seats.scaled(alone, Decimal(2), Decimal(0)).lines is not seats.scaled(alone, Decimal(2), Decimal(0)).lines


def test_a_partial_record_that_agreed_once_does_not_stand_for_one_that_differs() -> None:
    """A record leaving fields out is remembered as agreeing with its settlement; a record
    that differs in a field it gives still disagrees, and the same fields agree with no
    other settlement than their own."""
    memo = SettleMemo(_profile())
    ruling = _settled(_round(), memo)
    partial = Recorded(outcome="lose", ante=Decimal(-1), call=Decimal(-2), net=Decimal(-3))
    assert agrees(partial, ruling) and agrees(partial, ruling)
    assert not agrees(msgspec.structs.replace(partial, net=Decimal(-4)), ruling)
    win = _settled(_round(LINE.replace(b'"4s","3s"', b'"7s","7h"')), memo)
    assert win.outcome == "win" and not agrees(partial, win)


def test_stakes_found_right_are_checked_again_under_other_rules() -> None:
    """S008 and S001 are remembered as passed for the stakes and the rules they were
    judged under: the same Ante under a coarser increment is still found."""
    vivo = _profile()
    found: list[tuple[Any, ...]] = []

    def emit(code: FindingCode, message: str, field: str, expected: Any, recorded: Any) -> None:
        found.append((code, message, field, expected, recorded))

    ante = Decimal("1.5")
    fine = vivo.model_copy(update={"stake_increment": Decimal("0.5")})
    coarse = vivo.model_copy(update={"stake_increment": Decimal(1)})
    for _ in range(2):
        assert check_placed(ante, Decimal(0), None, "call", fine, emit) == 3
    assert not found
    check_placed(ante, Decimal(0), None, "call", coarse, emit)
    assert [f[0] for f in found] == [codes.S008]
    found.clear()
    check_placed(ante, Decimal(0), Decimal(2), "call", fine, emit)  # the same stakes but a Call: S001
    assert [f[0] for f in found] == [codes.S001]


def test_a_seat_counted_by_its_book_is_booked_as_book_does() -> None:
    """A seat ruled valid that owes nothing is counted by its book; the ledger it makes
    once read equals the one ``book`` makes field by field. A seat whose table paid
    otherwise (an amount owed) has no book."""
    memo = SettleMemo(_profile())
    model = _round()
    ruling = _settled(model, memo)
    seat = SeatResult(None, "log", 2, record=model, ruling=ruling)
    counted, added = Ledger(), Ledger()
    entry = seat_book(seat)
    assert entry is not None and seat_book(seat) is entry
    entry.add(counted, 3)
    for _ in range(3):
        book(seat, added)
    added.recorded_closing_balance = None  # the caller's to set, once the ledger is read
    assert counted == added
    owing = _round(LINE.replace(b'"net":-3', b'"net":-2'))
    assert seat_book(SeatResult(None, "log", 2, record=owing, ruling=_settled(owing, memo))) is None


def test_a_full_path_seat_is_written_as_its_dict(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A format-2 seat without findings whose settlement is a memo's is written from its
    settlement's text: the same bytes as its whole dict, for seats alike in all but
    their ids, lines and balances."""
    log = tmp_path / "table.jsonl"
    assert run("simulate", "--rounds", "60", "--seats", "2-6", "--seed", "3", "--output", str(log))[0] == 0
    monkeypatch.setenv("REFEREE_FAST", "0")
    from referee.audit.stream import Options, audit_source
    from referee.load.inputs import Source
    from referee.rules.money import dumps

    def dump(value: Any) -> str:
        return dumps(value, ensure_ascii=False, separators=(",", ":"))

    written = 0
    for event in audit_source(Source(str(log), log), Options()):
        if isinstance(event, GameResult):
            for seat in event.seats:
                assert _seat_json(seat, dump) == dump(seat_dict(seat))
                written += seat.ruling is not None and not seat.findings
                for odd in ('p"1', "p\\1", "p\n1", "pé\u20281", None):  # ids JSON escapes, or not ASCII
                    other = replace(seat, player_id=odd)
                    assert _seat_json(other, dump) == dump(seat_dict(other))
    assert written > 100
    assert json.loads(run("check", str(log), "--format", "json")[1])["sessions"]
