"""The solver against plain exhaustive search (:mod:`tests.solitaire_bruteforce`).

* Whole deals: the fast decision agrees with brute force on 2,000 deals. Exhausting a lost deal
  can take a few seconds, so the brute-force verdicts of deals 0..1999 are kept in a golden file
  (regenerate with ``python -m tests.solitaire_bruteforce 0 2000``) and brute force is re-run live
  on every one of those deals whose search stays small.
* Small random positions (hypothesis): the decision equals brute force, the fewest-move count
  equals breadth-first search over the game's real moves, and the line plays to a win.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from heartsuit.solitaire.codes import deal_cards
from heartsuit.solitaire.layout import COVERS
from heartsuit.solitaire.position import Position
from heartsuit.solitaire.solver import decide, solve
from tests.solitaire_bruteforce import fewest_moves, winnable
from tests.test_solitaire_solver import play

GOLDEN = Path(__file__).with_name("solitaire_solver_golden.txt")
#: live brute force gives up past this many states (a lost deal may need millions)
LIVE_LIMIT = 3000


def golden_verdicts() -> dict[int, bool]:
    out: dict[int, bool] = {}
    for line in GOLDEN.read_text(encoding="utf-8").split("\n"):
        if line.strip():
            number, verdict = line.split()
            out[int(number)] = verdict == "1"
    return out


def test_decision_equals_brute_force_on_2000_deals() -> None:
    verdicts = golden_verdicts()
    assert sorted(verdicts) == list(range(2000))
    wrong = [n for n, v in verdicts.items() if decide(deal_cards(n)) != v]
    assert wrong == []
    # a sanity check on the golden file itself: both outcomes are common
    assert 300 < sum(verdicts.values()) < 1700


@pytest.mark.slow
def test_golden_verdicts_match_a_live_brute_force() -> None:
    verdicts = golden_verdicts()
    checked = 0
    for number in range(2000):
        live = winnable(Position.of(deal_cards(number)), limit=LIVE_LIMIT)
        if live is None:
            continue
        assert live == verdicts[number] == decide(deal_cards(number)), number
        checked += 1
    assert checked >= 800


# the pool of small positions: 4 copies of 4 ranks, dealt to a few heart places and a short pile
_POOL = [rank for rank in (2, 3, 4, 5) for _ in range(4)]


def _lying_under(place: int) -> set[int]:
    """``place`` and every place it lies on, down to the top row."""
    out = {place}
    for under in COVERS[place - 1]:
        out |= _lying_under(under)
    return out


def _position(places: list[int], cards: list[int], pile: int, waste: int) -> Position:
    """Ranks ``cards`` laid on ``places`` in order; the next ``pile`` cards form the pile, the
    first ``waste`` of them the waste."""
    heart: list[int | None] = [None] * 25
    for place, rank in zip(places, cards, strict=False):
        heart[place - 1] = rank
    rest = cards[len(places) : len(places) + pile]
    return Position(tuple(heart), tuple(rest[waste:]), tuple(rest[:waste]))


@st.composite
def small_positions(draw: st.DrawFn) -> Position:
    """Either a shape a game can reach (every card under a present card present, drawn from the
    upper rows) or any handful of places in the lower rows, which the solver must handle too."""
    if draw(st.booleans()):
        seeds = draw(st.lists(st.integers(1, 19), min_size=1, max_size=3, unique=True))
        chosen = set().union(*(_lying_under(p) for p in seeds))
        assume(len(chosen) <= 8)
        places = sorted(chosen)
    else:
        places = draw(st.lists(st.integers(14, 25), min_size=1, max_size=7, unique=True))
    cards = draw(st.permutations(_POOL))
    pile = draw(st.integers(0, 6))
    waste = draw(st.integers(0, pile))
    return _position(places, cards, pile, waste)


@settings(max_examples=1500, deadline=None)
@given(small_positions())
def test_decision_equals_brute_force_on_small_positions(position: Position) -> None:
    assert decide(position) == winnable(position)


@settings(max_examples=1000, deadline=None)
@given(small_positions())
def test_fewest_moves_equal_breadth_first_search(position: Position) -> None:
    result = solve(position)
    expected = fewest_moves(position)
    assert result.move_count == expected
    if expected is not None:
        assert result.optimal
        assert play(position, result) == expected


@st.composite
def long_pile_positions(draw: st.DrawFn) -> Position:
    """A few heart cards and up to ten pile cards, so that lines walk the pile several times."""
    places = draw(st.lists(st.integers(14, 25), min_size=1, max_size=5, unique=True))
    cards = draw(st.permutations(_POOL))
    pile = draw(st.integers(0, 10))
    waste = draw(st.integers(0, pile))
    return _position(places, cards, pile, waste)


@settings(max_examples=500, deadline=None)
@given(long_pile_positions())
def test_fewest_moves_over_a_long_pile_equal_breadth_first_search(position: Position) -> None:
    result = solve(position)
    expected = fewest_moves(position)
    assert result.move_count == expected
    assert decide(position) == (expected is not None)
    if expected is not None:
        assert result.optimal
        assert play(position, result) == expected
