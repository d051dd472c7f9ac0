"""Card parsing and printing."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from heartsuit.cards import Card, Suit, full_pack


@pytest.mark.parametrize(
    ("text", "rank", "suit"),
    [
        ("4H", 4, Suit.HEARTS),
        ("10H", 10, Suit.HEARTS),
        ("TH", 10, Suit.HEARTS),
        ("4♥", 4, Suit.HEARTS),
        ("A♥", 14, Suit.HEARTS),
        ("QS", 12, Suit.SPADES),
        ("q♠", 12, Suit.SPADES),
        (" 2c ", 2, Suit.CLUBS),
        ("JD", 11, Suit.DIAMONDS),
        ("K♡", 13, Suit.HEARTS),
    ],
)
def test_parse_accepts_the_usual_spellings(text: str, rank: int, suit: Suit) -> None:
    assert Card.parse(text) == Card(rank, suit)
    # the pack's own object, however it was spelled: no copy per parsed action
    assert Card.parse(text) is full_pack()[(suit_order(suit)) * 13 + rank - 2]


def suit_order(suit: Suit) -> int:
    return list(Suit).index(suit)


@pytest.mark.parametrize(
    ("card", "printed"),
    [(Card(4, Suit.HEARTS), "4♥"), (Card(10, Suit.HEARTS), "10♥"), (Card(14, Suit.HEARTS), "A♥"),
     (Card(12, Suit.SPADES), "Q♠")],
)
def test_cards_print_like_a_person_writes_them(card: Card, printed: str) -> None:
    assert str(card) == printed


@pytest.mark.parametrize(
    ("text", "says"),
    [("", "not a card"), ("1H", "'1' is not a rank"), ("4X", "'X' is not a suit"),
     ("11H", "'11' is not a rank"), ("H", "not a card")],
)
def test_parse_errors_say_what_is_wrong(text: str, says: str) -> None:
    with pytest.raises(ValueError, match=says):
        Card.parse(text)


def test_a_rank_outside_2_to_14_is_refused() -> None:
    with pytest.raises(ValueError, match=r"2\.\.14"):
        Card(1, Suit.HEARTS)


@given(st.sampled_from(full_pack()))
def test_printing_and_code_round_trip(card: Card) -> None:
    assert Card.parse(str(card)) == card
    assert Card.parse(card.code) == card


def test_full_pack_has_52_different_cards() -> None:
    assert len(set(full_pack())) == 52


def test_full_pack_is_a_new_list_of_the_same_cards_each_time() -> None:
    """Callers may change the list they get (shuffle it, remove cards); the cards in it are
    the same objects each time."""
    first, second = full_pack(), full_pack()
    assert first is not second
    assert all(a is b for a, b in zip(first, second, strict=True))
    first.clear()
    assert len(full_pack()) == 52
