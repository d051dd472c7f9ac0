"""A hand's seat views are made when read (``view.SeatViewOnRead``): they must read exactly as a
view built whole from the hand's public state at the moment it was asked for, however much the
hand has moved on since, and behave as a SeatView in every way (equality, hash, replace,
pickle, JSON)."""

from __future__ import annotations

import dataclasses
import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from heartsuit.hearts import Hand, Rules, SeatView
from heartsuit.hearts.actions import Moon
from heartsuit.hearts.rules import PRESET_NAMES
from heartsuit.hearts.view import SeatViewOnRead
from heartsuit.shuffle import Rng
from tests.hearts_helpers import random_passes

RULES = [Rules.preset(name) for name in PRESET_NAMES] + [
    Rules.preset("standard", moon="shooter_chooses", hearts_broken_by="heart_or_queen"),
    Rules.preset("standard", first_trick_points=True),
]


def whole_view(hand: Hand, seat: int) -> SeatView:
    # the view from the hand's public properties, every field made now (as Hand.view did)
    done = hand.phase == "done"
    played_out = done or hand.phase == "moon"
    return SeatView(
        seat=seat,
        rules=hand.rules,
        phase=hand.phase.value,
        hand_number=hand.hand_number,
        hand=hand.holdings[seat],
        legal=tuple(hand.legal_plays(seat)),
        to_play=hand.to_play,
        pass_direction=hand.pass_direction,
        must_pass=hand.phase == "pass" and hand.passes[seat] is None,
        passed=hand.passes[seat] or (),
        received=hand.received(seat),
        trick=hand.trick,
        tricks=hand.tricks,
        points_taken=hand.points_taken(),
        hearts_broken=hand.hearts_broken,
        scores=hand.scores,
        cards_left=tuple(len(h) for h in hand.holdings),
        kitty_size=len(hand.kitty),
        kitty=hand.kitty if played_out else (),
        held_over=hand.held_over,
        hand_points=hand.points() if done else (),
        shooter=hand.awaiting()[0]
        if hand.phase == "moon"
        else hand.moon_shooter()
        if done
        else None,
        moon_options=tuple(hand.moon_options().items()),
        moon_choice=hand.moon_choice,
    )


def fields_of(view: SeatView) -> dict[str, object]:
    return {f.name: getattr(view, f.name) for f in dataclasses.fields(SeatView)}


@settings(max_examples=30, deadline=None)
@given(
    rules=st.sampled_from(RULES),
    seed=st.integers(min_value=0, max_value=10**6),
    choices=st.integers(min_value=0, max_value=10**6),
)
def test_views_read_later_show_the_hand_as_it_was(rules: Rules, seed: int, choices: int) -> None:
    hand = Hand.deal(rules, seed, hand_number=choices % 4)
    rng = Rng(choices)
    taken: list[tuple[SeatView, SeatView]] = []  # (as built, built whole at the same moment)

    def snapshot() -> None:
        for seat in range(rules.players):
            if rng.below(3) == 0:
                taken.append((hand.view(seat), whole_view(hand, seat)))

    snapshot()
    random_passes(hand, rng)
    while hand.to_play is not None:
        snapshot()
        seat = hand.to_play
        legal = hand.legal_plays(seat)
        hand.play(seat, legal[rng.below(len(legal))])
    if hand.phase == "moon":
        snapshot()
        shooter = hand.awaiting()[0]
        hand.apply(Moon(shooter, hand.best_moon_choice()))
    snapshot()
    assert taken
    for view, whole in taken:  # read only now, after the hand is over
        assert fields_of(view) == fields_of(whole)
        assert view == whole and whole == view and hash(view) == hash(whole)
        assert view.to_dict() == whole.to_dict()


def playing_view() -> tuple[Hand, SeatView]:
    hand = Hand.deal(Rules(), 7, pass_direction="hold")
    for _ in range(6):
        seat = hand.to_play
        assert seat is not None
        hand.play(seat, hand.legal_plays(seat)[-1])
    seat = hand.to_play
    assert seat is not None
    return hand, hand.view(seat)


def test_a_view_in_play_is_made_on_read_and_holds_no_hand() -> None:
    hand, view = playing_view()
    assert type(view) is SeatViewOnRead and isinstance(view, SeatView)
    card = view.legal[0]
    hand.play(view.seat, card)  # before anything of the view was read
    assert card in view.hand and card in view.legal and view.to_play == view.seat
    assert view.trick is not None and len(view.trick.plays) == 2
    for name in SeatViewOnRead.__slots__:
        assert not isinstance(getattr(view, name), Hand | list)


def test_a_view_made_on_read_stays_frozen() -> None:
    _, view = playing_view()
    for name in ("hand", "legal", "trick", "seat"):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(view, name, ())


def test_a_view_made_on_read_is_replaced_copied_and_pickled_as_a_seat_view() -> None:
    _, view = playing_view()
    shorter = dataclasses.replace(view, legal=view.legal[:1])
    assert shorter.legal == view.legal[:1] and shorter.hand == view.hand
    assert shorter != view
    restored = pickle.loads(pickle.dumps(view))
    assert type(restored) is SeatView and restored == view
    assert repr(view) == repr(restored)
