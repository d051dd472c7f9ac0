"""Golden values: a seed deals these cards and this match forever (stored games rely on it)."""

from __future__ import annotations

from heartsuit.hearts import Hand, Match, Rules


def dealt(name: str, seed: int) -> list[str]:
    hand = Hand.deal(Rules.preset(name), seed)
    return [" ".join(c.code for c in cards) for cards in (*hand.dealt, hand.kitty)]


def test_standard_seed_7_deals_these_hands() -> None:
    assert dealt("standard", 7) == [
        "KC 5D JD KD AD 2S 5S 8S QS 5H 8H 10H KH",
        "3C JC QC 2D 3D 10D 3S 6S 10S 2H 3H 7H 9H",
        "2C 4C 7C AC 6D 8D 9S JS KS AS 6H JH QH",
        "5C 6C 8C 9C 10C 4D 7D 9D QD 4S 7S 4H AH",
        "",
    ]


def test_five_and_cancellation_seed_7() -> None:
    assert dealt("five", 7)[3] == "3C 5C 7C 8C 10C 3D 4S QS KS 5H"
    cancellation = dealt("cancellation", 7)
    assert cancellation[1] == "4C 7C QC QC AC 9D 10D JD AD 5S 7S 8S 8S JS 5H 10H QH"
    assert cancellation[-1] == "3S JH"


def test_a_scripted_match_ends_the_same_way() -> None:
    match = Match.new(Rules(), 7)
    while not match.is_over:
        hand = match.hand
        for seat in match.awaiting():
            if hand.phase == "pass":
                match.pass_cards(seat, hand.holdings[seat][-3:])
            else:
                match.play(seat, min(hand.legal_plays(seat)))
    assert (match.scores, match.winners, len(match.hands)) == ((66, 42, 112, 92), (1,), 12)
