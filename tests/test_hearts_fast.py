"""The one-pack fast path against the engine: same legal moves at every step, same points."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from heartsuit.cards import Card
from heartsuit.hearts.fast import (
    TRICK_POOL,
    TRICK_SLACK,
    FastPathError,
    FastState,
    Position,
    Table,
    card_index,
    cards_mask,
    deal,
    hand_points,
    index_card,
    mask_cards,
    playout,
    position_from_view,
    random_hand,
)
from heartsuit.hearts.fast_draws import Draws
from heartsuit.hearts.game import Hand, Phase
from heartsuit.hearts.rules import HOLD, Rules
from heartsuit.shuffle import Rng

C = Card.parse

ONE_PACK_RULES = {
    "standard": Rules.preset("standard"),
    "three": Rules.preset("three"),
    "five": Rules.preset("five"),
    "omnibus": Rules.preset("omnibus"),
    "black-maria": Rules.preset("black-maria"),
    "black-maria-spades": Rules.preset("black-maria", spade_penalties=True),
    "queen-breaks": Rules.preset("standard", hearts_broken_by="heart_or_queen"),
    "first-trick-points": Rules.preset("standard", first_trick_points=True),
    "self-minus": Rules.preset("omnibus", moon="self_minus_26"),
    "shooter-chooses": Rules.preset("standard", moon="shooter_chooses"),
}


def _indices(mask: int) -> list[int]:
    return [i for i in range(52) if mask >> i & 1]


def _engine_position(hand: Hand) -> Position:
    """The fast path's view of an engine hand in the play phase (all cards known)."""
    assert hand.trick is not None
    return Position.from_cards(
        hand.holdings,
        leader=hand.trick.leader,
        trick=[c for _, c in hand.trick.plays],
        hearts_broken=hand.hearts_broken,
        first_trick=hand.is_first_trick,
        taken=hand.taken,
        scores=hand.scores,
    )


def _random_passes(hand: Hand, rng: Rng) -> None:
    for seat in range(hand.rules.players):
        cards = list(hand.holdings[seat])
        picks = [cards.pop(rng.below(len(cards))) for _ in range(hand.rules.pass_count)]
        hand.pass_cards(seat, picks)


def _lockstep(rules: Rules, seed: int) -> int:
    """Play one random hand through the engine and FastState together; return the steps."""
    hand = Hand.deal(rules, seed, hand_number=seed % 4)
    rng = Rng(seed)
    if hand.phase is Phase.PASS:
        _random_passes(hand, rng)
    table = Table.of(rules)
    state = FastState(table, _engine_position(hand))
    fresh = Draws(seed)
    expected = state.playout(fresh)
    replay = Draws(seed)  # the stepping replay must consume exactly what the hot loop did
    steps = 0
    while hand.phase is Phase.PLAY:
        if not state.trick:
            replay.reserve(TRICK_POOL)  # the hot loop tops its pool up before each trick
        seat = hand.to_play
        assert seat is not None and seat == state.to_play
        engine_legal = cards_mask(hand.legal_plays(seat))
        assert state.legal() == engine_legal, (seat, hand.legal_plays(seat))
        options = _indices(engine_legal)
        choice = options[replay.below(len(options))] if len(options) > 1 else options[0]
        hand.play(seat, index_card(choice))
        state.play(choice)
        assert state.broken == hand.hearts_broken
        steps += 1
    assert state.done
    assert state.points() == list(hand.points())
    assert expected == list(hand.points())
    assert (replay.value, replay.span) == (fresh.value, fresh.span)
    return steps


@pytest.mark.parametrize("name", sorted(ONE_PACK_RULES))
def test_fast_path_and_engine_agree_on_every_step(name: str) -> None:
    rules = ONE_PACK_RULES[name]
    for seed in range(40):
        assert _lockstep(rules, seed) == len(rules.deck())


def test_fast_path_agrees_from_the_middle_of_a_trick() -> None:
    rules = ONE_PACK_RULES["omnibus"]
    rng = Rng(7)
    for seed in range(60):
        hand = Hand.deal(rules, seed, pass_direction=HOLD)
        for _ in range(rng.below(40)):
            seat = hand.to_play
            assert seat is not None
            legal = hand.legal_plays(seat)
            hand.play(seat, legal[rng.below(len(legal))])
        pos = _engine_position(hand)
        draws = Draws(seed)
        points = playout(Table.of(rules), pos, draws)
        state = FastState(Table.of(rules), pos)
        replay = Draws(seed)
        replay.reserve(TRICK_POOL)
        while not state.done:
            if not state.trick:
                replay.reserve(TRICK_POOL)
            options = _indices(state.legal())
            state.play(options[replay.below(len(options))] if len(options) > 1 else options[0])
        assert points == state.points()


