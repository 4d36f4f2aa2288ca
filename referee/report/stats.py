"""``referee stats`` as text (tabulate tables) or JSON (the same facts as fields)."""

from __future__ import annotations

from dataclasses import replace
from typing import assert_never

from tabulate import tabulate

from ..analysis.fairness import CategoryTest, Fairness, PositionTest, QualificationTest, Verdict
from ..analysis.stats import DecisionAudit, Returns, Stats
from ..rules.money import fmt

MAX_LISTED = 40
BASIS = {
    "exact": "exact for the calls made",
    "optimal": "every decision was optimal play's: the PAR sheet's figures for called hands",
    "always-call": "every hand called: the unconditional seven-card figures",
}
#: Why a test with no basis (``none``) is not run: the calls depend on the cards, and
#: what they depend on is known only from the decisions' values (keyed by whether the
#: decisions were valued).
NOT_TESTED = {
    False: "not tested: the calls depend on the cards and the decisions were not valued (--no-decisions)",
    True: "not tested: the calls depend on the cards and not every round records the five cards of its decision",
}


def _pct(x: float | None, signed: bool = False) -> str:
    if x is None:
        return "n/a"
    return f"{x:+.3%}" if signed else f"{x:.3%}"


def _p(p: float | None) -> str:
    return "n/a" if p is None else f"{p:.4f}"


def verdict(test: PositionTest | CategoryTest | QualificationTest, confidence: float) -> str:
    """The words of a test's verdict (the exit code is picked from the Verdict, not from these)."""
    match test.verdict(confidence):
        case Verdict.TOO_SMALL:
            return "sample too small to test"
        case Verdict.OK:
            return "ok"
        case Verdict.SUSPECT:
            return f"SUSPECT (p < {1 - confidence:g})"
        case unknown:
            assert_never(unknown)


def render(stats: Stats) -> str:
    conf = stats.confidence
    lines = [f"referee stats: {stats.rounds:,} ruled rounds in {stats.sessions} session(s); "
             f"intervals and tests at {conf:.0%}", ""]
    lines += _returns("Return to player (main game: Ante and Call), by profile", stats.returns, conf, False)
    lines += _returns("By stake level", stats.returns_by_stake, conf, True)
    if stats.games is not None:  # live tables (format 2): the deal is tested once per game
        lines += [f"Live tables: {stats.games:,} games; every seat counts for the returns, each deal once for the "
                  "fairness tests.", ""]
        for name, groups in (("player", stats.returns_by_player), ("table", stats.returns_by_table),
                             ("dealer", stats.returns_by_dealer)):
            labelled = [replace(g, profile=str(getattr(g, name))) for g in groups or []]
            if not labelled:  # no game names its dealer (dealer_id): no empty table under the title
                lines += [f"By {name}: no game names its {name} ({name}_id).", ""]
                continue
            lines += _returns(f"By {name}", labelled, conf, False, first=name)
    lines += _fairness(stats.fairness, conf, stats.decisions is not None)
    if stats.decisions is not None:
        lines += _decisions(stats.decisions)
    else:
        lines += ["Decisions: not valued (--no-decisions).", ""]
    return "\n".join(lines) + "\n"


def _returns(title: str, groups: list[Returns], conf: float, stake: bool, first: str = "profile") -> list[str]:
    """A table of returns, a group a row; ``first`` heads the column that names the group."""
    rows: list[list[object]] = []
    flags: list[str] = []
    for g in groups:
        per = g.net_per_ante
        interval = f"[{_pct(per.low, True)}, {_pct(per.high, True)}]" if per.n > 1 else "n/a"
        rtp = g.rtp.mean if g.rtp is not None else None
        optimal = g.optimal.net_per_ante if g.optimal is not None else None
        ante = [fmt(g.ante) if g.ante is not None else ""] if stake else []
        rows.append([g.profile, *ante, g.rounds, _pct(per.mean, True), interval,
                     _pct(g.expected_from_decisions, True), _pct(optimal, True) if optimal is not None
                     else "unknown", _pct(rtp)])
        flags += [f"  ! {g.profile}: {f}" for f in g.flags]
    headers = [first, *(["ante"] if stake else []), "rounds", "net/Ante", f"{conf:.0%} interval",
               "expected (decisions)", "optimal play", "RTP (per wagered)"]
    return [title, tabulate(rows, headers=headers, disable_numparse=True), *flags, ""]


def _fairness(f: Fairness, conf: float, valued: bool) -> list[str]:
    rows = [[t.position, t.test.n, f"{t.test.chi2:.1f}", t.test.dof, _p(t.test.p_value),
             f"{t.test.min_expected:.1f}", verdict(t, conf)] for t in f.positions]
    lines = ["Fairness of the deal: 52 card frequencies at each dealt position (chi-square, 51 degrees of freedom)",
             tabulate(rows, headers=["position", "cards", "chi2", "dof", "p-value", "min expected", "verdict"],
                      disable_numparse=True), ""]
    c = f.categories
    q = f.dealer_qualification
    if c.basis == "none":  # one reason, not also "sample too small" and an expectation of 0
        lines.append(f"Player's final category ({c.test.n:,} called rounds): {NOT_TESTED[valued]}")
    else:
        lines.append(f"Player's final category (called rounds; expected: {BASIS[c.basis]}): chi2 "
                     f"{c.test.chi2:.1f}, {c.test.dof} dof, p {_p(c.test.p_value)}: {verdict(c, conf)}")
    if q.basis == "none":
        lines.append(f"Dealer qualification: {q.qualified} of {q.n} ({_pct(q.rate)}); {NOT_TESTED[valued]}")
    else:
        lines.append(f"Dealer qualification: {q.qualified} of {q.n} ({_pct(q.rate)}); expected "
                     f"{q.expected:.1f} ({_pct(q.expected_rate)}, {BASIS[q.basis]}); z {q.z:+.2f}, "
                     f"p {_p(q.p_value)}: {verdict(q, conf)}")
    return [*lines, ""]


def _decisions(d: DecisionAudit) -> list[str]:
    lines = [f"Decisions: {d.decisions:,} valued exactly (all 1,070,190 completions each); call rate "
             f"{_pct(d.call_rate)}, optimal play would call {_pct(d.optimal_call_rate)}; "
             f"{len(d.mistakes)} decision(s) lost expected value"]
    if d.mistakes:
        rows = [[m.session, m.round, m.cards, m.decision, m.best, f"{m.call_value:+.4f}",
                 f"{m.loss_per_ante:.4f}", f"{m.loss:.4f}"]
                for m in sorted(d.mistakes, key=lambda m: -m.loss)[:MAX_LISTED]]
        lines.append(tabulate(rows, headers=["session", "round", "hand + flop", "played", "best", "EV call",
                                             "loss/Ante", "loss"], disable_numparse=True))
        if len(d.mistakes) > MAX_LISTED:
            lines.append(f"... and {len(d.mistakes) - MAX_LISTED} more (all in --format json)")
    costs = [[s, f"{c:.4f}"] for s, c in sorted(d.cost_by_session.items())]
    lines += ["Strategy cost by session (expected value given up):",
              tabulate(costs, headers=["session", "cost"], disable_numparse=True)]
    return [*lines, ""]
