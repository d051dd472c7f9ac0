"""The message catalogs: both languages complete and consistent; every key a page uses exists."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from heartsuit import i18n
from heartsuit.server.hearts import pages as hearts_pages
from heartsuit.server.site import pages

TEMPLATE_DIR = pages.TEMPLATE_DIR
JS_DIR = pages.STATIC_DIR / "js"

#: t('key') / t("key") with a literal key, in templates and in the ES modules (keys built at
#: render time, such as 'settings.' ~ name, are checked by rendering every page: an unknown key
#: raises there, see tests/test_pages.py)
_LITERAL_KEY = re.compile(r"""\bt\(\s*['"]([a-z0-9_.]+)['"]\s*[,)]""")


def _keys_used(directory: Path, pattern: str) -> dict[str, set[str]]:
    used: dict[str, set[str]] = {}
    for path in sorted(directory.glob(pattern)):
        used[path.name] = set(_LITERAL_KEY.findall(path.read_text(encoding="utf-8")))
    return used


def test_both_catalogs_have_the_same_keys() -> None:
    assert set(i18n.catalog("id")) == set(i18n.catalog("en"))


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_no_message_is_empty(lang: i18n.Lang) -> None:
    empty = [key for key, text in i18n.catalog(lang).items() if not text.strip()]
    assert empty == []


def test_both_languages_use_the_same_placeholders() -> None:
    en, id_ = i18n.catalog("en"), i18n.catalog("id")
    differ = {k for k in en if i18n.placeholders(en[k]) != i18n.placeholders(id_[k])}
    assert differ == set()


def test_catalog_files_are_flat_objects_of_strings() -> None:
    for lang in i18n.LANGUAGES:
        path = Path(i18n.__file__).with_name(f"{lang}.json")
        data = json.loads(path.read_text(encoding="utf-8"))
        assert all(isinstance(v, str) for v in data.values())


def test_the_languages_really_differ() -> None:
    assert i18n.translate("id", "deadend.title") == "Tidak ada lagi langkah yang bisa dilakukan"
    assert i18n.translate("en", "deadend.title") == "No more moves possible"
    same = [k for k, v in i18n.catalog("en").items() if i18n.catalog("id")[k] == v]
    # only names, symbols and codes may read the same in both languages
    assert len(same) < 15, same


def test_templates_use_only_existing_keys() -> None:
    used = _keys_used(TEMPLATE_DIR, "*.html")
    assert sum(len(keys) for keys in used.values()) > 50
    catalog = i18n.catalog("en")
    missing = {name: sorted(keys - set(catalog)) for name, keys in used.items()}
    assert {name: keys for name, keys in missing.items() if keys} == {}


def test_scripts_use_only_keys_that_a_page_embeds() -> None:
    used = _keys_used(JS_DIR, "*.js")
    assert sum(len(keys) for keys in used.values()) > 20
    embedded = {k for page in pages.SCRIPT_PREFIXES for k in pages.script_messages("en", page)}
    missing = {name: sorted(keys - embedded) for name, keys in used.items()}
    assert {name: keys for name, keys in missing.items() if keys} == {}


def test_spoken_card_labels_exist_in_both_languages() -> None:
    for lang in i18n.LANGUAGES:
        assert i18n.translate(lang, "card.name", rank="4") in {"4 hati", "4 of hearts"}
        assert i18n.translate(lang, "pile.stock", n=12) in {
            "tumpukan ambil, 12 kartu",
            "stock, 12 cards",
        }
    assert [i18n.translate("id", k) for k in ("card.free", "card.covered", "card.selected")] == [
        "bebas",
        "tertindih",
        "terpilih",
    ]
    assert i18n.translate("id", "card.suggested") == "disarankan"


def test_translate_fills_placeholders_and_leaves_unknown_ones() -> None:
    assert i18n.translate("en", "ex.counter", n=3, total=40) == "Move 3 of 40"
    assert i18n.translate("en", "ex.counter", n=3) == "Move 3 of {total}"


def test_an_unknown_key_is_a_clear_error() -> None:
    with pytest.raises(i18n.UnknownMessage, match=r"no message 'nope\.nothing'"):
        i18n.translate("id", "nope.nothing")
    assert issubclass(i18n.UnknownMessage, KeyError)


def test_pick_lang_takes_the_first_valid_candidate() -> None:
    assert i18n.pick_lang(None, "EN ", "id") == "en"
    assert i18n.pick_lang("fr", "de") == i18n.DEFAULT_LANG == "id"
    assert i18n.pick_lang() == "id"


@given(st.text(max_size=80))
def test_script_json_round_trips_and_never_closes_its_element(text: str) -> None:
    encoded = pages.script_json({"k": text})
    assert "<" not in encoded and ">" not in encoded and "&" not in encoded
    assert json.loads(encoded) == {"k": text}


def test_every_hearts_refusal_and_error_has_words_in_both_languages() -> None:
    from heartsuit.hearts import Reason

    codes = [f"hearts.reason.{r.value}" for r in Reason]
    # the error codes of the Hearts contract (docs/web.md "Hearts")
    contract = """bad_message unknown_table bad_invite bad_token not_your_turn illegal stale
        table_full seat_taken not_host in_use"""
    codes += [f"hearts.err.{c}" for c in contract.split()]
    for lang in i18n.LANGUAGES:
        missing = [k for k in codes if k not in i18n.catalog(lang)]
        assert missing == [], lang
    table = pages.script_messages("en", "hearts_table")
    assert all(k in table for k in codes if k.startswith("hearts.reason."))


def test_every_hearts_card_preset_and_level_has_a_name() -> None:
    keys = [f"hcard.rank.{r}" for r in "JQKA"] + [f"hcard.suit.{s}" for s in "CDHS"]
    keys += [f"hearts.preset.{name}" for name, _ in hearts_pages.HEARTS_PRESETS]
    keys += [f"hsetup.preset_help.{name}" for name, _ in hearts_pages.HEARTS_PRESETS]
    keys += [f"hearts.level.{level}" for level in ("easy", "normal", "hard")]
    keys += [f"hearts.pass.{d}" for d in ("left", "right", "across", "other")]
    for lang in i18n.LANGUAGES:
        assert [k for k in keys if k not in i18n.catalog(lang)] == []
    assert i18n.translate("id", "hcard.name", rank="Ratu", suit="sekop") == "Ratu sekop"
    assert i18n.translate("en", "hcard.name", rank="Queen", suit="spades") == "Queen of spades"


def test_a_number_takes_the_word_that_goes_with_it() -> None:
    # "{points} {points|point|points}": English says 1 point and 0 or 2 points
    won = {p: i18n.translate("en", "hearts.trick.won", name="Ana", points=p) for p in (0, 1, 2)}
    assert won == {
        0: "Ana takes the trick (0 points)",
        1: "Ana takes the trick (1 point)",
        2: "Ana takes the trick (2 points)",
    }
    chip = i18n.translate("en", "hearts.seat_numbers", points=1, total=1, cards=1)
    assert chip == "1 pt this hand · total 1 · 1 card"
    chip = i18n.translate("en", "hearts.seat_numbers", points=13, total=1, cards=2)
    assert chip == "13 pts this hand · total 1 · 2 cards"
    wait = i18n.translate("en", "server.error.rate_limited", seconds=1)
    assert wait.endswith("Try again in 1 second.")
    # Indonesian has one word for both
    assert i18n.translate("id", "hearts.info.held", n=1).startswith("1 kartu")
    # without its value the placeholder is left as written, as {name} is
    assert "{n|card|cards}" in i18n.translate("en", "hearts.info.held", other=1)
    assert i18n.placeholders("{n} {n|card|cards} of {total|deal|deals}") == {"n", "total"}


#: a count written in English with a plural noun after it: one of these must say its word for
#: one with "{name|one|other}"
_COUNTED = re.compile(r"\{([a-z_]+)\} (cards|points|pts|seconds|moves|deals|tricks|hands|games)\b")


def test_english_never_writes_1_cards() -> None:
    en = i18n.catalog("en")
    assert sorted(key for key, text in en.items() if _COUNTED.search(text)) == []
