"""French without English inside (issue 27): every ruling ``explain`` and ``recall`` write
with ``--lang fr``, over the shipped samples and over logs the simulator fills with
faults, holds no English sentence ("Détail : 8d is dealt twice", "dealer[0]"). Codes,
their slugs (stable identifiers: docs/findings.md), cards, ids, file names and the
record's own quoted words may stay as written.
"""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

import pytest

from referee.audit.explain import explain
from referee.audit.explain_table import explain_seat
from referee.audit.games import GameResult, round_view
from referee.audit.owed import BalanceOff, BottomLine
from referee.audit.results import SessionInfo
from referee.audit.stream import Options, audit_source
from referee.i18n import Messages
from referee.load.inputs import expand
from referee.report.ruling import RulingText
from referee.report.ruling_words import bottom_words
from referee.report.void_words import void_reason_words

from .conftest import HAND_HISTORIES, SAMPLES, run

#: Words that are English and not French: one in a French ruling is a sentence left untranslated.
ENGLISH = frozenset(re.findall(r"\w+", """
    is are was dealt twice settled the player players dealer round rounds seat seats void and with
    recorded rules give gives owed balance paid does follow favours house expected missing card cards
    wallet stake stakes not of game games file files searched skipped earlier needs has without
    cancelled cancels refund refunds refunded debits credits moves counted"""))
#: What may stay as written: quoted record values, codes and their slugs, file names.
KEPT = re.compile(r"«[^»]*»|'[^']*'|\"[^\"]*\"|\b[A-Z]\d{3} [a-z-]+\b|\S+\.(?:yaml|jsonl|json)\b|\bsession \S+")
#: A faulty log of each built-in profile, in each shape: (profile, extra simulate options).
FAULTY = [(profile, shape) for profile in ("vivo", "caribbean", "bonus-aa", "bonus-100")
          for shape in ("yaml", "jsonl", "table")]


def english_in(text: str) -> list[str]:
    """The lines of ``text`` with an English word outside what may stay as written. The
    line naming the profile's source is left out: its citations are the rules' own
    (issue 27's "No references a user cannot open", a separate item)."""
    found = []
    for line in text.splitlines():
        if line.strip().startswith("profil "):
            continue
        # a citation's anchor in docs/rules.md is a path, not words (its section is named in French)
        words = re.findall(r"[A-Za-z]+", KEPT.sub(" ", re.sub(r"docs/rules\.md#[\w-]+", " ", line)))
        if any(w.lower() in ENGLISH for w in words):
            found.append(line.strip())
    return found


def rulings(path: Path, m: Messages) -> tuple[list[str], list[str]]:
    """Every ruled round's (or seat's) explanation in ``m``'s language, and the sessions."""
    texts: list[str] = []
    sessions: list[str] = []
    info: SessionInfo | None = None
    for event in audit_source(expand([str(path)])[0], Options()):
        if isinstance(event, SessionInfo):
            info = event
            sessions.append(event.id)
        elif isinstance(event, GameResult) and info is not None and event.format == 1:
            result = round_view(event)
            if result.ruling is not None:
                texts.append(RulingText(explain(result, info), m).text())
        elif isinstance(event, GameResult) and info is not None:  # a cancelled game's seats too
            texts += [RulingText(explain_seat(info, event, seat), m).text()
                      for seat in event.seats if seat.ruling is not None or seat.cancelled]
    return texts, sessions


def faulty_log(tmp_path: Path, profile: str, shape: str) -> Path:
    """A log of ``profile`` with a fault in about a third of its rounds, as ``simulate`` writes it."""
    path = tmp_path / f"{profile}-{shape}.{'yaml' if shape == 'yaml' else 'jsonl'}"
    bonus = ["--bonus", "1"] if profile.startswith("bonus") else []
    shape_options = ["--seats", "2-5", "--format", "jsonl"] if shape == "table" else ["--format", shape]
    code, out = run("simulate", "--profile", profile, "--sessions", "2", "--rounds", "40", "--seed", "3",
                    "--faults", "0.3", *bonus, *shape_options, "-o", str(path))
    assert code == 0, out
    return path


