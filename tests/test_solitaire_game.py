"""Heart to Heart engine: one scripted deal per rule of the spec, plus snapshots and replays.

The deal numbers were found by scanning deals for the property each test needs (see the
comment at each constant) and are pinned here; the deal itself is pinned by the shuffle's test
vectors, so these stay valid forever.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest

from heartsuit.cards import Card, Suit
from heartsuit.solitaire import (
    Action,
    Game,
    GameError,
    GameOver,
    Outcome,
    Reason,
    SnapshotError,
    TapKind,
)
from heartsuit.solitaire.codes import deal_cards, format_code

#: the seed's example code: tip 5♥, waste 4♥, position 1 covered (our generator's deal 12)
EXAMPLE = "HH1-N-AAAAAAM"
#: deal 10: the tip (8♥) matches the waste (8♥), then positions 23 and 24 are both J♥
TIP_MATCHES_WASTE = format_code(10)
#: deal 115: pairing the tip with the waste leaves Q♥ and 3♥ free with no partner anywhere
DEAD_AFTER_ONE_PAIR = format_code(115)
#: deal 0: dead from the deal: the tip is 9♥ and the other three 9♥ all lie in the heart
DEAD_FROM_THE_DEAL = format_code(0)
#: deal 3: a winning line (found by a depth-first search) that leaves 6 cards in the stock
WINNABLE = format_code(3)
WINNING_LINE = (
    "16s 25 w 7s 24 w 10s 23 w 2s 20 w s 22 w 5s 21 w 3s 17 w 3s 18 w s 16 w 3s 19 w "
    "12 15 10 11 5s 6 w s 14 w 9 13 2s 7 w 2s 2 w s 4 w 3s 5 w s 8 w 3 w 8s 1 w"
)


def taps(line: str) -> list[Action]:
    """``"3s 25 w"`` -> ``["stock", "stock", "stock", 25, "waste"]``."""
    out: list[Action] = []
    for word in line.split():
        if word == "w":
            out.append("waste")
        elif word.endswith("s"):
            out.extend(["stock"] * int(word[:-1] or "1"))
        else:
            out.append(int(word))
    return out


def play(game: Game, actions: Sequence[Action]) -> None:
    for action in actions:
        if action == "undo":
            game.undo()
        else:
            game.tap(action)


def heart(rank: int) -> Card:
    return Card(rank, Suit.HEARTS)


# ---------------------------------------------------------------- the deal
def test_the_deal_is_laid_out_as_the_seed_says() -> None:
    game = Game.from_code(EXAMPLE)
    deal = deal_cards(12)
    assert game.code == EXAMPLE
    assert game.heart == deal.heart and len(game.heart) == 25
    assert game.stock == deal.stock and len(game.stock) == 26
    assert game.waste == deal.waste and len(game.waste) == 1
    assert (game.score, game.moves, game.selected, game.outcome) == (0, 0, None, Outcome.PLAYING)
    assert game.free_positions() == (25,)


def test_the_code_is_forgiving_and_bad_codes_are_refused() -> None:
    assert Game.from_code(" hh1-n-aaaaaam ").code == EXAMPLE
    with pytest.raises(ValueError, match="three parts"):
        Game.from_code("HH1-AAAAAAM")


def test_a_new_game_deals_a_valid_code() -> None:
    game = Game.new()
    assert Game.from_code(game.code).to_dict() == game.to_dict()


# ---------------------------------------------------------------- tapping
def test_a_covered_card_ignores_taps() -> None:
    game = Game.from_code(EXAMPLE)
    before = game.to_dict()
    result = game.tap(1)
    assert result.kind is TapKind.IGNORED and result.reason is Reason.COVERED
    assert game.to_dict() == before


def test_a_covered_tap_keeps_the_selection() -> None:
    game = Game.from_code(EXAMPLE)
    game.tap(25)
    before = game.to_dict()
    game.tap(24)
    assert game.to_dict() == before and game.selected == 25


def test_tapping_the_tip_selects_it_and_tapping_it_again_deselects_it() -> None:
    game = Game.from_code(EXAMPLE)
    first = game.tap(25)
    assert first.kind is TapKind.SELECTED and game.selected == 25
    assert first.cards == (heart(5),) and first.positions == (25,)
    second = game.tap(25)
    assert second.kind is TapKind.DESELECTED and game.selected is None
    assert game.moves == 0 and game.score == 0


def test_the_waste_top_can_be_selected_and_deselected() -> None:
    game = Game.from_code(EXAMPLE)
    assert game.tap("waste").kind is TapKind.SELECTED and game.selected == "waste"
    assert game.tap("waste").kind is TapKind.DESELECTED and game.selected is None


def test_a_mismatch_moves_the_selection_silently_by_default() -> None:
    game = Game.from_code(EXAMPLE)  # tip 5♥, waste 4♥ (the seed's tip-then-waste example)
    game.tap(25)
    result = game.tap("waste")
    assert result.kind is TapKind.RESELECTED and result.reason is Reason.MUST_MATCH
    assert result.message is None and result.message_key is None
    assert game.selected == "waste"
    assert game.heart[24] == heart(5) and game.waste == (heart(4),)
    assert game.moves == 0 and game.score == 0
    assert game.tap(25).kind is TapKind.RESELECTED
    assert game.to_dict()["selected"] == 25


def test_a_mismatch_says_must_match_with_move_errors_on() -> None:
    game = Game.from_code(EXAMPLE, move_errors=True)
    game.tap(25)
    result = game.tap("waste")
    assert result.message == "Harus bernilai sama" and result.message_key == "must_match"
    game.language = "en"
    assert game.tap(25).message == "Must be the same rank"
    game.move_errors = False
    assert game.tap("waste").message is None


@pytest.mark.parametrize("first", [25, "waste"])
def test_a_heart_and_waste_pair_scores_10(first: int | str) -> None:
    game = Game.from_code(TIP_MATCHES_WASTE)
    second = "waste" if first == 25 else 25
    assert game.tap(first).kind is TapKind.SELECTED  # type: ignore[arg-type]
    result = game.tap(second)  # type: ignore[arg-type]
    assert result.kind is TapKind.PAIRED and result.points == 10
    assert result.positions == (25,) and result.cards == (heart(8), heart(8))
    assert game.heart[24] is None and game.waste == ()
    assert (game.score, game.moves, game.selected) == (10, 1, None)
    assert game.free_positions() == (23, 24)


def test_a_heart_and_heart_pair_scores_20() -> None:
    game = Game.from_code(TIP_MATCHES_WASTE)
    play(game, [25, "waste", 23])
    result = game.tap(24)
    assert result.kind is TapKind.PAIRED and result.points == 20
    assert result.positions == (23, 24) and result.cards == (heart(11), heart(11))
    assert game.heart[22] is None and game.heart[23] is None
    assert (game.score, game.moves) == (30, 2)
    assert game.free_positions() == (20, 21, 22)


def test_the_empty_waste_and_an_emptied_place_ignore_taps() -> None:
    game = Game.from_code(TIP_MATCHES_WASTE)
    play(game, [25, "waste"])
    before = game.to_dict()
    assert game.tap("waste").reason is Reason.EMPTY_WASTE
    assert game.tap(25).reason is Reason.EMPTY_PLACE
    assert game.to_dict() == before


# ---------------------------------------------------------------- stock and waste
def test_a_flip_turns_the_stock_top_onto_the_waste_and_clears_the_selection() -> None:
    game = Game.from_code(EXAMPLE)
    stock = game.stock
    game.tap(25)
    result = game.tap("stock")
    assert result.kind is TapKind.FLIPPED and result.cards == (stock[0],)
    assert game.stock == stock[1:] and game.waste == (heart(4), stock[0])
    assert (game.moves, game.score, game.selected) == (1, 0, None)


def test_a_redeal_turns_the_waste_back_in_the_same_order() -> None:
    game = Game.from_code(EXAMPLE)
    deal = deal_cards(12)
    play(game, ["stock"] * 26)
    assert game.stock == () and game.waste == deal.waste + deal.stock
    turned_before = game.waste
    game.tap(25)
    result = game.tap("stock")
    assert result.kind is TapKind.REDEALT and game.selected is None
    # the card that was turned first is turned first again
    assert game.stock == turned_before and game.waste == ()
    assert game.moves == 27
    play(game, ["stock"] * 26)
    assert game.waste == turned_before[:26] and game.stock == turned_before[26:]


def test_touching_an_empty_stock_with_an_empty_waste_does_nothing() -> None:
    # Unreachable in play (27 stock and waste cards, only 25 heart cards to pair them with),
    # so the state is made by hand: the rule must still hold.
    game = Game.from_code(EXAMPLE)
    game._stock, game._waste = [], []
    game.tap(25)
    moves = game.moves
    result = game.tap("stock")
    assert result.kind is TapKind.IGNORED and result.reason is Reason.NOTHING_TO_FLIP
    assert game.moves == moves and game.selected == 25


# ---------------------------------------------------------------- undo
def test_undo_restores_a_pair_exactly_with_its_points() -> None:
    game = Game.from_code(TIP_MATCHES_WASTE)
    play(game, [25, "waste"])
    before = game.to_dict()
    play(game, [23, 24])
    assert game.score == 30
    assert game.undo() is True
    assert game.to_dict() == before and game.score == 10 and game.moves == 1
    assert game.undo() is True
    assert game.to_dict() == Game.from_code(TIP_MATCHES_WASTE).to_dict()
    assert game.undo() is False


def test_undo_takes_back_flips_and_redeals_and_clears_the_selection() -> None:
    game = Game.from_code(EXAMPLE)
    snapshots = []
    for _ in range(28):  # 26 flips, a redeal, a flip
        snapshots.append(game.to_dict())
        game.tap("stock")
    game.tap(25)
    for snapshot in reversed(snapshots):
        assert game.undo() is True
        assert game.to_dict() == snapshot
    assert game.selected is None and game.moves == 0


def test_undo_reaches_back_100_moves_and_the_101st_undo_fails() -> None:
    game = Game.from_code(EXAMPLE)
    play(game, ["stock"])
    after_first = game.to_dict()
    play(game, ["stock"] * 100)
    assert game.moves == 101 and game.undo_depth == 100
    for _ in range(100):
        assert game.undo() is True
    assert game.undo() is False
    assert game.moves == 1
    assert {**game.to_dict(), "history": []} == {**after_first, "history": []}


def test_undo_with_nothing_to_undo_changes_nothing() -> None:
    game = Game.from_code(EXAMPLE)
    game.tap(25)
    before = game.to_dict()
    assert game.undo() is False
    assert game.to_dict() == before


# ---------------------------------------------------------------- the end
def test_a_dead_end_with_cards_still_in_the_stock() -> None:
    game = Game.from_code(DEAD_AFTER_ONE_PAIR)
    game.tap(25)
    result = game.tap("waste")
    assert result.outcome is Outcome.DEAD_END and game.dead_end
    assert len(game.stock) == 26
    free_ranks = {game.heart[p - 1].rank for p in game.free_positions()}  # type: ignore[union-attr]
    assert free_ranks == {12, 3}
    assert not free_ranks & {card.rank for card in game.stock + game.waste}


def test_taps_after_a_dead_end_are_refused_but_undo_works() -> None:
    game = Game.from_code(DEAD_AFTER_ONE_PAIR)
    play(game, [25, "waste"])
    before = game.to_dict()
    for target in (23, "stock", "waste"):
        with pytest.raises(GameOver, match="over"):
            game.tap(target)
    assert game.to_dict() == before
    assert game.undo() is True
    assert game.outcome is Outcome.PLAYING and game.score == 0


def test_a_deal_can_be_dead_from_the_start() -> None:
    game = Game.from_code(DEAD_FROM_THE_DEAL)
    tip_rank = game.heart[24].rank  # type: ignore[union-attr]
    assert all(card.rank != tip_rank for card in game.stock + game.waste)
    assert game.outcome is Outcome.DEAD_END and game.undo() is False


def test_a_win_with_cards_left_in_the_stock_scores_250() -> None:
    game = Game.from_code(WINNABLE)
    line = taps(WINNING_LINE)
    play(game, line[:-1])
    assert game.outcome is Outcome.PLAYING
    last = line[-1]
    assert last != "undo"
    result = game.tap(last)
    assert result.outcome is Outcome.WON and game.won
    assert game.score == 250 and all(card is None for card in game.heart)
    assert len(game.stock) == 6
    assert game.moves == 96
    with pytest.raises(GameOver):
        game.tap("stock")
    assert game.undo() is True and game.outcome is Outcome.PLAYING and game.score == 240


# ---------------------------------------------------------------- placement help
def test_placement_help_outlines_free_cards_with_a_partner_and_the_waste() -> None:
    game = Game.from_code(TIP_MATCHES_WASTE)
    assert game.outlined() == (25, "waste")
    game.tap(25)
    assert game.outlined() == (25, "waste")  # a selection does not change the outlines
    game.tap("waste")
    assert game.outlined() == (23, 24)
    game.placement_help = False
    assert game.outlined() == () and game.dimmed() == ()


def test_placement_help_dims_what_cannot_pair_with_the_selection() -> None:
    game = Game.from_code(EXAMPLE)  # tip 5♥, waste 4♥
    assert game.outlined() == () and game.dimmed() == ()
    game.tap(25)
    assert game.dimmed() == ("waste",)
    game.tap("waste")
    assert game.dimmed() == (25,)
    game.placement_help = False
    assert game.dimmed() == ()


def test_a_selection_does_not_dim_its_partners() -> None:
    game = Game.from_code(TIP_MATCHES_WASTE)
    play(game, [25, "waste", "stock", 23])  # 23 and 24 are J♥, the waste top 3♥
    assert game.dimmed() == ("waste",)
    assert 24 not in game.dimmed() and 23 in game.outlined()


def test_explain_says_why_a_tap_would_not_play() -> None:
    game = Game.from_code(EXAMPLE)  # tip 5♥, waste 4♥
    assert game.explain(1) is Reason.COVERED
    assert game.explain(25) is None and game.explain("waste") is None
    assert game.explain("stock") is None
    game.tap(25)
    assert game.explain("waste") is Reason.MUST_MATCH and game.explain(25) is None
    assert game.tap("waste").reason is Reason.MUST_MATCH
    matching = Game.from_code(TIP_MATCHES_WASTE)
    matching.tap(25)
    assert matching.explain("waste") is None
    matching.tap("waste")
    assert matching.explain(25) is Reason.EMPTY_PLACE
    assert matching.explain("waste") is Reason.EMPTY_WASTE


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize("target", [0, 26, -1, "foo", "", True, 1.5, None, "25", [25]])
def test_a_target_that_does_not_exist_is_refused_and_changes_nothing(target: Any) -> None:
    game = Game.from_code(EXAMPLE)
    game.tap(25)
    before = game.to_dict()
    with pytest.raises(GameError) as info:
        game.tap(target)
    assert "position" in str(info.value) and info.value.key == "invalid_target"
    assert isinstance(info.value, ValueError)
    assert game.to_dict() == before


def test_an_unknown_language_is_refused() -> None:
    with pytest.raises(GameError, match="'id' or 'en'"):
        Game.from_code(EXAMPLE, language="fr")  # type: ignore[arg-type]


# ---------------------------------------------------------------- snapshots and replays
def test_from_dict_round_trips_and_behaves_identically_including_undo() -> None:
    game = Game.from_code(WINNABLE, move_errors=True, placement_help=False)
    line = taps(WINNING_LINE)
    play(game, line[:60])
    game.tap(game.free_positions()[0])
    data = json.loads(json.dumps(game.to_dict()))
    copy = Game.from_dict(data)
    assert copy.to_dict() == game.to_dict()
    assert (copy.move_errors, copy.placement_help) == (True, False)
    play(game, line[60:])
    play(copy, line[60:])
    assert copy.to_dict() == game.to_dict() and copy.won
    for _ in range(5):
        assert copy.undo() is game.undo() is True
        assert copy.to_dict() == game.to_dict()


def test_replay_of_taps_and_undos_gives_the_identical_game() -> None:
    log: list[Action] = [*taps(WINNING_LINE)[:40], "undo", "undo", 1, "stock", "undo"]
    game = Game.from_code(WINNABLE)
    play(game, log)
    assert Game.replay(WINNABLE, log).to_dict() == game.to_dict()


def test_replay_names_the_bad_entry_of_a_log() -> None:
    with pytest.raises(GameError, match=r"action 2 \(0\)"):
        Game.replay(EXAMPLE, ["stock", 25, 0])


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"version": 9}, "version"),
        ({"code": "HH1-N-AAAAAAMM"}, "letters"),
        ({"heart": ["AH"] * 25}, "position 1"),
        ({"heart": [None] * 24}, "25 places"),
        ({"stock": ["AH"] * 9}, "never had"),
        ({"score": 40}, "score"),
        ({"moves": -1}, "moves"),
        ({"outcome": "won"}, "cards say"),
        ({"outcome": "lost"}, "outcome"),
        ({"selected": 1}, "cannot be selected"),
        ({"selected": "stock"}, "selection"),
        ({"settings": {"move_errors": 1, "placement_help": True}}, "true or false"),
        ({"history": [{"move": "flip"}], "moves": 1}, "back to the deal"),
        ({"history": [{"move": "flip"}]}, "at most"),
        ({"heart": [None, *(c.code for c in deal_cards(12).heart[1:])], "score": 10}, "pairs"),
        ({"history": [{"move": "jump"}], "moves": 1}, "unknown move"),
        ({"clock": {"played": "soon"}}, "clock"),
    ],
)
def test_a_damaged_snapshot_is_refused_with_a_clear_message(
    change: dict[str, Any], says: str
) -> None:
    data = {**Game.from_code(EXAMPLE).to_dict(), **change}
    with pytest.raises(SnapshotError, match=says):
        Game.from_dict(data)


def test_a_snapshot_whose_history_does_not_fit_the_deal_is_refused() -> None:
    game = Game.from_code(TIP_MATCHES_WASTE)
    play(game, [25, "waste"])
    data = game.to_dict()
    data["history"] = [{"move": "pair", "positions": [24], "cards": ["JH"], "waste": "JH"}]
    with pytest.raises(SnapshotError, match="position 24"):
        Game.from_dict(data)
    assert Game.from_dict(game.to_dict()).to_dict() == game.to_dict()


# ---------------------------------------------------------------- time
def test_the_clock_runs_while_playing_and_freezes_at_the_end() -> None:
    game = Game.from_code(DEAD_AFTER_ONE_PAIR, now=100.0)
    assert game.elapsed(130.0) == 30.0
    game.tap(25, now=140.0)
    game.tap("waste", now=160.0)  # a dead end: the clock stops at 60 s
    assert game.dead_end and game.elapsed(1000.0) == 60.0
    game.undo(now=500.0)  # back in play; the time at the end screen is not counted
    assert game.elapsed(510.0) == 70.0
    copy = Game.from_dict(game.to_dict())
    assert copy.elapsed(520.0) == 80.0


def test_without_times_no_time_is_counted() -> None:
    game = Game.from_code(EXAMPLE)
    game.tap("stock")
    assert game.elapsed() == 0.0 and game.elapsed(50.0) == 0.0


def test_a_game_started_without_a_time_starts_its_clock_at_the_first_timed_tap() -> None:
    game = Game.from_code(EXAMPLE)
    game.tap("stock", now=10.0)
    assert game.elapsed(25.0) == 15.0


def test_replay_with_times_rebuilds_the_clock() -> None:
    game = Game.replay(EXAMPLE, ["stock", "stock"], start=0.0, times=[5.0, 9.0])
    assert game.elapsed() == 9.0 and game.elapsed(12.0) == 12.0


# ---------------------------------------------------------------- the dead-end verdict
#: a game that pairs the heart with the waste again and again (found by random play): each such
#: pair takes a rank out of the stock and waste, which the verdict must then see gone
WASTE_PAIRS = "HH1-N-PUBNLKN"
FLIP: list[Action] = ["stock"]
WASTE_PAIR_LOG: list[Action] = [
    "stock", 25, "waste", *FLIP * 16, 23, "waste", *FLIP * 8, 24, "waste",
    *FLIP * 16, 22, "waste", *FLIP * 7, 21, "waste", *FLIP * 9, 19, "waste",
    "stock", "stock", 15, 20, 17, 18, "stock", 10, "waste", *FLIP * 6, 14, "waste",
    *FLIP * 15, 9, "waste",
]  # fmt: skip


def test_the_verdict_sees_each_rank_paired_away_from_the_waste_and_back_by_undo() -> None:
    game = Game.from_code(WASTE_PAIRS)
    for action in WASTE_PAIR_LOG:
        play(game, [action])
        # read back from its snapshot, the game is judged afresh (and refused if they differ)
        assert Game.from_dict(game.to_dict()).outcome is game.outcome
    assert game.dead_end
    assert game.undo()
    assert game.outcome is Outcome.PLAYING  # the waste's card is back
    for _flip in range(30):  # and stays among the stock and waste, pairing or not
        play(game, ["stock"])
        assert game.outcome is Outcome.PLAYING
        assert Game.from_dict(game.to_dict()).outcome is Outcome.PLAYING
