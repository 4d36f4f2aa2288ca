"""``referee recall`` in words, as JSON and as a page: the rounds recalled, the running
balance around them, and the full ruling of the round asked about."""

from __future__ import annotations

from typing import Any

from tabulate import tabulate

from .. import __version__
from ..audit.explain import ExplainError, Explanation, explain
from ..audit.owed import recorded_paid
from ..escape import printable
from ..i18n import N_, Messages
from ..models.common import dump
from ..recall import Match, Recall, RoundView, SeatDetail, games
from ..rules.money import fmt, plain, signed
from .base import finding_dict
from .ruling import RulingText
from .ruling_json import explanation_json
from .ruling_words import CATEGORY_WORDS


def _when(v: RoundView) -> str:
    return v.time.isoformat(sep=" ", timespec="seconds") if v.time is not None else ""


def _hand(v: RoundView, side: str) -> str:
    hand = getattr(v.ruling, f"{side}_hand", None) if v.ruling is not None else None
    return hand.category.replace("_", " ") if hand is not None else ""


def stakes(v: RoundView) -> str:
    """``1 + 2`` (Ante + Call), ``+ bonus`` when there is one."""
    r = v.ruling
    if r is None:
        return ""
    parts = [r.ante_stake] + ([r.call_stake] if r.call_stake else []) + ([r.bonus_stake] if r.bonus_stake else [])
    return " + ".join(fmt(p) for p in parts)


def columns(found: Recall) -> list[str]:
    """The table's columns: session, game and player only when they tell something."""
    rows = [v for m in found.matches for v in m.rows]
    cols = ["round"]
    if len({v.session_key for v in rows}) > 1:
        cols.append("session")
    cols += [c for c, attr in (("time", "time"), ("game", "game"), ("player id", "player"))
             if any(getattr(v, attr) is not None for v in rows)]
    nets = ["net", "net rec.", *(["net wallet"] if any(v.wallet is not None for v in rows) else [])]
    return [*cols, "decision", "stakes", "outcome", "player", "dealer", *nets, "balance", "bal. rec.", "status"]


#: The headers of the nets and the balances, each saying who says it: the rules, the
#: record, the wallet (issue 43); the balances their chain: the rules' nets summed from
#: the start, and the balances the table recorded (issue 27).
HEADER_WORDS = {"net": N_("net (rules)"), "net rec.": N_("net (recorded)"), "net wallet": N_("net (wallet)"),
                "balance": N_("balance (rules)"), "bal. rec.": N_("balance (recorded)")}


def headers(cols: list[str], m: Messages) -> list[str]:
    """The table's headers in the reader's language."""
    from .pages import r_

    return [r_(m, HEADER_WORDS.get(c, c)) for c in cols]


def cells(v: RoundView, cols: list[str], m: Messages | None = None) -> list[str]:
    """A row's cells; with ``m``, its words in the reader's language (the page)."""
    r, rec = v.ruling, v.recorded
    values = {
        "round": "" if v.number is None else str(v.number), "session": v.session, "time": _when(v),
        "game": v.game or "", "player id": v.player or "", "decision": v.decision or "", "stakes": stakes(v),
        "outcome": r.outcome if r is not None else "", "player": _hand(v, "player"), "dealer": _hand(v, "dealer"),
        "net": signed(r.net) if r is not None else "",
        "net rec.": "" if (paid := recorded_paid(rec, r)) is None else signed(paid),
        "net wallet": "" if v.wallet is None else signed(v.wallet),
        "balance": fmt(v.balance), "bal. rec.": fmt(v.recorded_balance) if v.recorded_balance is not None else "",
        "status": v.status + _since(v),
    }
    if m is not None:
        from .pages import r_, status_words

        for name in ("decision", "outcome"):
            values[name] = r_(m, values[name]) if values[name] else ""
        for name in ("player", "dealer"):
            key = values[name].replace(" ", "_")
            values[name] = m(CATEGORY_WORDS[key]) if key in CATEGORY_WORDS else values[name]
        values["status"] = status_words(v.status, m) + _since(v, m)
    return [values[c] for c in cols]


def departed_at(v: RoundView, m: Messages | None = None) -> str | None:
    """Where the row's recorded balance first left the rules' chain, in words (``game
    T3-7-000023``, ``round 4``), when it is off; None when it is not, or when the row
    itself is where it left (its own finding says so)."""
    since = v.off_since
    if since is None or since == (v.number, v.game):
        return None
    number, game = since
    from .pages import r_

    words = m if m is not None else Messages("en")
    if v.live and game is not None:
        return r_(words, "game {game}").format(game=game)
    return r_(words, "round {number}").format(number=number) if number is not None else None


