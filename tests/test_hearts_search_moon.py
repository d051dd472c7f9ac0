"""The search against the moon: who is running for it (from the public play), the plain rules
of defence, the pruned search's seeding and early stop, and the arena's moon hunter. Tiny
budgets: behaviour only (bench/hearts_search.py and the arena measure speed and strength)."""

from __future__ import annotations

from dataclasses import replace

from heartsuit.cards import Card
from heartsuit.hearts import Hand, Rules
from heartsuit.hearts.bots import make_bot
from heartsuit.hearts.bots.passing import PassConfig
from heartsuit.hearts.bots.search import (
    SearchBot,
    SearchConfig,
    _survivors,
    guarded_moves,
    moon_hand,
    moon_threat,
)
from heartsuit.hearts.fast import Table
from heartsuit.hearts.fast_policy import policy_out
from heartsuit.hearts.fast_tables import card_index, index_card
from heartsuit.hearts.view import SeatView, TrickRecord

from .hearts_helpers import cards
from .test_hearts_search import random_position

BUDGET = 600
PRUNED = SearchConfig(playouts=BUDGET, prune_z=2.0, passing=PassConfig(playouts=30, candidates=5))


def view_of_seat_0() -> SeatView:
    return Hand.deal(Rules(), 5, pass_direction="hold").view(0)


def C(code: str) -> Card:
    return Card.parse(code)


def with_trick(view: SeatView, *plays: tuple[int, str], taken: tuple[int, ...]) -> SeatView:
    record = TrickRecord(plays[0][0], tuple((s, C(c)) for s, c in plays), None, 0)
    return replace(view, trick=record, points_taken=taken)


def test_a_seat_with_every_point_taken_is_the_threat() -> None:
    view = view_of_seat_0()
    assert moon_threat(view) == -1  # nobody has points
    assert moon_threat(replace(view, points_taken=(0, 0, 0, 5))) == 3
    assert moon_threat(replace(view, points_taken=(0, 0, 0, 5)), least=6) == -1
    assert moon_threat(replace(view, points_taken=(0, 0, 1, 5))) == -1  # two takers: no moon
    assert moon_threat(replace(view, points_taken=(5, 0, 0, 0))) == -1  # not against itself


def test_a_seat_leading_a_high_heart_with_no_points_elsewhere_is_the_threat() -> None:
    view = view_of_seat_0()
    assert moon_threat(with_trick(view, (2, "KH"), taken=(0, 0, 3, 0))) == 2
    assert moon_threat(with_trick(view, (2, "KH"), taken=(0, 0, 0, 0))) == 2
    assert moon_threat(with_trick(view, (2, "9H"), taken=(0, 0, 0, 0))) == -1
    assert moon_threat(with_trick(view, (2, "KH"), taken=(0, 1, 3, 0))) == -1


def test_against_a_threat_winning_points_it_takes_them_on_purpose() -> None:
    view = with_trick(view_of_seat_0(), (3, "KD"), (1, "5H"), taken=(0, 0, 0, 4))
    assert guarded_moves(view, cards("2D QD AD"), 3) == [C("AD")]


def test_against_a_threat_winning_a_clean_trick_it_need_not_beat_it() -> None:
    view = with_trick(view_of_seat_0(), (3, "KD"), (1, "5D"), taken=(0, 0, 0, 4))
    assert guarded_moves(view, cards("2D AD"), 3) == cards("2D AD")


def test_against_a_threat_it_gives_no_points_and_keeps_its_top_heart() -> None:
    view = with_trick(view_of_seat_0(), (3, "KD"), taken=(0, 0, 0, 4))
    assert guarded_moves(view, cards("3C 5H JH QS"), 3) == [C("3C")]
    # someone else is winning: points may go there, but the top heart stays as a stopper
    view = with_trick(view_of_seat_0(), (3, "KD"), (1, "AD"), taken=(0, 0, 0, 4))
    assert guarded_moves(view, cards("3C 5H JH QS"), 3) == cards("3C 5H QS")
    # a rule that would leave nothing to play is not applied
    assert guarded_moves(view, cards("JH"), 3) == [C("JH")]


def test_the_pruned_search_is_seeded_and_stops_early_when_one_card_is_best() -> None:
    early = 0
    for seed in range(6):
        hand = random_position(Rules(), seed, 9 + seed)
        view = hand.view(hand.to_play or 0)
        bot = SearchBot(seed, PRUNED)
        card = bot.choose_play(view)
        assert card in view.legal
        other = SearchBot(seed, PRUNED)
        other.choose_play(hand.view(hand.to_play or 0))
        assert other.choose_play(view) == card  # earlier calls change nothing
        if len(set(view.legal)) > 1 and bot.last_playouts < BUDGET - len(view.legal):
            early += 1
    assert early


