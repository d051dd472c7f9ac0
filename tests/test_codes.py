"""Deal codes: format, parse, forgiving input, clear errors, pinned deals."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from heartsuit.cards import Card, Suit
from heartsuit.solitaire.codes import (
    DEAL_COUNT,
    PACK,
    CodeProblem,
    DealCodeError,
    deal_cards,
    deal_for_code,
    format_code,
    normalize_code,
    parse_code,
    random_code,
)


def test_the_example_code_is_deal_12() -> None:
    assert parse_code("HH1-N-AAAAAAM") == 12
    assert format_code(12) == "HH1-N-AAAAAAM"


def test_letters_are_base_26_most_significant_first() -> None:
    assert parse_code("HH1-N-AAAAABA") == 26
    assert format_code(DEAL_COUNT - 1) == "HH1-N-ZZZZZZZ"
    assert parse_code("HH1-N-ZZZZZZZ") == 26**7 - 1


@pytest.mark.parametrize("text", ["hh1-n-aaaaaam", "  HH1-N-AAAAAAM\n", "\tHh1-n-AaAaAaM "])
def test_case_and_surrounding_spaces_are_forgiven(text: str) -> None:
    assert parse_code(text) == 12
    assert normalize_code(text) == "HH1-N-AAAAAAM"


@pytest.mark.parametrize(
    ("text", "problem", "says"),
    [
        ("", CodeProblem.PARTS, "empty"),
        ("HH1N-AAAAAAM", CodeProblem.PARTS, "three parts"),
        ("XX1-N-AAAAAAM", CodeProblem.PREFIX, "start with 'HH'"),
        ("HH2-N-AAAAAAM", CodeProblem.VERSION, "format '2'"),
        ("HH1-Q-AAAAAAM", CodeProblem.RULE_SET, "unknown rule set 'Q'"),
        ("HH1-N-AAAAAM", CodeProblem.LENGTH, "6 letters"),
        ("HH1-N-AAAAAAAM", CodeProblem.LENGTH, "8 letters"),
        ("HH1-N-AAA1AAM", CodeProblem.LETTER, "contains '1'"),
        ("HH1-N-AAA AAM", CodeProblem.LETTER, "contains ' '"),
        ("HH1-N-AAAÄAAM", CodeProblem.LETTER, "contains 'Ä'"),
    ],
)
def test_every_other_mistake_is_named(text: str, problem: CodeProblem, says: str) -> None:
    with pytest.raises(DealCodeError, match=says) as info:
        parse_code(text)
    assert info.value.problem is problem


@pytest.mark.parametrize(
    ("text", "letter"),
    [
        # str.upper() would turn each of these into ASCII letters and deal a code nobody wrote
        ("HH1-N-AAAAAß", "ß"),  # -> SS
        ("hh1-n-aaaaaﬀ", "ﬀ"),  # -> FF
        ("HH1-N-AAAAAAı", "ı"),  # dotless i -> I
        ("HH1-N-AAAAAAſ", "ſ"),  # long s -> S
    ],
)
def test_only_ascii_letters_change_case(text: str, letter: str) -> None:
    with pytest.raises(DealCodeError) as info:
        parse_code(text)
    assert info.value.problem in (CodeProblem.LETTER, CodeProblem.LENGTH)
    assert letter in str(info.value)


def test_a_code_that_is_not_text_is_refused() -> None:
    with pytest.raises(DealCodeError):
        parse_code(12)  # type: ignore[arg-type]


@given(st.integers(min_value=0, max_value=DEAL_COUNT - 1))
def test_format_and_parse_round_trip(number: int) -> None:
    code = format_code(number)
    assert parse_code(code) == number
    assert parse_code(code.lower()) == number


@pytest.mark.parametrize("bad", [-1, DEAL_COUNT])
def test_format_refuses_numbers_outside_the_range(bad: int) -> None:
    with pytest.raises(ValueError):
        format_code(bad)


def test_random_codes_are_valid_and_vary() -> None:
    codes = {random_code() for _ in range(20)}
    assert len(codes) > 1
    for code in codes:
        assert format_code(parse_code(code)) == code


def test_a_deal_uses_the_whole_all_hearts_pack() -> None:
    deal = deal_cards(12)
    assert len(deal.heart) == 25 and len(deal.stock) == 26 and len(deal.waste) == 1
    assert sorted([*deal.heart, *deal.stock, *deal.waste]) == sorted(PACK)
    assert all(card.suit is Suit.HEARTS for card in PACK)
    assert all(PACK.count(Card(rank, Suit.HEARTS)) == 4 for rank in range(2, 15))


def _ranks(cards: tuple[Card, ...]) -> str:
    return " ".join(str(c)[:-1] for c in cards)


# Five golden deals: heart positions 1..25, stock (first flip first), waste.
GOLDEN: dict[str, tuple[str, str, str]] = {
    "HH1-N-AAAAAAA": (
        "2 4 Q 4 5 3 8 K 9 9 Q 6 A K 8 9 6 3 7 3 4 10 7 7 9",
        "A 2 K 10 5 10 J 3 6 A 2 Q 8 7 10 A J 2 J 5 K 4 J Q 5 8",
        "6",
    ),
    "HH1-N-AAAAAAM": (
        "J Q Q 2 K 10 3 7 K 5 Q 5 A 10 A 6 3 4 2 J 6 3 10 10 5",
        "7 6 4 J 6 Q 8 K K A 8 7 9 8 2 5 7 A 8 4 9 3 9 2 9 J",
        "4",
    ),
    "HH1-N-AAAAABA": (
        "5 K 4 2 K 3 6 2 A 9 K 10 A 4 A 2 5 8 6 8 K 3 4 2 10",
        "3 3 Q 9 J 10 6 7 Q 5 J Q A J 7 7 8 9 8 10 9 4 7 J 5 6",
        "Q",
    ),
    "HH1-N-HEARTSX": (
        "2 5 7 4 7 10 10 2 4 Q K 9 10 7 5 4 K 7 Q 8 3 5 9 3 A",
        "2 A 6 J 8 9 A A K 6 3 6 J J K 3 10 6 9 8 Q 8 J 4 5 Q",
        "2",
    ),
    "HH1-N-ZZZZZZZ": (
        "7 9 A 5 6 A 7 8 K 4 2 Q 7 3 Q 3 2 10 4 A 10 J 10 A 2",
        "8 Q 10 Q 9 9 6 2 J 8 J 7 5 J K 5 4 K K 8 6 3 4 5 9 3",
        "6",
    ),
}


@pytest.mark.parametrize("code", sorted(GOLDEN))
def test_golden_deals_never_change(code: str) -> None:
    deal = deal_for_code(code)
    assert (_ranks(deal.heart), _ranks(deal.stock), _ranks(deal.waste)) == GOLDEN[code]


def test_there_are_five_golden_deals() -> None:
    assert len(GOLDEN) == 5
