"""`referee explain` and `referee hand` (issue 4), in English and French."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from referee.i18n import Messages, default_language
from referee.rules.hands import describe

from .conftest import SAMPLES, run

RULINGS = str(Path(__file__).parent / "data" / "rulings.yaml")


def explain(*args: str) -> tuple[int, str]:
    return run("explain", *args)


def explain_json(*args: str) -> dict[str, Any]:
    code, out = run("explain", "--format", "json", *args)
    assert code in (0, 1)
    doc = json.loads(out)
    assert len(doc["explanations"]) >= 1
    first: dict[str, Any] = doc["explanations"][0]
    return first


def test_worked_example_in_english() -> None:
    code, out = explain(str(SAMPLES / "clean.yaml"), "--round", "1", "--lang", "en")
    assert code == 0
    assert "Player  A♥ K♦" in out and "Flop    A♠ 7♦ 4♣" in out and "Dealer  Q♠ Q♣" in out
    assert "Player: pair of aces, kickers K, 9, 7" in out
    assert "Dealer: pair of queens, kickers A, 9, 7" in out
    assert "The dealer qualifies: pair of queens" in out and "a pair of fours or better" in out
    assert "Pair: aces against queens: the player wins." in out
    assert "The dealer qualifies but loses." in out
    assert "Ante 1: wins 1: Ante paytable, pair 1:1\n" in out
    assert "Call 2: wins 2" in out
    assert "Net +3; total returned with the stakes 6." in out
    assert "profile vivo (" in out
    assert "§06 Scoring (docs/rules.md#06-scoring): \"Net Ante payouts: royal flush 100:1;" in out


def test_worked_example_in_french() -> None:
    code, out = explain(str(SAMPLES / "clean.yaml"), "--round", "1", "--lang", "fr")
    assert code == 0
    assert "Joueur : paire d'as avec R, 9, 7" in out
    assert "Donneur : paire de dames avec A, 9, 7" in out
    assert "Le donneur est qualifié mais perd." in out
    assert "Ante 1 : rapporte 1 : barème d'Ante, paire 1:1\n" in out
    assert "Joueur   A♥ R♦" in out and "Donneur  D♠ D♣" in out  # French rank letters, as in the words
    assert "Call 2 : rapporte 2" in out
    assert "Net +3 ; retour total avec les mises 6." in out


CASES = {
    # round: (English phrases, French phrases, JSON facts)
    "1": (["The player folds: the Ante is lost", "Ante 1: loses 1: lost by the fold", "Net -1"],
          ["Le joueur choisit Fold : Ante est perdu", "Ante 1 : perd 1 : perdu par le Fold", "Net -1"],
          {"outcome": "fold", "net": -1, "sections": ["§02", "§05"]}),
    "2": (["Player: royal flush", "the board plays (no private card)", "Exact tie",
           "The board plays for both: a tie.", "Ante 1: returned: exact tie", "Net 0"],
          ["Joueur : quinte flush royale", "le tableau joue (aucune carte privée)", "Égalité exacte",
           "Le tableau joue pour les deux : égalité."],
          {"outcome": "push", "net": 0, "returned": 3}),
    "3": (["Pair: aces for both.", "Kicker 1: K against Q: the player wins."],
          ["Paire : as des deux côtés.", "Carte restante 1 : R contre D : le joueur gagne."],
          {"outcome": "win", "net": 3}),
    "4": (["Player: flush, ace high: A, 9, 7, 5, 2", "The dealer does not qualify (a pair of fours or better needed)",
           "Ante 1: wins 2: Ante paytable, flush 2:1", "Call 2: returned: the dealer does not qualify"],
          ["Joueur : couleur hauteur as : A, 9, 7, 5, 2", "Le donneur n'est pas qualifié (il faut une paire de quatre",
           "Ante 1 : rapporte 2 : barème d'Ante, couleur 2:1"],
          {"outcome": "win", "dealer_qualified": False, "net": 2}),
    "5": (["The table paid +2; the rules give +3; 1 is owed to the player.",
           "P002 call-result: the Call's result: the table recorded +1, the rules give +2.",
           "P004 net-result: the net result: the table recorded +2, the rules give +3."],
          ["La table a payé +2 ; les règles donnent +3 ; 1 est dû au joueur.",
           "P002 call-result : le résultat de Call : la table a enregistré +1, les règles donnent +2."],
          {"outcome": "win", "net": 3}),
}


@pytest.mark.parametrize("number", sorted(CASES))
@pytest.mark.parametrize("lang", ["en", "fr"])
def test_rulings(number: str, lang: str) -> None:
    english, french, facts = CASES[number]
    code, out = explain(RULINGS, "--round", number, "--lang", lang)
    for phrase in english if lang == "en" else french:
        assert phrase in out, phrase
    assert code == (1 if number == "5" else 0)
    doc = explain_json(RULINGS, "--round", number, "--lang", lang)
    for key, value in facts.items():
        assert doc[key] == value, key
    assert doc["language"] == lang and doc["text"] == out


def test_json_carries_the_facts() -> None:
    doc = explain_json(RULINGS, "--round", "3")
    assert doc["player"]["best_five"][:2] == ["As", "Ah"] and doc["player"]["private_cards_playing"] == ["Ah", "Kd"]
    steps = doc["comparison"]["steps"]
    assert [s["role"] for s in steps] == ["category", "pair", "kicker"]
    assert steps[-1] == {"role": "kicker", "index": 1, "player": "K", "dealer": "Q", "decides": True}
    assert doc["comparison"]["winner"] == "player"
    assert [(w["wager"], w["net"], w["rule"]) for w in doc["wagers"]] == [("ante", 1, "paytable"),
                                                                        ("call", 2, "call_odds")]
    disputed = explain_json(RULINGS, "--round", "5")
    assert {(f["code"], f["recorded"], f["expected"]) for f in disputed["findings"]} == {("P002", 1, 2),
                                                                                         ("P004", 2, 3)}


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_void_deal_and_its_replay(lang: str) -> None:
    code, out = explain(RULINGS, "--round", "6", "--lang", lang)
    assert code == 0  # the void was recorded as such: an info finding only
    if lang == "en":
        assert "The deal is incorrect: the same card dealt twice." in out
        assert "Detail: Ks is dealt twice (player and flop)" in out
        assert "Player: K♠ 8♦" in out and "Flop: K♠ 2♣ 3♣" in out
        assert "Every stake is returned" in out
    else:
        assert "La distribution est incorrecte : la même carte distribuée deux fois." in out
        assert "Toutes les mises sont rendues" in out
    assert out.count("Round 6" if lang == "en" else "Manche 6") == 2  # the void deal, then its replay
    doc = json.loads(run("explain", "--format", "json", RULINGS, "--round", "6")[1])
    assert [e["outcome"] for e in doc["explanations"]] == ["void", "win"]
    assert doc["explanations"][0]["void"]["kind"] == "duplicate_card"


def test_disputed_sample_round_17() -> None:
    code, out = explain(str(SAMPLES / "disputed.yaml"), "--round", "17")
    assert code == 1 and "K001" in out and "the table recorded two pair, the rules give high card." in out


def test_errors_exit_2() -> None:
    code, out = explain(RULINGS, "--round", "99")
    assert code == 2 and "no round 99" in out
    code, out = explain(str(SAMPLES / "log.jsonl"), "--round", "1")
    assert code == 2 and "--session" in out
    code, out = explain("no-such-file.yaml", "--round", "1")
    assert code == 2


def test_session_option_picks_one() -> None:
    code, out = explain(str(SAMPLES / "log.jsonl"), "--round", "1", "--session", "sim-vivo-6-2")
    assert code in (0, 1) and "session sim-vivo-6-2" in out


def test_a_session_misspelt_by_one_edit_is_named() -> None:
    """--session with a slip said 'no round 1 in session sim-vivo-6-3x', as if the
    session were there without the round."""
    log = str(SAMPLES / "log.jsonl")
    code, out = explain(log, "--round", "1", "--session", "sim-vivo-6-2x")
    assert code == 2 and "no session sim-vivo-6-2x; did you mean 'sim-vivo-6-2'?" in out
    code, out = explain(log, "--round", "1", "--session", "sim-vivo-6-9")  # one edit from each of them: no guess
    assert code == 2 and "no session sim-vivo-6-9" in out and "did you mean" not in out


def test_language_from_environment() -> None:
    assert default_language({"LANG": "fr_FR.UTF-8"}) == "fr"
    assert default_language({"LC_ALL": "en_GB.UTF-8", "LANG": "fr_FR.UTF-8"}) == "en"
    assert default_language({"LANG": "de_DE.UTF-8"}) == "en"
    assert default_language({}) == "en"
    _, out = run("hand", "Ah", "Kd", "As", "7d", "4c", "9h", "2s", "--lang", "fr")
    assert "paire d'as avec R 9 7" not in out and "paire d'as avec R, 9, 7" in out


def test_hand_command() -> None:
    code, out = run("hand", "Ah", "Kd", "As", "7d", "4c", "9h", "2s")
    assert code == 0 and "pair of aces, kickers K, 9, 7: A♥ A♠ K♦ 9♥ 7♦" in out
    code, out = run("hand", "Ah Kd As 7d 4c 9h 2s", "--vs", "Ac Qd As 7d 4c 9h 2s")
    assert "Kicker 1: K against Q: the first hand wins." in out
    code, out = run("hand", "--format", "json", "Ah", "Kd", "As", "7d", "4c", "--vs", "Ac Kc As 7d 4c")
    doc = json.loads(out)
    assert doc["winner"] == "tie" and doc["hands"][0]["category"] == "pair"
    code, out = run("hand", "Ah", "Kd", "Ax", "7d", "4c")
    assert code == 2 and "Ax" in out


def test_an_unquoted_second_hand_is_told_to_be_quoted() -> None:
    """Unquoted, ``--vs 2c 3c ...`` takes 2c alone and the rest joins the first hand
    (issue 27): the error says to quote the second hand, on one line, exit 2."""
    code, out = run("hand", *"Ah Kh Qh Jh Th 9h 8h --vs 2c 3c 4c 5c 6c 7c".split())  # noqa: SIM905
    (error,) = [line for line in out.splitlines() if line.startswith("Error:")]
    assert code == 2 and "Traceback" not in out
    assert error == ('Error: Invalid value for CARDS: a hand has 5, 6 or 7 cards, got 12; quote the hand after '
                     '--vs (--vs "2c ..."), or give --vs before each of its cards')
    code, out = run("hand", *"Ah Kh Qh Jh Th 9h 8h 2c".split())  # noqa: SIM905 (no --vs: nothing to quote)
    assert code == 2 and out.splitlines()[-1] == "Error: Invalid value for CARDS: a hand has 5, 6 or 7 cards, got 8"
    code, out = run("hand", *"Ah Kh Qh Jh Th 9h 8h 2c 3c 4c 5c 6c 7c".split())  # noqa: SIM905 (two hands as one)
    assert code == 2 and out.splitlines()[-1] == ('Error: Invalid value for CARDS: a hand has 5, 6 or 7 cards, got 13; '
                                                  'two hands? give the second after --vs (--vs "2c 3c ...")')


def test_every_message_is_translated() -> None:
    """Each message the rulings above ask for has a French translation in the catalogue."""
    asked: set[str] = set()
    french = Messages("fr")
    catalogue = french.catalogue._catalog  # type: ignore[attr-defined]

    class Recording(Messages):
        def __call__(self, message: str) -> str:
            asked.add(message)
            return super().__call__(message)

    from referee.audit.explain import explain_rounds
    from referee.audit.explain_table import explain_game
    from referee.audit.stream import Options
    from referee.load.inputs import expand
    from referee.report.ruling import RulingText

    recording = Recording("fr")
    for number in range(1, 7):
        for ex in explain_rounds(expand([RULINGS])[0], number, None, Options()):
            RulingText(ex, recording).text()
    for session, round_number in PROFILE_CASES:
        for ex in explain_rounds(expand([PROFILES])[0], int(round_number), session, Options()):
            RulingText(ex, recording).text()
    for ex in explain_game(expand([str(SAMPLES / "table.yaml")])[0], "8812346", None, None, Options()):
        RulingText(ex, recording).text()  # a cancelled game: its own words
    for value in range(0, 10 << 20, 1 << 20):
        describe(value | 0x54321, recording, recording.rank)
    missing = sorted(m for m in asked if m not in catalogue)
    assert not missing


def test_catalogue_is_compiled() -> None:
    """The committed .mo is the compilation of the committed .po (pybabel compile)."""
    from io import BytesIO

    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    folder = Path(__file__).parent.parent / "referee" / "locale" / "fr" / "LC_MESSAGES"
    with open(folder / "referee.po", "rb") as fh:
        catalogue = read_po(fh)
    problems = [(message.id, errors) for message, errors in catalogue.check() if errors]
    assert not problems  # placeholders and formats agree, as pybabel compile checks
    compiled = BytesIO()
    write_mo(compiled, catalogue)
    assert compiled.getvalue() == (folder / "referee.mo").read_bytes()


PROFILES = str(Path(__file__).parent / "data" / "rulings-profiles.yaml")
# (session, round): {language: phrases}. Each kind of wager line, each bottom line, the
# quoted rule of each, in both languages.
PROFILE_CASES: dict[tuple[str, str], dict[str, list[str]]] = {
    ("bonus-aa", "1"): {
        "en": ["The table paid -2; the rules give -2; nobody is owed anything.",
               "Bonus 1: loses 1: the fold forfeits the bonus",
               "Bonus AA, “Description du jeu” (the description of the game; "
               "docs/rules.md#bonus-aa-the-description-of-the-game): « Si le joueur choisit de se coucher, il déclare"],
        "fr": ["La table a payé -2 ; les règles donnent -2 ; personne ne doit rien.",
               "Bonus 1 : perd 1 : le Fold fait perdre le bonus"]},
    ("bonus-aa", "2"): {
        "en": ["The table paid +8; the rules give +10; 2 is owed to the player.",
               "Player: three of a kind, threes, kickers K, 9: 3♥ 3♣ 3♦ K♣ 9♦",
               "Bonus 1: wins 7: Bonus AA paytable, three of a kind 7:1",
               "Tableau des gains du Bonus AA : Couleur ou mieux 25 pour 1",
               "P003 bonus-result: the bonus's result: the table recorded +5, the rules give +7."],
        "fr": ["La table a payé +8 ; les règles donnent +10 ; 2 sont dus au joueur.",
               "Joueur : brelan de trois avec R, 9 : 3♥ 3♣ 3♦ R♣ 9♦",
               "Bonus 1 : rapporte 7 : barème Bonus AA, brelan 7:1"]},
    ("bonus-aa", "3"): {
        "en": ["The table paid +4; the rules give +2; 2 is owed to the house.",
               "Bonus 1: loses 1: the player's five cards are not a pair of aces or better"],
        "fr": ["La table a payé +4 ; les règles donnent +2 ; 2 sont dus à la maison."]},
    ("caribbean", "1"): {
        "en": ["The table paid +2; the rules give +1; 1 is owed to the house.",
               "Ante 1: wins 1: even money: the dealer does not qualify",
               "« Si le croupier ne se qualifie pas, il paie la mise ante à même de l'argent",
               "K003 dealer-qualified: the dealer's qualification: the table recorded qualified, "
               "the rules give not qualified."],
        "fr": ["La table a payé +2 ; les règles donnent +1 ; 1 est dû à la maison.",
               "la table a enregistré un donneur qualifié, les règles donnent un donneur non qualifié."]},
    ("bonus-100", "1"): {
        "en": ["The table paid +50; the rules give +50; nobody is owed anything.",
               "Player: four of a kind, kings, kicker 10: K♠ K♣ K♥ K♦ 10♥", "Turn    10♥",
               "Call 2: returned: the profile returns the Call when the player beats a qualified dealer",
               "Bonus 1: wins 40: Bonus paytable, four of a kind 40:1"],
        "fr": ["Joueur : carré de rois avec 10 : R♠ R♣ R♥ R♦ 10♥", "Joueur   R♥ R♦",
               "Call 2 : rendu : le profil rend Call quand le joueur bat un donneur qualifié",
               "« Si le croupier se qualifie et que vous le battez, la mise initiale rapporte"]},
    ("bonus-100", "2"): {
        "en": ["The record does not say what the table paid; the rules give -4.",
               "Call 2: loses 2: the qualified dealer wins",
               "P006 outcome: the outcome: the table recorded a win, the rules give a loss.",
               "K001 player-hand: the player's hand: the table recorded pair, the rules give high card."],
        "fr": ["L'enregistrement ne dit pas ce que la table a payé ; les règles donnent -4.",
               "Donneur : brelan de valets avec R, 8 : V♠ V♥ V♦ R♦ 8♠",
               "P006 outcome : l'issue : la table a enregistré un gain, les règles donnent une perte."]},
}


@pytest.mark.parametrize("key", sorted(PROFILE_CASES))
@pytest.mark.parametrize("lang", ["en", "fr"])
def test_rulings_under_each_profile(key: tuple[str, str], lang: str) -> None:
    """The answer first, the rule quoted, the record in words, under every built-in."""
    session, number = key
    _, out = explain(PROFILES, "--session", session, "--round", number, "--lang", lang)
    for phrase in PROFILE_CASES[key][lang]:
        assert phrase in out, phrase
    lines = out.splitlines()
    assert lines[2] == ("Bottom line" if lang == "en" else "En bref")  # the answer comes first
    record = out[out.index("The record" if lang == "en" else "L'enregistrement"):]
    assert not any(word in record for word in ("True", "False", "None", "recorded.", "_"))
    if lang == "fr":  # French letters: no K, Q, J, T in a French card line
        cards = out[out.index("Cartes distribuées"):out.index("Décision")]
        assert not any(f"{rank}{suit}" in cards for rank in "KQJT" for suit in "♣♦♥♠")


def test_each_quote_once_and_from_the_profile() -> None:
    """A ruling quotes each passage once; a custom profile's own words are quoted."""
    _, out = explain(RULINGS, "--round", "5")
    # qualification and the win: two passages of §05
    assert out.count("§05 Qualification and settlement (docs/rules.md#05-qualification-and-settlement): \"") == 2
    custom = Path(__file__).parent / "data" / "house.yaml"
    _, out = run("explain", RULINGS, "--round", "5", "--profile", str(custom))
    assert "House rules 3.2: \"Our dealer pays the Call at 1:1 when beaten.\"" in out
    assert "§06" not in out  # the built-in's words are not the house's


