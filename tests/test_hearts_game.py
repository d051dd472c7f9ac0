"""One hand, scripted: the opening lead, following suit, the first trick, breaking hearts,
passing, the moon, the J♦ and Cancellation's cancelled and held-over tricks."""

from __future__ import annotations

import pytest

from heartsuit.cards import Card
from heartsuit.hearts import DealError, Hand, IllegalMove, Moon, PassDirection, Play, Reason, Rules
from heartsuit.hearts.driver import bot_action, make_computer
from tests.hearts_helpers import cards, filled_deal, lowest, play_out, run

C = Card.parse


def suited_hand(rules: Rules | None = None) -> Hand:
    """Seat 0 all clubs, 1 all diamonds, 2 all spades, 3 all hearts; no pass."""
    rules = rules or Rules()
    hands = [run("C", 2, 14), run("D", 2, 14), run("S", 2, 14), run("H", 2, 14)]
    return Hand.from_cards(rules, hands, pass_direction="hold")


def moon_hand(rules: Rules | None = None) -> Hand:
    """Seat 0 holds twelve clubs and A♥ and takes every trick when it plays high."""
    rules = rules or Rules()
    hands = [
        run("C", 3, 14) + cards("AH"),
        cards("2C") + run("D", 2, 13),
        cards("AD 2H") + run("S", 2, 12),
        cards("KS AS") + run("H", 3, 13),
    ]
    return Hand.from_cards(rules, hands, pass_direction="hold")


def highest_for_seat_0(hand: Hand, seat: int, legal: list[Card]) -> Card:
    return max(legal) if seat == 0 else min(legal)


def test_the_two_of_clubs_opens_and_nothing_else_may() -> None:
    hand = suited_hand()
    assert hand.phase == "play" and hand.to_play == 0
    assert hand.legal_plays(0) == [C("2C")]
    assert hand.why_illegal(0, C("3C")) is Reason.MUST_LEAD_OPENING_CARD
    assert hand.why_illegal(1, C("2D")) is Reason.NOT_YOUR_TURN
    assert hand.legal_plays(1) == []


def test_first_trick_bars_points_unless_the_hand_holds_nothing_else() -> None:
    hand = suited_hand()
    hand.play(0, C("2C"))
    hand.play(1, C("9D"))
    assert hand.why_illegal(2, C("QS")) is Reason.NO_POINTS_FIRST_TRICK
    assert C("QS") not in hand.legal_plays(2) and C("KS") in hand.legal_plays(2)
    with pytest.raises(IllegalMove) as refused:
        hand.play(2, C("QS"))
    assert refused.value.reason is Reason.NO_POINTS_FIRST_TRICK
    assert "first trick" in str(refused.value)
    hand.play(2, C("2S"))
    # seat 3 holds only hearts: every one of them is allowed on the first trick
    assert hand.legal_plays(3) == run("H", 2, 14)
    hand.play(3, C("AH"))
    assert hand.tricks[0].winner == 0 and hand.tricks[0].points == 1
    assert hand.hearts_broken


def test_first_trick_points_option_lets_the_queen_through() -> None:
    hand = suited_hand(Rules(first_trick_points=True))
    hand.play(0, C("2C"))
    hand.play(1, C("9D"))
    assert hand.why_illegal(2, C("QS")) is None


def test_void_in_clubs_with_only_hearts_and_the_queen_may_play_either() -> None:
    hands = [
        run("C", 2, 14),
        run("D", 2, 14),
        cards("QS") + run("H", 2, 13),
        cards("AH") + [c for c in run("S", 2, 14) if c != C("QS")],
    ]
    hand = Hand.from_cards(Rules(), hands, pass_direction="hold")
    hand.play(0, C("2C"))
    hand.play(1, C("2D"))
    assert set(hand.legal_plays(2)) == set(hands[2])


def hearts_deal() -> Hand:
    hands = [
        run("C", 2, 5) + run("H", 2, 10),
        run("C", 6, 9) + run("D", 2, 10),
        run("C", 10, 14) + run("D", 11, 14) + run("H", 11, 14),
        run("S", 2, 14),
    ]
    return Hand.from_cards(Rules(), hands, pass_direction="hold")


