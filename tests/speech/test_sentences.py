"""Every sentence the table says, in both languages: from every recorded game of both games (tests/games, replayed
on their engines as the referee would tell them) and from every template the speech modules hold (filled with the
longest values a table says), each renders with espeak-ng to a WAV that is not silent and lasts as long as its
words take, with no field left unfilled and no word of the other language."""

from __future__ import annotations

import re
import shlex
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest
from wav_samples import samples

import companion
from companion.config import GameConfig
from companion.decks import SUITS, Kind, load_deck
from companion.documents.catalogues import plurals_in_code, said_in_code
from companion.games import find_kind
from companion.i18n import translate, translate_n
from companion.referee import Acted, Noticed, Referee, Refused, Undone
from companion.referee.news import Misplaced, News
from companion.rules import IllegalPlay
from companion.rules.transcript import UNDO, parse_line
from companion.speech.espeak import render
from companion.speech.sentences import Weight, utterances

GAMES = Path(__file__).parents[1] / "games"
sys.path.insert(0, str(GAMES))
import record  # noqa: E402

PACKAGE = Path(companion.__file__).parent
LANGUAGES = ("es", "en")
# Words only one of the two languages has: a sentence of the other language gives itself away by them.
ONLY = {
    "es": {"el", "la", "los", "las", "del", "te", "toca", "gana", "retira", "pareja", "asiento", "carta", "mano"},
    "en": {"the", "your", "turn", "wins", "take", "pair", "seat", "card", "hand", "is", "and", "of"},
}


def setup(transcript: Path) -> GameConfig:
    """The game a recorded transcript's first line gives (``companion play``'s arguments)."""
    name, players, deck, options = record.setup(shlex.split(transcript.read_text("utf-8").splitlines()[0][2:]))
    return GameConfig(name, players, deck or "", options)


def told(transcript: Path) -> Iterator[tuple[Referee, list[News]]]:
    """The transcript's lines, as the referee tells them: an action committed with its snapshots, a refused one,
    an undo; with the referee that voices them (its game follows the transcript)."""
    referee = Referee(setup(transcript), {"z1": "table"})
    game = referee.current_game
    for line in transcript.read_text("utf-8").splitlines():
        action = parse_line(line, referee.game_kind.grammar)
        if action is None:
            continue
        if action == UNDO:
            yield referee, [Undone(game.pop())]
            continue
        before = game.snapshot()
        try:
            game.push(action)
        except IllegalPlay as refusal:
            yield referee, [Refused(refusal)]
            continue
        yield referee, [Acted(action, before, game.snapshot())]


@cache
def story_sentences() -> dict[tuple[str, str], dict[str, Weight]]:
    """Every sentence of every recorded game, by (game, language): its weight."""
    found: dict[tuple[str, str], dict[str, Weight]] = {}
    for transcript in sorted(GAMES.glob("*.txt")):
        story = list(told(transcript))
        for lang in LANGUAGES:
            for referee, news in story:
                referee.language = lang
                said = found.setdefault((referee.game_kind.name, lang), {})
                for utterance in utterances(news, referee.game_kind, referee, "all"):
                    assert utterance.lang == lang
                    said[utterance.text] = utterance.weight
    return found


def speech_files() -> list[Path]:
    return [PACKAGE / "speech" / "sentences.py", *sorted(PACKAGE.glob("games/*/speech.py"))]


def templates() -> list[tuple[str, str]]:
    """(msgid, file) of every sentence the speech modules hold; a plural's singular stands for both forms."""
    said, _built = said_in_code()
    files = {f"companion/{path.relative_to(PACKAGE).as_posix()}" for path in speech_files()}
    return sorted(
        {
            (msgid, where.rpartition(":")[0])
            for msgid, places in said.items()
            for where in places
            if where.rpartition(":")[0] in files
        }
    )


def fields(lang: str) -> dict[str, object]:
    """The longest values each field takes at a table: card names, seat names, counts."""
    spanish, squadratik = load_deck("spanish-48"), load_deck("squadratik")
    card = spanish["12E"].name(lang)
    return {
        "name": card,
        "card": card,
        "what": card,
        "needed": spanish["11E"].name(lang),
        "suit": translate(SUITS["E"], lang),
        "row": "5-10",
        "seat": translate("Seat {n}", lang).format(n=8),
        "who": translate("pair {pair}", lang).format(pair="B"),
        "pair": "B",
        "zone": "z8",
        "master": squadratik.of_kind(Kind.MASTER)[-1].name(lang),
        "game": translate("6º SET", lang),
        "points": 10,
        "chips": 49,
        "score": 58,
        "allowed": 2,
        "a": 8,
        "b": 0,
        "won": 15,
        "lost": 14,
        "sets_a": 7,
        "sets_b": 7,
    }


def spoken_templates() -> Iterator[tuple[str, str, str]]:
    """(language, msgid, sentence) for every template, filled; both plural forms."""
    plurals = plurals_in_code()
    for msgid, _file in templates():
        for lang in LANGUAGES:
            values = fields(lang)
            if msgid in plurals:
                for n in (1, 7):
                    yield lang, msgid, translate_n(msgid, plurals[msgid], n, lang).format(**values)
            else:
                yield lang, msgid, translate(msgid, lang).format(**values)