def test_every_rule_has_words_and_a_topic() -> None:
    """The wording is a match over Rule (mypy checks it): every rule has a sentence in both
    languages and for check, and each rule that is applied to a stake cites a topic (but a
    cancelled game: the table's decision, which no document of the rules speaks of)."""
    from referee.audit.compare import rule_words
    from referee.report.ruling import topic_of
    from referee.rules.payout import Rule

    for rule in Rule:
        assert rule_words(rule)
        assert topic_of(rule) is not None or rule in (Rule.NOT_OFFERED, Rule.CANCELLED)


@pytest.mark.parametrize("name", ["vivo", "caribbean", "bonus-aa", "bonus-100"])
def test_each_built_in_ships_the_words_of_every_rule_it_applies(name: str) -> None:
    """Every topic a ruling under the built-in can quote has a passage, in the language of
    the profile's document (vivo's guide exists in both)."""
    from referee.profiles import load_profile
    from referee.rules.profile import Topic

    profile = load_profile(name)
    needed = set(Topic) - {Topic.BONUS, Topic.BONUS_FOLD}
    if profile.bonus is not None:
        needed.add(Topic.BONUS)
        if profile.bonus.fold_forfeits:
            needed.add(Topic.BONUS_FOLD)
    assert needed <= set(profile.rules)
    assert all("fr" in passage.text for passage in profile.rules.values())  # every document has French
    if name == "vivo":  # the guide also exists in English (docs/rules.md#vivo)
        assert all("en" in passage.text for passage in profile.rules.values())


