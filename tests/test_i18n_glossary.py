"""One Indonesian word per thing: the glossary (docs/glossary.md) against every string.

The tables of the glossary are the test's data: for each English string (a catalog key, or a
terminal game's string) that holds a glossary term, its Indonesian must hold the term's word and
none of the term's *never* words; a few words are never used at all; and the short labels the
glossary names say exactly what it says.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal, TypeGuard, get_args

import pytest

from heartsuit import i18n
from heartsuit.cli.hearts_play import STRINGS as HEARTS_STRINGS
from heartsuit.cli.solitaire_play import STRINGS as SOLITAIRE_STRINGS

GLOSSARY: Final = Path(__file__).resolve().parents[1] / "docs" / "glossary.md"

Game = Literal["Hearts", "Heart to Heart"]
Scope = Literal["Hearts", "Heart to Heart", "both"]

#: the keys of the Hearts pages (every other key is Heart to Heart's or the site's own)
HEARTS_KEYS: Final = (
    "hsetup.",
    "hearts.",
    "hrules.",
    "hjoin.",
    "hreplay.",
    "hcard.",
    "home.hearts.",
)

_CODE = re.compile(r"`([^`]+)`")
#: "{total|deal|deals}" counts as its plural word; other placeholders and options are not words
_PLURAL = re.compile(r"\{[a-z_]+\|[^|{}]*\|([^|{}]*)\}")
_PLACEHOLDER = re.compile(r"\{[^{}]*\}")
_OPTION = re.compile(r"--[a-z][a-z-]*")


@dataclass(frozen=True, slots=True)
class Term:
    """One row of "The words": the English forms, the one Indonesian word (with its forms whose
    affix changes its first letter, such as "memecahkan"), the words it is not."""

    english: tuple[str, ...]
    word: tuple[str, ...]
    never: tuple[str, ...]
    scope: Scope


@dataclass(frozen=True, slots=True)
class Pair:
    """One string in both languages: a catalog key or a terminal game's string."""

    name: str
    game: Game
    english: str
    indonesian: str


def _table(title: str) -> list[list[str]]:
    """The body rows of the table under the heading ``## title``, as lists of cells."""
    text = GLOSSARY.read_text(encoding="utf-8")
    section = text.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")]
    # the header row and the |---| row
    return [[cell.strip() for cell in row.strip("|").split("|")] for row in rows[2:]]


def _is_scope(value: str) -> TypeGuard[Scope]:
    return value in get_args(Scope)


def terms() -> list[Term]:
    found = []
    for english, word, never, scope, _where in _table("The words"):
        assert _is_scope(scope), f"unknown game {scope!r} in the glossary"
        found.append(Term(tuple(_CODE.findall(english)), tuple(_CODE.findall(word)),
                          tuple(_CODE.findall(never)), scope))
    return found


def never_anywhere() -> list[str]:
    return [_CODE.findall(row[0])[0] for row in _table("Words the Indonesian never uses")]


def short_labels() -> dict[str, str]:
    return {_CODE.findall(row[0])[0]: row[1] for row in _table("Labels that say less")}


def _game_of(key: str) -> Game:
    return "Hearts" if key.startswith(HEARTS_KEYS) else "Heart to Heart"


def pairs() -> Iterator[Pair]:
    """Every string in both languages: the catalogs, then the two terminal games."""
    en, id_ = i18n.catalog("en"), i18n.catalog("id")
    for key in en:
        yield Pair(f"catalog {key}", _game_of(key), en[key], id_[key])
    terminals: list[tuple[str, Game, Mapping[i18n.Lang, Mapping[str, str]]]] = [
        ("solitaire_play", "Heart to Heart", SOLITAIRE_STRINGS),
        ("hearts_play", "Hearts", HEARTS_STRINGS),
    ]
    for module, game, strings in terminals:
        for key in strings["en"].keys() & strings["id"].keys():
            yield Pair(f"{module} {key}", game, strings["en"][key], strings["id"][key])