def test_must_follow_suit() -> None:
    hand = hearts_deal()
    hand.play(0, C("2C"))
    assert hand.why_illegal(1, C("2D")) is Reason.MUST_FOLLOW_SUIT
    assert hand.legal_plays(1) == run("C", 6, 9)
    # a void seat may play any suit (here: spades, but not the queen on trick one)
    hand.play(1, C("6C"))
    hand.play(2, C("10C"))
    assert hand.legal_plays(3) == [c for c in run("S", 2, 14) if c != C("QS")]


def test_hearts_cannot_be_led_until_broken() -> None:
    hand = hearts_deal()
    for seat, card in [(0, "2C"), (1, "6C"), (2, "10C"), (3, "2S")]:
        hand.play(seat, C(card))
    assert hand.to_play == 2 and not hand.hearts_broken
    assert hand.why_illegal(2, C("JH")) is Reason.HEARTS_NOT_BROKEN
    before = hand.to_dict()
    with pytest.raises(IllegalMove, match="not broken"):
        hand.play(2, C("JH"))
    assert hand.to_dict() == before
    hand.play(2, C("JC"))
    hand.play(3, C("3S"))  # void: a spade discard breaks nothing
    hand.play(0, C("3C"))
    hand.play(1, C("7C"))
    assert not hand.hearts_broken


def test_a_heart_discard_breaks_hearts() -> None:
    hand = hearts_deal()
    for seat, card in [(0, "2C"), (1, "6C"), (2, "10C"), (3, "2S")]:
        hand.play(seat, C(card))
    for seat, card in [(2, "AD"), (3, "3S"), (0, "10H")]:
        hand.play(seat, C(card))
    assert hand.hearts_broken


def test_queen_breaks_hearts_only_with_the_option() -> None:
    for option, broken in [("heart_discard", False), ("heart_or_queen", True)]:
        hands = [run("C", 2, 14), run("D", 2, 14), run("S", 2, 14), run("H", 2, 14)]
        hand = Hand.from_cards(
            Rules(hearts_broken_by=option, first_trick_points=True), hands, "hold"  # type: ignore[arg-type]
        )
        hand.play(0, C("2C"))
        hand.play(1, C("2D"))
        hand.play(2, C("QS"))
        assert hand.hearts_broken is broken


def test_a_hand_of_only_hearts_may_lead_one_and_that_breaks_hearts() -> None:
    hands = [
        run("C", 2, 13) + cards("AH"),
        cards("AC") + run("H", 2, 13),
        run("D", 2, 14),
        run("S", 2, 14),
    ]
    hand = Hand.from_cards(Rules(), hands, pass_direction="hold")
    for seat, card in [(0, "2C"), (1, "AC"), (2, "2D"), (3, "2S")]:
        hand.play(seat, C(card))
    assert hand.to_play == 1 and not hand.hearts_broken
    assert hand.legal_plays(1) == run("H", 2, 13)
    hand.play(1, C("2H"))
    assert hand.hearts_broken


def test_lowest_club_opens_when_the_two_is_out() -> None:
    for name in ("five", "black-maria"):
        rules = Rules.preset(name)
        hands, _ = filled_deal(rules, [])
        hands = hands[1:] + hands[:1]  # the 3♣ (first in deck order) ends with the last seat
        hand = Hand.from_cards(rules, hands, pass_direction="hold")
        assert hand.to_play == rules.players - 1
        assert hand.legal_plays(rules.players - 1) == [C("3C")]


def test_three_and_five_player_deals() -> None:
    three = Hand.deal(Rules.preset("three"), seed=3)
    assert [len(h) for h in three.holdings] == [17, 17, 17] and three.pass_direction == "left"
    assert C("2D") not in {c for h in three.holdings for c in h}
    five = Hand.deal(Rules.preset("five"), seed=3)
    assert [len(h) for h in five.holdings] == [10] * 5
    held = {c for h in five.holdings for c in h}
    assert C("2D") not in held and C("2C") not in held and len(held) == 50


def test_deal_is_reproducible_from_the_seed() -> None:
    rules = Rules()
    assert Hand.deal(rules, 11).dealt == Hand.deal(rules, 11).dealt
    assert Hand.deal(rules, 11).dealt != Hand.deal(rules, 12).dealt


