"""Deciding exactly whether a Heart to Heart position can still be won, and with which pairs.

Why this is small: flips and redeals never change the heart, and with unlimited redeals any card
left in the stock or waste can be brought to the waste top at any moment without touching anything
else. So for the yes/no question the pile is a multiset of ranks usable at any time, and a card
that is removed never blocks anything (it only frees others). For each rank with ``h`` cards in
the heart and ``p`` in the pile (``h + p <= 4``):

* ``p >= h`` (*easy*): every heart card of the rank can take a pile card, so removing it as soon
  as it is free is never wrong.
* ``(2, 0)`` and ``(2, 1)``: the two heart cards must pair with each other; they do so as soon as
  both are free. Likewise ``(3, 1)`` once its pile card is used, and ``(4, 0)`` once one pair is
  gone.
* ``(3, 1)``: one heart pair and one pile card. If two are free, pairing them is never wrong (the
  third keeps the pile card). With exactly one free, using the pile card *now* is a real choice.
* ``(4, 0)``: two heart pairs. Which cards pair up is a real choice.
* ``(1, 0)`` and ``(3, 0)`` can never be finished.

What a rank still needs follows from how many of its heart cards remain (given where it
started), so the state of the search is just the bit mask of the cards still in the heart. A
depth-first search applies every never-wrong removal at once, branches only on the real
choices and remembers the masks already shown to lose. A static check prunes early: cards
that must pair with each other can never do so if one lies (even indirectly) on the other.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Final

from heartsuit.solitaire.layout import COVER_MASKS
from heartsuit.solitaire.position import RANKS, Position, above_masks, comparable

#: what a rank's remaining heart cards still need (see the module docstring)
NONE: Final = 0
EASY: Final = 1
PAIR: Final = 2
THREE: Final = 3
FOUR: Final = 4
DEAD: Final = -1

#: a removal: (heart index, heart index) for a pair in the heart, (heart index, -1) with the pile
Removal = tuple[int, int]

_BITS: Final = tuple(1 << i for i in range(25))


def _bits(mask: int) -> list[int]:
    return [i for i in range(25) if mask >> i & 1]


#: pairs of (0-based) places that can never pair, one lying above the other
Blocked = frozenset[tuple[int, int]]


def _perfect_pairing(indices: Sequence[int], blocked: Blocked) -> bool:
    a, b, c, d = indices
    return any(
        (w, x) not in blocked and (y, z) not in blocked
        for (w, x), (y, z) in (((a, b), (c, d)), ((a, c), (b, d)), ((a, d), (b, c)))
    )


def _kind(h0: int, p0: int, indices: Sequence[int], blocked: Blocked) -> int:
    """What the remaining heart cards ``indices`` of a rank that started at (h0, p0) need."""
    h = len(indices)
    if h == 0:
        return NONE
    if p0 >= h0 or (h0, p0, h) == (3, 1, 1):
        return EASY
    if h == 2 and (h0, p0) in ((2, 0), (2, 1), (3, 1), (4, 0)):
        return DEAD if tuple(indices) in blocked else PAIR
    if (h0, p0, h) == (3, 1, 3):
        pairs_ok = any(pair not in blocked for pair in combinations(indices, 2))
        return THREE if pairs_ok else DEAD
    if (h0, p0, h) == (4, 0, 4):
        return FOUR if _perfect_pairing(indices, blocked) else DEAD
    return DEAD


class Decider:
    """The decision procedure for one position's heart and pile counts.

    ``remaining_pile`` gives how many stock and waste cards of each rank are left. Searches from
    any sub-mask of the position's heart share one memory of losing masks.
    """

    __slots__ = ("_dead", "_groups", "_kinds", "nodes")

    def __init__(self, heart: Sequence[int | None], remaining_pile: Mapping[int, int]) -> None:
        groups: list[tuple[int, int, int, Blocked]] = []
        above = above_masks(sum(_BITS[i] for i, r in enumerate(heart) if r is not None))
        for rank in RANKS:
            indices = tuple(i for i, r in enumerate(heart) if r == rank)
            if not indices:
                continue
            blocked = frozenset(
                pair for pair in combinations(indices, 2) if comparable(*pair, above)
            )
            mask = sum(_BITS[i] for i in indices)
            groups.append((mask, len(indices), remaining_pile.get(rank, 0), blocked))
        self._groups = tuple(groups)
        # kind of each rank's remaining cards, by their mask (ranks never share a place, so
        # one table serves all ranks); filled as the search meets them
        self._kinds: dict[int, int] = {}
        self._dead: set[int] = set()
        self.nodes = 0

    def _kind(self, sub: int, group: tuple[int, int, int, Blocked]) -> int:
        _, h0, p0, blocked = group
        kind = self._kinds[sub] = _kind(h0, p0, _bits(sub), blocked)
        return kind

    def _close(self, present: int, trail: list[Removal] | None) -> int:
        """Apply every never-wrong removal; -1 when the position is statically lost."""
        groups = self._groups
        kinds = self._kinds
        while True:
            free = 0
            rest = present
            while rest:
                low = rest & -rest
                i = low.bit_length() - 1
                if not COVER_MASKS[i] & present:
                    free |= low
                rest ^= low
            before = present
            for group in groups:
                sub = present & group[0]
                if not sub:
                    continue
                kind = kinds.get(sub)
                if kind is None:
                    kind = self._kind(sub, group)
                if kind == DEAD:
                    return -1
                f = free & sub
                if not f:
                    continue
                if kind == EASY:
                    take = f
                elif kind == THREE:
                    take = f if f.bit_count() >= 2 else 0
                else:  # PAIR and FOUR go only when every remaining card of the rank is free
                    take = f if f == sub else 0
                if take:
                    present &= ~take
                    if trail is not None:
                        _record(take, trail)
            if present == before:
                return present

    def _choices(self, present: int) -> list[int]:
        """Masks of cards whose removal is a real choice (the docstring's THREE and FOUR)."""
        free = 0
        for i in range(25):
            if present >> i & 1 and not COVER_MASKS[i] & present:
                free |= _BITS[i]
        out: list[int] = []
        for group in self._groups:
            sub = present & group[0]
            if not sub:
                continue
            kind = self._kinds.get(sub)
            if kind is None:
                kind = self._kind(sub, group)
            f = free & sub
            if kind == THREE and f.bit_count() == 1:
                out.append(f)
            elif kind == FOUR and f.bit_count() >= 2:
                out.extend(a | b for a, b in combinations([_BITS[i] for i in _bits(f)], 2))
        return out

    def search(self, present: int, trail: list[Removal] | None = None) -> bool:
        """Whether the heart cards ``present`` can all be removed; ``trail`` gets the removals."""
        self.nodes += 1
        mark = len(trail) if trail is not None else 0
        closed = self._close(present, trail)
        if closed == 0:
            return True
        if closed < 0 or closed in self._dead:
            self._dead.add(present)
            if trail is not None:
                del trail[mark:]
            return False
        for take in self._choices(closed):
            inner = len(trail) if trail is not None else 0
            if trail is not None:
                _record(take, trail)
            if self.search(closed & ~take, trail):
                return True
            if trail is not None:
                del trail[inner:]
        self._dead.add(closed)
        self._dead.add(present)
        if trail is not None:
            del trail[mark:]
        return False


def _record(take: int, trail: list[Removal]) -> None:
    """Removals for the same-rank cards in ``take``: heart pairs, a lone card with the pile."""
    idx = _bits(take)
    while len(idx) >= 2:
        trail.append((idx.pop(0), idx.pop(0)))
    if idx:
        trail.append((idx[0], -1))


def decider(position: Position) -> Decider:
    return Decider(position.heart, position.pile_counts())


def is_winnable(position: Position) -> bool:
    """Exact: can every heart card of ``position`` still be removed?"""
    return decider(position).search(position.present_mask)


def winning_removals(position: Position) -> list[Removal] | None:
    """An order of removals that wins (pile order ignored), or ``None`` when none does."""
    trail: list[Removal] = []
    if decider(position).search(position.present_mask, trail):
        return trail
    return None