def assert_french(path: Path) -> None:
    french = Messages("fr")
    texts, sessions = rulings(path, french)
    assert texts
    left = sorted({line for text in texts for line in english_in(text)})
    assert not left, f"{path.name}: English in a French ruling: {left[:5]}"
    for session in sessions:
        code, out = run("recall", str(path), "--session", session, "--last", "500", "--lang", "fr")
        assert code in (0, 1), out
        assert not english_in(out), f"{path.name}: English in a French recall: {english_in(out)[:5]}"


@pytest.mark.parametrize("sample", HAND_HISTORIES, ids=lambda p: p.name)
def test_the_samples_in_french_hold_no_english(sample: Path) -> None:
    assert_french(sample)


@pytest.mark.parametrize(("profile", "shape"), FAULTY)
def test_faulty_logs_in_french_hold_no_english(tmp_path: Path, profile: str, shape: str) -> None:
    assert_french(faulty_log(tmp_path, profile, shape))


def test_the_word_list_finds_what_the_issue_found() -> None:
    """The check itself: the issue's three fragments are caught, codes and quotes are not;
    a cancelled game's words too (its slug stays: G003 cancelled-game-paid)."""
    assert english_in("  Détail : 8d is dealt twice (player and flop)")
    assert english_in("  V001 void-settled : dealer[0] : la table a enregistré réglée")
    assert not english_in("  V001 void-settled : la carte 1 du donneur : la table a enregistré « high cards »")
    assert english_in("  Mouvements du portefeuille : debits 3, credits 0, cancels and refunds 3.")
    assert english_in("  Ante 1 : rendu : the game was cancelled: every stake is refunded")
    assert not english_in("  G003 cancelled-game-paid : le règlement : la table a enregistré réglée, les règles "
                          "donnent révoquée.")


def test_why_a_deal_is_void_in_french() -> None:
    french = Messages("fr")
    assert void_reason_words("8d is dealt twice (player and flop)", french) == \
        "8d est distribuée deux fois (joueur et flop)"
    assert void_reason_words("Ah is dealt twice (player p-1 and player p-2)", french) == \
        "Ah est distribuée deux fois (joueur p-1 et joueur p-2)"
    assert void_reason_words("a call without turn and dealer cards", french) == \
        "un Call sans turn et les cartes du donneur"
    assert void_reason_words("the flop needs 3 cards, the record has 2", french) == \
        "flop : il faut 3 cartes, l'enregistrement en a 2"
    assert void_reason_words("flop card 2: '4cc' is not a card: '4c' is not a rank (expected 2-9, 10 or T, J/V, "
                             "Q/D, K/R, A)", french) == ("flop, carte 2 : '4cc' n'est pas une carte : '4c' n'est pas "
                                                         "un rang (attendu : 2-9, 10 ou T, J/V, Q/D, K/R, A)")
    assert void_reason_words("8d is dealt twice (player and flop)", Messages("en")) == \
        "8d is dealt twice (player and flop)"


def test_a_void_deal_explained_in_french() -> None:
    _, out = run("explain", str(SAMPLES / "void.yaml"), "--round", "4", "--lang", "fr")
    assert "Détail : Ks est distribuée deux fois (joueur et flop)" in out