@pytest.mark.parametrize(
    ("name", "direction", "giver_of_seat_0"),
    [
        ("standard", "left", 3),
        ("standard", "right", 1),
        ("standard", "across", 2),
        ("three", "left", 2),
        ("three", "right", 1),
        ("five", "left", 4),
        ("five", "right", 1),
    ],
)
def test_passing_is_simultaneous_and_goes_the_right_way(
    name: str, direction: str, giver_of_seat_0: int
) -> None:
    rules = Rules.preset(name)
    hand = Hand.deal(rules, seed=5, pass_direction=direction)
    chosen = [tuple(hand.holdings[s][:3]) for s in range(rules.players)]
    for seat in range(rules.players - 1):
        hand.pass_cards(seat, chosen[seat])
        # nothing moves until everybody has passed
        assert hand.phase == "pass" and list(hand.holdings[seat][:3]) == list(chosen[seat])
        assert hand.view(seat).received == () and not hand.view(seat).must_pass
    assert hand.view(rules.players - 1).must_pass
    hand.pass_cards(rules.players - 1, chosen[-1])
    assert hand.phase == "play"
    assert hand.received(0) == chosen[giver_of_seat_0]
    assert set(chosen[giver_of_seat_0]) <= set(hand.holdings[0])
    assert not set(chosen[0]) & set(hand.holdings[0])
    assert all(len(h) == rules.hand_size() for h in hand.holdings)


def test_hold_hand_goes_straight_to_play() -> None:
    hand = Hand.deal(Rules(), seed=5, pass_direction="hold")
    assert hand.phase == "play" and hand.received(0) == ()
    assert not hand.view(0).must_pass


@pytest.mark.parametrize(
    ("cards_text", "reason"),
    [
        ("", Reason.WRONG_PASS_COUNT),
        ("2C 3C 4C 5C", Reason.WRONG_PASS_COUNT),
        ("2C 2C 3C", Reason.DUPLICATE_CARD),
        ("2C 3C 2D", Reason.NOT_IN_HAND),
    ],
)
def test_bad_passes_are_refused_and_change_nothing(cards_text: str, reason: Reason) -> None:
    hands = [run("C", 2, 14), run("D", 2, 14), run("S", 2, 14), run("H", 2, 14)]
    hand = Hand.from_cards(Rules(), hands, pass_direction="left")
    before = hand.to_dict()
    with pytest.raises(IllegalMove) as refused:
        hand.pass_cards(0, cards(cards_text))
    assert refused.value.reason is reason and hand.to_dict() == before


def test_passing_twice_or_playing_during_the_pass_is_refused() -> None:
    hand = Hand.deal(Rules(), seed=1)
    hand.pass_cards(0, hand.holdings[0][:3])
    assert hand.why_pass_illegal(0, hand.holdings[0][3:6]) is Reason.ALREADY_PASSED
    assert hand.why_illegal(0, hand.holdings[0][0]) is Reason.WRONG_PHASE
    assert hand.why_pass_illegal(7, hand.holdings[0][3:6]) is Reason.NO_SUCH_SEAT


def test_no_passing_rules_refuse_a_pass_direction() -> None:
    hands = [run("C", 2, 14), run("D", 2, 14), run("S", 2, 14), run("H", 2, 14)]
    with pytest.raises(DealError, match="no passing"):
        Hand.from_cards(Rules(passing=False), hands, pass_direction="left")
    with pytest.raises(DealError, match="across"):
        Hand.deal(Rules.preset("three"), seed=1, pass_direction=PassDirection.ACROSS)


def test_a_deal_that_is_not_the_deck_is_refused() -> None:
    hands = [run("C", 2, 14), run("D", 2, 14), run("S", 2, 14), run("H", 2, 13) + cards("2C")]
    with pytest.raises(DealError, match="extra 2♣; missing A♥"):
        Hand.from_cards(Rules(), hands, pass_direction="hold")
    with pytest.raises(DealError, match="one hand per player"):
        Hand.from_cards(Rules(), hands[:3], pass_direction="hold")


