"""The solver on scripted positions, and its lines played through the real game."""

from __future__ import annotations

import pytest

from heartsuit.solitaire import Game
from heartsuit.solitaire.codes import deal_cards, format_code
from heartsuit.solitaire.layout import COVER_MASKS
from heartsuit.solitaire.position import Pile, Position, PositionError, distance
from heartsuit.solitaire.solver import SolveResult, Step, StepKind, decide, solve


def position(
    heart: dict[int, int], stock: tuple[int, ...] = (), waste: tuple[int, ...] = ()
) -> Position:
    """A position with the given heart cards (position -> rank) and everything else removed."""
    return Position(tuple(heart.get(p) for p in range(1, 26)), stock, waste)


def play(start: Position, result: SolveResult) -> int:
    """Play ``result.moves`` by the rules on ranks; return the moves made. Fails on a bad tap."""
    heart = list(start.heart)
    stock, waste = list(start.stock), list(start.waste)
    present = start.present_mask
    selected: int | str | None = None
    moves = 0
    for tap in result.moves:
        if tap == "stock":
            assert stock or waste
            if stock:
                waste.append(stock.pop(0))
            else:
                stock, waste = waste, []
            moves += 1
            selected = None
            continue
        if tap == "waste":
            assert waste
            rank = waste[-1]
        else:
            assert isinstance(tap, int)
            assert heart[tap - 1] is not None and not COVER_MASKS[tap - 1] & present
            rank = heart[tap - 1]  # type: ignore[assignment]
        if selected is None:
            selected = tap
            continue
        other = waste[-1] if selected == "waste" else heart[int(selected) - 1]
        assert other == rank and selected != tap
        for t in (selected, tap):
            if t == "waste":
                waste.pop()
            else:
                heart[int(t) - 1] = None
                present &= ~(1 << (int(t) - 1))
        selected = None
        moves += 1
    assert present == 0, "the line does not clear the heart"
    return moves


# ------------------------------------------------------------------ deciding, scripted
def test_a_heart_card_with_no_partner_anywhere_cannot_be_won() -> None:
    assert not decide(position({25: 5}, stock=(9, 9), waste=(3,)))


def test_a_heart_card_with_a_partner_deep_in_the_stock_can_be_won() -> None:
    assert decide(position({25: 5}, stock=(9, 9, 5), waste=(3,)))


def test_two_cards_that_must_pair_never_can_if_one_lies_on_the_other() -> None:
    # the tip lies on 23; with no 7 in the pile they would have to pair with each other
    assert not decide(position({25: 7, 23: 7}))
    assert decide(position({24: 7, 23: 7}))


def test_three_of_a_rank_with_one_pile_card_need_one_pair_that_can_meet() -> None:
    # 25 lies on 23 which lies on 20: no two of them can ever be free together
    assert not decide(position({25: 4, 23: 4, 20: 4}, stock=(4,)))
    # 23 and 24 are both freed by the tip, which takes the pile card
    assert decide(position({25: 4, 23: 4, 24: 4}, stock=(4,)))


def test_four_of_a_rank_need_two_pairs_that_can_meet() -> None:
    assert decide(position({23: 6, 24: 6, 20: 6, 19: 6}))
    # 25 lies on all the others, so it has no possible partner
    assert not decide(position({25: 6, 23: 6, 24: 6, 20: 6}))


def test_two_pairs_that_each_wait_for_the_other_cannot_be_won() -> None:
    # 23 lies on 20 and 24 on 22. Pairing 8s at 23+24 frees the 9s at 20 and 22: fine.
    assert decide(position({23: 8, 24: 8, 20: 9, 22: 9}))
    # Here the 8 at 22 waits for the 9 at 24, whose partner at 20 waits for the 8 at 23, whose
    # only partner is the 8 at 22: no pair ever lies on its own partner, yet none can start.
    assert not decide(position({23: 8, 22: 8, 24: 9, 20: 9}))


def test_a_won_game_is_winnable_with_an_empty_line() -> None:
    result = solve(position({}, stock=(3,)))
    assert result.winnable and result.moves == () and result.move_count == 0 and result.optimal


def test_an_impossible_position_is_refused_clearly() -> None:
    with pytest.raises(PositionError, match="four cards of each rank"):
        position({25: 5, 24: 5}, stock=(5, 5, 5))
    with pytest.raises(PositionError, match="25 places"):
        Position((5,), (), ())
    with pytest.raises(ValueError, match="rank"):
        position({25: 1})


