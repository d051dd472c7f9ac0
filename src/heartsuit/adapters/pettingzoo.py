"""heartsuit's Hearts as a PettingZoo AEC environment: ``env(preset="standard", **options)``.

An episode is one hand. Agents are ``player_0`` … ``player_{n-1}`` (seat order). Each acts
with a card number 0..51 (:mod:`heartsuit.adapters.shared`): first every seat picks its pass one
card at a time (``player_0`` first), then the seats play. ``observe(agent)`` is a dict with
``observation`` (the seat's view as a float vector, :class:`~heartsuit.adapters.shared.Encoding`)
and ``action_mask`` (1 for each legal card of the agent to act, all 0 for the others). The
reward comes at the end of the hand: minus the seat's points (``rewards="negated"``, the
default) or the hand's penalty total minus them (``rewards="openspiel"``).

``reset(seed=s)`` deals hand 0 of the match with game code ``HE1-…`` for seed ``s`` — the same
cards as ``heartsuit hearts play --code`` and the site; ``reset(options={"code": "HE1-B-…"})``
deals from a code, and ``options={"hand": k}`` deals the match's hand ``k`` (with its pass
direction). ``infos[agent]["code"]`` names the deal. Render modes: ``ansi`` (returns the whole
table as text) and ``human`` (prints it).
"""

from __future__ import annotations

import secrets
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import AgentSelector

from heartsuit.adapters.shared import (
    NUM_CARDS,
    RETURNS,
    Encoding,
    Table,
    hand_rules,
    returns_of,
)
from heartsuit.hearts import Hand
from heartsuit.hearts.codes import SEED_COUNT, format_code, parse_code

__all__ = ["HeartsEnv", "env", "raw_env"]


def env(preset: str = "standard", **options: Any) -> HeartsEnv:
    """The environment of ``preset`` with named options (``moon="self_minus_26"``,
    ``players=8`` for cancellation, ``render_mode="ansi"``, ``rewards="openspiel"``)."""
    return HeartsEnv(preset, **options)


raw_env = env


class HeartsEnv(AECEnv):  # type: ignore[misc]
    """One hand of Hearts per episode, for every heartsuit preset."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi", "human"],
        "name": "heartsuit_hearts_v0",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        preset: str = "standard",
        *,
        render_mode: str | None = None,
        rewards: str = "negated",
        **options: Any,
    ) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode is one of {self.metadata['render_modes']} or None, "
                             f"not {render_mode!r}")
        if rewards not in RETURNS:
            raise ValueError(f"rewards is one of {', '.join(RETURNS)}, not {rewards!r}")
        self.preset = preset
        self.rules = hand_rules(preset, options)
        self.render_mode = render_mode
        self.rewards_kind = rewards
        self.encoding = Encoding(self.rules)
        n = self.rules.players
        self.possible_agents = [f"player_{s}" for s in range(n)]
        self.agents = list(self.possible_agents)
        self._seat = {a: s for s, a in enumerate(self.possible_agents)}
        observation = spaces.Box(
            low=-1.0, high=2.0, shape=(self.encoding.observation_size,), dtype=np.float32
        )
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": observation,
                    "action_mask": spaces.Box(0, 1, shape=(NUM_CARDS,), dtype=np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(NUM_CARDS) for a in self.possible_agents}
        self.table: Table | None = None
        self.code = ""
        self.hand_number = 0

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    # --- episodes --------------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        # other keys are left alone, as Gymnasium's environments do (PettingZoo's API test
        # passes one)
        options = dict(options or {})
        players = self.rules.players
        if "code" in options:
            if seed is not None:
                raise ValueError("give a seed or a code, not both")
            parsed = parse_code(str(options["code"]))
            if parsed.preset != self.preset or parsed.players != players:
                raise ValueError(
                    f"{parsed.code} deals {parsed.preset} for {parsed.players} players; this "
                    f"environment plays {self.preset} for {players}"
                )
            seed = parsed.seed
        elif seed is None:
            seed = secrets.randbelow(SEED_COUNT)
        if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < SEED_COUNT:
            raise ValueError(f"a seed is a whole number 0..{SEED_COUNT - 1} (a game code's), "
                             f"not {seed!r}")
        number = options.get("hand", 0)
        if not isinstance(number, int) or isinstance(number, bool) or number < 0:
            raise ValueError(f"hand is a hand number from 0, not {number!r}")
        self.code = format_code(self.preset, seed, players=players)
        self.hand_number = number
        self.table = Table.from_hand(Hand.deal(self.rules, seed, hand_number=number))
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {"code": self.code, "hand": number} for a in self.agents}
        self._selector = AgentSelector(self.agents)
        self.agent_selection = self._to_act()

    def _table(self) -> Table:
        if self.table is None:
            raise RuntimeError("call reset() before using the environment")
        return self.table

    def _to_act(self) -> str:
        seat = self._table().current_player()
        return self.possible_agents[0 if seat is None else seat]

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        table = self._table()
        if action is None:
            raise ValueError(f"{agent} must act: give a card number 0..{NUM_CARDS - 1}")
        table.apply(int(action))  # a card that is not legal raises and changes nothing
        self._cumulative_rewards[agent] = 0.0
        if table.is_terminal():
            points = returns_of(self.rules, table.points(), self.rewards_kind)
            for seat, name in enumerate(self.agents):
                self.rewards[name] = points[seat]
                self.terminations[name] = True
                self.infos[name]["points"] = table.points()[seat]
            self._accumulate_rewards()
        self.agent_selection = self._to_act()
        if self.render_mode == "human":
            self.render()

    # --- what an agent sees ------------------------------------------------------------------

    def observe(self, agent: str) -> dict[str, np.ndarray[Any, Any]]:
        """The agent's view (from its seat view only) and its action mask."""
        table = self._table()
        seat = self._seat[agent]
        vector = self.encoding.observation(
            seat, table.view(seat), table.own_picks(seat), direction=table.direction,
            out=np.zeros(self.encoding.observation_size, dtype=np.float32),
        )
        mask = np.zeros(NUM_CARDS, dtype=np.int8)
        for a in table.legal_actions(seat):
            mask[a] = 1
        return {"observation": vector, "action_mask": mask}

    def observation_text(self, agent: str) -> str:
        """The agent's view as text (what ``observe`` encodes)."""
        table = self._table()
        seat = self._seat[agent]
        return self.encoding.text(seat, table.view(seat), table.own_picks(seat),
                                  direction=table.direction, history=True)

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        text = f"{self.code} hand {self.hand_number}\n{self._table()}"
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass
