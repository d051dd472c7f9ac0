"""The fewest-move winning line of a Heart to Heart position, by A* search with a proof.

Here the pile's order matters. Flips and redeals only move a pointer around the fixed pile cycle
(see :mod:`heartsuit.solitaire.position`), so between two pairs the only sensible flips are the
ones that bring the next pile card wanted to the waste top -- and that number is fixed by where
the pointer is. The search therefore works on *macro moves*: pair two free heart cards (cost 1),
or pair a free heart card with pile card ``j`` (cost: the flips and redeals to reach ``j``, plus
1). The state is (heart cards present, pile cards removed, pointer).

The lower bound adds two parts that can never overlap, since one counts pair moves and the other
pointer moves:

* **pairs**: a rank with ``h`` heart cards left needs at least ``h - k`` pair moves, where ``k``
  is the most disjoint heart pairs it could still form (two cards can never pair if one lies on
  the other);
* **pointer**: such a rank then needs ``h - 2k`` pile cards, and the pointer must at least reach
  the ``(h - 2k)``-th nearest one. Each flip or redeal brings a card one step closer; removing
  the waste top never brings a stock card closer, but it can uncover the waste card beneath.
  So a waste card counts as distance 0 when every card above it in the waste could still be
  paired away (a heart card of its rank remains), and otherwise as the way round the cycle.

States that can no longer be won (the exact decision of :mod:`heartsuit.solitaire.decide`) are
dropped. The search starts with a winning line as an upper bound and only looks for strictly
shorter ones; when it runs out of states the best line is proven optimal. A time budget stops it
early, and the best line known so far is returned unproven.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from heartsuit.solitaire.decide import Decider
from heartsuit.solitaire.layout import COVER_MASKS
from heartsuit.solitaire.position import (
    RANKS,
    Position,
    above_masks,
    canonical_pointer,
    comparable,
    distance,
)

#: a macro move: (heart index, heart index) for a heart pair, (heart index, -2 - j) with pile j
Pairing = tuple[int, int]

State = tuple[int, int, int]


def pile_code(j: int) -> int:
    """The second half of a :data:`Pairing` that pairs with pile cycle index ``j``."""
    return -2 - j


@dataclass(frozen=True, slots=True)
class OptimalResult:
    """``pairings`` wins in ``cost`` moves; ``proven`` when no shorter line exists."""

    pairings: tuple[Pairing, ...]
    cost: int
    proven: bool
    nodes: int


def _max_pairs(indices: Sequence[int], above: Sequence[int]) -> int:
    """The most disjoint pairs of cards that do not lie on each other (0, 1 or 2)."""
    best = 0
    for a, b in combinations(indices, 2):
        if comparable(a, b, above):
            continue
        best = 1
        rest = [i for i in indices if i not in (a, b)]
        if len(rest) == 2 and not comparable(rest[0], rest[1], above):
            return 2
    return best


class _Search:
    """One A* run; kept as an object so the hot loop reads locals, not globals."""

    def __init__(self, position: Position) -> None:
        self.heart = position.heart
        self.cycle = position.cycle
        self.n = len(self.cycle)
        self.start_pointer = len(position.waste)
        # per rank present in the heart: heart mask, {sub-mask: (pair moves, pile cards needed)}
        self.rank_info: list[tuple[int, int, dict[int, tuple[int, int]]]] = []
        above = above_masks(position.present_mask)
        for rank in RANKS:
            indices = [i for i, r in enumerate(self.heart) if r == rank]
            if not indices:
                continue
            table: dict[int, tuple[int, int]] = {}
            for size in range(len(indices) + 1):
                for subset in combinations(indices, size):
                    pairs = min(size // 2, _max_pairs(subset, above))
                    table[sum(1 << i for i in subset)] = (size - pairs, size - 2 * pairs)
            self.rank_info.append((rank, sum(1 << i for i in indices), table))
        self.pile_of_rank: dict[int, list[int]] = {r: [] for r in RANKS}
        for j, r in enumerate(self.cycle):
            self.pile_of_rank[r].append(j)
        self.pile_mask = {r: sum(1 << j for j in js) for r, js in self.pile_of_rank.items()}
        self._verdicts: dict[tuple[int, tuple[int, ...]], bool] = {}

    def bound(self, present: int, removed: int, pointer: int) -> int:
        """The admissible lower bound of the module docstring; -1 when plainly hopeless."""
        pairs = 0
        reach = 0
        n = self.n
        cycle = self.cycle
        live = {rank for rank, mask, _ in self.rank_info if present & mask}
        # waste cards that pairs alone might uncover: everything above them could still pair
        diggable = 0
        for j in range(pointer - 1, -1, -1):
            if removed >> j & 1:
                continue
            diggable |= 1 << j
            if cycle[j] not in live:
                break
        for rank, mask, table in self.rank_info:
            sub = present & mask
            if not sub:
                continue
            moves, need = table[sub]
            pairs += moves
            if need:
                dists = sorted(
                    0 if diggable >> j & 1 else distance(removed, pointer, n, j)
                    for j in self.pile_of_rank[rank]
                    if not removed >> j & 1
                )
                if len(dists) < need:
                    return -1
                reach = max(reach, dists[need - 1])
        return pairs + reach

    def winnable(self, present: int, removed: int) -> bool:
        counts = tuple(
            (self.pile_mask[r] & ~removed).bit_count() for r in RANKS
        )
        key = (present, counts)
        verdict = self._verdicts.get(key)
        if verdict is None:
            heart = [r if present >> i & 1 else None for i, r in enumerate(self.heart)]
            groups_pile = dict(zip(RANKS, counts, strict=True))
            verdict = Decider(heart, groups_pile).search(present)
            self._verdicts[key] = verdict
        return verdict

    def run(self, upper: int, deadline: float) -> tuple[list[Pairing] | None, bool, int]:
        """A line shorter than ``upper`` (or None), whether the search finished, nodes expanded."""
        heart = self.heart
        start: State = (
            sum(1 << i for i, r in enumerate(heart) if r is not None),
            0,
            canonical_pointer(0, self.start_pointer),
        )
        h0 = self.bound(*start)
        if h0 < 0 or h0 >= upper:
            return None, True, 0
        best_g: dict[State, int] = {start: 0}
        parent: dict[State, tuple[State, Pairing]] = {}
        tie = 0
        heap: list[tuple[int, int, int, State]] = [(h0, 0, tie, start)]
        nodes = 0
        n = self.n
        pile_of_rank = self.pile_of_rank
        while heap:
            f, neg_g, _, state = heapq.heappop(heap)
            g = -neg_g
            if g > best_g.get(state, g) or f >= upper:
                continue
            present, removed, pointer = state
            if present == 0:
                line: list[Pairing] = []
                while state in parent:
                    state, move = parent[state]
                    line.append(move)
                line.reverse()
                return line, True, nodes
            nodes += 1
            if nodes & 255 == 0 and time.perf_counter() > deadline:
                return None, False, nodes
            free = [
                i for i in range(25) if present >> i & 1 and not COVER_MASKS[i] & present
            ]
            children: list[tuple[State, int, Pairing]] = []
            for a, i in enumerate(free):
                rank = heart[i]
                for k in free[a + 1 :]:
                    if heart[k] == rank:
                        children.append(((present & ~(1 << i) & ~(1 << k), removed, pointer),
                                         1, (i, k)))
                assert rank is not None
                for j in pile_of_rank[rank]:
                    if removed >> j & 1:
                        continue
                    cost = distance(removed, pointer, n, j) + 1
                    gone = removed | 1 << j
                    children.append(((present & ~(1 << i), gone, canonical_pointer(gone, j)),
                                     cost, (i, pile_code(j))))
            for child, cost, move in children:
                cg = g + cost
                if cg >= best_g.get(child, upper):
                    continue
                hb = self.bound(*child)
                if hb < 0 or cg + hb >= upper:
                    continue
                if not self.winnable(child[0], child[1]):
                    continue
                best_g[child] = cg
                parent[child] = (state, move)
                tie += 1
                heapq.heappush(heap, (cg + hb, -cg, tie, child))
        return None, True, nodes


def fewest_moves(
    position: Position, upper: int, budget_s: float = 2.0
) -> tuple[list[Pairing] | None, bool, int]:
    """Search for a winning line of fewer than ``upper`` moves within ``budget_s`` seconds.

    Returns the line (or None when none shorter was found), whether the search completed (so a
    None means ``upper`` is optimal), and the number of states expanded.
    """
    return _Search(position).run(upper, time.perf_counter() + budget_s)
