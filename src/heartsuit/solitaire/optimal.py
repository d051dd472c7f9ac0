"""The fewest-move winning line of a Heart to Heart position, by A* search with a proof.

Here the pile's order matters. Flips and redeals only move a pointer around the fixed pile cycle
(see :mod:`heartsuit.solitaire.position`), so between two pairs the only sensible flips are the
ones that bring the next pile card wanted to the waste top -- and that number is fixed by where
the pointer is. The search therefore works on *macro moves*: pair two free heart cards (cost 1),
or pair a free heart card with pile card ``j`` (cost: the flips and redeals to reach ``j``, plus
1). The state is (heart cards present, pile cards removed, pointer), packed in one int.

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

A state is skipped when the same cards were already gone in an expanded state whose pointer
could walk to this one's for no more than the difference in cost (it can do all this one can).
States that can no longer be won (the exact decision of :mod:`heartsuit.solitaire.decide`) are
dropped. The search starts with a winning line as an upper bound (the better of the decision's
line and a quick best-first search weighted towards the bound) and only looks for strictly
shorter ones; when it runs out of states the best line is proven optimal. A time budget stops it
early (CPU time, so other processes on the machine do not change the outcome), and the best
line known so far is returned unproven.
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

#: a search state packed into one int: present | removed << 25 | pointer << 52
State = int
_HEART = (1 << 25) - 1
_PILE = (1 << 27) - 1
_CARDS = (1 << 52) - 1


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
        """The admissible lower bound of the module docstring; -1 when plainly hopeless.

        The pile is walked once in order of distance: the waste top and the waste cards that
        pairs could dig out (distance 0), then the stock, a redeal, and the rest of the waste.
        """
        pairs = 0
        need = [0] * 15
        outstanding = 0
        live = 0
        for rank, mask, table in self.rank_info:
            sub = present & mask
            if sub:
                live |= 1 << rank
                moves, count = table[sub]
                pairs += moves
                if count:
                    need[rank] = count
                    outstanding += 1
        if not outstanding:
            return pairs
        cycle = self.cycle
        j = pointer - 1
        while j >= 0:
            if not removed >> j & 1:
                rank = cycle[j]
                if need[rank]:
                    need[rank] -= 1
                    if not need[rank]:
                        outstanding -= 1
                        if not outstanding:
                            return pairs
                if not live >> rank & 1:
                    break  # this card can never be paired away, so nothing below it is dug out
            j -= 1
        reach = 0
        # the stock in order, then (one redeal later) the waste cards left below ``j``
        for start, stop, redeal in ((pointer, self.n, 0), (0, j, 1)):
            reach += redeal
            for k in range(start, stop):
                if removed >> k & 1:
                    continue
                reach += 1
                rank = cycle[k]
                if need[rank]:
                    need[rank] -= 1
                    if not need[rank]:
                        outstanding -= 1
                        if not outstanding:
                            return pairs + reach
        return -1

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

    def pair_moves(self, present: int) -> int:
        """The pair-move part of the bound alone (cheap)."""
        return sum(table[present & mask][0] for _, mask, table in self.rank_info)

    def quick(self, upper: int, node_limit: int) -> tuple[list[Pairing] | None, int]:
        """A good line fast (not proven): best-first on cost + 3 x bound, up to ``node_limit``.

        Gives the exact search a tighter line to beat, and is what is returned if the exact
        search runs out of time. Returns the line (or None) and its move count.
        """
        heart = self.heart
        n = self.n
        present0 = sum(1 << i for i, r in enumerate(heart) if r is not None)
        pointer0 = canonical_pointer(0, self.start_pointer)
        start: State = present0 | pointer0 << 52
        best_g: dict[State, int] = {start: 0}
        parent: dict[State, tuple[State, Pairing]] = {}
        heap: list[tuple[int, int, int, State]] = [(0, 0, 0, start)]
        tie = 0
        nodes = 0
        while heap and nodes < node_limit:
            _, neg_g, _, state = heapq.heappop(heap)
            g = -neg_g
            if g > best_g[state]:
                continue
            present = state & _HEART
            removed = state >> 25 & _PILE
            pointer = state >> 52
            if present == 0:
                line: list[Pairing] = []
                while state in parent:
                    state, move = parent[state]
                    line.append(move)
                line.reverse()
                return line, g
            nodes += 1
            if not self.winnable(present, removed):
                continue
            free = [i for i in range(25) if present >> i & 1 and not COVER_MASKS[i] & present]
            children: list[tuple[State, int, Pairing]] = []
            for a, i in enumerate(free):
                rank = heart[i]
                assert rank is not None
                for k in free[a + 1 :]:
                    if heart[k] == rank:
                        paired = present & ~(1 << i) & ~(1 << k)
                        children.append((state & ~_HEART | paired, 1, (i, k)))
                left = present & ~(1 << i)
                for j in self.pile_of_rank[rank]:
                    if not removed >> j & 1:
                        gone = removed | 1 << j
                        child = left | gone << 25 | canonical_pointer(gone, j) << 52
                        cost = distance(removed, pointer, n, j) + 1
                        children.append((child, cost, (i, pile_code(j))))
            for child, cost, move in children:
                cg = g + cost
                if cg >= best_g.get(child, upper):
                    continue
                hb = self.bound(child & _HEART, child >> 25 & _PILE, child >> 52)
                if hb < 0 or cg + hb >= upper:
                    continue
                best_g[child] = cg
                parent[child] = (state, move)
                tie += 1
                heapq.heappush(heap, (cg + 3 * hb, -cg, tie, child))
        return None, upper

    def run(self, upper: int, deadline: float) -> tuple[list[Pairing] | None, bool, int]:
        """A line shorter than ``upper`` (or None), whether the search finished, nodes expanded.

        Children enter the queue with a cheap estimate (their parent's f, or their cost so far
        plus the pair-move bound, whichever is larger: both are admissible); the full bound is
        computed only when a child comes up, and if it is larger the child goes back in.
        """
        heart = self.heart
        start_present = sum(1 << i for i, r in enumerate(heart) if r is not None)
        start_pointer = canonical_pointer(0, self.start_pointer)
        start: State = start_present | start_pointer << 52
        h0 = self.bound(start_present, 0, start_pointer)
        if h0 < 0 or h0 >= upper:
            return None, True, 0
        best_g: dict[State, int] = {start: 0}
        parent: dict[State, tuple[State, Pairing]] = {}
        tie = 0
        heap: list[tuple[int, int, int, State, bool]] = [(h0, 0, tie, start, True)]
        expanded: dict[int, list[tuple[int, int]]] = {}
        nodes = 0
        n = self.n
        pile_of_rank = self.pile_of_rank
        # per heart place: its rank's (mask, table) for the incremental pair-move bound
        rank_of_place: dict[int, tuple[int, dict[int, tuple[int, int]]]] = {}
        for _, mask, table in self.rank_info:
            for i in range(25):
                if mask >> i & 1:
                    rank_of_place[i] = (mask, table)
        while heap:
            f, neg_g, _, state, exact = heapq.heappop(heap)
            if f >= upper:
                break  # every state left is at least as long as the line already known
            g = -neg_g
            if g > best_g[state]:
                continue
            present = state & _HEART
            removed = state >> 25 & _PILE
            pointer = state >> 52
            if not exact:
                hb = self.bound(present, removed, pointer)
                if hb < 0:
                    continue
                if g + hb > f:
                    if g + hb < upper:
                        tie += 1
                        heapq.heappush(heap, (g + hb, neg_g, tie, state, True))
                    continue
            if present and not self.winnable(present, removed):
                continue
            if present == 0:
                line: list[Pairing] = []
                while state in parent:
                    state, move = parent[state]
                    line.append(move)
                line.reverse()
                return line, True, nodes
            # the same cards gone with the pointer elsewhere, reached for so much less that
            # walking the pointer here from there is no dearer: nothing new can come from here
            cards = state & _CARDS
            others = expanded.get(cards)
            if others is None:
                expanded[cards] = [(pointer, g)]
            else:
                if any(
                    g_other + (0 if p_other == pointer else
                               distance(removed, p_other, n, pointer - 1) if pointer else
                               n - p_other - (removed >> p_other).bit_count() + 1) <= g
                    for p_other, g_other in others
                ):
                    continue
                others.append((pointer, g))
            nodes += 1
            if nodes & 255 == 0 and time.process_time() > deadline:
                return None, False, nodes
            pairs = self.pair_moves(present)
            free = [
                i for i in range(25) if present >> i & 1 and not COVER_MASKS[i] & present
            ]
            for a, i in enumerate(free):
                rank = heart[i]
                assert rank is not None
                mask, table = rank_of_place[i]
                before = table[present & mask][0]
                for k in free[a + 1 :]:
                    if heart[k] == rank:
                        paired = present & ~(1 << i) & ~(1 << k)
                        child = state & ~_HEART | paired
                        cg = g + 1
                        if cg >= best_g.get(child, upper):
                            continue
                        cf = max(f, cg + pairs - before + table[paired & mask][0])
                        if cf >= upper:
                            continue
                        best_g[child] = cg
                        parent[child] = (state, (i, k))
                        tie += 1
                        heapq.heappush(heap, (cf, -cg, tie, child, False))
                left = present & ~(1 << i)
                after = pairs - before + table[left & mask][0]
                for j in pile_of_rank[rank]:
                    if removed >> j & 1:
                        continue
                    cg = g + distance(removed, pointer, n, j) + 1
                    gone = removed | 1 << j
                    child = left | gone << 25 | canonical_pointer(gone, j) << 52
                    if cg >= best_g.get(child, upper):
                        continue
                    cf = max(f, cg + after)
                    if cf >= upper:
                        continue
                    best_g[child] = cg
                    parent[child] = (state, (i, pile_code(j)))
                    tie += 1
                    heapq.heappush(heap, (cf, -cg, tie, child, False))
        return None, True, nodes


#: states the quick search may expand before the exact one starts
QUICK_NODES = 3000


def fewest_moves(
    position: Position, upper: int, budget_s: float = 2.0
) -> tuple[list[Pairing] | None, bool, int]:
    """Search for a winning line of fewer than ``upper`` moves within ``budget_s`` seconds.

    The budget is CPU time of this process (:func:`time.process_time`), so that a machine busy
    with other work does not change which lines get proven. Returns the line (or None when none
    shorter was found), whether the search completed (so a None means ``upper`` is optimal), and
    the number of states expanded.
    """
    deadline = time.process_time() + budget_s
    search = _Search(position)
    quick, quick_cost = search.quick(upper, QUICK_NODES)
    line, finished, nodes = search.run(quick_cost, deadline)
    return (line if line is not None else quick), finished, nodes
