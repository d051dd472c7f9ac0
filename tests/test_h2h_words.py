"""The Heart to Heart page's words as an Indonesian reader meets them: Undo is "Urungkan" (never
"Batalkan", which sits next to "Batal" = Cancel), no literal phrases, and keyboard help that says
what each key does."""

from __future__ import annotations

import json

from heartsuit import i18n
from heartsuit.server.site.pages import TEMPLATE_DIR


def test_undo_is_urungkan_and_cancel_stays_batal() -> None:
    for key in ("game.undo", "deadend.undo", "rules.undo.h"):
        assert i18n.translate("id", key) == "Urungkan"
    assert i18n.translate("id", "dialog.cancel") == "Batal"
    catalog = json.loads((TEMPLATE_DIR.parent.parent / "i18n" / "id.json").read_text())
    # the Heart to Heart pages never say "batalkan" (Hearts has its own words)
    mine = ("game.", "deadend.", "rules.", "win.", "code.", "settings.", "server.error.game_over")
    assert not [k for k, text in catalog.items() if k.startswith(mine) and "atalkan" in text]


def test_the_literal_phrases_are_gone() -> None:
    catalog = json.loads((TEMPLATE_DIR.parent.parent / "i18n" / "id.json").read_text())
    text = "\n".join(catalog.values())
    for phrase in ("Mainkan kartu dari kodenya", "Rentetan", "tersedikit", "menyentuh,"):
        assert phrase not in text, phrase
    assert "menyentuh" not in i18n.translate("id", "game.keys")


def test_the_keys_help_says_w_selects_the_waste_card() -> None:
    assert "W memilih kartu buangan" in i18n.translate("id", "game.keys")
    assert "W selects the waste card" in i18n.translate("en", "game.keys")


def test_toolbar_labels_are_short_on_a_phone() -> None:
    # the phone's action bar shows these: five of them share a 300 px row
    for lang in ("id", "en"):
        for key in ("game.undo", "game.new_short", "game.code_short", "game.share_short",
                    "game.settings"):
            assert len(i18n.translate(lang, key)) <= 8, (lang, key)