@pytest.mark.parametrize(
    ("moon", "expected"),
    [("others_plus_26", (0, 26, 26, 26)), ("self_minus_26", (-26, 0, 0, 0))],
)
def test_moon_under_each_fixed_option(moon: str, expected: tuple[int, ...]) -> None:
    hand = moon_hand(Rules(moon=moon))  # type: ignore[arg-type]
    play_out(hand, highest_for_seat_0)
    assert all(t.winner == 0 for t in hand.tricks)
    assert hand.points_taken() == (26, 0, 0, 0)
    assert hand.points() == expected


@pytest.mark.parametrize(
    ("scores", "expected"),
    [
        # nothing at stake: both options keep the same gaps, so the traditional one stands
        ((0, 0, 0, 0), (0, 26, 26, 26)),
        # +26 to the others ends the match with the shooter winning it
        ((50, 80, 90, 90), (0, 26, 26, 26)),
        # +26 would end the match with seat 1 winning, so the shooter takes -26
        ((95, 30, 80, 80), (-26, 0, 0, 0)),
        # +26 would drop seat 1 from 74 to exactly 100 → 50: -26 keeps the shooter further ahead
        ((0, 74, 50, 50), (-26, 0, 0, 0)),
    ],
)
def test_the_better_option_for_the_shooter_is_what_a_computer_chooses(
    scores: tuple[int, ...], expected: tuple[int, ...]
) -> None:
    rules = Rules(moon="shooter_chooses", exactly_100_reset=True)
    hands = moon_hand().dealt
    hand = Hand.from_cards(rules, hands, pass_direction="hold", scores=scores)
    play_out(hand, highest_for_seat_0)
    best = hand.best_moon_choice()
    assert hand.moon_options()[best] == expected
    view = hand.view(0)
    assert bot_action(make_computer("easy", 1), view) == Moon(0, best)
    hand.apply(Moon(0, best))
    assert hand.points() == expected


def test_the_shooter_is_asked_and_the_hand_waits_for_the_choice() -> None:
    hand = Hand.from_cards(Rules(moon="shooter_chooses"), moon_hand().dealt, pass_direction="hold")
    with pytest.raises(IllegalMove) as early:
        hand.apply(Moon(0, "self_minus_26"))
    assert early.value.reason is Reason.WRONG_PHASE
    play_out(hand, highest_for_seat_0)
    assert hand.phase == "moon" and hand.awaiting() == (0,) and hand.to_play is None
    with pytest.raises(IllegalMove, match="not finished"):
        hand.points()
    assert hand.moon_options() == {
        "others_plus_26": (0, 26, 26, 26),
        "self_minus_26": (-26, 0, 0, 0),
    }
    seen = hand.view(2)  # every seat sees that a moon awaits, and what each option gives
    assert (seen.phase, seen.shooter, seen.moon_choice, seen.legal) == ("moon", 0, None, ())
    assert dict(seen.moon_options)["self_minus_26"] == (-26, 0, 0, 0)
    assert seen.to_dict()["moon_options"] == {
        "others_plus_26": [0, 26, 26, 26],
        "self_minus_26": [-26, 0, 0, 0],
    }
    version = hand.version
    for wrong, reason in ((Moon(1, "self_minus_26"), Reason.NOT_YOUR_TURN),
                          (Moon(7, "self_minus_26"), Reason.NO_SUCH_SEAT),
                          (Play(0, C("2C")), Reason.WRONG_PHASE)):
        assert hand.why_action_illegal(wrong) is reason
        with pytest.raises(IllegalMove):
            hand.apply(wrong)
    assert hand.version == version and hand.phase == "moon"  # refusals change nothing
    events = hand.apply(Moon(0, "self_minus_26"))
    assert [e.to_dict() for e in events] == [
        {"type": "moon_chosen", "seat": 0, "choice": "self_minus_26"},
        {"type": "hand_done", "hand_number": 0, "points": [-26, 0, 0, 0], "shooter": 0},
    ]
    assert hand.phase == "done" and hand.awaiting() == () and hand.moon_choice == "self_minus_26"
    assert hand.view(3).to_dict()["moon_choice"] == "self_minus_26"
    # the shooter may take the option a computer would not: nothing at stake, -26 all the same
    assert hand.points() == (-26, 0, 0, 0)
    with pytest.raises(IllegalMove):
        hand.apply(Moon(0, "others_plus_26"))
    replayed = Hand.from_dict(hand.to_dict())
    assert replayed.points() == hand.points() and replayed.actions[-1] == Moon(0, "self_minus_26")