@pytest.mark.parametrize("name", ["standard", "three", "five", "black-maria-spades"])
def test_a_pool_near_its_top_is_split_one_choice_at_a_time(name: str) -> None:
    # a pool within TRICK_SLACK of its span makes the hot loop check each choice of the trick
    # (and reject some: odd spans), instead of dividing the span once after the trick; either
    # way it must consume exactly what Draws.below does, step by step
    rules = ONE_PACK_RULES[name]
    table = Table.of(rules)
    for seed in range(12):
        pos = _engine_position(Hand.deal(rules, seed, pass_direction=HOLD))
        span = TRICK_POOL * (3 + seed) + seed % 3
        for value in (span - 1, span - TRICK_SLACK + seed, span - TRICK_SLACK // 7):
            draws = Draws(seed)
            draws.value, draws.span = value, span
            points = playout(table, pos, draws)
            state = FastState(table, pos)
            replay = Draws(seed)
            replay.value, replay.span = value, span
            while not state.done:
                if not state.trick:
                    replay.reserve(TRICK_POOL)
                options = _indices(state.legal())
                pick = replay.below(len(options)) if len(options) > 1 else 0
                state.play(options[pick])
            assert points == state.points()
            assert (replay.value, replay.span) == (draws.value, draws.span)


def test_the_opening_lead_is_the_lowest_club_in_play() -> None:
    assert index_card(Table.of(Rules.preset("five")).lead_index) == C("3C")
    assert index_card(Table.of(Rules.preset("black-maria")).lead_index) == C("3C")
    assert index_card(Table.of(Rules.preset("three")).lead_index) == C("2C")


def test_no_heart_or_queen_on_the_first_trick_unless_nothing_else() -> None:
    table = Table.of(Rules())
    hands = [
        ["2C", *[f"{r}C" for r in (3, 4, 5, 6, 7, 8, 9, 10)], "JC", "QC", "KC", "AC"],
        ["QS", "2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "10H", "JH", "QH", "KH"],
        ["AH", "2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "10D", "JD", "QD", "KD"],
        ["AD", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S", "JS", "KS", "AS"],
    ]
    pos = Position.from_cards([[C(c) for c in h] for h in hands], leader=0)
    state = FastState(table, pos)
    state.play(card_index(C("2C")))
    # seat 1 holds only hearts and Q♠: anything goes
    assert mask_cards(state.legal()) == sorted(
        (C(c) for c in hands[1]), key=card_index
    )
    state.play(card_index(C("QS")))
    # seat 2 holds diamonds too: the A♥ is barred
    assert C("AH") not in mask_cards(state.legal())
    assert len(mask_cards(state.legal())) == 12


def test_hearts_are_led_only_once_broken_or_when_nothing_else() -> None:
    table = Table.of(Rules())
    hands = [["2C", "3H"], ["3C", "4C"], ["5C", "6C"], ["7C", "8C"]]
    pos = Position.from_cards(
        [[C(c) for c in h] for h in hands],
        leader=3,
        first_trick=False,
        taken=[[], [], [], _rest(hands)],
    )
    state = FastState(table, pos)
    state.play(card_index(C("8C")))  # seat 3 leads; seat 0 must follow with 2♣
    assert mask_cards(state.legal()) == [C("2C")]
    for card in ("2C", "4C", "6C"):
        state.play(card_index(C(card)))
    assert state.leader == 3
    state.play(card_index(C("7C")))
    assert mask_cards(state.legal()) == [C("3H")]  # void in clubs: the heart goes, and breaks
    state.play(card_index(C("3H")))
    assert state.broken


def _rest(hands: list[list[str]]) -> list[Card]:
    held = {C(c) for h in hands for c in h}
    return [c for c in Rules().deck() if c not in held]


def test_a_moon_scores_26_to_everyone_else() -> None:
    table = Table.of(Rules())
    taken: list[list[Card]] = [[], [], [], []]
    for card in Rules().deck():
        taken[0 if card.suit.value in "HS" else 1].append(card)
    tallies = [sum(table.tally[card_index(c)] for c in cards) for cards in taken]
    assert hand_points(table, tallies) == [0, 26, 26, 26]
    assert hand_points(Table.of(Rules(moon="self_minus_26")), tallies) == [-26, 0, 0, 0]


def test_the_jack_of_diamonds_is_minus_ten_and_kept_by_a_shooter() -> None:
    table = Table.of(Rules.preset("omnibus"))
    jack = table.tally[card_index(C("JD"))]
    assert hand_points(table, [5 + jack, 21, 0, 0]) == [-5, 21, 0, 0]
    assert hand_points(table, [26 + jack, 0, 0, 0]) == [-10, 26, 26, 26]


def test_random_hands_conserve_points() -> None:
    for name in ("standard", "black-maria-spades", "omnibus", "five"):
        table = Table.of(ONE_PACK_RULES[name])
        draws = Draws(3)
        total = table.moon_total
        for _ in range(300):
            points = random_hand(table, draws)
            penalty = sum(points) + (10 if name == "omnibus" else 0)
            assert penalty in (total, total * (table.players - 1))


def test_a_deal_gives_every_card_once_and_equal_hands() -> None:
    for name in ("standard", "three", "five", "black-maria"):
        table = Table.of(ONE_PACK_RULES[name])
        draws = Draws(11)
        for _ in range(50):
            hands = deal(table, draws)
            counts = Counter[int]()
            for seat in range(table.players):
                split = hands[seat * 4 : seat * 4 + 4]
                held = [s * 13 + r for s in range(4) for r in range(13) if split[s] >> r & 1]
                assert len(held) == table.hand_size
                counts.update(held)
            assert sorted(counts) == sorted(table.deck)


def test_deals_are_uniform_enough() -> None:
    # who gets 2♣ over many deals: each of four seats about a quarter (fixed seed: no flake)
    table = Table.of(Rules())
    draws = Draws(5)
    seats = Counter[int]()
    for _ in range(4000):
        hands = deal(table, draws)
        seats[next(s for s in range(4) if hands[s * 4] & 1)] += 1
    assert all(900 < seats[s] < 1100 for s in range(4))


def test_draws_are_uniform_and_reproducible() -> None:
    draws = Draws(9)
    counts = Counter(draws.below(7) for _ in range(7000))
    assert sorted(counts) == list(range(7))
    assert all(850 < c < 1150 for c in counts.values())
    assert [Draws(1).below(13) for _ in range(3)] == [Draws(1).below(13)] * 3
    with pytest.raises(ValueError):
        draws.below(0)


def test_draws_split_a_pool_exactly() -> None:
    # with a pool of span 12, n = 5: values 0..9 give each choice exactly twice
    seen = Counter[int]()
    for value in range(10):
        draws = Draws(0)
        draws.value, draws.span = value, 12 << 64
        draws.value = value << 64  # any low part: the top digit decides
        seen[draws.below(5)] += 1
    assert len(seen) == 5


def test_bad_positions_are_refused() -> None:
    table = Table.of(Rules())
    deck = list(Rules().deck())
    hands = [deck[i * 13 : i * 13 + 13] for i in range(4)]
    with pytest.raises(FastPathError, match="twice"):
        Position.from_cards([[hands[0][0], hands[0][0]]], leader=0)
    with pytest.raises(FastPathError, match="two places"):
        FastState(table, Position.from_cards([*hands[:3], [*hands[3][:12], hands[0][0]]], leader=0))
    with pytest.raises(FastPathError, match="first trick is led"):
        FastState(table, Position.from_cards(hands, leader=1))
    with pytest.raises(FastPathError, match="exactly the cards"):
        FastState(table, Position.from_cards([*hands[:3], hands[3][:12]], leader=0))
    with pytest.raises(FastPathError, match="leader"):
        FastState(table, Position.from_cards(hands, leader=4))
    with pytest.raises(FastPathError):
        Table.of(Rules.preset("cancellation"))
    state = FastState(table, Position.from_cards(hands, leader=0))
    with pytest.raises(FastPathError, match="not a legal play"):
        state.play(card_index(C("3C")))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), name=st.sampled_from(sorted(ONE_PACK_RULES)))
def test_random_playouts_keep_every_card_and_all_points(seed: int, name: str) -> None:
    rules = ONE_PACK_RULES[name]
    table = Table.of(rules)
    state = FastState(table, _engine_position(Hand.deal(rules, seed, pass_direction=HOLD)))
    draws = Draws(seed)
    played = 0
    while not state.done:
        options = _indices(state.legal())
        assert options, "the seat to play always has a legal card"
        state.play(options[draws.below(len(options))])
        played += 1
        held = sum(state.hand(s).bit_count() for s in range(table.players))
        assert held + played == len(table.deck)
    points = state.points()
    jacks = 10 if rules.jack_of_diamonds else 0
    assert sum(points) + jacks in (table.moon_total, table.moon_total * (table.players - 1),
                                   -table.moon_total)


def test_a_view_plus_the_true_hidden_cards_is_the_engine_position() -> None:
    rng = Rng(21)
    for name in ("standard", "five", "black-maria-spades"):
        rules = ONE_PACK_RULES[name]
        for seed in range(15):
            hand = Hand.deal(rules, seed, pass_direction=HOLD)
            for _ in range(rng.below(len(rules.deck()))):
                seat = hand.to_play
                assert seat is not None
                legal = hand.legal_plays(seat)
                hand.play(seat, legal[rng.below(len(legal))])
            seat = hand.to_play
            assert seat is not None
            guess = [tuple(h) if s != seat else () for s, h in enumerate(hand.holdings)]
            assert position_from_view(hand.view(seat), guess) == _engine_position(hand)


def test_a_guess_must_list_every_seat() -> None:
    hand = Hand.deal(Rules(), 1, pass_direction=HOLD)
    with pytest.raises(FastPathError, match="every seat"):
        position_from_view(hand.view(0), [()])