# ------------------------------------------------------------------ fewest moves, scripted
def test_flips_up_to_the_partner_then_pair_with_the_waste() -> None:
    result = solve(position({25: 5}, stock=(9, 5, 2), waste=(3,)))
    assert result.optimal and result.move_count == 3
    assert [str(s) for s in result.steps] == ["flip → 9♥", "flip → 5♥", "pair 25 (5♥) + waste (5♥)"]
    assert result.moves == ("stock", "stock", 25, "waste")


def test_a_partner_under_the_waste_top_costs_a_redeal() -> None:
    result = solve(position({25: 5}, stock=(), waste=(5, 9)))
    assert result.optimal and result.move_count == 3
    assert [s.kind for s in result.steps] == [StepKind.REDEAL, StepKind.FLIP, StepKind.PAIR]


def test_two_free_heart_cards_pair_in_one_move_rather_than_two_with_the_waste() -> None:
    result = solve(position({23: 7, 24: 7}, waste=(7,)))
    assert result.move_count == 1 and result.moves == (23, 24)


def test_flips_and_pairs_interleave_along_the_stock() -> None:
    result = solve(position({25: 4, 23: 6, 24: 8}, stock=(6, 8, 4), waste=(4,)))
    assert result.optimal
    assert result.move_count == 5  # pair, flip, pair, flip, pair


def test_pile_distance_counts_the_real_flips_and_redeals() -> None:
    pile = Pile((3, 5, 7, 9, 11), removed=0b00100, pointer=2)
    for j in (0, 1, 3, 4):
        walker = Pile(pile.cycle, pile.removed, pile.pointer)
        assert len(walker.walk(j)) == distance(pile.removed, pile.pointer, 5, j)
        assert walker.top() == j


def test_steps_print_like_a_person_reads_them() -> None:
    assert str(Step(StepKind.FLIP, 12)) == "flip → Q♥"
    assert str(Step(StepKind.PAIR, 14, 23, 24)) == "pair 23 (A♥) + 24 (A♥)"
    assert str(Step(StepKind.PAIR, 10, 25)) == "pair 25 (10♥) + waste (10♥)"
    assert Step(StepKind.REDEAL).taps() == ("stock",)


# ------------------------------------------------------------------ whole deals, real game
def test_the_unproven_line_is_never_shorter_than_the_proven_optimum() -> None:
    checked = 0
    for number in range(40):
        deal = deal_cards(number)
        if not decide(deal):
            continue
        quick = solve(deal, optimal=False)
        best = solve(deal)
        assert quick.move_count is not None and best.move_count is not None
        assert best.move_count <= quick.move_count
        assert play(Position.of(deal), best) == best.move_count
        checked += 1
    assert checked >= 5


def test_lines_play_through_the_game_to_a_win_in_exactly_move_count_moves() -> None:
    won = 0
    for number in range(300):
        game = Game.from_code(format_code(number))
        result = solve(game, optimal=number < 60)
        assert result.winnable == decide(deal_cards(number))
        if not result.winnable:
            assert result.moves == () and result.move_count is None
            continue
        for tap in result.moves:
            game.tap(tap)
        assert game.outcome == "won"
        assert game.moves == result.move_count
        won += 1
    assert won >= 50


@pytest.mark.parametrize("selection", [25, "waste"])
def test_a_line_from_a_game_in_progress_first_clears_the_selection(selection: int | str) -> None:
    for number in range(200):
        game = Game.from_code(format_code(number))
        if not decide(game):
            continue
        game.tap("stock")
        game.tap("stock")
        game.tap(25 if selection == 25 else "waste")
        assert game.selected == selection
        result = solve(game)
        assert result.moves[0] == selection
        before = game.moves
        for tap in result.moves:
            game.tap(tap)
        assert game.outcome == "won" and game.moves - before == result.move_count
        return
    pytest.fail("no winnable deal among the first 200")


def test_a_won_game_needs_no_moves_and_a_lost_one_has_no_line() -> None:
    lost = next(n for n in range(100) if not decide(deal_cards(n)))
    result = solve(Game.from_code(format_code(lost)))
    assert not result.winnable and result.moves == () and result.steps == ()
    won = next(n for n in range(100) if decide(deal_cards(n)))
    game = Game.from_code(format_code(won))
    for tap in solve(game, optimal=False).moves:
        game.tap(tap)
    assert game.won
    after = solve(game)
    assert after.winnable and after.optimal and after.move_count == 0
