"""Typed actions and their JSON form: exact round trips, and malformed dicts refused clearly."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from heartsuit.cards import Card
from heartsuit.hearts import Action, ActionError, Moon, Pass, Play, Rules, action_from_dict
from heartsuit.hearts.actions import action_from_stored

CARDS = st.sampled_from(Rules().deck())
SEATS = st.integers(min_value=0, max_value=9)
ACTIONS: st.SearchStrategy[Action] = st.one_of(
    st.builds(Play, SEATS, CARDS),
    st.builds(Pass, SEATS, st.lists(CARDS, max_size=4).map(tuple)),
    st.builds(Moon, SEATS, st.sampled_from(["others_plus_26", "self_minus_26"])),
)


@given(ACTIONS)
def test_every_action_survives_a_json_round_trip_exactly(action: Action) -> None:
    data = json.loads(json.dumps(action.to_dict()))
    assert action_from_dict(data) == action
    assert action_from_dict(data).to_dict() == data


def test_the_json_form_is_small_and_readable() -> None:
    cards = tuple(Card.parse(c) for c in ("QS", "AS", "2H"))
    assert Pass(0, cards).to_dict() == {"type": "pass", "seat": 0, "cards": ["QS", "AS", "2H"]}
    assert Play(1, Card.parse("10H")).to_dict() == {"type": "play", "seat": 1, "card": "10H"}
    assert Moon(2, "self_minus_26").to_dict() == {
        "type": "moon",
        "seat": 2,
        "choice": "self_minus_26",
    }


def test_a_pass_given_a_list_stores_a_tuple() -> None:
    cards: Any = [Card.parse("QS")]
    assert Pass(0, cards) == Pass(0, (Card.parse("QS"),))
    assert hash(Pass(0, cards))


def test_other_spellings_of_a_card_are_read() -> None:
    assert action_from_dict({"type": "play", "seat": 2, "card": "TH"}) == Play(
        2, Card.parse("10H")
    )


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (["play", 0, "QS"], "JSON object, not list"),
        ("play QS", "JSON object, not str"),
        ({"seat": 0, "card": "QS"}, "type is 'pass', 'play' or 'moon', not None"),
        ({"type": "moon", "seat": 0}, "a moon action needs choice"),
        ({"type": "moon", "seat": 0, "choice": "both"}, "'others_plus_26' or 'self_minus_26'"),
        ({"type": "moon", "seat": 0, "choice": "shooter_chooses"}, "not 'shooter_chooses'"),
        ({"type": "moon", "seat": 0, "choice": ["self_minus_26"]}, "not ['self_minus_26']"),
        ({"type": "moon", "seat": 0, "choice": "self_minus_26", "card": "QS"}, "no field 'card'"),
        ({"type": "discard", "seat": 0, "card": "QS"}, "not 'discard'"),
        ({"type": 1, "seat": 0, "card": "QS"}, "not 1"),
        ({"type": "play", "card": "QS"}, "a play action needs seat"),
        ({"type": "pass", "seat": 0}, "a pass action needs cards"),
        ({"type": "play", "seat": 0, "card": "QS", "cards": []}, "no field 'cards'"),
        ({"type": "play", "seat": True, "card": "QS"}, "not True"),
        ({"type": "play", "seat": "1", "card": "QS"}, "not '1'"),
        ({"type": "play", "seat": -1, "card": "QS"}, "from 0, not -1"),
        ({"type": "play", "seat": 1.0, "card": "QS"}, "not 1.0"),
        ({"type": "play", "seat": 0, "card": "QX"}, "'QX'"),
        ({"type": "play", "seat": 0, "card": 12}, "not 12"),
        ({"type": "play", "seat": 0, "card": None}, "not None"),
        ({"type": "pass", "seat": 0, "cards": "QS AS 2H"}, "list of card codes"),
        ({"type": "pass", "seat": 0, "cards": ["QS", "1S"]}, "'1S'"),
        ({"type": "pass", "seat": 0, "cards": ["QS", ["AS"]]}, "not ['AS']"),
    ],
)
def test_malformed_actions_are_refused_saying_what_is_wrong(data: object, message: str) -> None:
    with pytest.raises(ActionError, match=message.replace("[", r"\[").replace("]", r"\]")):
        action_from_dict(data)


def test_action_errors_are_value_errors() -> None:
    assert issubclass(ActionError, ValueError)


def test_stored_actions_of_format_1_are_still_read() -> None:
    assert action_from_stored({"seat": 1, "play": "QS"}) == Play(1, Card.parse("QS"))
    assert action_from_stored({"seat": 0, "pass": ["2C", "3C", "4C"]}) == Pass(
        0, tuple(Card.parse(c) for c in ("2C", "3C", "4C"))
    )
    assert action_from_stored({"type": "play", "seat": 1, "card": "QS"}) == Play(
        1, Card.parse("QS")
    )
    with pytest.raises(ActionError):
        action_from_stored({"seat": 0, "play": "QS", "pass": []})
    # the old form is for stored data only: a client's intent must say its type
    with pytest.raises(ActionError, match="type"):
        action_from_dict({"seat": 1, "play": "QS"})
