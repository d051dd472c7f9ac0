"""The heart's geometry, as fixed in the spec."""

from heartsuit.solitaire.layout import (
    ALL_MASK,
    COVERED_BY,
    COVERS,
    ROW,
    ROW_SIZES,
    TIP,
    X2,
    free_mask,
    is_free,
)


def test_rows_hold_4_6_5_4_3_2_1_cards() -> None:
    assert ROW_SIZES == (4, 6, 5, 4, 3, 2, 1)
    assert [ROW.count(r) for r in range(1, 8)] == [4, 6, 5, 4, 3, 2, 1]


def test_top_row_is_two_arches_with_a_gap_in_the_middle() -> None:
    assert X2[:4] == (-4, -2, 2, 4)
    assert 0 not in X2[:4]


def test_each_card_is_covered_by_its_two_neighbours_below() -> None:
    assert COVERED_BY[0] == (5, 6)  # position 1 at x=-2 lies under x=-2.5 and -1.5
    assert COVERED_BY[1] == (6, 7)
    assert COVERED_BY[2] == (8, 9)
    assert COVERED_BY[4] == (11,)  # left edge of row 2 has one card below it
    assert COVERED_BY[9] == (15,)  # right edge of row 2
    assert COVERED_BY[22] == (25,)
    assert COVERED_BY[23] == (25,)
    assert COVERED_BY[24] == ()


def test_covers_is_the_inverse_of_covered_by() -> None:
    for p in range(1, 26):
        for q in COVERED_BY[p - 1]:
            assert p in COVERS[q - 1]
    assert COVERS[TIP - 1] == (23, 24)


def test_only_the_tip_is_free_at_the_start() -> None:
    assert [p for p in range(1, 26) if is_free(p, ALL_MASK)] == [TIP]
    assert free_mask(ALL_MASK) == 1 << (TIP - 1)


def test_removing_the_tip_frees_the_two_cards_it_covered() -> None:
    present = ALL_MASK & ~(1 << (TIP - 1))
    assert [p for p in range(1, 26) if free_mask(present) >> (p - 1) & 1] == [23, 24]