def _ledger_session(write: Any, *rounds: str, agreed: int | None = None) -> str:
    from .test_ledger_cases import session

    return str(write("s.yaml", session(*rounds, agreed=agreed)))


def test_a_round_followed_by_its_verbatim_copy_is_ruled_with_a_note(write: Any) -> None:
    """The first record is explained; the copy is a note (S003 with its line), not a refusal."""
    from .test_ledger_cases import worked

    path = _ledger_session(write, worked(1), worked(2, "net: 3"), worked(2, "net: 3"), worked(3), agreed=3)
    code, text = explain(path, "--round", "2")
    assert code == 1 and "cannot be ruled" not in text and "Usage" not in text
    assert text.count("Round 2,") == 1 and "Net +3" in text
    assert "S003 duplicate-round (round 2: round 2 is recorded twice: the same record again, at line 24)" in text
    code, _ = run("report", "-o", str(Path(path).with_suffix(".html")), path)
    assert "cannot be ruled" not in Path(path).with_suffix(".html").read_text(encoding="utf-8")


def test_a_mistyped_category_is_shown_against_the_rules_category(write: Any) -> None:
    from .test_ledger_cases import worked

    code, text = explain(_ledger_session(write, worked(1, "player_hand: two pairs")), "--round", "1")
    assert code == 1
    assert ("the table recorded two pairs (did you mean 'two_pair'?), the rules give pair." in text)
    assert "—" not in text.split("The record")[1]