def _since(v: RoundView, m: Messages | None = None) -> str:
    """`` since game X`` after a ``bal. off`` status: the row that departed is named on
    every row it put off, so that a window that does not hold it still says where to look."""
    if not v.status.startswith("bal. off"):
        return ""
    where = departed_at(v, m)
    if where is None:
        return ""
    words = m if m is not None else Messages("en")
    return " " + words("since {where}").format(where=where)


def departures(match: Match, m: Messages) -> list[str]:
    """Under the table: for each player whose recorded balance is off at the end of the
    window, where it left the rules' chain and by how much it is off, in a sentence
    (the recall's bottom line of the balance)."""
    last: dict[tuple[int, str | None], RoundView] = {}
    for v in match.rows:
        last[(v.session_key, v.player)] = v
    out = []
    for v in last.values():
        off, where = v.off, departed_at(v, m)
        if off is None or off == 0 or where is None:
            continue
        if v.live and v.player is not None:
            out.append(m("The recorded balance of player {player} left the rules' chain at {where}: it is off by "
                         "{amount} since.").format(player=v.player, where=where, amount=signed(off)))
        else:
            out.append(m("The recorded balance left the rules' chain at {where}: it is off by {amount} since.")
                       .format(where=where, amount=signed(off)))
    return out


def explanations(match: Match) -> list[tuple[RoundView, Explanation | str]]:
    """The full ruling of each target row of format 1 (a void deal and its replay are
    both targets); a live table's seats are :func:`seat_rulings`' (the page's), and the
    text and JSON leave them to ``explain --game G --player P``."""
    out: list[tuple[RoundView, Explanation | str]] = []
    for v in match.rows[len(match.rows) - match.target:]:
        if not isinstance(v.detail, tuple):  # a live table's seat: the page draws it (seat_rulings)
            continue
        info, result = v.detail
        try:
            out.append((v, explain(result, info)))
        except ExplainError as err:
            out.append((v, str(err)))
    return out


def seat_rulings(match: Match) -> list[tuple[str, list[Any]]]:
    """A live table's target game(s): each game's label and its seats asked about, each
    with its ruling (``explain --game G --player P``'s), for the page to draw."""
    from .pages import seat_ruling

    out: list[tuple[str, list[Any]]] = []
    for game in games(match.rows[len(match.rows) - match.target:]):
        seats = [seat_ruling(v.detail.info, v.detail.game, v.detail.seat) for v in game
                 if v.live and isinstance(v.detail, SeatDetail)]
        if seats:
            out.append((_game_at(game)[1] if game[-1].game is None else str(game[-1].game), seats))
    return out


def _at(row: object) -> str:
    """A row's place in its session: its round number, or (a game recorded without one,
    as exports are) its game id."""
    number = getattr(row, "number", None)
    return str(number) if number is not None else str(getattr(row, "game", None) or "?")


def _game_at(game: list[RoundView]) -> tuple[int | None, str]:
    """A live table's game: its number (any record's: a game's second record may have
    none) and its place in words (the number, else the game id)."""
    number = next((v.number for v in game if v.number is not None), None)
    return number, str(number) if number is not None else str(game[-1].game or "?")


def heading(found: Recall, match: Match, m: Messages | None = None) -> str:
    """``Recall of round 12: 10 rounds, 3 to 12, session ... (file:line)``; a live table's
    games counted with their seats (``10 games (34 seats), 491 to 500``); in the reader's
    language when ``m`` is not English."""
    if m is not None and m.language != "en":
        return _heading_words(found, match, m)
    rows = match.rows
    first, last = rows[0], rows[-1]
    if any(v.live for v in rows):
        found_games, seats = games(rows), f"{len(rows)} seat{'s' * (len(rows) != 1)}"
        count, (number, at_last), (_, at_first) = len(found_games), _game_at(found_games[-1]), _game_at(found_games[0])
        one = f"round {number}" if number is not None else f"game {last.game}"
        span = f"{one} ({seats})" if count == 1 else (
            f"{count} games ({seats}), from round {at_first} ({first.session}) to round {at_last}"
            if first.session != last.session else f"{count} games ({seats}), {at_first} to {at_last}")
    else:
        span = f"round {_at(last)}" if len(rows) == 1 else (
            f"{len(rows)} rounds, from round {_at(first)} ({first.session}) to round {_at(last)}"
            if first.session != last.session else f"{len(rows)} rounds, {_at(first)} to {_at(last)}")
    return f"Recall of {found.query.words()}: {span}, session {last.session} ({last.file}:{last.line})"