def _plain(text: str) -> str:
    text = _PLURAL.sub(r"\1", text)
    return _OPTION.sub(" ", _PLACEHOLDER.sub(" ", text))


def _whole(word: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w-]){re.escape(word)}(?![\w-])", re.IGNORECASE)


def terms_in(english: str, glossary: list[Term]) -> list[tuple[str, Term]]:
    """The glossary terms an English string holds, longest form first; a form found is set
    aside, so "deal code" is not also a "deal"."""
    text = _plain(english)
    forms = sorted(
        ((form, term) for term in glossary for form in term.english), key=lambda f: -len(f[0])
    )
    found = []
    for form, term in forms:
        pattern = _whole(form)
        if pattern.search(text):
            found.append((form, term))
            text = pattern.sub(" ", text)
    return found


def problems(pair: Pair, glossary: list[Term]) -> list[str]:
    """What is wrong with a pair's Indonesian, by the glossary (nothing: an empty list)."""
    indonesian = _plain(pair.indonesian)
    said = []
    for form, term in terms_in(pair.english, glossary):
        if term.scope not in ("both", pair.game):
            continue
        if not any(word.lower() in indonesian.lower() for word in term.word):
            said.append(f"{pair.name}: {form!r} without {term.word[0]!r}: {pair.indonesian!r}")
        for never in term.never:
            if _whole(never).search(indonesian):
                said.append(f"{pair.name}: {form!r} as {never!r}: {pair.indonesian!r}")
    return said


def test_the_glossary_has_its_three_tables() -> None:
    assert len(terms()) >= 20
    assert all(term.english and term.word for term in terms())
    assert "jika" in never_anywhere()
    assert short_labels()["pile.stock_short"] == "Ambil"


def test_the_check_finds_a_wrong_word_and_a_missing_one() -> None:
    glossary = terms()
    wrong = Pair("x", "Heart to Heart", "That card is still covered", "Kartu itu masih tertutup")
    assert len(problems(wrong, glossary)) == 2  # no "tertindih", and "tertutup" itself
    # a deal code is kode permainan, and then no bare "deal" is asked for besides
    code = Pair("x", "Heart to Heart", "Type a deal code.", "Ketik kode permainan.")
    assert problems(code, glossary) == []
    # a term of one game says nothing about the other's strings
    dealt = Pair("x", "Hearts", "After the deal, pass cards.", "Setelah kartu dibagi, oper kartu.")
    assert problems(dealt, glossary) == []
    # placeholders and options are not words
    seed = Pair("x", "Hearts", "Replay with --seed {seed}.", "Main lagi dengan --seed {seed}.")
    assert problems(seed, glossary) == []


def test_every_term_is_in_some_string() -> None:
    glossary = terms()
    used = {
        term.english
        for pair in pairs()
        for _, term in terms_in(pair.english, glossary)
        if term.scope in ("both", pair.game)
    }
    assert [term.english for term in glossary if term.english not in used] == []


def test_each_thing_has_one_indonesian_word() -> None:
    glossary = terms()
    skipped = {f"catalog {key}" for key in short_labels()}
    found = [p for pair in pairs() if pair.name not in skipped for p in problems(pair, glossary)]
    assert found == []


@pytest.mark.parametrize("word", never_anywhere())
def test_the_indonesian_never_says(word: str) -> None:
    texts = dict(i18n.catalog("id"))
    texts |= {f"solitaire_play {k}": v for k, v in SOLITAIRE_STRINGS["id"].items()}
    texts |= {f"hearts_play {k}": v for k, v in HEARTS_STRINGS["id"].items()}
    pattern = _whole(word)
    assert [key for key, text in texts.items() if pattern.search(_plain(text))] == []


def test_the_short_labels_say_what_the_glossary_says() -> None:
    catalog = i18n.catalog("id")
    assert {key: catalog.get(key) for key in short_labels()} == short_labels()