@pytest.mark.parametrize("moon", ["others_plus_26", "self_minus_26"])
def test_fixed_moon_options_ask_nobody(moon: str) -> None:
    rules = Rules(moon=moon)  # type: ignore[arg-type]
    hand = Hand.from_cards(rules, moon_hand().dealt, pass_direction="hold")
    play_out(hand, highest_for_seat_0)
    assert hand.phase == "done" and hand.awaiting() == () and hand.moon_choice == moon
    with pytest.raises(IllegalMove):
        hand.apply(Moon(0, "self_minus_26"))
    with pytest.raises(IllegalMove):
        bot_action(make_computer("easy", 1), hand.view(0))  # nothing left to decide


def test_jack_of_diamonds_with_a_moon_stays_with_the_shooter() -> None:
    hand = moon_hand(Rules.preset("omnibus"))
    play_out(hand, highest_for_seat_0)
    assert hand.points() == (-10, 26, 26, 26)
    minus = moon_hand(Rules.preset("omnibus", moon="self_minus_26"))
    play_out(minus, highest_for_seat_0)
    assert minus.points() == (-36, 0, 0, 0)


def test_jack_of_diamonds_without_a_moon_is_minus_ten_to_its_taker() -> None:
    hand = Hand.deal(Rules.preset("omnibus"), seed=3, pass_direction="hold")
    play_out(hand, lowest)
    taker = next(t.winner for t in hand.tricks if any(c == C("JD") for _, c in t.plays))
    assert taker is not None
    hearts_and_queen = [0, 0, 0, 0]
    for trick in hand.tricks:
        assert trick.winner is not None
        hearts_and_queen[trick.winner] += sum(
            (c.suit == "H") + 13 * (c == C("QS")) for _, c in trick.plays
        )
    assert max(hearts_and_queen) < 26
    expected = tuple(p - (10 if seat == taker else 0) for seat, p in enumerate(hearts_and_queen))
    assert hand.points() == expected == hand.points_taken()
    assert sum(hand.points()) == 16


def test_black_maria_spade_penalties_count_and_join_the_moon() -> None:
    rules = Rules.preset("black-maria", spade_penalties=True)
    hand = Hand.deal(rules, seed=2, pass_direction="hold")
    play_out(hand, lowest)
    points = hand.points()
    assert sum(points) in (43, 86, -43)
    spades = {C("KS"): 10, C("AS"): 7, C("QS"): 13}
    for trick in hand.tricks:
        in_trick = sum(spades.get(c, 0) + (c.suit == "H") for _, c in trick.plays)
        assert trick.points == in_trick


def cancellation_hand() -> Hand:
    """Tricks 1-3 are scripted: a cancelled pair, an all-cancelled trick, its taker."""
    rules = Rules.preset("cancellation")
    fixed = [
        cards("2C 6D 4S 4D"),  # seat 0
        cards("2C 7D 5S 8D"),
        cards("AC 7D 5S 10D"),
        cards("KC QS 9D"),
        cards("AC QS 2D"),
        cards("3C 4S 3D"),
    ]
    hands, kitty = filled_deal(rules, fixed, kitty=cards("AH KH"))
    return Hand.from_cards(rules, hands, pass_direction="hold", kitty=kitty)


def test_cancellation_pairs_cannot_win_and_the_kitty_goes_to_the_first_trick() -> None:
    hand = cancellation_hand()
    assert hand.to_play == 0  # the first seat holding the lowest club leads
    for seat, card in enumerate(cards("2C 2C AC KC AC 3C")):
        hand.play(seat, card)
    first = hand.tricks[0]
    assert first.cancelled == (0, 1, 2, 4)
    assert first.winner == 3 and hand.kitty_taker == 3
    assert hand.to_play == 3
    # the kitty is hidden from every seat, its taker included, until the hand is done
    assert all(hand.view(s).kitty == () and hand.view(s).kitty_size == 2 for s in range(6))
    assert hand.points_taken()[3] == 0


def test_an_all_cancelled_trick_is_held_over_to_the_next_winner() -> None:
    hand = cancellation_hand()
    for seat, card in enumerate(cards("2C 2C AC KC AC 3C")):
        hand.play(seat, card)
    for seat, card in zip([3, 4, 5, 0, 1, 2], cards("QS QS 4S 4S 5S 5S"), strict=True):
        hand.play(seat, card)
    held = hand.tricks[1]
    assert held.winner is None and held.points == 26 and len(held.cancelled) == 6
    assert hand.to_play == 3  # the same seat leads again
    assert hand.view(0).held_over == tuple(cards("QS QS 4S 4S 5S 5S"))
    for seat, card in zip([3, 4, 5, 0, 1, 2], cards("9D 2D 3D 4D 8D 10D"), strict=True):
        hand.play(seat, card)
    taker = hand.tricks[2]
    assert taker.winner == 2 and taker.points == 26
    assert hand.points_taken()[2] == 26 and hand.held_over == ()
    play_out(hand)
    assert sum(hand.points_taken()) + 2 == 52  # the kitty's A♥ K♥ are added at the end
    assert sum(hand.points()) in (52, 52 * 5, -52)
    assert hand.view(0).kitty == tuple(cards("AH KH"))


def test_illegal_plays_change_nothing() -> None:
    hand = hearts_deal()
    before = hand.to_dict()
    for seat, card in [(1, "6C"), (0, "3C"), (0, "AS"), (9, "2C")]:
        with pytest.raises(IllegalMove):
            hand.play(seat, C(card))
    assert hand.to_dict() == before


def test_points_before_the_end_is_refused() -> None:
    with pytest.raises(IllegalMove) as refused:
        hearts_deal().points()
    assert refused.value.reason is Reason.WRONG_PHASE


def test_to_dict_replays_to_the_same_hand() -> None:
    hand = Hand.deal(Rules.preset("omnibus"), seed=9)
    for seat in range(4):
        hand.pass_cards(seat, hand.holdings[seat][-3:])
    play_out(hand)
    copy = Hand.from_dict(hand.to_dict())
    assert copy.to_dict() == hand.to_dict() and copy.points() == hand.points()
    assert copy.view(2) == hand.view(2)


def test_a_bad_stored_hand_is_refused_clearly() -> None:
    data = hearts_deal().to_dict()
    with pytest.raises(DealError, match="needs rules"):
        Hand.from_dict({k: v for k, v in data.items() if k != "deal"})
    data["actions"] = [{"seat": 1, "play": "6C"}]
    with pytest.raises(IllegalMove):
        Hand.from_dict(data)


def test_refusals_after_the_first_trick_keep_their_reasons_and_change_nothing() -> None:
    # past the first trick the legal cards come from the suits (legal_plays' quick case); a
    # refused card, listed or not, still gets the card-by-card check's reason and message
    hand = hearts_deal()
    for seat, card in [(0, "2C"), (1, "6C"), (2, "10C"), (3, "2S")]:
        hand.play(seat, C(card))
    refusals: list[tuple[object, object, Reason, str]] = [
        (2, C("JH"), Reason.HEARTS_NOT_BROKEN, "hearts are not broken yet: lead another suit"),
        (3, C("3S"), Reason.NOT_YOUR_TURN, "it is seat 2's turn, not seat 3's"),
        (2, C("2S"), Reason.NOT_IN_HAND, f"seat 2 does not hold {C('2S')}"),
        (2, "JC", Reason.NOT_IN_HAND, "seat 2 does not hold JC"),
        (True, C("JC"), Reason.NO_SUCH_SEAT, "there is no seat True"),
    ]
    legal = hand.legal_plays(2)
    assert legal == run("C", 11, 14) + run("D", 11, 14)
    for who, what, reason, message in refusals:
        before = hand.to_dict()
        with pytest.raises(IllegalMove) as refused:
            hand.play(who, what)  # type: ignore[arg-type]
        assert (refused.value.reason, str(refused.value)) == (reason, message)
        assert hand.to_dict() == before and hand.legal_plays(2) == legal
    hand.play(2, C("JC"))
    hand.play(3, C("3S"))
    assert hand.legal_plays(0) == run("C", 3, 5)
    before = hand.to_dict()
    with pytest.raises(IllegalMove) as refused:
        hand.play(0, C("2H"))
    assert (refused.value.reason, str(refused.value)) == (
        Reason.MUST_FOLLOW_SUIT,
        "follow suit: play a club",
    )
    assert hand.to_dict() == before
