"""Exact analysis of a Heart to Heart game: can it be won, and the winning line of fewest moves.

:func:`solve` works from a game's current state (or a deal): it decides winnability exactly
(:mod:`heartsuit.solitaire.decide`), turns the decision's pairs into a playable line, then looks
for the line of fewest moves (:mod:`heartsuit.solitaire.optimal`) within a time budget. The line
is given both as :class:`Step` s (flip, redeal, pair) and as the taps that play it
(``"stock"``, ``"waste"`` or a heart position 1..25). :func:`decide` is the fast yes/no for bulk
statistics. Nothing here is shown to a player by default (spec: no automatic solver in play).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Literal

from heartsuit.solitaire.decide import Removal, is_winnable, winning_removals
from heartsuit.solitaire.optimal import Pairing, fewest_moves
from heartsuit.solitaire.position import HasPiles, Pile, Position, card_text

#: what a tap touches: the stock, the waste top, or a heart position 1..25
Tap = int | Literal["stock", "waste"]

#: the CPU seconds the optimal search may take before the line is returned unproven
DEFAULT_BUDGET_S = 2.0


class StepKind(StrEnum):
    FLIP = "flip"
    REDEAL = "redeal"
    PAIR = "pair"


@dataclass(frozen=True, slots=True)
class Step:
    """One move. A pair names heart positions (1..25); ``second`` is None for the waste top."""

    kind: StepKind
    rank: int | None = None
    first: int | None = None
    second: int | None = None

    def taps(self) -> tuple[Tap, ...]:
        if self.kind is not StepKind.PAIR:
            return ("stock",)
        assert self.first is not None
        return (self.first, "waste" if self.second is None else self.second)

    def __str__(self) -> str:
        if self.kind is StepKind.REDEAL:
            return "redeal (the waste goes back to the stock)"
        assert self.rank is not None
        card = card_text(self.rank)
        if self.kind is StepKind.FLIP:
            return f"flip → {card}"
        partner = "waste" if self.second is None else str(self.second)
        return f"pair {self.first} ({card}) + {partner} ({card})"

    def to_dict(self) -> dict[str, str | int | None]:
        return {"kind": self.kind.value, "rank": self.rank, "first": self.first,
                "second": self.second}


@dataclass(frozen=True, slots=True)
class SolveResult:
    """The verdict, and for a winnable game a winning line (``steps``, and ``moves`` as taps).

    ``optimal`` is True only when no line with fewer moves exists (the search finished).
    ``seconds`` is the wall-clock time :func:`solve` took and ``cpu_seconds`` its CPU time.
    ``moves`` starts with a tap on the selected card when the game had one (that tap clears the
    selection and is not a move), so it plays as-is through the game's taps.
    """

    winnable: bool
    steps: tuple[Step, ...] = ()
    optimal: bool = False
    nodes: int = 0
    seconds: float = 0.0
    moves: tuple[Tap, ...] = field(default=())
    cpu_seconds: float = 0.0

    @property
    def move_count(self) -> int | None:
        return len(self.steps) if self.winnable else None


def realize(position: Position, pairings: Sequence[Removal | Pairing]) -> list[Step]:
    """The moves that play ``pairings`` in order from ``position``.

    A pairing is (heart index, heart index), (heart index, -1) for "the nearest pile card of this
    rank", or (heart index, -2 - j) for pile cycle index ``j``.
    """
    pile = Pile.of(position)
    steps: list[Step] = []
    for i, other in pairings:
        rank = position.heart[i]
        assert rank is not None
        if other >= 0:
            steps.append(Step(StepKind.PAIR, rank, i + 1, other + 1))
            continue
        j = pile.nearest(rank) if other == -1 else -2 - other
        assert j is not None, "a pairing asked for a pile card that is not there"
        for kind, turned in pile.walk(j):
            steps.append(Step(StepKind(kind), turned))
        pile.remove_top()
        steps.append(Step(StepKind.PAIR, rank, i + 1, None))
    return steps


def decide(state: HasPiles | Position) -> bool:
    """Exact and fast: can this deal or game state still be won?"""
    position = state if isinstance(state, Position) else Position.of(state)
    return is_winnable(position)


def solve(
    state: HasPiles | Position, *, optimal: bool = True, budget_s: float = DEFAULT_BUDGET_S
) -> SolveResult:
    """Decide the game from its current state and give a winning line (see :class:`SolveResult`).

    With ``optimal`` the line has the fewest moves, proven unless ``budget_s`` (CPU seconds) ran
    out first; without it the line is simply a winning one.
    """
    started = time.perf_counter()
    cpu_started = time.process_time()
    position = state if isinstance(state, Position) else Position.of(state)
    selected = getattr(state, "selected", None)
    removals = winning_removals(position)
    if removals is None:
        return SolveResult(
            False,
            seconds=time.perf_counter() - started,
            cpu_seconds=time.process_time() - cpu_started,
        )
    steps = realize(position, removals)
    proven = False
    nodes = 0
    if optimal:
        line, finished, nodes = fewest_moves(position, upper=len(steps), budget_s=budget_s)
        if line is not None:
            steps = realize(position, line)
        proven = finished
    taps: list[Tap] = [] if selected is None else [selected]
    for step in steps:
        taps.extend(step.taps())
    return SolveResult(
        True,
        tuple(steps),
        proven,
        nodes,
        time.perf_counter() - started,
        tuple(taps),
        time.process_time() - cpu_started,
    )
