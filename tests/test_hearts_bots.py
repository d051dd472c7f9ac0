"""The computer players: scripted positions for each heuristic, and legality everywhere."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from heartsuit.cards import Card
from heartsuit.hearts.bots import BOTS, HeuristicBot, RandomBot, UnknownBot, make_bot
from heartsuit.hearts.bots.heuristic import moon_threat, unseen
from heartsuit.hearts.game import Hand, Phase
from heartsuit.hearts.rules import PRESET_NAMES, QUEEN_OF_SPADES, Rules
from heartsuit.hearts.view import SeatView, TrickRecord

C = Card.parse
STANDARD = Rules()


def cards(text: str) -> list[Card]:
    return [C(c) for c in text.split()]


def make_hand(fixed: dict[int, str], rules: Rules = STANDARD) -> Hand:
    """A no-pass hand: the listed seats get those cards, the rest is dealt out in pack order."""
    hands = {seat: cards(text) for seat, text in fixed.items()}
    taken = {c for h in hands.values() for c in h}
    rest = [c for c in rules.deck() if c not in taken]
    size = rules.hand_size()
    for seat in range(rules.players):
        held = hands.setdefault(seat, [])
        need = size - len(held)
        held += rest[:need]
        rest = rest[need:]
    return Hand.from_cards(rules, [hands[s] for s in range(rules.players)], "hold")


def play(hand: Hand, text: str) -> Hand:
    for card in cards(text):
        seat = hand.to_play
        assert seat is not None
        hand.play(seat, card)
    return hand


# Clubs are fixed so that the first trick goes 2♣ 3♣ 6♣ 9♣ and seat 3 wins it and leads next.
CLUBS = {0: "2C", 1: "3C 4C 5C", 2: "6C 7C 8C", 3: "9C 10C JC QC KC AC"}


def with_clubs(extra: dict[int, str]) -> dict[int, str]:
    return {s: f"{CLUBS[s]} {extra.get(s, '')}".strip() for s in range(4)}


def test_it_passes_unguarded_high_spades() -> None:
    hand = make_hand({0: "QS KS AS 3S 2D 3D 4D 5D 6D 7D 8D 9D 10D"})
    bot = HeuristicBot()
    assert set(bot.choose_pass(hand.view(0))) == set(cards("QS KS AS"))


def test_it_keeps_the_queen_when_low_spades_guard_it() -> None:
    hand = make_hand({0: "QS 2S 3S 4S 5S 2C 3C 4C 5C 6C 7C AH KH"})
    passed = HeuristicBot().choose_pass(hand.view(0))
    assert QUEEN_OF_SPADES not in passed
    assert set(cards("AH KH")) <= set(passed)


def test_it_voids_a_short_suit_with_its_pass() -> None:
    hand = make_hand({0: "2S 3S 4S 5S 6S 2C 3C 4C 5C 6C 7C 8D 9D"})
    passed = HeuristicBot().choose_pass(hand.view(0))
    assert set(cards("8D 9D")) <= set(passed)
    assert len(passed) == 3


def test_it_ducks_with_the_highest_card_that_still_loses() -> None:
    hand = make_hand(with_clubs({0: "2D 9D JD KD", 3: "10D"}))
    play(hand, "2C 3C 6C 9C 10D")  # seat 3 took the first trick and leads 10♦
    assert HeuristicBot().choose_play(hand.view(0)) == C("9D")


def test_when_it_must_win_it_wins_high() -> None:
    hand = make_hand(with_clubs({0: "JD KD 2S 3S 4S 5S 6S 7S 8S 9S 10S JS", 3: "10D"}))
    play(hand, "2C 3C 6C 9C 10D")
    assert HeuristicBot().choose_play(hand.view(0)) == C("KD")


def test_last_to_a_clean_trick_it_sheds_its_highest_card() -> None:
    hand = make_hand(with_clubs({2: "4D KD", 3: "10D"}))
    play(hand, "2C 3C 6C 9C 10D")
    seat = hand.to_play
    assert seat == 0
    view = hand.view(0)
    play(hand, str(view.legal[0]))
    play(hand, str(hand.view(1).legal[0]))
    assert hand.to_play == 2
    trick = hand.trick
    assert trick is not None and all(STANDARD.card_points(c) == 0 for _, c in trick.plays)
    assert HeuristicBot().choose_play(hand.view(2)) == C("KD")


def test_void_it_dumps_the_queen_of_spades_first() -> None:
    hand = make_hand(with_clubs({0: "QS AH 2S 3S 4S 5S 6S 7S 8S 9S 10S JS", 3: "10D"}))
    play(hand, "2C 3C 6C 9C 10D")
    assert HeuristicBot().choose_play(hand.view(0)) == C("QS")


def test_void_it_dumps_a_high_spade_while_the_queen_is_out_then_hearts() -> None:
    hand = make_hand(with_clubs({0: "AS AH 2S 3S 4S 5S 6S 7S 8S 9S 10S JS", 3: "10D"}))
    play(hand, "2C 3C 6C 9C 10D")
    assert HeuristicBot().choose_play(hand.view(0)) == C("AS")
    spades_gone = make_hand(with_clubs({0: "AS AH 2S 3S 4S 5S 6S 7S 8S 9S 10S JS", 3: "10D"}))
    view = play(spades_gone, "2C 3C 6C 9C 10D").view(0)
    # the same view, but with Q♠ already played: no reason to throw the A♠ now
    assert view.trick is not None
    early = replace(view, tricks=(*view.tricks, _queen_trick(view)))
    assert HeuristicBot().choose_play(early) == C("AH")


def _queen_trick(view: SeatView) -> TrickRecord:
    return TrickRecord(1, ((1, C("QS")), (2, C("KD")), (3, C("QD")), (0, C("9D"))), 1, 13)


def test_with_a_high_spade_and_the_queen_out_it_does_not_lead_spades() -> None:
    hand = make_hand({0: "AC AS 2S 3S 9D", 1: "2C", 2: "3C", 3: "4C"})
    play(hand, "2C 3C 4C AC")  # seat 0 wins the first trick and leads
    choice = HeuristicBot().choose_play(hand.view(0))
    assert choice.suit.value != "S"


def test_with_no_high_spade_it_leads_low_spades_to_flush_the_queen() -> None:
    hand = make_hand({0: "AC 2S 3S 2D 2H", 1: "2C", 2: "3C", 3: "4C"})
    play(hand, "2C 3C 4C AC")
    assert HeuristicBot().choose_play(hand.view(0)) == C("2S")


def test_holding_the_queen_it_does_not_lead_spades() -> None:
    hand = make_hand({0: "AC QS 2S 3S 5D", 1: "2C", 2: "3C", 3: "4C"})
    play(hand, "2C 3C 4C AC")
    assert HeuristicBot().choose_play(hand.view(0)).suit.value != "S"


def test_it_drops_the_queen_under_a_higher_spade() -> None:
    hand = make_hand({0: "2C QS 2S 3S", 3: "AC KS", 1: "3C", 2: "4C"})
    play(hand, "2C 3C 4C AC KS")  # seat 3 won and leads K♠; seat 0 follows
    assert HeuristicBot().choose_play(hand.view(0)) == C("QS")


def test_it_spots_a_rival_holding_every_point() -> None:
    hand = make_hand(with_clubs({0: "AH KH", 3: "10D"}))
    play(hand, "2C 3C 6C 9C 10D")
    view = hand.view(0)
    assert moon_threat(view) is None
    shooting = replace(view, points_taken=(0, 0, 0, 16))
    assert moon_threat(shooting) == 3
    assert moon_threat(replace(view, points_taken=(1, 0, 0, 16))) is None


def test_against_a_moon_it_gives_a_heart_to_anyone_but_the_shooter() -> None:
    hand = make_hand(
        {0: "AC 3D", 1: "2C", 2: "3C", 3: "4C AH 2S 3S 4S 5S 6S 7S 8S 9S 10S JS KS"}
    )
    play(hand, "2C 3C 4C AC 3D")  # seat 0 won the first trick and leads 3♦
    play(hand, "5D 4H")  # seat 1 follows high enough to win; seat 2, void, throws a heart
    assert hand.trick is not None and hand.to_play == 3
    winner = max((c.rank, s) for s, c in hand.trick.plays)[1]
    rival = next(s for s in (0, 1, 2) if s != winner)
    view = hand.view(3)
    bot = HeuristicBot()
    assert bot.choose_play(view) == C("KS")  # no threat: the K♠ goes while the queen is out
    rival_shoots = replace(view, points_taken=tuple(14 if s == rival else 0 for s in range(4)))
    assert bot.choose_play(rival_shoots) == C("AH")  # a heart to the winner ends the moon
    winner_shoots = replace(view, points_taken=tuple(14 if s == winner else 0 for s in range(4)))
    assert bot.choose_play(winner_shoots) == C("KS")  # never feed the shooter a heart


def test_against_a_moon_it_leads_its_top_heart_when_nothing_beats_it() -> None:
    hand = make_hand({0: "AC AH 2D 3D 4D", 1: "2C", 2: "3C", 3: "4C"})
    play(hand, "2C 3C 4C AC")
    view = replace(hand.view(0), points_taken=(0, 0, 15, 0), hearts_broken=True)
    legal = tuple(sorted({*view.legal, C("AH")}))
    assert HeuristicBot().choose_play(replace(view, legal=legal)) == C("AH")
    assert HeuristicBot().choose_play(hand.view(0)) != C("AH")


def test_unseen_cards_are_the_deck_minus_hand_and_played() -> None:
    hand = make_hand(with_clubs({}))
    play(hand, "2C 3C 6C 9C")
    view = hand.view(0)
    assert sum(unseen(view).values()) == 52 - len(view.hand) - 4


def test_the_registry_makes_seeded_bots_and_refuses_unknown_names() -> None:
    assert {"random", "heuristic", "easy", "normal", "hard"} <= set(BOTS)
    assert isinstance(make_bot("Random", 3), RandomBot)
    with pytest.raises(UnknownBot, match="heuristic"):
        make_bot("genius")
    hand = make_hand({})
    first = [make_bot("random", 5).choose_pass(hand.view(0)) for _ in range(2)]
    assert first[0] == first[1]


@pytest.mark.parametrize("name", sorted(BOTS))
def test_bots_refuse_to_play_out_of_turn(name: str) -> None:
    hand = make_hand({})
    idle = next(s for s in range(4) if s != hand.to_play)
    with pytest.raises(ValueError, match="not its turn"):
        make_bot(name).choose_play(hand.view(idle))


@settings(max_examples=12, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    preset=st.sampled_from(PRESET_NAMES),
    # the search levels have their own legality tests, on a tiny budget
    names=st.lists(st.sampled_from(["easy", "heuristic", "random"]), min_size=10, max_size=10),
)
def test_bots_always_pass_and_play_legally(seed: int, preset: str, names: list[str]) -> None:
    rules = Rules.preset(preset)
    bots = [make_bot(n, seed + i) for i, n in enumerate(names[: rules.players])]
    hand = Hand.deal(rules, seed, hand_number=seed % 3)
    if hand.phase is Phase.PASS:
        for seat, bot in enumerate(bots):
            passed = bot.choose_pass(hand.view(seat))
            assert len(set(passed)) == rules.pass_count or rules.packs == 2
            hand.pass_cards(seat, passed)  # the engine refuses anything illegal
    while hand.phase is Phase.PLAY:
        turn = hand.to_play
        assert turn is not None
        view = hand.view(turn)
        card = bots[turn].choose_play(view)
        assert card in view.legal
        hand.play(turn, card)
    assert len(hand.points()) == rules.players


def test_with_two_packs_a_pass_may_hold_both_copies_of_a_card() -> None:
    rules = Rules.preset("cancellation", passing=True, pass_cycle=("left",))
    hand = Hand.deal(rules, 5)
    passed = HeuristicBot().choose_pass(hand.view(0))
    assert len(passed) == rules.pass_count
    hand.pass_cards(0, passed)  # the engine accepts it: every card is held as often as passed
