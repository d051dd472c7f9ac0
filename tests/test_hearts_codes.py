"""Hearts game codes: a preset and a match seed that replay the same deals."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from heartsuit.gamecodes import CodeError, CodeProblem
from heartsuit.hearts import Match, Rules
from heartsuit.hearts.codes import (
    SEED_COUNT,
    HeartsCode,
    format_code,
    parse_code,
    random_code,
)

PRESETS = ["standard", "three", "five", "omnibus", "black-maria"]


def test_the_letters_are_the_seed_in_base_26() -> None:
    assert format_code("standard", 12) == "HE1-S-AAAAAAM"
    assert parse_code("HE1-S-AAAAAAM") == HeartsCode("standard", 4, 12)


@pytest.mark.parametrize(
    ("code", "preset", "players"),
    [("HE1-S-AAAAAAA", "standard", 4), ("HE1-T-AAAAAAA", "three", 3),
     ("HE1-F-AAAAAAA", "five", 5), ("HE1-O-AAAAAAA", "omnibus", 4),
     ("HE1-B-AAAAAAA", "black-maria", 3), ("HE1-C6-AAAAAAA", "cancellation", 6),
     ("HE1-C10-AAAAAAA", "cancellation", 10)],
)
def test_each_preset_has_its_rule_set(code: str, preset: str, players: int) -> None:
    parsed = parse_code(code)
    assert (parsed.preset, parsed.players) == (preset, players)
    assert parsed.code == code
    assert parsed.rules().players == players


def test_case_and_spaces_are_forgiven() -> None:
    assert parse_code("  he1-c8-aaaaaam\n") == HeartsCode("cancellation", 8, 12)


@pytest.mark.parametrize(
    ("text", "problem"),
    [("HH1-N-AAAAAAM", CodeProblem.PREFIX), ("HE2-S-AAAAAAM", CodeProblem.VERSION),
     ("HE1-C5-AAAAAAM", CodeProblem.RULE_SET), ("HE1-C11-AAAAAAM", CodeProblem.RULE_SET),
     ("HE1-Q-AAAAAAM", CodeProblem.RULE_SET), ("HE1-S-AAAAAM", CodeProblem.LENGTH),
     ("HE1-S-AAAAA1M", CodeProblem.LETTER), ("HE1S-AAAAAAM", CodeProblem.PARTS)],
)
def test_mistakes_are_named(text: str, problem: CodeProblem) -> None:
    with pytest.raises(CodeError) as info:
        parse_code(text)
    assert info.value.problem is problem


def test_cancellation_codes_need_six_to_ten_players() -> None:
    with pytest.raises(ValueError, match="6 to 10"):
        format_code("cancellation", 1, players=4)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("HE1-ſ-AAAAAAM", CodeProblem.RULE_SET),  # long s: str.upper() makes it "S"
        ("HE1-S-AAAAAß", CodeProblem.LENGTH),  # ß: str.upper() makes it "SS", 7 letters
        ("he1-s-aaaaaaı", CodeProblem.LETTER),  # dotless i: str.upper() makes it "I"
    ],
)
def test_only_ascii_letters_change_case(text: str, problem: CodeProblem) -> None:
    with pytest.raises(CodeError) as info:
        parse_code(text)
    assert info.value.problem is problem


def test_an_unknown_preset_has_no_code() -> None:
    with pytest.raises(ValueError, match="no code"):
        format_code("spades", 1)


@given(st.sampled_from(PRESETS), st.integers(min_value=0, max_value=SEED_COUNT - 1))
def test_format_and_parse_round_trip(preset: str, seed: int) -> None:
    parsed = parse_code(format_code(preset, seed))
    assert (parsed.preset, parsed.seed) == (preset, seed)


@pytest.mark.parametrize("preset", PRESETS)
def test_a_code_replays_the_same_deals(preset: str) -> None:
    code = format_code(preset, 4242)
    direct = Match.new(Rules.preset(preset), 4242)
    from_code = Match.from_code(code.lower())
    assert from_code.rules == direct.rules
    assert from_code.hand.to_dict() == direct.hand.to_dict()
    assert from_code.hand.to_dict()["deal"] != Match.new(direct.rules, 4243).hand.to_dict()["deal"]


def test_scoring_options_may_change_but_the_deal_may_not() -> None:
    match = Match.from_code("HE1-S-AAAAAAM", moon="self_minus_26", target=50)
    assert (match.rules.moon, match.rules.target) == ("self_minus_26", 50)
    plain = Match.new(Rules.preset("standard"), 12).hand.to_dict()
    assert match.hand.to_dict()["deal"] == plain["deal"]
    with pytest.raises(ValueError, match="cannot be changed"):
        Match.from_code("HE1-S-AAAAAAM", removed=("2C", "2D", "3C", "3D"))


def test_random_codes_parse() -> None:
    codes = {random_code("five") for _ in range(10)}
    assert len(codes) > 1
    assert all(parse_code(c).preset == "five" for c in codes)