@pytest.mark.parametrize(("damage", "code"), [('"decision":"cal"', "H001"), ('"decision":"call","ante":"x"', "H003")])
def test_a_round_whose_line_cannot_be_read_says_why(tmp_path: Path, damage: str, code: str) -> None:
    """A round the audit could not read (a misspelt value, a key written twice) is there:
    explain says why it cannot be ruled, at its line, not that there is no such round."""
    lines = (SAMPLES / "log.jsonl").read_text(encoding="utf-8").splitlines()[:3]
    lines[2] = lines[2].replace('"decision":"call"', damage, 1)
    log = tmp_path / "damaged.jsonl"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    status, out = explain(str(log), "--round", "2")
    assert status == 2 and f"damaged.jsonl:3: round 2 cannot be ruled: {code} round 2:" in out
    assert "no round" not in out
    status, out = explain(str(log), "--round", "3")
    assert status == 2 and "no round 3" in out


def test_a_round_number_of_a_live_table_names_its_game() -> None:
    """A live table's games carry the table's round numbers: --round 2 on one says which
    game is numbered 2 and how to explain it (its seats), not only 'no round 2'."""
    table = str(SAMPLES / "table.jsonl")
    status, out = explain(table, "--round", "2")
    assert status == 2 and f"no round 2; game 8812345 of this live table is numbered 2: referee explain {table} " \
        "--game 8812345" in out
    status, out = explain(table, "--round", "9")
    assert status == 2 and out.rstrip().endswith("no round 9")
