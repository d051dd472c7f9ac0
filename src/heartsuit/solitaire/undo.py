"""The undo stack of a Heart to Heart game: one small record per move, and its JSON form.

A move changes little, so undo keeps what each move changed rather than copies of the game
(STYLE.md: "a stack of small records"). Only the last :data:`UNDO_LIMIT` moves are kept (seed:
"hingga 100 langkah terakhir").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from heartsuit.cards import Card

#: how many moves undo can take back (seed: "hingga 100 langkah terakhir")
UNDO_LIMIT: Final = 100


@dataclass(frozen=True, slots=True)
class Flipped:
    """The stock's first card went onto the waste; undo puts the waste top back on the stock."""


@dataclass(frozen=True, slots=True)
class Redealt:
    """The whole waste became the stock (the stock was empty); undo turns it back."""


@dataclass(frozen=True, slots=True)
class Paired:
    """Cards were removed: ``positions`` of the heart held ``cards``; ``waste`` is the waste top
    that went with a single heart card, or None for a heart+heart pair."""

    positions: tuple[int, ...]
    cards: tuple[Card, ...]
    waste: Card | None

    @property
    def points(self) -> int:
        # +10 per heart card removed; the waste card scores nothing (seed: "Skor")
        return 10 * len(self.positions)


MoveRecord = Flipped | Redealt | Paired


class HistoryError(ValueError):
    """An undo history in a snapshot that cannot be read."""


def record_to_json(record: MoveRecord) -> dict[str, Any]:
    if isinstance(record, Flipped):
        return {"move": "flip"}
    if isinstance(record, Redealt):
        return {"move": "redeal"}
    return {
        "move": "pair",
        "positions": list(record.positions),
        "cards": [card.code for card in record.cards],
        "waste": None if record.waste is None else record.waste.code,
    }


def record_from_json(data: object) -> MoveRecord:
    """Read one history entry written by :func:`record_to_json`; HistoryError says what is wrong."""
    if not isinstance(data, dict):
        raise HistoryError(f"a history entry is an object, not {data!r}")
    move = data.get("move")
    if move == "flip":
        return Flipped()
    if move == "redeal":
        return Redealt()
    if move != "pair":
        raise HistoryError(f"unknown move {move!r} in the history (flip, redeal or pair)")
    positions = data.get("positions")
    cards = data.get("cards")
    waste = data.get("waste")
    if (
        not isinstance(positions, list)
        or not isinstance(cards, list)
        or len(positions) != len(cards)
        or not 1 <= len(positions) <= 2
        or any(isinstance(p, bool) or not isinstance(p, int) or not 1 <= p <= 25 for p in positions)
        or len(set(positions)) != len(positions)
    ):
        raise HistoryError(f"a pair in the history needs 1 or 2 positions and cards: {data!r}")
    try:
        parsed = tuple(Card.parse(c) for c in cards)
        waste_card = None if waste is None else Card.parse(waste)
    except ValueError as err:
        raise HistoryError(f"a pair in the history names a bad card: {err}") from None
    if (waste_card is None) != (len(positions) == 2):
        raise HistoryError(
            f"a pair is two heart cards or one heart card and the waste top: {data!r}"
        )
    if len({card.rank for card in (*parsed, *([waste_card] if waste_card else []))}) != 1:
        raise HistoryError(f"a pair in the history is not two cards of one rank: {data!r}")
    return Paired(tuple(positions), parsed, waste_card)
