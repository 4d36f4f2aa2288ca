"""Profiles people can write (issue 20): every problem at once with its line, did-you-mean,
plain words; the notations the tool prints; ``referee profiles --template``."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from referee.profile_template import TEMPLATE
from referee.profiles import ProfileError, parse_profile, resolve_profile
from referee.rules.category import Category

from .conftest import SAMPLES, check_json, run

#: What is not a rule of play: the name, the words about the profile and the rule texts it quotes.
RULES_ONLY = {"name", "description", "source", "rules"}

BAD = """\
name: house
description: my house
ante_paytable:
  royal_flush: 100:1
  straight_flush: 20:1
  four_of_a_kind: 10 to 1
  full_house: 3:1
  flush: 2:1
  straight: 1:1
  three_of_a_kind: 1:1
  two pairs: 1:1
  pair: 7:3
  high_card: x
call_win_odds: 1:1
ante_when_not_qualifed: paytable
dealer_qualifier: {category: pair, rank: 4}
bonus:
  name: b
  paytable: {flush: 25:1}
  minimum: {categry: flush}
  fold_forfeits: maybe
"""


def problems_of(text: str) -> list[str]:
    with pytest.raises(ProfileError) as caught:
        parse_profile(text.encode(), "house.yaml")
    return [str(p) for p in caught.value.problems]


def test_every_problem_at_once_with_lines_and_did_you_mean() -> None:
    assert problems_of(BAD) == [
        "house.yaml:11: ante_paytable.two_pairs: unknown hand category 'two_pairs'; did you mean 'two_pair'?",
        "house.yaml:12: ante_paytable.pair: odds '7:3' are not an exact decimal; write the net payout per unit, "
        "e.g. 2.3333",
        "house.yaml:13: ante_paytable.high_card: expected a number (odds may be written 3:1), got 'x'",
        "house.yaml:15: ante_when_not_qualifed: unknown key; did you mean 'ante_when_not_qualified'?",
        "house.yaml:20: bonus.minimum.category: required key is missing",
        "house.yaml:20: bonus.minimum.categry: unknown key; did you mean 'category'?",
        "house.yaml:21: bonus.fold_forfeits: expected true or false, got 'maybe'",
    ]


def test_no_raw_pydantic_text() -> None:
    texts = [
        BAD, TEMPLATE.replace("call_multiple: 2", "call_multiple: -1").replace("name: house", "name: My House"),
        TEMPLATE.replace("  pair: 1:1\n", "").replace("rank: 4", "rank: 1"),
        TEMPLATE.replace("fixed_stakes: true", "fixed_stakes: [1]").replace("rounds_agreed: 20", "rounds_agreed: x"),
    ]
    for text in texts:
        for problem in problems_of(text):
            assert "Input should" not in problem and "pydantic" not in problem and "type=" not in problem
            assert "Value error" not in problem and problem.startswith("house.yaml:")
    assert problems_of(texts[1]) == [
        "house.yaml:8: name: expected lowercase letters, digits, '.', '_' or '-', got 'My House'",
        "house.yaml:31: call_multiple: must be more than 0, got -1",
    ]
    assert problems_of(texts[2]) == [
        "house.yaml:18: ante_paytable: the Ante paytable needs every category; missing: pair",
        "house.yaml:40: dealer_qualifier.rank: unknown rank '1' "
        "(expected one of: 2, 3, 4, 5, 6, 7, 8, 9, T, J, Q, K, A)",
    ]
    assert problems_of(texts[3]) == [
        "house.yaml:60: rounds_agreed: expected a whole number, got 'x'",
        "house.yaml:62: fixed_stakes: expected true or false, got a list",
    ]


def test_yaml_syntax_errors_have_their_line() -> None:
    [problem] = problems_of("name: house\nante_paytable: [1, 2\ncall_multiple: 2\n")
    assert problem.startswith("house.yaml:3: invalid YAML")


def test_the_notations_the_tool_prints_are_read() -> None:
    vivo = resolve_profile("vivo").profile.model_dump(exclude=RULES_ONLY)
    text = (TEMPLATE.replace("four_of_a_kind: 10:1", "four of a kind: 10 to 1")
            .replace("ante_when_not_qualified: paytable", "ante_when_not_qualified: Paytable")
            .replace("rank: 4}", "rank: '4'}"))
    assert parse_profile(text.encode(), "t").model_dump(exclude=RULES_ONLY) == vivo
    odd = (TEMPLATE.replace("call_win_odds: 1:1", "call_win_odds: returned")
           .replace("full_house: 3:1", "full_house: 3:2")
           .replace("rank: 4}", "rank: 10}")
           .replace("ante_when_not_qualified: paytable", "ante_when_not_qualified: even money"))
    profile = parse_profile(odd.encode(), "t")
    assert profile.call_win_odds == 0 and profile.ante_paytable[Category.FULL_HOUSE] == Decimal("1.5")
    assert profile.dealer_qualifier.rank == "T" and profile.ante_when_not_qualified == "even_money"
    queens = parse_profile(TEMPLATE.replace("rank: 4}", "rank: q}").encode(), "t")
    assert queens.dealer_qualifier.rank == "Q"
    ladies = parse_profile(TEMPLATE.replace("rank: 4}", "rank: D}").encode(), "t")  # French dame
    assert ladies.dealer_qualifier.rank == "Q"


def test_template_loads_and_rules_as_vivo(tmp_path: Path) -> None:
    code, out = run("profiles", "--template")
    assert code == 0 and out == TEMPLATE and out.count("\n#") > 10  # commented
    path = tmp_path / "house.yaml"
    path.write_text(out, encoding="utf-8")
    house = resolve_profile(str(path)).profile
    assert house.name == "house"
    assert house.model_dump(exclude=RULES_ONLY) == resolve_profile("vivo").profile.model_dump(exclude=RULES_ONLY)
    lines = [*TEMPLATE.splitlines(), ""]
    for block in ("# bonus:", "# rules:"):  # the commented blocks are valid too
        start = lines.index(block)
        end = lines.index("", start)
        lines = [*lines[:start], *(line[2:] for line in lines[start:end]), *lines[end:]]
    bonus = parse_profile("\n".join(lines).encode(), "t")
    assert bonus.bonus == resolve_profile("bonus-aa").profile.bonus  # Bonus AA's
    assert [str(topic) for topic in bonus.rules] == ["qualification"]
    assert bonus.model_dump(exclude=RULES_ONLY | {"bonus"}) == house.model_dump(exclude=RULES_ONLY | {"bonus"})
    # and a log audited under it is audited as under vivo
    code, report = check_json(str(SAMPLES / "disputed.yaml"), "--profile", str(path))
    _, vivo = check_json(str(SAMPLES / "disputed.yaml"))
    assert [f["message"] for f in report["sessions"][0]["findings"]] == [
        f["message"] for f in vivo["sessions"][0]["findings"]]


def test_check_lists_a_profiles_problems_at_their_lines(tmp_path: Path) -> None:
    (tmp_path / "house.yaml").write_text(BAD, encoding="utf-8")
    log = tmp_path / "log.yaml"
    log.write_text((SAMPLES / "clean.yaml").read_text(encoding="utf-8").replace('profile: "vivo"',
                                                                              'profile: "house.yaml"'))
    code, out = run("check", str(log), "--quiet")
    lines = out.splitlines()
    assert code == 1 and lines[0].endswith("house.yaml is not valid (7 problems):")
    assert f"{tmp_path / 'house.yaml'}:15: H005 [error] profile: ante_when_not_qualifed: unknown key; did you mean " \
           "'ante_when_not_qualified'?" in lines
    assert len([line for line in lines if "house.yaml:" in line and "H005" in line]) == 7
    code, out = run("simulate", "--profile", str(tmp_path / "house.yaml"))
    assert code == 2 and "house.yaml:21: bonus.fold_forfeits" in out
