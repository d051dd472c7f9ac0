"""heartsuit's Hearts as an OpenSpiel game: ``python_heartsuit_hearts``.

Importing this module registers the game with ``pyspiel.register_game``::

    import pyspiel
    import heartsuit.adapters.openspiel  # registers the game
    game = pyspiel.load_game("python_heartsuit_hearts", {"preset": "black-maria"})

One game is one hand. Parameters (all optional): ``preset`` (standard, three, five, omnibus,
black-maria, cancellation); ``players`` (0 = the preset's; 6–10 for cancellation); the named
options ``moon``, ``hearts_broken_by``, ``jack_of_diamonds``, ``spade_penalties``, ``passing``,
``first_trick_points`` as text ("" = the preset's value; "on"/"off" for the yes-or-no ones);
``pass_direction`` ("" = chance draws it from the preset's pass cycle, or left, right, across,
hold); ``returns`` ("openspiel": the hand's penalty total minus the seat's points, as OpenSpiel's
own Hearts; "negated": minus the points). Chance draws the direction, then deals card by card;
seats pick their passes card by card (sequential, seat 0 first); then they play. Actions are
card numbers 0..51 (:mod:`heartsuit.adapters.shared`). docs/adapters.md has the details.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pyspiel

from heartsuit.adapters.shared import (
    CARDS,
    DIRECTIONS,
    NUM_CARDS,
    Encoding,
    Table,
    hand_rules,
    resample_actions,
    returns_of,
    utility_bounds,
)
from heartsuit.hearts.rules import Rules

__all__ = ["GAME_NAME", "HeartsGame", "HeartsState", "rules_from_parameters"]

GAME_NAME = "python_heartsuit_hearts"
_TEXT_OPTIONS = ("moon", "hearts_broken_by", "jack_of_diamonds", "spade_penalties", "passing",
                 "first_trick_points")
_BOOL_OPTIONS = ("jack_of_diamonds", "spade_penalties", "passing", "first_trick_points")
_DEFAULTS: dict[str, Any] = {
    "preset": "standard",
    "players": 0,
    **{name: "" for name in _TEXT_OPTIONS},
    "pass_direction": "",
    "returns": "openspiel",
}

_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="heartsuit Hearts (every preset)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=10,
    min_num_players=3,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_DEFAULTS,
)


def rules_from_parameters(params: dict[str, Any]) -> tuple[Rules, Any, str]:
    """The rules, the fixed pass direction (None: chance draws it) and the returns of a
    parameter dict; a clear ValueError for a bad value."""
    options: dict[str, Any] = {}
    if params.get("players", 0):
        options["players"] = int(params["players"])
    for name in _TEXT_OPTIONS:
        value = str(params.get(name, ""))
        if value == "":
            continue
        if name in _BOOL_OPTIONS:
            # not "true"/"false": OpenSpiel reads those back as booleans from a game string
            if value not in ("on", "off"):
                raise ValueError(f"{name} is 'on', 'off' or '' (the preset's), not {value!r}")
            options[name] = value == "on"
        else:
            options[name] = value
    rules = hand_rules(str(params.get("preset", "standard")), options)
    returns = str(params.get("returns", "openspiel"))
    if returns not in ("openspiel", "negated"):
        raise ValueError(f"returns is 'openspiel' or 'negated', not {returns!r}")
    named = str(params.get("pass_direction", ""))
    direction = None
    if named:
        matches = [d for d in DIRECTIONS if d.value == named]
        if not matches:
            raise ValueError(f"pass_direction is '', left, right, across or hold, not {named!r}")
        direction = matches[0]
        if direction.value != "hold" and not rules.passing:
            raise ValueError(f"these rules have no passing, so the pass cannot be {named}")
        if direction.value == "across" and rules.players % 2:
            raise ValueError(f"nobody sits across with {rules.players} players")
    return rules, direction, returns


class HeartsGame(pyspiel.Game):  # type: ignore[misc]
    """One hand of Hearts under a heartsuit preset and options."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        merged = {**_DEFAULTS, **(params or {})}
        self.rules, self.direction, self.returns_kind = rules_from_parameters(merged)
        rules = self.rules
        low, high = utility_bounds(rules, self.returns_kind)
        passes = rules.players * rules.pass_count if rules.passing else 0
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_CARDS,
            max_chance_outcomes=NUM_CARDS,
            num_players=rules.players,
            min_utility=low,
            max_utility=high,
            utility_sum=None,
            max_game_length=passes + rules.players * rules.hand_size(),
        )
        super().__init__(_GAME_TYPE, info, merged)
        self.encoding = Encoding(rules)

    def new_initial_state(self) -> HeartsState:
        return HeartsState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: Any = None
    ) -> HeartsObserver:
        if params:
            raise ValueError(f"the observer takes no parameters, not {params}")
        perfect_recall = False if iig_obs_type is None else iig_obs_type.perfect_recall
        if iig_obs_type is not None and (
            iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER
            or not iig_obs_type.public_info
        ):
            raise ValueError("only a seat's own view is offered (public and its private info)")
        return HeartsObserver(self.encoding, perfect_recall)


