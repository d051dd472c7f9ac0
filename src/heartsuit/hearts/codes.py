"""Hearts game codes ``HE1-<RULE SET>-XXXXXXX``: a preset and a match seed, to type and share.

Like the solitaire's deal codes (:mod:`heartsuit.gamecodes`): ``HE`` names Hearts, ``1`` the
code format, then the preset — ``S`` standard, ``T`` three players, ``F`` five, ``O`` Omnibus,
``B`` Black Maria, ``C6`` … ``C10`` Cancellation with that many players — and seven letters A–Z
giving the match seed in base 26. The seed deals every hand of the match
(:func:`heartsuit.hearts.deal.deal_seed`), so a code replays the same deals on every machine.
Scoring options that do not change the cards dealt (the moon, exactly-100, the target, ties …)
are the table's settings, not part of the code.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any, Final

from heartsuit.gamecodes import NUMBER_COUNT, CodeError, CodeFormat
from heartsuit.hearts.rules import Rules

PRESET_BY_LETTER: Final = {
    "S": "standard",
    "T": "three",
    "F": "five",
    "O": "omnibus",
    "B": "black-maria",
}
CANCELLATION_PLAYERS: Final = range(6, 11)
RULE_SETS: Final = (*PRESET_BY_LETTER, *(f"C{n}" for n in CANCELLATION_PLAYERS))
FORMAT: Final = CodeFormat("Hearts", "HE", "1", RULE_SETS, "HE1-S-AAAAAAM")
SEED_COUNT: Final = NUMBER_COUNT
#: the random bits of a secret match seed (:func:`secret_seed`)
SECRET_SEED_BITS: Final = 128


@dataclass(frozen=True, slots=True)
class HeartsCode:
    """A parsed code: the preset (with its player count) and the match seed."""

    preset: str
    players: int
    seed: int

    @property
    def code(self) -> str:
        return format_code(self.preset, self.seed, players=self.players)

    def rules(self, **overrides: Any) -> Rules:
        """The preset's rules, with any option that does not change the deal overridden."""
        if self.preset == "cancellation":
            overrides = {"players": self.players, **overrides}
        rules = Rules.preset(self.preset, **overrides)
        if rules.deal_label() != Rules.preset(self.preset, players=self.players).deal_label():
            raise ValueError(
                f"{self.code} deals {self.players} players from the {self.preset} deck; "
                "players, packs and removed cards cannot be changed"
            )
        return rules


def format_code(preset: str, seed: int, *, players: int | None = None) -> str:
    """``format_code("standard", 12) == "HE1-S-AAAAAAM"``; Cancellation needs its players."""
    if preset == "cancellation":
        count = 6 if players is None else players
        if count not in CANCELLATION_PLAYERS:
            raise ValueError(f"Cancellation is for 6 to 10 players, not {count}")
        return FORMAT.format(f"C{count}", seed)
    for letter, name in PRESET_BY_LETTER.items():
        if name == preset:
            return FORMAT.format(letter, seed)
    raise ValueError(f"no code for the preset {preset!r}; presets: {', '.join(_preset_names())}")


def parse_code(text: str) -> HeartsCode:
    """Read a code; case and surrounding spaces are forgiven, anything else is a CodeError."""
    rule_set, seed = FORMAT.parse(text)
    if rule_set.startswith("C"):
        return HeartsCode("cancellation", int(rule_set[1:]), seed)
    preset = PRESET_BY_LETTER[rule_set]
    return HeartsCode(preset, Rules.preset(preset).players, seed)


def random_code(preset: str = "standard", *, players: int | None = None) -> str:
    """A new code with a seed from the OS's secure source."""
    return format_code(preset, secrets.randbelow(SEED_COUNT), players=players)


def secret_seed() -> int:
    """A match seed for a table where people play each other: 128 bits from the OS's secure
    source, never written as a code.

    A code's seed is one of 26^7 (about 2^33): knowing one's own 13 cards (about 39 bits) is
    enough to find it by trying every seed, and with it every other hand. No one tries 2^128
    seeds, so this one is found only by being told (docs/site.md, "Secret match seeds"). It is
    ``2^128 + r`` for a random ``r < 2^128``: above every code's seed, so :func:`has_code` tells
    the two apart, and dealt by :func:`heartsuit.hearts.deal.deal_seed` exactly as any other.
    """
    return (1 << SECRET_SEED_BITS) | secrets.randbits(SECRET_SEED_BITS)


def has_code(seed: int) -> bool:
    """Whether ``seed`` can be written as a code (it is one of a code's 26^7 seeds)."""
    return 0 <= seed < SEED_COUNT


def code_of(preset: str, seed: int, *, players: int | None = None) -> str | None:
    """The code of the match ``seed`` of ``preset``, or None for a secret seed (no code)."""
    return format_code(preset, seed, players=players) if has_code(seed) else None


def _preset_names() -> list[str]:
    return [*PRESET_BY_LETTER.values(), "cancellation"]


__all__ = [
    "CodeError",
    "HeartsCode",
    "code_of",
    "format_code",
    "has_code",
    "parse_code",
    "random_code",
    "secret_seed",
]
