"""Rules: presets, card values, pass directions, and the combinations that cannot be played."""

from __future__ import annotations

import pytest

from heartsuit.cards import Card
from heartsuit.hearts import PassDirection, Rules, RulesError
from heartsuit.hearts.rules import PRESET_NAMES

L, R, A, H = PassDirection.LEFT, PassDirection.RIGHT, PassDirection.ACROSS, PassDirection.HOLD


def test_standard_preset_is_the_seed_game() -> None:
    rules = Rules.preset("standard")
    assert rules == Rules()
    assert (rules.players, rules.hand_size(), rules.kitty_size(), rules.total_points()) == (
        4, 13, 0, 26)
    assert len(set(rules.deck())) == 52
    assert [rules.pass_direction(n) for n in range(6)] == [L, R, A, H, L, R]


@pytest.mark.parametrize(
    ("name", "players", "size", "kitty", "removed", "total"),
    [
        ("three", 3, 17, 0, {"2D"}, 26),
        ("five", 5, 10, 0, {"2C", "2D"}, 26),
        ("omnibus", 4, 13, 0, set(), 26),
        ("black-maria", 3, 17, 0, {"2C"}, 26),
        ("cancellation", 6, 17, 2, set(), 52),
    ],
)
def test_presets_deal_as_the_spec_says(
    name: str, players: int, size: int, kitty: int, removed: set[str], total: int
) -> None:
    rules = Rules.preset(name)
    assert (rules.players, rules.hand_size(), rules.kitty_size()) == (players, size, kitty)
    assert {c.code for c in rules.removed} == removed
    assert not {Card.parse(c) for c in removed} & set(rules.deck())
    assert rules.total_points() == total


def test_odd_player_counts_pass_left_right_hold() -> None:
    for name in ("three", "five", "black-maria"):
        rules = Rules.preset(name)
        assert [rules.pass_direction(n) for n in range(4)] == [L, R, H, L]


def test_cancellation_has_no_passing_and_a_kitty_for_each_table_size() -> None:
    kitties = {n: Rules.preset("cancellation", players=n).kitty_size() for n in range(6, 11)}
    assert kitties == {6: 2, 7: 6, 8: 0, 9: 5, 10: 4}
    assert Rules.preset("cancellation").pass_direction(0) is H


def test_card_points_follow_the_options() -> None:
    qs, ks, as_, jd, h = (Card.parse(c) for c in ("QS", "KS", "AS", "JD", "7H"))
    plain = Rules()
    assert [plain.card_points(c) for c in (qs, ks, as_, jd, h)] == [13, 0, 0, 0, 1]
    omnibus = Rules.preset("omnibus")
    assert omnibus.card_points(jd) == -10 and omnibus.total_points() == 26
    maria = Rules.preset("black-maria", spade_penalties=True)
    assert [maria.card_points(c) for c in (qs, ks, as_)] == [13, 10, 7]
    assert maria.total_points() == 43


def test_pass_targets() -> None:
    rules = Rules()
    assert [rules.pass_target(0, d) for d in (L, R, A, H)] == [1, 3, 2, 0]
    five = Rules.preset("five")
    assert [five.pass_target(4, d) for d in (L, R, H)] == [0, 3, 4]


def test_preset_overrides_by_name_and_round_trip() -> None:
    rules = Rules.preset("standard", moon="self_minus_26", target=50, ties="play_on")
    assert (rules.moon, rules.target, rules.ties) == ("self_minus_26", 50, "play_on")
    for name in PRESET_NAMES:
        preset = Rules.preset(name)
        assert Rules.from_dict(preset.to_dict()) == preset


def test_deal_label_depends_only_on_the_cards_dealt() -> None:
    assert Rules.preset("standard").deal_label() == Rules.preset("omnibus").deal_label()
    assert Rules.preset("three").deal_label() != Rules.preset("black-maria").deal_label()


@pytest.mark.parametrize(
    ("name", "options", "why"),
    [
        ("cancellation", {"players": 4}, "6 to 10 players"),
        ("standard", {"players": 5}, "do not divide"),
        ("standard", {"players": 2}, "3 to 10"),
        ("standard", {"packs": 2}, "cancellation"),
        ("standard", {"packs": 3}, "one or two packs"),
        ("cancellation", {"packs": 1}, "two packs"),
        ("three", {"pass_cycle": (L, A)}, "across"),
        ("standard", {"pass_count": 0}, "pass_count"),
        ("three", {"pass_count": 18}, "pass_count"),
        ("standard", {"passing": True, "pass_cycle": ()}, "empty"),
        ("standard", {"target": 0}, "positive"),
        ("standard", {"moon": "sideways"}, "moon"),
        ("standard", {"ties": "coin"}, "ties"),
        ("standard", {"removed": ("2D", "2D")}, "more times"),
        ("standard", {"colour": "red"}, "unknown rule option"),
        ("standard", {"pass_cycle": ("up",)}, "PassDirection"),
    ],
)
def test_impossible_rules_are_refused_with_a_reason(
    name: str, options: dict[str, object], why: str
) -> None:
    with pytest.raises(RulesError, match=why):
        Rules.preset(name, **options)


def test_unknown_preset_names_the_choices() -> None:
    with pytest.raises(RulesError, match="black-maria"):
        Rules.preset("spades")


def test_rules_are_frozen() -> None:
    rules = Rules()
    with pytest.raises(AttributeError):
        rules.players = 5  # type: ignore[misc]
