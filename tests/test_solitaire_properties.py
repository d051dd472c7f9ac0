"""Heart to Heart engine invariants under random play (hypothesis).

A random game is a deal number plus a list of choices; each choice picks one of the actions
that make sense at that moment (a free card, the stock, the waste, an undo, now and then a
covered card), so the games get deep instead of stopping at the first ignored tap.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from heartsuit.cards import Card
from heartsuit.solitaire import Action, Game, GameOver, Outcome, TapKind, TapResult
from heartsuit.solitaire.codes import PACK, format_code
from heartsuit.solitaire.layout import COVERED_BY

deal_numbers = st.integers(min_value=0, max_value=26**7 - 1)
choices = st.lists(st.integers(min_value=0, max_value=10_000), max_size=150)
PROPERTY = settings(max_examples=60, deadline=None)


def options(game: Game) -> list[Action]:
    """What a player might touch now: mostly free cards, the piles, sometimes undo or a covered
    or emptied place."""
    if game.over:
        return ["undo"]
    free: list[Action] = list(game.free_positions())
    # pairs are rare among random taps, so the cards that pair now are offered several times
    pairing: list[Action] = [end for pair in game.pairs() for end in pair]
    partners = [b if a == game.selected else a for a, b in game.pairs() if game.selected in (a, b)]
    return [
        *free, *pairing, *pairing, *partners * 6, "stock", "stock", "waste", "undo",
        (len(free) * 7) % 25 + 1,
    ]


def random_play(number: int, picks: list[int]) -> Iterator[tuple[Game, Action, dict[str, object]]]:
    """Play the game, yielding the game after each action with the action and the snapshot
    taken just before it."""
    game = Game.from_code(format_code(number))
    for pick in picks:
        menu = options(game)
        action = menu[pick % len(menu)]
        before = game.to_dict()
        if action == "undo":
            game.undo()
        else:
            game.tap(action)
        yield game, action, before


def free_by_definition(game: Game) -> list[int]:
    return [
        p
        for p in range(1, 26)
        if game.heart[p - 1] is not None
        and all(game.heart[q - 1] is None for q in COVERED_BY[p - 1])
    ]


def rank(game: Game, position: int) -> int:
    card = game.heart[position - 1]
    assert card is not None
    return card.rank


@PROPERTY
@given(deal_numbers, choices)
def test_random_play_keeps_all_52_cards(number: int, picks: list[int]) -> None:
    game = Game.from_code(format_code(number))
    removed: list[list[Card]] = []  # the cards each move removed, for the moves still made
    for pick in picks:
        menu = options(game)
        action = menu[pick % len(menu)]
        if action == "undo":
            if game.undo():
                removed.pop()
        else:
            result = game.tap(action)
            if result.is_move:
                removed.append(list(result.cards) if result.kind is TapKind.PAIRED else [])
        on_table = [c for c in game.heart if c is not None] + list(game.stock + game.waste)
        gone = [c for cards in removed for c in cards]
        assert Counter(on_table + gone) == Counter(PACK)
        assert game.moves == len(removed)


@PROPERTY
@given(deal_numbers, choices)
def test_score_is_10_per_heart_card_removed(number: int, picks: list[int]) -> None:
    for game, _action, _before in random_play(number, picks):
        assert game.score == 10 * sum(card is None for card in game.heart)
        assert game.score % 10 == 0 and 0 <= game.score <= 250


@PROPERTY
@given(deal_numbers, choices)
def test_undo_restores_the_snapshot_from_before_each_move(number: int, picks: list[int]) -> None:
    game = Game.from_code(format_code(number))
    for pick in picks:
        menu = options(game)
        action = menu[pick % len(menu)]
        if action == "undo":
            game.undo()
            continue
        before = game.to_dict()
        twin = Game.from_dict(before)
        result: TapResult = twin.tap(action)
        if result.is_move:
            assert twin.undo() is True
            # undo clears the selection; everything else is as it was
            assert twin.to_dict() == {**before, "selected": None}
        game.tap(action)


@PROPERTY
@given(deal_numbers, choices)
def test_the_dead_end_verdict_equals_its_definition(number: int, picks: list[int]) -> None:
    for game, _action, _before in random_play(number, picks):
        free = free_by_definition(game)
        assert list(game.free_positions()) == free
        elsewhere = {card.rank for card in game.stock + game.waste}
        stuck = all(
            rank(game, p) not in elsewhere
            and all(rank(game, q) != rank(game, p) for q in free if q != p)
            for p in free
        )
        if not free:
            assert game.outcome is Outcome.WON
        else:
            assert (game.outcome is Outcome.DEAD_END) == stuck
            assert (game.outcome is Outcome.PLAYING) == (not stuck)
        # the engine keeps the ranks of the stock and waste between moves: a game read back
        # from its snapshot (nothing kept) judges alike
        assert Game.from_dict(game.to_dict()).outcome is game.outcome


@PROPERTY
@given(deal_numbers, choices)
def test_placement_help_follows_its_definition(number: int, picks: list[int]) -> None:
    for game, _action, _before in random_play(number, picks):
        free = free_by_definition(game)
        top = game.waste[-1].rank if game.waste else None
        outlined = [
            p
            for p in free
            if rank(game, p) == top or any(rank(game, q) == rank(game, p) for q in free if q != p)
        ]
        waste_outlined = top is not None and any(rank(game, p) == top for p in free)
        assert game.outlined() == (*outlined, *(["waste"] if waste_outlined else []))
        if game.selected is None:
            assert game.dimmed() == ()
            continue
        chosen = top if game.selected == "waste" else rank(game, game.selected)
        tappable: list[int | str] = [*free, *(["waste"] if game.waste else [])]
        expected = [
            t
            for t in tappable
            if t != game.selected and (top if t == "waste" else rank(game, int(t))) != chosen
        ]
        assert list(game.dimmed()) == expected


@PROPERTY
@given(deal_numbers, choices, st.booleans(), st.booleans())
def test_from_dict_round_trips(number: int, picks: list[int], errors: bool, help_on: bool) -> None:
    game = Game.from_code(format_code(number), move_errors=errors, placement_help=help_on)
    log: list[Action] = []
    for pick in picks:
        menu = options(game)
        action = menu[pick % len(menu)]
        log.append(action)
        if action == "undo":
            game.undo()
        else:
            game.tap(action)
    data = game.to_dict()
    copy = Game.from_dict(data)
    assert copy.to_dict() == data
    assert copy.outlined() == game.outlined() and copy.dimmed() == game.dimmed()
    replayed = Game.replay(game.code, log, move_errors=errors, placement_help=help_on)
    assert replayed.to_dict() == data
    while game.undo():
        assert copy.undo() is True
        assert copy.to_dict() == game.to_dict()
    assert copy.undo() is False


@PROPERTY
@given(deal_numbers, choices)
def test_taps_after_the_end_change_nothing(number: int, picks: list[int]) -> None:
    for game, _action, _before in random_play(number, picks):
        if game.over:
            snapshot = game.to_dict()
            for target in (25, "stock", "waste"):
                with pytest.raises(GameOver):
                    game.tap(target)
            assert game.to_dict() == snapshot


@PROPERTY
@given(deal_numbers, choices)
def test_explain_agrees_with_what_a_tap_does(number: int, picks: list[int]) -> None:
    for game, _action, _before in random_play(number, picks):
        if game.over:
            continue
        for target in (*range(1, 26), "stock", "waste"):
            why = game.explain(target)
            result = Game.from_dict(game.to_dict()).tap(target)
            assert why == result.reason
            assert (why is None) == (result.kind not in (TapKind.IGNORED, TapKind.RESELECTED))


@PROPERTY
@given(deal_numbers, choices)
def test_free_cards_and_pairs_equal_their_definition_after_every_action(
    number: int, picks: list[int]
) -> None:
    """The engine keeps the last answer of ``pairs`` and the free positions of each set of cards
    present: asked again and again through taps, undos and a game rebuilt from its snapshot,
    they still say exactly what the layout says."""
    for game, _action, _before in random_play(number, picks):
        for copy in (game, Game.from_dict(game.to_dict())):
            free = free_by_definition(copy)
            top = copy.waste[-1].rank if copy.waste else None
            pairs: list[tuple[int, int | str]] = []
            for i, p in enumerate(free):
                pairs.extend((p, q) for q in free[i + 1 :] if rank(copy, q) == rank(copy, p))
                if rank(copy, p) == top:
                    pairs.append((p, "waste"))
            assert list(copy.free_positions()) == free
            assert list(copy.pairs()) == pairs
            assert list(copy.pairs()) == pairs  # asked twice: the kept answer