def test_owed_in_the_sessions_currency_with_the_verb_agreeing() -> None:
    """ "15 est dû au joueur" was wrong twice: the amount has a currency when the session
    says it, and a French verb agrees with an amount of 2 or more (0 and 1 singular)."""
    french, english = Messages("fr"), Messages("en")
    owed = BottomLine(Decimal(10), Decimal(-5), currency="EUR")
    assert bottom_words(owed, french) == ("La table a payé -5 EUR ; les règles donnent +10 EUR ; "
                                          "15 EUR sont dus au joueur.")
    assert bottom_words(owed, english) == "The table paid -5 EUR; the rules give +10 EUR; 15 EUR is owed to the player."
    one = BottomLine(Decimal(2), Decimal(1))
    assert bottom_words(one, french) == "La table a payé +1 ; les règles donnent +2 ; 1 est dû au joueur."
    half = BottomLine(Decimal(-1), Decimal("0.5"))
    assert bottom_words(half, french).endswith("1.5 est dû à la maison.")  # under 2: singular
    off = BottomLine(Decimal(-3), Decimal(-3), BalanceOff(Decimal(8), Decimal(4)), currency="EUR")
    assert "Le solde enregistré 8 EUR ne découle pas" in bottom_words(off, french)
    _, out = run("explain", str(SAMPLES / "table.yaml"), "--game", "8812345", "--lang", "fr")
    assert "1 EUR est dû au joueur." in out


def test_every_void_sentence_and_field_name_is_in_the_catalogue() -> None:
    """A template missing from the catalogue would be said in English again."""
    from referee.report import void_words
    from referee.report.ruling_words import FIELD_NAMES, PARTY_OWED

    catalogue = Messages("fr").catalogue._catalog  # type: ignore[attr-defined]
    messages = [*void_words.REASONS, *void_words.WHY, void_words.EXPECTED, "and", "card {n} of the {group}",
                *FIELD_NAMES.values()]
    assert [m for m in messages if m not in catalogue] == []
    assert [g for g in void_words.GROUPS.values() if f"{void_words.CONTEXT}\x04{g}" not in catalogue] == []
    assert [s for s, _ in PARTY_OWED.values() if (s, 0) not in catalogue or (s, 1) not in catalogue] == []


def test_counts_take_their_noun_in_the_right_number(tmp_path: Path) -> None:
    """No "1 seats", "1 rounds" or "fichier(s)": one seat, one round, one file are
    singular, and in French 0 is too ("0 annulée")."""
    table, log = tmp_path / "t.yaml", tmp_path / "r.yaml"
    assert run("simulate", "--seats", "1", "--rounds", "1", "-o", str(table))[0] == 0
    assert run("simulate", "--rounds", "1", "-o", str(log))[0] == 0
    _, out = run("check", str(table))
    assert "Games 1 (1 counted, 0 void, 0 cancelled, 0 invalid), 1 seat, 1 player; staked" in out
    page = tmp_path / "t.html"
    run("report", str(table), "-o", str(page), "--lang", "fr")
    assert "Parties 1 (1 comptée, 0 annulée, 0 révoquée, 0 invalide), 1 place, 1 joueur ; misé" in page.read_text()
    _, out = run("recall", str(log), "--round", "1")
    assert out.rstrip().endswith("searched 1 file: 1 session, 1 round")
    _, out = run("recall", str(log), "--round", "1", "--lang", "fr")
    assert out.rstrip().endswith("examiné : 1 fichier ; 1 session, 1 manche")
    _, out = run("recall", str(SAMPLES), "--session", "table-3/2026-11-29/late", "--round", "4", "--lang", "fr")
    assert re.search(r"examiné : \d+ fichiers, \d+ sans mention, ignorés ; 1 session, 23 manches\Z", out.rstrip())


def test_a_finding_without_values_is_said_in_french() -> None:
    """In French a finding with no values to compare showed its code and slug alone (its
    English message dropped): it now says what it is, and every code has its words."""
    from referee.models.codes import CODES

    _, out = run("explain", str(SAMPLES / "void.yaml"), "--round", "4", "--lang", "fr")
    assert ("V003 void-deal : une distribution annulée, correctement traitée : mises rendues, manche non "
            "comptée (§07)") in out
    catalogue = Messages("fr").catalogue._catalog  # type: ignore[attr-defined]
    assert [c.code for c in CODES.values() if not c.title or c.title not in catalogue] == []