def _heading_words(found: Recall, match: Match, m: Messages) -> str:
    from .pages import r_

    q, rows = found.query, match.rows
    first, last = rows[0], rows[-1]
    what = (r_(m, "round {number}").format(number=q.round) if q.round is not None
            else r_(m, "game {game}").format(game=q.game) if q.game is not None
            else r_(m, "the last round at or before {time}").format(time=q.at.isoformat()) if q.at is not None
            else r_(m, "the last round"))
    if q.player is not None:
        what += " " + r_(m, "of player {player}").format(player=q.player)
    if q.session is not None:
        what += " " + r_(m, "in session {session}").format(session=q.session)
    if any(v.live for v in rows):
        found_games = games(rows)
        seats = m.plural("{n} seat", "{n} seats", len(rows)).format(n=len(rows))
        count, (number, at_last), (_, at_first) = len(found_games), _game_at(found_games[-1]), _game_at(found_games[0])
        one = (r_(m, "round {number} ({seats})").format(number=number, seats=seats) if number is not None
               else r_(m, "game {game} ({seats})").format(game=last.game, seats=seats))
        span = (one if count == 1
                else r_(m, "{count} games ({seats}), from round {first} ({session}) to round {last}").format(
                    count=count, seats=seats, first=at_first, session=first.session, last=at_last)
                if first.session != last.session
                else r_(m, "{count} games ({seats}), {first} to {last}").format(
                    count=count, seats=seats, first=at_first, last=at_last))
    else:
        span = (r_(m, "round {number}").format(number=_at(last)) if len(rows) == 1
                else r_(m, "{count} rounds, from round {first} ({session}) to round {last}").format(
                    count=len(rows), first=_at(first), session=first.session, last=_at(last))
                if first.session != last.session
                else r_(m, "{count} rounds, {first} to {last}").format(count=len(rows), first=_at(first),
                                                                        last=_at(last)))
    return r_(m, "Recall of {what}: {span}, session {session} ({where})").format(
        what=what, span=span, session=last.session, where=f"{last.file}:{last.line}")


#: What recall searched, each count a plural message (no "1 rounds", no "fichier(s)").
SEARCHED_WORDS = {"files": ("{n} file", "{n} files"), "sessions": ("{n} session", "{n} sessions"),
                  "rounds": ("{n} round", "{n} rounds"),
                  "skipped": ("{n} not mentioning it, skipped", "{n} not mentioning it, skipped"),
                  "unneeded": ("{n} earlier not needed", "{n} earlier not needed")}


def counted(m: Messages, key: str, n: int) -> str:
    """``n`` things of :data:`SEARCHED_WORDS` ``key``, in the right number (French
    thousands grouped by a space)."""
    number = f"{n:,}".replace(",", " ") if m.language == "fr" else f"{n:,}"
    return m.plural(*SEARCHED_WORDS[key], n).format(n=number)


def searched(found: Recall, m: Messages | None = None) -> str:
    """What was searched: files (skipped, not needed), sessions and rounds audited; from
    a store, what it holds (found through its indexes)."""
    if found.store is not None:
        return _searched_store(found, m)
    words = m if m is not None else Messages("en")
    if words.language != "en":
        extra = "".join(", " + counted(words, key, n)
                        for key, n in (("skipped", found.skipped_files), ("unneeded", found.unneeded_files)) if n)
        return words("searched: {files}{extra}; {sessions}, {rounds}").format(
            files=counted(words, "files", found.files), extra=extra,
            sessions=counted(words, "sessions", found.sessions), rounds=counted(words, "rounds", found.rounds))
    skipped = f", {found.skipped_files} not mentioning it skipped" if found.skipped_files else ""
    skipped += f", {found.unneeded_files} earlier not needed" if found.unneeded_files else ""
    return (f"searched {counted(words, 'files', found.files)}{skipped}: {counted(words, 'sessions', found.sessions)}, "
            f"{counted(words, 'rounds', found.rounds)}")


def _searched_store(found: Recall, m: Messages | None) -> str:
    words = m if m is not None else Messages("en")
    if words.language != "en":
        return words("searched the store {store}: {files}, {sessions}, {rounds}").format(
            store=found.store, files=counted(words, "files", found.files),
            sessions=counted(words, "sessions", found.sessions), rounds=counted(words, "rounds", found.rounds))
    return (f"searched the store {found.store}: {counted(words, 'files', found.files)}, "
            f"{counted(words, 'sessions', found.sessions)}, {counted(words, 'rounds', found.rounds)}")


