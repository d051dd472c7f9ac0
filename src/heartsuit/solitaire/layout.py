"""The heart's 25 places, their rows and columns, and which places cover which.

Positions are numbered 1..25 row by row from the top, left to right, in rows of
4, 6, 5, 4, 3, 2, 1 cards (seed: "7 baris berisi 4, 6, 5, 4, 3, 2, 1 kartu"). Column centres are
kept in half-card steps, doubled so that they are integers: a card at ``x2`` is covered by the
cards of the next row at ``x2 - 1`` and ``x2 + 1`` (one on each side, one only at an edge).
Index ``i`` in the tuples here is position ``i + 1``.
"""

from __future__ import annotations

from typing import Final

#: cards per row, top to bottom
ROW_SIZES: Final = (4, 6, 5, 4, 3, 2, 1)

#: doubled x of each row's cards (x = 0 is the middle); row 1 is two arches with a gap
_ROW_X2: Final = (
    (-4, -2, 2, 4),
    (-5, -3, -1, 1, 3, 5),
    (-4, -2, 0, 2, 4),
    (-3, -1, 1, 3),
    (-2, 0, 2),
    (-1, 1),
    (0,),
)

POSITIONS: Final = tuple(range(1, 26))
TIP: Final = 25

#: row (1..7) of each position
ROW: Final[tuple[int, ...]] = tuple(r + 1 for r, size in enumerate(ROW_SIZES) for _ in range(size))
#: doubled x of each position
X2: Final[tuple[int, ...]] = tuple(x for row in _ROW_X2 for x in row)


def _covered_by() -> tuple[tuple[int, ...], ...]:
    out: list[tuple[int, ...]] = []
    for i in range(25):
        out.append(
            tuple(
                j + 1
                for j in range(25)
                if ROW[j] == ROW[i] + 1 and abs(X2[j] - X2[i]) == 1
            )
        )
    return tuple(out)


#: COVERED_BY[p - 1]: the positions whose cards lie on top of position p
COVERED_BY: Final = _covered_by()
#: COVERS[p - 1]: the positions that the card at p lies on
COVERS: Final = tuple(
    tuple(q for q in POSITIONS if p in COVERED_BY[q - 1]) for p in POSITIONS
)
#: bit masks (bit i = position i + 1) of COVERED_BY, for fast freeness checks
COVER_MASKS: Final = tuple(sum(1 << (q - 1) for q in cov) for cov in COVERED_BY)

ALL_MASK: Final = (1 << 25) - 1


def is_free(position: int, present_mask: int) -> bool:
    """Whether the card at ``position`` is free when the cards in ``present_mask`` remain."""
    return COVER_MASKS[position - 1] & present_mask == 0


def free_mask(present_mask: int) -> int:
    """The present positions with nothing covering them, as a bit mask."""
    out = 0
    for i in range(25):
        bit = 1 << i
        if present_mask & bit and not COVER_MASKS[i] & present_mask:
            out |= bit
    return out
