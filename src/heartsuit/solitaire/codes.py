"""Deal codes ``HH1-N-XXXXXXX`` and the deals they stand for.

``HH`` names Heart to Heart, ``1`` the code format, ``N`` the normal rule set; the seven
letters are the deal number in base 26 with A = 0, most significant first, so ``AAAAAAM`` is
deal 12 and there are 26**7 deals. A deal is the 52-card all-hearts pack shuffled with the
project's own generator (:mod:`heartsuit.shuffle`) seeded by the deal number, then laid out as
the seed says: cards 1-25 to the heart, 26-51 to the stock (26 turned first), 52 to the waste.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Final

from heartsuit.cards import Card, Suit
from heartsuit.gamecodes import LETTERS, NUMBER_COUNT, CodeError, CodeFormat, CodeProblem
from heartsuit.shuffle import Rng, derive_seed, shuffled

__all__ = [
    "DEAL_COUNT",
    "EXAMPLE",
    "LETTERS",
    "PACK",
    "CodeProblem",
    "Deal",
    "DealCodeError",
    "deal_cards",
    "deal_for_code",
    "format_code",
    "normalize_code",
    "parse_code",
    "random_code",
]

GAME_PREFIX: Final = "HH"
FORMAT_VERSION: Final = "1"
RULE_SETS: Final = ("N",)
DEAL_COUNT: Final = NUMBER_COUNT
EXAMPLE: Final = "HH1-N-AAAAAAM"


#: a bad Heart to Heart code; ``problem`` (a :class:`CodeProblem`) says which part is wrong
DealCodeError = CodeError

FORMAT: Final = CodeFormat("Heart to Heart", GAME_PREFIX, FORMAT_VERSION, RULE_SETS, EXAMPLE)


@dataclass(frozen=True, slots=True)
class Deal:
    """A laid-out deal: the heart (position 1 first), the stock (first to flip first), the waste."""

    number: int
    heart: tuple[Card, ...]
    stock: tuple[Card, ...]
    waste: tuple[Card, ...]

    @property
    def code(self) -> str:
        return format_code(self.number)


def format_code(number: int, rule_set: str = "N") -> str:
    """``format_code(12) == "HH1-N-AAAAAAM"``."""
    return FORMAT.format(rule_set, number)


def parse_code(text: str) -> int:
    """The deal number of a code. Case and surrounding spaces are forgiven; nothing else is."""
    return FORMAT.parse(text)[1]


def normalize_code(text: str) -> str:
    """The canonical spelling of a code (upper case, no spaces); raises like :func:`parse_code`."""
    return format_code(parse_code(text))


def random_code() -> str:
    """A new code, uniformly among all deals (from the OS's secure source, not a seed)."""
    return format_code(secrets.randbelow(DEAL_COUNT))


#: the all-hearts pack in its fixed order before shuffling: 4 copies of 2..A
PACK: Final = tuple(Card(rank, Suit.HEARTS) for rank in range(2, 15) for _copy in range(4))


def deal_cards(number: int, rule_set: str = "N") -> Deal:
    """Shuffle the pack for deal ``number`` and lay it out (seed: cards 1-25, 26-51, 52)."""
    if not isinstance(number, int) or not 0 <= number < DEAL_COUNT:
        raise ValueError(f"a deal number is 0..{DEAL_COUNT - 1}, not {number!r}")
    pack = shuffled(PACK, Rng(derive_seed(f"{GAME_PREFIX}{FORMAT_VERSION}-{rule_set}", number)))
    # cards 1-25 form the heart, 26-51 the stock with card 26 turned first, card 52 the waste
    return Deal(number, tuple(pack[:25]), tuple(pack[25:51]), (pack[51],))


def deal_for_code(text: str) -> Deal:
    return deal_cards(parse_code(text))
