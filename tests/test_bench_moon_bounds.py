"""bench/hearts_moon_bounds.py: its options are read strictly, what it reveals is exactly the
truth asked for, and told nothing it plays the arena's own deal."""

from __future__ import annotations

import importlib.util
import json
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from heartsuit.hearts import Hand, Rules
from heartsuit.hearts.bots import search
from heartsuit.hearts.bots.arena import ArenaSettings, play_deal
from heartsuit.hearts.bots.levels import HARD
from heartsuit.hearts.bots.passing import PassConfig
from heartsuit.hearts.bots.sampling import Sampler, knowledge, runner_hint
from heartsuit.hearts.fast_tables import card_index
from heartsuit.shuffle import Rng

BENCH = Path(__file__).resolve().parent.parent / "bench" / "hearts_moon_bounds.py"


@pytest.fixture
def bounds(monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    # install() patches the search module: these put the originals back afterwards
    monkeypatch.setattr(search, "knowledge", vars(search)["knowledge"])
    monkeypatch.setattr(search._Search, "world_masks", search._Search.world_masks)
    monkeypatch.setattr(
        search, "choose_pass_by_playouts", vars(search)["choose_pass_by_playouts"]
    )
    spec = importlib.util.spec_from_file_location("hearts_moon_bounds", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["hearts_moon_bounds"] = module
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop("hearts_moon_bounds", None)


def played_hand(moves: int) -> Hand:
    """Deal 3 of seed 1 (a hold hand) with the first ``moves`` legal cards played."""
    hand = Hand.deal(Rules(), 1, hand_number=3)
    for _ in range(moves):
        seat = hand.view(0).to_play
        assert seat is not None
        hand.play(seat, hand.legal_plays(seat)[0])
    return hand


def test_options_are_read_strictly(bounds: ModuleType) -> None:
    assert bounds.parse_reveals("none, all,hearts") == ["none", "all", "hearts"]
    for bad in ("", "hearts,spades", "ALL"):
        with pytest.raises(ValueError):
            bounds.parse_reveals(bad)
    assert (bounds.parse_when("start"), bounds.parse_when("8")) == (0, 8)
    for bad in ("0", "-1", "x", "1.5"):
        with pytest.raises(ValueError):
            bounds.parse_when(bad)


def test_revealed_cards_are_dealt_where_they_are_and_nothing_else_is_fixed(
    bounds: ModuleType,
) -> None:
    hand = played_hand(5)
    view = hand.view(1)
    know = bounds.revealed(knowledge(view), hand, "hearts")
    truth = {s: {card_index(c) for c in hand.view(s).hand} for s in range(4)}
    sampler = Sampler(know)
    moved = 0
    for w in range(40):
        world = sampler.deal(Rng(w))
        for seat in (0, 2, 3):
            hearts = {i for i in world[seat] if i // 13 == 2}
            assert hearts == {i for i in truth[seat] if i // 13 == 2}
            moved += len(set(world[seat]) - truth[seat])
    assert moved > 0  # the other cards are still dealt at random


def test_the_runner_hint_doubts_the_high_cards_everywhere_but_the_runner() -> None:
    know = runner_hint(knowledge(played_hand(5).view(1)), 3)
    queen_of_spades = 1 << (3 * 13 + 10)
    jack_of_hearts = 1 << (2 * 13 + 9)
    ten_of_hearts = 1 << (2 * 13 + 8)
    for seat in (0, 2):
        assert know.unlikely[seat] & queen_of_spades and know.unlikely[seat] & jack_of_hearts
        assert not know.unlikely[seat] & ten_of_hearts
    assert not know.unlikely[3] & (queen_of_spades | jack_of_hearts)
    assert not know.unlikely[1]


def test_told_everything_every_world_is_the_deal(bounds: ModuleType) -> None:
    hand = played_hand(6)
    view = hand.view(2)
    bounds.install("all", 0)
    bounds.set_hand(hand, 2)
    try:
        found = search._Search(view, HARD, 7)
        worlds = [found.world_masks() for _ in range(3)]
        other = search._Search(hand.view(1), HARD, 7).world_masks()  # not the seat told
    finally:
        bounds.set_hand(None)
    truth = [sorted(card_index(c) for c in hand.view(s).hand) if s != 2 else [] for s in range(4)]
    assert all(world[:4] == truth for world in worlds)
    assert other[2] != sorted(card_index(c) for c in hand.view(2).hand)
    # told only while a seat runs (nobody has points after six cards of a clean hand)
    bounds.install("all", 1)
    bounds.set_hand(hand, 2)
    try:
        plain = search._Search(view, HARD, 7).world_masks()
    finally:
        bounds.set_hand(None)
    assert plain[:4] != truth


def test_told_nothing_it_plays_the_arenas_deal(bounds: ModuleType) -> None:
    bounds.install("none", 0)
    got = bounds.play_deal(0, {})
    settings = ArenaSettings(("hard", "moonhunter", "moonhunter", "moonhunter"), Rules(), 1)
    arena = play_deal(settings, 0)
    for (rotation, shooter, points), game in zip(got, arena.games, strict=True):
        assert points == game.points[rotation]
        assert shooter == (game.shooters[0] if game.shooters else -1)


def test_the_oracle_is_read_from_a_results_file(bounds: ModuleType, tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    def game(shooters: list[int]) -> dict[str, object]:
        return {"points": [0, 0, 0, 0], "hands": 1, "shooters": shooters, "winners": []}

    rows = [
        {"arena": 1},
        {"deal": 0, "games": [game([2]), game([1]), game([])]},
        {"deal": 1, "games": [game([]), game([3])]},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    # the one-against seat's own moon (rotation 1 of deal 0) is not a runner against it
    assert bounds.read_oracle(path) == {(0, 0): 2, (1, 1): 3}


def test_the_pass_told_the_deal_searches_the_true_hands(
    bounds: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    hand = Hand.deal(Rules(), 1, hand_number=0)  # a pass to the left
    seen: list[list[int]] = []

    def spy(view: object, config: PassConfig, rng: random.Random) -> tuple[tuple[()], int]:
        others = list(range(52))
        mine = {card_index(c) for c in hand.view(1).hand}
        others = [i for i in others if i not in mine]
        rng.shuffle(others)
        seen.append(others)
        return (), 0

    truth = [card_index(c) for s in (0, 2, 3) for c in hand.view(s).hand]
    bounds.install("none", 0, True)
    bounds.set_hand(hand, 1)
    try:
        # the real pass search runs on the true hands (its shuffle checks it is given them)
        passed, used = bounds._choose_pass(hand.view(1), PassConfig(), random.Random(1))
        assert len(passed) == 3 and set(passed) <= set(hand.view(1).hand) and used > 0
        monkeypatch.setattr(bounds, "_original_choose_pass", spy)
        bounds._choose_pass(hand.view(1), PassConfig(), random.Random(1))
        bounds.install("none", 0, False)  # without --pass it is told nothing
        bounds._choose_pass(hand.view(1), PassConfig(), random.Random(1))
    finally:
        bounds.set_hand(None)
    assert seen[0] == truth
    assert seen[1] != truth and sorted(seen[1]) == sorted(truth)
    with pytest.raises(AssertionError):
        bounds._TrueDeal(random.Random(1), truth).shuffle(truth[:-1])
