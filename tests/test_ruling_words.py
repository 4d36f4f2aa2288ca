"""A ruling's words (issue 43, "Trust by default"): in French a cancelled game has one word
("révoquée", never a void deal's "annulée"), "the table recorded X, the rules give Y" is a
sentence for every state, and the player's ruling (``explain --for player``) carries no
finding code, no SHA-256 and no reference into the docs, in either language, while the
auditor's (the default) keeps them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from referee.i18n import Messages
from referee.report.ruling import without_references
from referee.report.ruling_words import finding_words

from .conftest import ROOT, SAMPLES, Write, run
from .test_explain_cancelled import log
from .test_french import faulty_log, rulings

TABLE = str(SAMPLES / "table.yaml")
FRENCH = Messages("fr")
#: A state said bare after "enregistré" or "donnent": not a French sentence.
BARE_STATE = re.compile(r"(?:la table a enregistré|les règles donnent) (?:réglée|révoquée|annulée|non annulée|"
                        r"valide|qualifié|non qualifié)\b")
#: What the player's ruling never shows: a finding code, a SHA-256, a document's anchor.
AUDITOR_ONLY = re.compile(r"\b[A-Z]\d{3}\b|sha256|[0-9a-f]{64}|docs/|\.md\b|#[\w-]")


@pytest.mark.parametrize(("field", "recorded", "expected", "said"), [
    ("recorded", "settled", "cancelled",  # G003
     "G003 cancelled-game-paid : le règlement : la table a enregistré un règlement, les règles donnent une partie "
     "révoquée."),
    ("dealer[0]", "settled", "void",  # V001
     "V001 void-settled : la carte 1 du donneur : la table a enregistré un règlement, les règles donnent une "
     "distribution annulée."),
    ("recorded.void", True, False,  # V002
     "V002 valid-recorded-void : l'annulation : la table a enregistré une distribution annulée, les règles donnent "
     "une distribution valide."),
    ("recorded.outcome", "void", "win",
     "V002 valid-recorded-void : l'issue : la table a enregistré une distribution annulée, les règles donnent "
     "un gain."),
    ("recorded.dealer_qualified", False, True,
     "V002 valid-recorded-void : la qualification du donneur : la table a enregistré un donneur non qualifié, les "
     "règles donnent un donneur qualifié."),
])
def test_every_state_is_a_sentence_in_french(field: str, recorded: object, expected: object, said: str) -> None:
    code = said.split()[0]
    assert finding_words(code, field, recorded, expected, "", FRENCH) == said


def test_english_says_the_states_as_before() -> None:
    english = Messages("en")
    assert finding_words("G003", "recorded", "settled", "cancelled", "m", english) == \
        "G003 cancelled-game-paid: the settlement: the table recorded settled, the rules give cancelled."
    assert finding_words("V002", "recorded.void", True, False, "m", english) == \
        "V002 valid-recorded-void: the void: the table recorded void, the rules give not void."


def test_a_cancelled_game_has_one_word_in_french() -> None:
    """samples/table.yaml's cancelled game: "révoquée" throughout; its seats recorded
    void are not said "annulée" (a void deal's word), and the wallet's cancels are the
    wallet's own moves ("annulations", the transactions' name)."""
    code, out = run("explain", TABLE, "--game", "8812346", "--lang", "fr")
    assert code == 0
    assert "La table a enregistré la place comme révoquée : net 0, solde 104." in out
    assert "annulée" not in out and "Partie révoquée" in out
    _, english = run("explain", TABLE, "--game", "8812346")
    assert "The table recorded the seat as void: net 0, balance 104." in english  # the record's word, in English


def test_a_cancelled_seat_paid_is_a_sentence_in_french(write: Write) -> None:
    _, out = run("explain", log(write, {"outcome": "win", "net": 3}, None), "--game", "c1", "--lang", "fr")
    assert ("G003 cancelled-game-paid : le règlement : la table a enregistré un règlement, les règles donnent une "
            "partie révoquée.") in out


def test_no_french_ruling_says_a_state_bare(tmp_path: Path) -> None:
    """Over the samples and a simulated log of each shape with faults: no "enregistré réglée"."""
    paths = [SAMPLES / "void.yaml", SAMPLES / "table.yaml",
             *(faulty_log(tmp_path, "vivo", shape) for shape in ("yaml", "table"))]
    texts = [text for path in paths for text in rulings(path, FRENCH)[0]]
    assert any("la table a enregistré" in text for text in texts)
    assert not [line for text in texts for line in text.splitlines() if BARE_STATE.search(line)]


@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize("asked", [
    ("explain", TABLE, "--game", "8812347"),
    ("explain", TABLE, "--game", "8812345", "--player", "p-1002"),
    ("explain", str(SAMPLES / "disputed.yaml"), "--round", "1"),
    ("explain", str(SAMPLES / "void.yaml"), "--round", "4"),
    ("explain", str(ROOT / "tests" / "data" / "rulings-profiles.yaml"), "--round", "1", "--session", "caribbean"),
])
def test_the_players_ruling_has_no_code_sha256_or_anchor(lang: str, asked: tuple[str, ...]) -> None:
    code, auditor = run(*asked, "--lang", lang)
    assert code in (0, 1) and AUDITOR_ONLY.search(auditor)  # the auditor's view (the default) keeps them
    assert run(*asked, "--lang", lang, "--for", "auditor") == (code, auditor)
    player_code, player = run(*asked, "--lang", lang, "--for", "player")
    assert player_code == code  # the exit status is the ruling's, whoever reads it
    assert not AUDITOR_ONLY.search(player), AUDITOR_ONLY.findall(player)
    # The same ruling otherwise: its bottom line and every section; the game and session
    # named without the file and line of the record (a player's sheet names no file of ours).
    def unplaced(line: str) -> str:
        return re.sub(r" \([^()]*, (line|ligne) \d+\)$", "", line)

    first = auditor.splitlines()[0]
    assert unplaced(first) == player.splitlines()[0] != first and asked[1] not in player
    assert auditor.splitlines()[1:4] == player.splitlines()[1:4]
    headings = [unplaced(line) for line in auditor.splitlines() if line and not line.startswith(" ")]
    assert headings == [line for line in player.splitlines() if line and not line.startswith(" ")]


def test_the_players_ruling_says_each_finding_in_words() -> None:
    _, out = run("explain", TABLE, "--game", "8812347", "--player", "p-1002", "--lang", "fr", "--for", "player")
    assert "  Le résultat d'Ante : la table a enregistré +40, les règles donnent +200." in out
    assert "  Le portefeuille : la table a enregistré 50, les règles donnent 210." in out
    assert "  profil vivo (le guide, §01-§09)\n" in out
    assert "§03 Meilleure main parmi sept : « Chaque camp" in out
    _, out = run("explain", str(SAMPLES / "void.yaml"), "--round", "4", "--for", "player")
    assert "  A void deal, correctly handled: stakes returned, round not counted (§07)." in out


def test_the_players_ruling_is_words_not_json() -> None:
    code, out = run("explain", TABLE, "--game", "8812347", "--for", "player", "--format", "json")
    assert code == 2 and "--for player" in out and "--format text" in out


@pytest.mark.parametrize("name", ["vivo", "caribbean", "bonus-aa", "bonus-100"])
def test_no_builtin_profile_keeps_a_reference_for_the_player(name: str) -> None:
    """Every citation and source of the built-ins, in both languages, said without its path."""
    from referee.profiles import resolve_profile
    from referee.rules.profile import in_language

    profile = resolve_profile(name).profile
    for language in ("en", "fr"):
        said = [in_language(profile.source, language)]
        said += [passage.where(language) for passage in profile.rules.values()]
        left = [without_references(text) for text in said]
        assert all(text and not AUDITOR_ONLY.search(text) for text in left), left


def test_references_are_left_out() -> None:
    assert without_references("§02 Deal and opening (docs/rules.md#02-deal-and-opening)") == "§02 Deal and opening"
    assert without_references("le guide, §01-§09 : docs/rules.md#vivo") == "le guide, §01-§09"
    assert without_references("Caribbean Hold'em, en français : docs/rules.md#caribbean") == \
        "Caribbean Hold'em, en français"
    assert without_references("Caribbean Hold'em, “Règles du jeu” (the rules of the game; "
                              "docs/rules.md#caribbean-the-rules-of-the-game)") == \
        "Caribbean Hold'em, “Règles du jeu” (the rules of the game)"
    # An address a player can open is kept: only the references into referee's own docs go.
    assert without_references("House rules: https://example.com/rules#caribbean") == \
        "House rules: https://example.com/rules#caribbean"
    assert without_references("§5 (https://example.com/rules#s5)") == "§5 (https://example.com/rules#s5)"