def render_text(found: Recall, m: Messages) -> str:

    cols = columns(found)
    words = m if m.language != "en" else None
    out: list[str] = []
    for match in found.matches:
        out.append(printable(heading(found, match, m)))
        rows = []
        for i, v in enumerate(match.rows):
            mark = ">" if i >= len(match.rows) - match.target else " "
            row = [printable(cell) for cell in cells(v, cols, words)]  # names a person reads
            rows.append([f"{mark} {row[0]}", *row[1:]])
        out.append(tabulate(rows, headers=headers(cols, m), tablefmt="simple", disable_numparse=True,
                            colalign=("right",) + ("left",) * (len(cols) - 1)))
        out += departures(match, m)
        out.append("")
        for _, ex in explanations(match):
            if isinstance(ex, str):
                out += [printable(ex), ""]
                continue
            out += [RulingText(ex, m).text().rstrip("\n"), ""]
    out.append(printable(searched(found, m)))
    return "\n".join(out) + "\n"


def view_json(v: RoundView, target: bool) -> dict[str, Any]:
    r, rec = v.ruling, v.recorded
    return {
        "session": v.session, "round": v.number, "game": v.game, "time": v.time.isoformat() if v.time else None,
        "player": v.player, "file": v.file, "line": v.line, "target": target, "decision": v.decision,
        "stakes": None if r is None else {"ante": plain(r.ante_stake), "call": plain(r.call_stake),
                                          "bonus": plain(r.bonus_stake)},
        "outcome": r.outcome if r is not None else None,
        "player_hand": r.player_hand.category if r is not None and r.player_hand else None,
        "dealer_hand": r.dealer_hand.category if r is not None and r.dealer_hand else None,
        "dealer_qualified": r.dealer_qualified if r is not None else None,
        "settlement": None if r is None else {"ante": plain(r.ante), "call": plain(r.call), "bonus": plain(r.bonus),
                                              "net": plain(r.net), "returned": plain(r.returned)},
        "recorded": None if rec is None else {k: plain(x) for k, x in dump(rec).items()},
        "net": {"rules": None if r is None else plain(r.net), "recorded": plain(recorded_paid(rec, r)),
                "wallet": plain(v.wallet)},
        "balance": plain(v.balance), "recorded_balance": plain(v.recorded_balance),
        "balance_off_since": None if v.off_since is None else {"round": v.off_since[0], "game": v.off_since[1]},
        "status": v.status,
        "findings": [finding_dict(f) for f in v.findings],
    }


def render_json(found: Recall, m: Messages) -> dict[str, Any]:
    q = found.query
    return {
        "referee": {"name": "referee", "version": __version__},
        "query": {"player": q.player, "session": q.session, "round": q.round, "game": q.game,
                  "at": q.at.isoformat() if q.at else None, "last": q.last},
        "searched": {"files": found.files, "skipped_files": found.skipped_files,
                     "unneeded_files": found.unneeded_files, "sessions": found.sessions,
                     "rounds": found.rounds} | ({"store": found.store} if found.store is not None else {}),
        "recalls": [{
            "heading": heading(found, match),
            "games": len(games(match.rows)),
            "balance_off": departures(match, m),
            "rounds": [view_json(v, i >= len(match.rows) - match.target) for i, v in enumerate(match.rows)],
            "rulings": [{"error": ex} if isinstance(ex, str) else explanation_json(ex, m)
                        for _, ex in explanations(match)],
        } for match in found.matches],
    }


def render_html(found: Recall, m: Messages) -> str:
    from .pages import environment, game_block, ruling_block

    env = environment(m)
    cols = columns(found)
    recalls = []
    for match in found.matches:
        rows = [{"cells": cells(v, cols, m), "target": i >= len(match.rows) - match.target}
                for i, v in enumerate(match.rows)]
        blocks = [{"error": ex} if isinstance(ex, str) else ruling_block(ex, m) for _, ex in explanations(match)]
        tables = [{"game": game, **game_block(seats, m)} for game, seats in seat_rulings(match)]
        recalls.append({"heading": heading(found, match, m), "rows": rows, "rulings": blocks, "games": tables})
    return str(env.get_template("recall.html.j2").render(
        lang=m.language, version=__version__, headers=headers(cols, m), recalls=recalls,
        searched=searched(found, m)))
