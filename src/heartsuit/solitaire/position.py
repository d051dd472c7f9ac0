"""What the solver sees of a Heart to Heart game: ranks in the heart, the stock and the waste.

Suits never matter in this all-hearts pack, so a :class:`Position` keeps ranks only. It is built
from anything that has ``heart`` (25 slots, ``None`` where a card was removed), ``stock`` (next
flipped first) and ``waste`` (top last) made of :class:`~heartsuit.cards.Card` -- a
:class:`~heartsuit.solitaire.codes.Deal` or a live game -- or directly from ranks.

The module also owns the **pile cycle**: flips and redeals only ever move a pointer around one
fixed cyclic order of the stock and waste cards (redeal keeps the order), so the solver reads the
pile as the sequence ``waste (bottom to top) + stock (next to last)`` with a pointer just past the
waste top. :class:`Pile` answers how many moves bring a given card to the top.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol

from heartsuit.cards import Card, rank_name
from heartsuit.solitaire.layout import COVER_MASKS

#: the ranks of the pack, 2..14 (ace high, as in :mod:`heartsuit.cards`)
RANKS = tuple(range(2, 15))


class PositionError(ValueError):
    """A position that no Heart to Heart game can reach (wrong sizes, ranks or card counts)."""


class HasPiles(Protocol):
    """Anything laid out like a game: a deal or a live game."""

    @property
    def heart(self) -> Sequence[Card | None]: ...

    @property
    def stock(self) -> Sequence[Card]: ...

    @property
    def waste(self) -> Sequence[Card]: ...


def card_text(rank: int) -> str:
    """How a card of ``rank`` prints: every card of this pack is a heart."""
    return f"{rank_name(rank)}♥"


@lru_cache(maxsize=1 << 14)
def above_masks(present: int) -> tuple[int, ...]:
    """For each place: the places of ``present`` lying on it, directly or through present cards.

    A card can only be free once all of these are gone, so two cards of which one is above the
    other can never pair. (In a real game a card under a present card is always present, but
    the solver accepts any heart, so chains are followed through present cards only.)
    """
    out = [0] * 25
    # a covering card always lies in the next row, so a higher index: fill from the tip upwards
    for i in range(24, -1, -1):
        cover = COVER_MASKS[i] & present
        acc = cover
        for j in range(i + 1, 25):
            if cover >> j & 1:
                acc |= out[j]
        out[i] = acc
    return tuple(out)


def comparable(i: int, j: int, above: Sequence[int]) -> bool:
    """Whether one of the (0-based) places i, j lies above the other: they can never pair."""
    return bool(above[i] >> j & 1 or above[j] >> i & 1)


@dataclass(frozen=True, slots=True)
class Position:
    """Ranks only: ``heart[i]`` is the rank at position ``i + 1`` or ``None`` once removed."""

    heart: tuple[int | None, ...]
    stock: tuple[int, ...]
    waste: tuple[int, ...]

    def __post_init__(self) -> None:
        if len(self.heart) != 25:
            raise PositionError(f"the heart has 25 places, not {len(self.heart)}")
        counts: Counter[int] = Counter()
        for rank in (*self.heart, *self.stock, *self.waste):
            if rank is None:
                continue
            if not isinstance(rank, int) or not 2 <= rank <= 14:
                raise PositionError(f"a rank is 2..14 (ace = 14), not {rank!r}")
            counts[rank] += 1
        over = sorted(r for r, n in counts.items() if n > 4)
        if over:
            names = ", ".join(card_text(r) for r in over)
            raise PositionError(f"the pack has four cards of each rank; too many of {names}")

    @classmethod
    def of(cls, state: HasPiles) -> Position:
        """The ranks of a deal or a game's current state."""
        return cls(
            tuple(None if c is None else c.rank for c in state.heart),
            tuple(c.rank for c in state.stock),
            tuple(c.rank for c in state.waste),
        )

    @property
    def present_mask(self) -> int:
        """Bit ``i`` set when position ``i + 1`` still holds a card."""
        return sum(1 << i for i, r in enumerate(self.heart) if r is not None)

    @property
    def cycle(self) -> tuple[int, ...]:
        """The pile in its fixed cyclic order: waste bottom to top, then stock next to last."""
        return (*self.waste, *self.stock)

    def pile_counts(self) -> Counter[int]:
        return Counter((*self.stock, *self.waste))


class Pile:
    """The stock and waste as ``cycle`` + removed cards + a pointer just past the waste top.

    Indices below ``pointer`` that are not removed form the waste (the highest is its top);
    the rest form the stock, the lowest being the next to flip. The pointer is kept canonical
    (just past the top, or 0 for an empty waste), so equal piles compare equal.
    """

    __slots__ = ("cycle", "pointer", "removed")

    def __init__(self, cycle: Sequence[int], removed: int = 0, pointer: int = 0) -> None:
        self.cycle = tuple(cycle)
        self.removed = removed
        self.pointer = canonical_pointer(removed, pointer)

    @classmethod
    def of(cls, position: Position) -> Pile:
        return cls(position.cycle, 0, len(position.waste))

    def top(self) -> int | None:
        """The cycle index of the waste top, if there is one."""
        return self.pointer - 1 if self.pointer else None

    def distance(self, j: int) -> int:
        """Flips and redeals that bring cycle index ``j`` (not removed) to the waste top."""
        return distance(self.removed, self.pointer, len(self.cycle), j)

    def walk(self, j: int) -> list[tuple[str, int | None]]:
        """Apply and list the flips (with the card turned) and redeals that bring ``j`` on top."""
        out: list[tuple[str, int | None]] = []
        n = len(self.cycle)
        while self.pointer - 1 != j:
            nxt = self.pointer
            while nxt < n and self.removed >> nxt & 1:
                nxt += 1
            if nxt >= n:
                out.append(("redeal", None))
                self.pointer = 0
            else:
                out.append(("flip", self.cycle[nxt]))
                self.pointer = nxt + 1
        return out

    def remove_top(self) -> None:
        top = self.pointer - 1
        self.removed |= 1 << top
        self.pointer = canonical_pointer(self.removed, top)

    def nearest(self, rank: int) -> int | None:
        """The cycle index of the closest remaining card of ``rank`` (fewest flips to reach)."""
        best: int | None = None
        best_d = 0
        for j, r in enumerate(self.cycle):
            if r == rank and not self.removed >> j & 1:
                d = self.distance(j)
                if best is None or d < best_d:
                    best, best_d = j, d
        return best


def canonical_pointer(removed: int, pointer: int) -> int:
    """Move the pointer back over removed cards, to just past the highest waste card left."""
    while pointer and removed >> (pointer - 1) & 1:
        pointer -= 1
    return pointer


def distance(removed: int, pointer: int, n: int, j: int) -> int:
    """Moves to bring cycle index ``j`` to the waste top (see :meth:`Pile.distance`)."""
    if j >= pointer:
        window = ((1 << (j + 1)) - 1) & ~((1 << pointer) - 1)
        return (window & ~removed).bit_count()
    if j == pointer - 1:
        return 0
    stock = (((1 << n) - 1) & ~((1 << pointer) - 1) & ~removed).bit_count()
    # flip out the stock, one redeal, then flip up to j
    return stock + 1 + ((((1 << (j + 1)) - 1) & ~removed).bit_count())
