"""A PAR sheet as text (tabulate tables); ``--format json`` prints the sheet itself.

One rule for every count and exact figure of the text: thousands grouped with commas
(``27,813,810,024,000``), the exact nets and wagers also (kept as strings in the sheet,
since a net can be a fraction: both of its sides are grouped). JSON keeps bare figures."""

from __future__ import annotations

from typing import Any

from tabulate import tabulate


def render(sheet: dict[str, Any]) -> str:
    main = sheet["main"]
    lines = [f"PAR sheet: profile {sheet['profile']}, optimal play (call exactly when calling beats folding)",
             f"cases (every deal): {main['cases']:,}", ""]
    call = main["call_rate"]
    lines += [
        f"house edge (per Ante)          {main['house_edge']:.4%}   ({_units(main['net_ante_units'])} Ante units "
        f"over {main['cases']:,} cases)",
        f"element of risk (per wagered)  {main['element_of_risk']:.4%}   (over {_units(main['wagered_ante_units'])} "
        "Ante units wagered)",
        f"call rate                      {call['probability']:.4%}   ({call['count']:,} of {call['of']:,} "
        "hole-and-flop situations, weighted)"]
    indifferent = main.get("indifferent")
    called = indifferent.get("outcomes_if_called") if indifferent and indifferent["situations"] else None
    if indifferent and indifferent["situations"]:
        lines.append(f"indifferent situations         {indifferent['situations']:,} (calling worth exactly -1 Ante, "
                     "as folding: folded here; called, as published solvers do, the house edge is the same and "
                     "the outcomes are the last two columns)")
    lines += ["", "Outcomes", _outcomes(main["outcomes"], called), ""]
    rows = [[r["category"].replace("_", " "), f"{r['ante_odds']}:1", f"{r['cases']:,}", f"{r['probability']:.6f}",
             f"{r['not_qualified']:,}", f"{r['win']:,}", f"{r['tie']:,}", f"{r['lose']:,}",
             f"{r['contribution']:+.6f}"] for r in main["ante_table"]]
    lines += ["Called hands by the player's final hand (contribution: net per Ante over all cases)",
              tabulate(rows, headers=["player's hand", "Ante pays", "cases", "probability", "dealer not qual.",
                                      "win", "tie", "lose", "contribution"], disable_numparse=True), ""]
    bonus = sheet.get("bonus")
    if bonus:
        rows = [[r["category"].replace("_", " "), f"{r['odds']}:1" if r["odds"] else "-", f"{r['paid']:,}",
                 f"{r['lost']:,}", f"{r['probability_paid']:.6f}", f"{r['contribution']:+.6f}"] for r in bonus["table"]]
        lines += [f"{bonus['name']} side bet: house edge {bonus['house_edge']:.4%} "
                  f"({_units(bonus['net_stake_units'])} stake units over {bonus['cases']:,} five-card hands)",
                  tabulate(rows, headers=["five cards", "pays", "paid", "lost", "P(paid)", "contribution"],
                           disable_numparse=True), ""]
    return "\n".join(lines) + "\n"


def _units(exact: str) -> str:
    """An exact figure of the sheet (an integer or a fraction, as ``str(Fraction)`` writes
    it) with its thousands grouped: ``-600,123,513,880``, ``-1,234,567/20``."""
    return "/".join(f"{int(part):,}" for part in exact.split("/"))


def _outcomes(outcomes: dict[str, Any], called: dict[str, Any] | None) -> str:
    """The outcome table; with indifferent situations, a column for the other convention
    (called), which is the one published probabilities use."""
    headers = ["outcome", "cases", "probability"]
    rows = [[name.replace("_", " "), f"{o['count']:,}", f"{o['probability']:.6f}"] for name, o in outcomes.items()]
    if called:
        headers += ["cases, indifferent called", "probability, indifferent called"]
        for row, name in zip(rows, outcomes, strict=True):
            row += [f"{called[name]['count']:,}", f"{called[name]['probability']:.6f}"]
    return tabulate(rows, headers=headers, disable_numparse=True)
