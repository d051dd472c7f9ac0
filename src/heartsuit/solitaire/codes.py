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
from enum import StrEnum
from typing import Final

from heartsuit.cards import Card, Suit
from heartsuit.shuffle import Rng, derive_seed, shuffled

GAME_PREFIX: Final = "HH"
FORMAT_VERSION: Final = "1"
RULE_SETS: Final = ("N",)
LETTERS: Final = 7
DEAL_COUNT: Final = 26**LETTERS
EXAMPLE: Final = "HH1-N-AAAAAAM"


class CodeProblem(StrEnum):
    """What is wrong with a code, for a UI to translate."""

    NOT_TEXT = "not_text"
    PARTS = "parts"
    PREFIX = "prefix"
    VERSION = "version"
    RULE_SET = "rule_set"
    LENGTH = "length"
    LETTER = "letter"


class DealCodeError(ValueError):
    """A code that is not a valid deal code; ``problem`` says which part is wrong."""

    def __init__(self, problem: CodeProblem, message: str) -> None:
        super().__init__(message)
        self.problem = problem


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
    if not isinstance(number, int) or not 0 <= number < DEAL_COUNT:
        raise ValueError(f"a deal number is 0..{DEAL_COUNT - 1}, not {number!r}")
    if rule_set not in RULE_SETS:
        raise ValueError(f"unknown rule set {rule_set!r}; known: {', '.join(RULE_SETS)}")
    letters = []
    for _ in range(LETTERS):
        number, digit = divmod(number, 26)
        letters.append(chr(ord("A") + digit))
    return f"{GAME_PREFIX}{FORMAT_VERSION}-{rule_set}-{''.join(reversed(letters))}"


def parse_code(text: str) -> int:
    """The deal number of a code. Case and surrounding spaces are forgiven; nothing else is."""
    if not isinstance(text, str):
        raise DealCodeError(CodeProblem.NOT_TEXT, f"a deal code is text, not {type(text).__name__}")
    cleaned = text.strip().upper()
    if not cleaned:
        raise DealCodeError(CodeProblem.PARTS, f"the deal code is empty; it looks like {EXAMPLE}")
    parts = cleaned.split("-")
    if len(parts) != 3:
        raise DealCodeError(
            CodeProblem.PARTS,
            f"{text.strip()!r} is not a deal code: it has three parts joined by '-', "
            f"like {EXAMPLE}",
        )
    head, rule_set, letters = parts
    if not head.startswith(GAME_PREFIX):
        raise DealCodeError(
            CodeProblem.PREFIX,
            f"{text.strip()!r} is not a Heart to Heart code: it must start with "
            f"{GAME_PREFIX!r}, like {EXAMPLE}",
        )
    if head[len(GAME_PREFIX) :] != FORMAT_VERSION:
        raise DealCodeError(
            CodeProblem.VERSION,
            f"{text.strip()!r} uses code format {head[len(GAME_PREFIX):]!r}; "
            f"this version reads format {FORMAT_VERSION!r} ({GAME_PREFIX}{FORMAT_VERSION}-…)",
        )
    if rule_set not in RULE_SETS:
        raise DealCodeError(
            CodeProblem.RULE_SET,
            f"{text.strip()!r} names the unknown rule set {rule_set!r}; "
            f"known: {', '.join(RULE_SETS)}",
        )
    if len(letters) != LETTERS:
        raise DealCodeError(
            CodeProblem.LENGTH,
            f"{text.strip()!r} has {len(letters)} letters after the rule set; "
            f"a deal code has exactly {LETTERS}",
        )
    number = 0
    for ch in letters:
        if not ("A" <= ch <= "Z"):
            raise DealCodeError(
                CodeProblem.LETTER,
                f"{text.strip()!r} contains {ch!r}; the deal letters are A to Z only",
            )
        number = number * 26 + (ord(ch) - ord("A"))
    return number


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
