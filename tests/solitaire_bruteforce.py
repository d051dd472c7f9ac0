"""A plain exhaustive Heart to Heart search, used only to check the solver.

It knows nothing clever: the state is the heart's present cards plus the stock and the waste as
they lie (ranks, in order), and the moves are the game's own -- flip, redeal when the stock is
empty, a pair of free heart cards, a free heart card with the waste top. A visited set keeps the
depth-first search finite. :func:`fewest_moves` is the same graph searched breadth first.

``python -m tests.solitaire_bruteforce FIRST COUNT`` prints verdicts for the golden file.
"""

from __future__ import annotations

import sys
from collections import deque
from collections.abc import Iterator

from heartsuit.solitaire.codes import deal_cards
from heartsuit.solitaire.layout import COVER_MASKS
from heartsuit.solitaire.position import Position

State = tuple[int, tuple[int, ...], tuple[int, ...]]


def _successors(heart: tuple[int | None, ...], state: State) -> Iterator[State]:
    present, stock, waste = state
    if stock:
        yield present, stock[1:], (*waste, stock[0])
    elif waste:
        yield present, waste, ()
    free = [i for i in range(25) if present >> i & 1 and not COVER_MASKS[i] & present]
    for a, i in enumerate(free):
        if waste and heart[i] == waste[-1]:
            yield present & ~(1 << i), stock, waste[:-1]
        for j in free[a + 1 :]:
            if heart[i] == heart[j]:
                yield present & ~(1 << i) & ~(1 << j), stock, waste


def winnable(position: Position, limit: int | None = None) -> bool | None:
    """Whether some sequence of the game's moves removes the whole heart.

    With ``limit``, gives up (None) once more than that many states have been seen.
    """
    start: State = (position.present_mask, position.stock, position.waste)
    seen = {start}
    stack = [start]
    while stack:
        state = stack.pop()
        if state[0] == 0:
            return True
        for nxt in _successors(position.heart, state):
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
        if limit is not None and len(seen) > limit:
            return None
    return False


def fewest_moves(position: Position) -> int | None:
    """The fewest moves (flips, redeals and pairs) that win, by breadth-first search."""
    start: State = (position.present_mask, position.stock, position.waste)
    depth = {start: 0}
    queue = deque([start])
    while queue:
        state = queue.popleft()
        if state[0] == 0:
            return depth[state]
        for nxt in _successors(position.heart, state):
            if nxt not in depth:
                depth[nxt] = depth[state] + 1
                queue.append(nxt)
    return None


if __name__ == "__main__":
    first, count = int(sys.argv[1]), int(sys.argv[2])
    for number in range(first, first + count):
        verdict = winnable(Position.of(deal_cards(number)))
        print(number, int(bool(verdict)), flush=True)