def test_survivors_drop_a_clearly_worse_card_and_say_when_the_rest_are_close() -> None:
    worlds = 40
    best = [float(-(w % 3)) for w in range(worlds)]
    # a card that is sometimes better, sometimes worse: 0.025 worse on average, its paired
    # loss's standard error about 0.12; and one 4.5 points worse in every world
    near = [v - (1.0, -1.0, 0.5, -0.4)[w % 4] for w, v in enumerate(best)]
    worse = [v - 4.0 - (w % 2) for w, v in enumerate(best)]
    values = [best, near, worse]
    plain = SearchConfig(prune_z=2.0)
    assert _survivors(values, [0, 1, 2], worlds, plain) == ([0, 1], False)
    # within 0.3 points of the best allowing two standard errors (0.025 + 2 × 0.12) ...
    assert _survivors(values, [0, 1, 2], worlds, replace(plain, prune_close=0.3)) == ([0, 1], True)
    # ... but not within 0.2, nor within 0.3 allowing five errors
    assert _survivors(values, [0, 1, 2], worlds, replace(plain, prune_close=0.2)) == (
        [0, 1],
        False,
    )
    five = replace(plain, prune_close=0.3, close_z=5.0)
    assert _survivors(values, [0, 1, 2], worlds, five) == ([0, 1], False)
    # a card dropped is not asked to be close
    assert _survivors([best, worse], [0, 1], worlds, replace(plain, prune_close=0.3)) == (
        [0],
        True,
    )


def test_the_pruned_search_stops_when_the_cards_left_are_close() -> None:
    # with every card "close" the search stops at its first check: prune_after worlds a card
    close = replace(PRUNED, prune_after=10, prune_close=1000.0)
    stopped = 0
    for seed in range(6):
        hand = random_position(Rules(), seed, 9 + seed)
        view = hand.view(hand.to_play or 0)
        legal = len(set(view.legal))
        if legal < 2:
            continue
        bot = SearchBot(seed, close)
        assert bot.choose_play(view) in view.legal
        assert bot.last_playouts <= 10 * legal
        full = SearchBot(seed, replace(close, prune_close=0.0))
        full.choose_play(view)
        if bot.last_playouts < full.last_playouts:
            stopped += 1
    assert stopped


def test_the_level_hard_is_seeded_and_defends() -> None:
    hard = make_bot("hard", 4)
    assert isinstance(hard, SearchBot) and hard.config.moon_guard > 0 and hard.config.prune_z > 0
    hand = random_position(Rules(), 2, 14)
    view = hand.view(hand.to_play or 0)
    assert make_bot("hard", 4).choose_play(view) == make_bot("hard", 4).choose_play(view)


def test_a_moon_hunter_keeps_its_high_cards_in_the_pass() -> None:
    assert moon_hand(cards("AH KH QH AS KS 2C 3C 4C 5D 6D 7D 8D 9D"))
    assert not moon_hand(cards("AH 2H QH 3S KS 2C 3C 4C 5D 6D 7D 8D 9D"))
    rules = Rules()
    hunter = make_bot("moonhunter", 1)
    for seed in range(40):
        view = Hand.deal(rules, seed, pass_direction="left").view(0)
        passed = hunter.choose_pass(view)
        assert len(passed) == 3 and set(passed) <= set(view.hand)
        if moon_hand(view.hand):
            assert max(c.rank for c in passed) <= min(
                c.rank for c in view.hand if c not in passed
            )
            return
    raise AssertionError("no moon hand among 40 deals")


def test_a_moon_hunter_plays_legally_and_shoots_in_its_playouts() -> None:
    hunter = make_bot("moonhunter", 3)
    for seed in range(3):
        hand = random_position(Rules(), seed, 4 * seed)
        view = hand.view(hand.to_play or 0)
        assert hunter.choose_play(view) in view.legal


def first_trick_of(lone: int, defend_at: int) -> list[str]:
    """A scripted last two tricks: seat 1 shoots (it holds every point so far) and leads 10♥;
    seat 2 could duck with 2♥ or beat it with K♥. The first trick's cards, by code."""
    table = Table.of(Rules())
    held = {0: "5H 6C", 1: "10H 3C", 2: "2H KH", 3: "4H 5C"}
    hands = [0] * 16
    for seat, text in held.items():
        for card in cards(text):
            index = card_index(card)
            hands[seat * 4 + index // 13] |= 1 << (index % 13)
    record: list[int] = []
    policy_out(
        table, hands, [0, 5, 0, 0], 1, (), True, False, lambda: 0.5, 0.0, 1, 0,
        record=record, defend_at=defend_at, lone=lone,
    )
    return [index_card(i).code for i in record[:4]]


def test_playout_defenders_beat_a_shooter_only_when_they_defend() -> None:
    assert first_trick_of(-1, 0) == ["10H", "KH", "4H", "5H"]  # everyone defends
    assert first_trick_of(0, 0)[1] == "2H"  # only seat 0 defends: seat 2 ducks
    assert first_trick_of(-1, 6)[1] == "2H"  # nobody defends before 6 points: seat 2 ducks
    assert first_trick_of(-1, 5)[1] == "KH"
