"""Shared card value types: :class:`Suit` and :class:`Card`, with parsing and printing.

Both games use these. A card prints the way a person writes it (``"Q♠"``, ``"10♥"``) and
parses from that or from the ASCII forms ``"QS"``, ``"10H"`` and ``"TH"``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Suit(StrEnum):
    CLUBS = "C"
    DIAMONDS = "D"
    HEARTS = "H"
    SPADES = "S"

    @property
    def symbol(self) -> str:
        return _SYMBOLS[self]


_SYMBOLS = {Suit.CLUBS: "♣", Suit.DIAMONDS: "♦", Suit.HEARTS: "♥", Suit.SPADES: "♠"}
_SUIT_BY_TEXT: dict[str, Suit] = {s.value: s for s in Suit} | {v: k for k, v in _SYMBOLS.items()}
# the outline symbols are accepted too, since people type them as often as the filled ones
_SUIT_BY_TEXT |= {"♧": Suit.CLUBS, "♢": Suit.DIAMONDS, "♡": Suit.HEARTS, "♤": Suit.SPADES}

RANK_NAMES = {11: "J", 12: "Q", 13: "K", 14: "A"}
_RANK_BY_TEXT: dict[str, int] = {str(r): r for r in range(2, 11)} | {
    "T": 10,
    "J": 11,
    "Q": 12,
    "K": 13,
    "A": 14,
}

ACE = 14
KING = 13
QUEEN = 12
JACK = 11


def rank_name(rank: int) -> str:
    """``2``..``10``, ``J``, ``Q``, ``K``, ``A``."""
    return RANK_NAMES.get(rank, str(rank))


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """A playing card. ``rank`` is 2..14 with the ace high (14)."""

    rank: int
    suit: Suit

    def __post_init__(self) -> None:
        if not isinstance(self.rank, int) or not 2 <= self.rank <= 14:
            raise ValueError(f"a card's rank is 2..14 (ace = 14), not {self.rank!r}")
        if not isinstance(self.suit, Suit):
            raise ValueError(f"a card's suit is a Suit, not {self.suit!r}")

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read ``"QS"``, ``"10H"``, ``"TH"`` or ``"Q♠"`` (any case); a ValueError says why not.

        The card is the pack's own object (:func:`full_pack`), not a new one: every action of a
        game names a card, and a copy of it would live as long as the log that keeps it."""
        known = _PARSED.get(text) if isinstance(text, str) else None
        if known is not None and cls is Card:
            return known
        if not isinstance(text, str):
            raise ValueError(f"a card is written as text like 'QS' or 'Q♠', not {text!r}")
        cleaned = text.strip().upper()
        if len(cleaned) < 2:
            raise ValueError(f"{text!r} is not a card: write a rank and a suit, like 'QS' or '10♥'")
        rank_text, suit_text = cleaned[:-1], cleaned[-1]
        suit = _SUIT_BY_TEXT.get(suit_text)
        if suit is None:
            raise ValueError(
                f"{text!r} is not a card: {suit_text!r} is not a suit (use C, D, H, S or ♣ ♦ ♥ ♠)"
            )
        rank = _RANK_BY_TEXT.get(rank_text)
        if rank is None:
            raise ValueError(
                f"{text!r} is not a card: {rank_text!r} is not a rank (use 2-10, T, J, Q, K, A)"
            )
        return _PACK[(rank, suit)] if cls is Card else cls(rank, suit)

    @property
    def code(self) -> str:
        """The ASCII form, ``"QS"`` or ``"10H"``."""
        # looked up, not formatted: views and messages write thousands of codes a second
        return _CODES[self.suit][self.rank]

    def __str__(self) -> str:
        return f"{rank_name(self.rank)}{self.suit.symbol}"

    def __repr__(self) -> str:
        return f"Card({self})"


#: the ASCII form of each card, by suit and then rank (index 0 and 1 unused)
_CODES: dict[Suit, tuple[str, ...]] = {
    suit: ("", "", *(f"{rank_name(rank)}{suit.value}" for rank in range(2, 15))) for suit in Suit
}


#: one object per card (cards are frozen values; sharing them saves building and keeping copies)
_PACK: dict[tuple[int, Suit], Card] = {
    (rank, suit): Card(rank, suit) for suit in Suit for rank in range(2, 15)
}
#: the usual spellings of each card (``"QS"``, ``"Q♠"``, ``"TS"`` for a ten), read at once
_PARSED: dict[str, Card] = {
    spelling: card
    for card in _PACK.values()
    for spelling in (card.code, str(card), card.code.replace("10", "T"))
}


def full_pack() -> list[Card]:
    """The 52 cards in a fixed order: clubs, diamonds, hearts, spades; 2 up to the ace."""
    return list(_PACK.values())
