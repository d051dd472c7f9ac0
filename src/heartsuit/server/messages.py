"""The words the server itself says over ``/ws``: error messages and move messages, per language.

The site's catalogs (:mod:`heartsuit.i18n`) are the home of every user-facing string; a key
found there wins. The texts below are the server's fallbacks, so that a reply never lacks a
readable message while the catalogs catch up (their keys are listed in ``docs/site.md``).
"""

from __future__ import annotations

import re
from typing import Final, Literal

from heartsuit import i18n

Lang = Literal["id", "en"]

_FALLBACK: Final[dict[str, dict[str, str]]] = {
    "id": {
        "server.error.bad_json": "Pesan tidak dapat dibaca: bukan JSON yang sah.",
        "server.error.too_large": "Pesan terlalu panjang (paling banyak {limit} bita).",
        "server.error.unknown_type": "Jenis pesan tidak dikenal: {type}.",
        "server.error.bad_message": "Pesan tidak lengkap atau salah isi ({field}).",
        "server.error.no_player": "Sambungan belum memperkenalkan pemain (kirim hello dulu).",
        "server.error.unknown_game": "Permainan itu tidak ditemukan.",
        "server.error.bad_target": "Tidak ada tempat seperti itu: pilih kartu 1–25, stok "
        "atau buangan.",
        "server.error.game_over": "Permainan ini sudah selesai. Batalkan langkah atau mulai "
        "permainan baru.",
        "server.code.not_text": "Kode permainan harus berupa teks.",
        "server.code.parts": "{code} bukan kode permainan: kode terdiri dari tiga bagian "
        "yang dipisah tanda '-', misalnya HH1-N-AAAAAAM.",
        "server.code.prefix": "{code} bukan kode Heart to Heart: kode harus diawali HH.",
        "server.code.version": "{code} memakai format kode yang tidak dikenal; versi ini "
        "membaca HH1-….",
        "server.code.rule_set": "{code} menyebut aturan yang tidak dikenal; yang ada hanya N.",
        "server.code.length": "{code} harus punya tepat tujuh huruf setelah N-.",
        "server.code.letter": "{code} memuat tanda selain huruf A sampai Z.",
        "server.move.must_match": "Harus bernilai sama",
    },
    "en": {
        "server.error.bad_json": "The message could not be read: it is not valid JSON.",
        "server.error.too_large": "The message is too long (at most {limit} bytes).",
        "server.error.unknown_type": "Unknown message type: {type}.",
        "server.error.bad_message": "The message is incomplete or has a wrong value ({field}).",
        "server.error.no_player": "This connection has not introduced a player yet "
        "(send hello first).",
        "server.error.unknown_game": "That game was not found.",
        "server.error.bad_target": "There is no such place: tap a card 1–25, the stock or "
        "the waste.",
        "server.error.game_over": "This game is over. Undo a move or start a new game.",
        "server.code.not_text": "A deal code is text.",
        "server.code.parts": "{code} is not a deal code: a code has three parts joined by "
        "'-', like HH1-N-AAAAAAM.",
        "server.code.prefix": "{code} is not a Heart to Heart code: it must start with HH.",
        "server.code.version": "{code} uses an unknown code format; this version reads HH1-….",
        "server.code.rule_set": "{code} names an unknown rule set; the only one is N.",
        "server.code.length": "{code} must have exactly seven letters after N-.",
        "server.code.letter": "{code} contains something other than the letters A to Z.",
        "server.move.must_match": "Must be the same rank",
    },
}

_PLACEHOLDER: Final = re.compile(r"\{([a-z_]+)\}")


def text(lang: Lang, key: str, /, **values: object) -> str:
    """The message ``key`` in ``lang``: the site catalog's if it has one, else the fallback."""
    try:
        return i18n.translate(lang, key, **values)
    except (i18n.UnknownMessage, OSError, ValueError):
        pass
    template = _FALLBACK[lang].get(key) or _FALLBACK["en"].get(key, key)
    return _PLACEHOLDER.sub(lambda m: str(values.get(m.group(1), m.group(0))), template)


def keys() -> tuple[str, ...]:
    """Every key the server may ask for (for the docs and the catalog tests)."""
    return tuple(_FALLBACK["en"])
