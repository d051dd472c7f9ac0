"""The Examples page's won game, and the solver as the site uses it.

The example is a real deal, :data:`EXAMPLE_CODE`, chosen once offline (``python -m
heartsuit.server.solitaire.examples search 0
3000``): of deals 0..2999, 52 have a proven fewest-move win that pairs the tip with the waste's top
card at move 10, freeing the two cards the tip covered, as the seed's own example does; five of
those have a 4♥ at the tip, as the seed's has, and this is the shortest of the five (73 moves).
Nothing here is hand-written: the winning line comes from the solver and every frame from replaying
it through the engine, with the info bar (score, moves, time) as it stands after each move. A test
re-checks the pinned deal.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any, Final

from heartsuit.server.solitaire.frames import game_view
from heartsuit.solitaire import Game, Target, solve
from heartsuit.solitaire.codes import deal_cards, deal_for_code
from heartsuit.solitaire.layout import TIP
from heartsuit.solitaire.solver import decide

#: the pinned example deal (see the module docstring; verified by tests/test_server_examples.py)
EXAMPLE_CODE: Final = "HH1-N-AAAABXT"
#: the move at which the seed's example pairs the tip with the waste ("langkah ke-10")
TIP_MOVE: Final = 10
#: an illustrative pace for the replay's clock: the game is solved, not played, so its time
#: is made up — a steady second and a half per tap
PACE_MS: Final = 1500


#: the optimal search's time limit for the example: generous, because a line found under a
#: tighter limit on a busy machine could differ from the pinned, proven one
EXAMPLE_BUDGET_S: Final = 60.0


def winning_moves(code: str, budget_s: float = EXAMPLE_BUDGET_S) -> list[list[Target]] | None:
    """The solver's fewest-move win of a deal, as the taps of each move; None if unwinnable."""
    solution = solve(deal_for_code(code), budget_s=budget_s)
    if not solution.winnable:
        return None
    return [list(step.taps()) for step in solution.steps]


def deal_is_winnable(code: str) -> bool:
    """Whether the deal of ``code`` can be won (exact and fast; for "winnable deals only")."""
    return decide(deal_for_code(code))


def frames(code: str, moves: Sequence[Sequence[Target]]) -> list[dict[str, Any]]:
    """Frame 0 is the deal; frame n is the game after move n, replayed through the engine."""
    game = Game.from_code(code, now=0.0)
    now_ms = 0

    def frame(number: int, taps: Sequence[Target]) -> dict[str, Any]:
        view = game_view(
            game, game_id="example", started_at_ms=0, now_ms=now_ms, placement_help=True
        )
        return {"move": number, "taps": list(taps), "game": view.model_dump(mode="json")}

    out = [frame(0, [])]
    for number, move in enumerate(moves, start=1):
        for tap in move:
            now_ms += PACE_MS
            game.tap(tap, now=now_ms / 1000)
        out.append(frame(number, move))
    return out


def example_document(code: str = EXAMPLE_CODE) -> dict[str, Any]:
    """The body of ``GET /api/examples``: the deal code and one frame per move."""
    moves = winning_moves(code)
    if moves is None:
        raise ValueError(f"the example deal {code} cannot be won")
    return {"code": code, "frames": frames(code, moves)}


def tip_meets_waste(moves: Sequence[Sequence[Target]], at: int = TIP_MOVE) -> bool:
    """Whether move ``at`` (1-based) pairs the tip with the waste's top card."""
    return len(moves) >= at and set(moves[at - 1]) == {TIP, "waste"}


def search(first: int, count: int, budget_s: float = 5.0) -> list[tuple[str, int, bool]]:
    """Deals in ``first .. first+count-1`` whose fewest-move win pairs the tip with the waste at
    move 10: (code, moves, proven optimal). The offline search behind :data:`EXAMPLE_CODE`."""
    found: list[tuple[str, int, bool]] = []
    for number in range(first, first + count):
        deal = deal_cards(number)
        if not decide(deal):
            continue
        solution = solve(deal, budget_s=budget_s)
        moves = [list(step.taps()) for step in solution.steps]
        if tip_meets_waste(moves):
            found.append((deal.code, len(moves), solution.optimal))
    return found


if __name__ == "__main__":  # pragma: no cover - the offline search, run by hand
    start, size = (int(arg) for arg in sys.argv[2:4]) if len(sys.argv) >= 4 else (0, 3000)
    for hit in search(start, size):
        print(*hit, flush=True)