def check_said(text: str, lang: str) -> None:
    assert text.strip(), "an empty sentence"
    assert not re.search(r"[{}]", text), f"a field left in {text!r}"
    words = set(re.findall(r"[a-záéíóúñü]+", text.lower()))
    other = "en" if lang == "es" else "es"
    assert not words & ONLY[other], f"{lang}: {text!r} has words of {other}: {words & ONLY[other]}"
    seconds, loudest = samples(render(text, lang))
    assert loudest > 2000, f"{text!r} renders silent ({loudest})"
    spoken = len(re.findall(r"\w+", text))
    assert 0.12 * spoken < seconds < 0.2 + 0.9 * spoken, f"{text!r}: {seconds:.2f} s for {spoken} words"


@pytest.mark.slow
def test_the_recorded_games_say_results_refusals_undos_and_turns_in_both_languages() -> None:
    found = story_sentences()
    assert set(found) == {(game, lang) for game in ("seises", "sexto-set") for lang in LANGUAGES}
    for (game, lang), said in found.items():
        weights = set(said.values())
        assert weights >= {Weight.TURN, Weight.RESULT, Weight.NEWS, Weight.REFUSAL}, (game, lang, weights)
        assert len(said) > 20, (game, lang)
    renuncio = [text for text in found["seises", "es"] if text.startswith("¡Renuncio!")]
    assert any("Menos" in text for text in renuncio), "a renuncio proven with its penalty"
    assert any("cartas maestras" in text for text in found["sexto-set", "es"]), "a set won with its master cards"
    assert any("wins the match" in text for text in found["sexto-set", "en"])
    assert any("cannot pay" in text for text in found["seises", "en"]), "a pay refused and why"
    assert any("cannot pass" in text for text in found["sexto-set", "en"]), "a pass refused and why"


@pytest.mark.slow
@pytest.mark.parametrize(("game", "lang"), [(g, lang) for g in ("seises", "sexto-set") for lang in LANGUAGES])
def test_every_sentence_of_the_recorded_games_renders_as_it_should(game: str, lang: str) -> None:
    for text in story_sentences()[game, lang]:
        check_said(text, lang)


def test_every_template_renders_filled_in_both_languages() -> None:
    said = list(spoken_templates())
    files = {file for _msgid, file in templates()}
    assert len(files) == len(speech_files()), "every speech module's sentences were found"
    assert len(said) > 100
    for lang, msgid, text in said:
        if lang == "es":
            assert text != msgid.format(**fields("en")), f"{msgid!r} is not said in Spanish"
        check_said(text, lang)


def test_the_levels_choose_what_is_said() -> None:
    transcript = GAMES / "seises-renege-points.txt"
    every = [(referee, news) for referee, news in told(transcript)]
    referee = every[0][0]
    kind = referee.game_kind
    heard = {
        level: [u for _r, news in every for u in utterances(news, kind, referee, level)]
        for level in ("off", "rulings", "all")
    }
    assert heard["off"] == []
    assert heard["rulings"] and all(u.weight.ruling for u in heard["rulings"])
    assert {u.weight for u in heard["all"]} > {u.weight for u in heard["rulings"]}
    assert [u for u in heard["all"] if u.weight.ruling] == heard["rulings"]


def test_a_message_of_the_referee_is_said_only_when_a_sentence_is_written_for_it() -> None:
    referee = Referee(GameConfig(language="en"), {"z1": "table"})
    kind = referee.game_kind
    said = utterances([Noticed("seats_named"), Noticed("reader_down", {"zone": "z2"})], kind, referee, "all")
    assert [u.text for u in said] == ["Reader z2 does not answer. Check its cable."]
    misplaced = utterances([Misplaced("7O", "z1")], kind, referee, "rulings")
    assert [u.text for u in misplaced] == ["The 7 of coins does not go on this zone."]


def test_a_game_without_a_speech_module_is_heard_through_its_refusals(monkeypatch: pytest.MonkeyPatch) -> None:
    kind = find_kind("seises")
    referee = Referee(GameConfig(language="es"), {"z1": "table"})
    refusal = referee.current_game.refusal(parse_line("play 7O"))
    monkeypatch.setattr("companion.speech.sentences.game_module", lambda _kind, _name: None)
    said = utterances([Refused(refusal)], kind, referee, "all")
    assert [u.text for u in said] == [refusal.sentence("es")]


def test_an_action_s_results_are_one_utterance_in_the_order_they_happened() -> None:
    transcript = GAMES / "seises-renege-on-last-card.txt"
    for referee, news in told(transcript):
        referee.language = "en"
        said = utterances(news, referee.game_kind, referee, "rulings")
        if said and said[0].text.startswith("Renuncio!") and "wins the" in said[0].text:
            assert len(said) == 1
            assert said[0].text.index("Renuncio!") < said[0].text.index("wins the")
            return
    raise AssertionError("the recorded game proves a renuncio with the card that ends the hand")