class HeartsState(pyspiel.State):  # type: ignore[misc]
    """A hand in progress: a :class:`~heartsuit.adapters.shared.Table` behind OpenSpiel's API."""

    def __init__(self, game: HeartsGame) -> None:
        super().__init__(game)
        self.table = Table(game.rules, game.direction)
        self._returns_kind = game.returns_kind

    def current_player(self) -> int:
        table = self.table
        if table.is_chance():
            return int(pyspiel.PlayerId.CHANCE)
        seat = table.current_player()
        return int(pyspiel.PlayerId.TERMINAL) if seat is None else seat

    def _legal_actions(self, player: int) -> list[int]:
        return self.table.legal_actions(player)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self.table.chance_outcomes()

    def _apply_action(self, action: int) -> None:
        if self.table.is_chance():
            self.table.apply_chance(int(action))
        else:
            self.table.apply(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == int(pyspiel.PlayerId.CHANCE) and self.table.direction is None:
            return f"pass {DIRECTIONS[action].value}"
        return CARDS[action].code if 0 <= action < NUM_CARDS else f"action {action}"

    def is_terminal(self) -> bool:
        return self.table.is_terminal()

    def returns(self) -> list[float]:
        table = self.table
        if not table.is_terminal():
            return [0.0] * table.players
        return returns_of(table.rules, table.points(), self._returns_kind)

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> HeartsState:
        """A state ``player_id`` cannot tell from this one, hidden cards drawn again
        (:func:`~heartsuit.adapters.shared.resample_actions`); for ISMCTS."""
        rng = random.Random(int(float(probability_sampler()) * 2**53))
        game = self.get_game()
        seen = self.information_state_string(player_id)

        def build(actions: list[int]) -> HeartsState:
            state = game.new_initial_state()
            for action in actions:
                state.apply_action(action)
            # an action is a card without its seat: a world where other seats took the same
            # cards (two packs) replays, but the seat would tell it apart
            if state.information_state_string(player_id) != seen:
                raise ValueError("the drawn world looks different to the seat")
            return state  # type: ignore[no-any-return]

        state: HeartsState = resample_actions(
            self.table, player_id, rng, _refusals_as_value_errors(build)
        )
        return state

    def __str__(self) -> str:
        return str(self.table)


def _refusals_as_value_errors(build: Any) -> Any:
    # an action the rules refuse surfaces through pyspiel as a SpielError (a RuntimeError)
    def run(actions: list[int]) -> Any:
        try:
            return build(actions)
        except (RuntimeError, pyspiel.SpielError) as exc:
            raise ValueError(str(exc)) from exc

    return run


class HeartsObserver:
    """OpenSpiel's observer: the information state (``perfect_recall``) or the observation,
    as a tensor and a string, built from the seat's view only."""

    def __init__(self, encoding: Encoding, perfect_recall: bool) -> None:
        self.encoding = encoding
        self.perfect_recall = perfect_recall
        size = encoding.information_size if perfect_recall else encoding.observation_size
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"view": self.tensor}

    def _args(self, state: HeartsState, player: int) -> tuple[Any, ...]:
        table = state.table
        return (player, table.view(player), table.own_picks(player), table.dealt_to(player),
                table.direction)

    def set_from(self, state: HeartsState, player: int) -> None:
        args = self._args(state, player)
        self.tensor.fill(0.0)
        if self.perfect_recall:
            self.encoding.information(*args, out=self.tensor)
        else:
            self.encoding.observation(*args, out=self.tensor)

    def string_from(self, state: HeartsState, player: int) -> str:
        return self.encoding.text(*self._args(state, player), history=self.perfect_recall)


pyspiel.register_game(_GAME_TYPE, HeartsGame)
