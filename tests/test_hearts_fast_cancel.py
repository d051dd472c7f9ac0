"""The Cancellation fast path against the engine, for 6 to 10 players."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from heartsuit.cards import Card
from heartsuit.hearts.fast import FastPathError, card_index, index_card
from heartsuit.hearts.fast_cancel import (
    CancelPosition,
    CancelState,
    CancelTable,
    cancel_points,
    cancel_position_from_view,
    guided_choice,
    guided_playout,
    random_cancel_hand,
)
from heartsuit.hearts.fast_draws import Draws
from heartsuit.hearts.game import Hand, Phase
from heartsuit.hearts.rules import Rules

C = Card.parse


def _position(hand: Hand) -> CancelPosition:
    assert hand.trick is not None
    won = any(t.winner is not None for t in hand.tricks)
    return CancelPosition.from_cards(
        hand.holdings,
        leader=hand.trick.leader,
        trick=[c for _, c in hand.trick.plays],
        hearts_broken=hand.hearts_broken,
        first_trick=hand.is_first_trick,
        taken=hand.taken,
        held_over=hand.held_over,
        kitty=() if won else hand.kitty,
        scores=hand.scores,
    )


def _lockstep(rules: Rules, seed: int) -> bool:
    """One random hand through the engine and CancelState; True if a trick was held over."""
    table = CancelTable.of(rules)
    hand = Hand.deal(rules, seed)
    assert hand.phase is Phase.PLAY  # no passing in Cancellation
    state = CancelState(table, _position(hand))
    expected = state.playout(Draws(seed))
    draws = Draws(seed)
    while hand.phase is Phase.PLAY:
        seat = hand.to_play
        assert seat == state.to_play
        legal = sorted(card_index(c) for c in hand.legal_plays(seat))
        assert state.legal() == legal
        choice = legal[draws.below(len(legal))] if len(legal) > 1 else legal[0]
        hand.play(seat, index_card(choice))
        state.play(choice)
        if seed % 3 == 0 and hand.phase is Phase.PLAY:
            # a restart from the engine's position gives the same state
            again = CancelState(table, _position(hand))
            assert (again.tallies, again.leader, again.held) == (
                state.tallies,
                state.leader,
                state.held,
            )
    assert state.points() == list(hand.points()) == expected
    return any(t.winner is None for t in hand.tricks)


@pytest.mark.parametrize("players", range(6, 11))
@pytest.mark.parametrize("moon", ["others_plus_26", "shooter_chooses"])
def test_cancellation_fast_path_and_engine_agree(players: int, moon: str) -> None:
    rules = Rules.preset("cancellation", players=players, moon=moon)
    for seed in range(10):
        _lockstep(rules, seed)


def test_they_agree_through_held_over_tricks() -> None:
    rules = Rules.preset("cancellation", hearts_broken_by="heart_or_queen")
    held = sum(_lockstep(rules, seed) for seed in range(80))
    assert held > 0  # random play does hold tricks over now and then: the rule was exercised


def test_a_fully_cancelled_trick_is_held_over_for_the_next_winner() -> None:
    table = CancelTable.of(Rules.preset("cancellation"))
    # six seats, two tricks left; the first trick cancels completely (pairs of 5♦ 6♦ 7♦)
    hands = [["5D", "AH"], ["5D", "2H"], ["6D", "3H"], ["6D", "4H"], ["7D", "KD"], ["7D", "QD"]]
    rest = list(Rules.preset("cancellation").deck())
    for h in hands:
        for c in h:
            rest.remove(C(c))
    pos = CancelPosition.from_cards(
        [[C(c) for c in h] for h in hands],
        leader=0,
        first_trick=False,
        hearts_broken=True,
        taken=[rest, [], [], [], [], []],
    )
    state = CancelState(table, pos)
    for card in ("5D", "5D", "6D", "6D", "7D", "7D"):
        state.play(card_index(C(card)))
    assert state.leader == 0 and state.held == 0  # no points in it, but held over all the same
    assert not state.done
    for card in ("AH", "2H", "3H", "4H", "KD", "QD"):
        state.play(card_index(C(card)))
    assert state.leader == 0  # A♥ wins the last trick and with it the held-over cards
    assert state.tallies[0] > 0


def test_cancellation_random_hands_score_52_points() -> None:
    table = CancelTable.of(Rules.preset("cancellation", players=7))
    draws = Draws(2)
    for _ in range(20):
        points = random_cancel_hand(table, draws)
        assert sum(points) in (52, 52 * 6)


def test_cancel_points_apply_the_moon() -> None:
    table = CancelTable.of(Rules.preset("cancellation"))
    assert cancel_points(table, [52, 0, 0, 0, 0, 0], ()) == [0, 52, 52, 52, 52, 52]


def test_cancellation_positions_are_checked() -> None:
    table = CancelTable.of(Rules.preset("cancellation"))
    with pytest.raises(FastPathError, match="exactly the cards"):
        CancelState(table, CancelPosition.from_cards([[C("2C")]] * 6, leader=0))
    with pytest.raises(FastPathError):
        CancelTable.of(Rules())


def test_a_view_plus_the_true_hidden_cards_is_the_engine_position() -> None:
    rules = Rules.preset("cancellation", players=7)
    draws = Draws(4)
    for seed in range(40):
        hand = Hand.deal(rules, seed)
        steps = draws.below(len(rules.deck()) - len(hand.kitty))
        for _ in range(steps):
            seat = hand.to_play
            assert seat is not None
            legal = hand.legal_plays(seat)
            hand.play(seat, legal[draws.below(len(legal))])
        seat = hand.to_play
        assert seat is not None
        guess = [tuple(h) for h in hand.holdings]
        pos = cancel_position_from_view(hand.view(seat), guess, hand.kitty)
        assert pos == _position(hand)
    with pytest.raises(FastPathError, match="every seat"):
        cancel_position_from_view(Hand.deal(rules, 0).view(0), [()])


@pytest.mark.parametrize("players", range(6, 11))
def test_guided_playouts_play_legally_and_score_like_the_engine(players: int) -> None:
    rules = Rules.preset("cancellation", players=players, hearts_broken_by="heart_or_queen")
    table = CancelTable.of(rules)
    rnd = random.Random(players)
    for seed in range(12):
        hand = Hand.deal(rules, seed)
        for _ in range(rnd.randrange(0, len(rules.deck()) - len(hand.kitty))):
            seat = hand.to_play
            assert seat is not None
            hand.play(seat, rnd.choice(hand.legal_plays(seat)))
        state = CancelState(table, _position(hand))
        played: list[int] = []
        guided_playout(state, rnd.random, 0.2, played)
        for index in played:
            seat = hand.to_play
            assert seat is not None
            assert index_card(index) in hand.legal_plays(seat)  # the engine lists it
            hand.play(seat, index_card(index))
        assert hand.phase is Phase.DONE
        assert state.points() == list(hand.points())


def test_the_guided_choice_ducks_throws_the_queen_and_is_always_legal() -> None:
    rules = Rules.preset("cancellation", players=6)
    table = CancelTable.of(rules)
    hands = [
        [C("5C"), C("9C"), C("KC"), C("2D")],
        [C("QS"), C("KS"), C("2H"), C("3D")],
        [C("4C"), C("4C"), C("3C"), C("5D")],
        [C("10C"), C("7H"), C("8H"), C("6D")],
        [C("2S"), C("3S"), C("8D"), C("9D")],
        [C("6C"), C("4D"), C("7D")],  # led J♣
    ]
    rest = Counter(rules.deck()) - Counter(c for h in [*hands, [C("JC")]] for c in h)
    pos = CancelPosition.from_cards(
        hands,
        leader=5,
        trick=[C("JC")],
        hearts_broken=True,
        first_trick=False,
        taken=[list(rest.elements()), [], [], [], [], []],
    )
    state = CancelState(table, pos)
    never = lambda: 0.99  # noqa: E731 - no noise, and the first of any random choice
    assert guided_choice(state, never) == card_index(C("9C"))  # 0 ducks under J♣ as high as it can
    state._apply(card_index(C("9C")))
    assert guided_choice(state, never) == card_index(C("QS"))  # 1 is void: throws Q♠
    state._apply(card_index(C("QS")))
    assert guided_choice(state, never) == card_index(C("4C"))  # 2 ducks (its 4♣ twice)
