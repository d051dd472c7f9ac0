"""The Examples page's won game, and the solver as the site uses it.

The example is a real deal, :data:`EXAMPLE_CODE`, chosen once offline (``python -m
heartsuit.server.examples search``) among the first few thousand deal numbers: the solver's
shortest win of it pairs the tip with the waste's top card at move 10, freeing the two cards
the tip covered, as the seed's own example does. Nothing here is hand-written: the winning line
comes from the solver and every frame from replaying it through the engine, with the info bar
(score, moves, time) as it stands after each move. A test re-checks the pinned deal.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterable, Sequence
from typing import Any, Final

from heartsuit.server.solitaire_view import game_view
from heartsuit.solitaire import Game, Target
from heartsuit.solitaire.codes import format_code
from heartsuit.solitaire.layout import TIP
from heartsuit.solitaire.taps import check_target

#: the pinned example deal (see the module docstring; verified by tests/test_server_examples.py)
EXAMPLE_CODE: Final = "HH1-N-AAAAAAM"
#: the move at which the seed's example pairs the tip with the waste ("langkah ke-10")
TIP_MOVE: Final = 10
#: an illustrative pace for the replay's clock: the game is solved, not played, so its time
#: is made up — a steady second and a half per tap
PACE_MS: Final = 1500


def _solver() -> Any:
    return importlib.import_module("heartsuit.solitaire.solver")


def winning_taps(code: str) -> list[Target] | None:
    """The solver's shortest winning line of taps for a deal, or None if it cannot be won."""
    solution = _solver().solve(Game.from_code(code))
    if not solution.winnable:
        return None
    return list(_flatten(solution.moves))


def deal_is_winnable(code: str) -> bool:
    """Whether the deal of ``code`` can be won (for "winnable deals only")."""
    return bool(_solver().solve(Game.from_code(code)).winnable)


def _flatten(moves: Iterable[Any]) -> Iterable[Target]:
    for move in moves:
        if isinstance(move, int | str):
            yield check_target(move)
        else:
            yield from (check_target(tap) for tap in move)


def split_moves(code: str, taps: Sequence[Target]) -> list[list[Target]]:
    """Group a line of taps into moves (a flip, a redeal, or the taps ending in a pair)."""
    game = Game.from_code(code)
    moves: list[list[Target]] = []
    current: list[Target] = []
    for tap in taps:
        current.append(tap)
        if game.tap(tap).is_move:
            moves.append(current)
            current = []
    if current:
        raise ValueError(f"the line of taps ends in the middle of a move: {current}")
    return moves


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
    taps = winning_taps(code)
    if taps is None:
        raise ValueError(f"the example deal {code} cannot be won")
    return {"code": code, "frames": frames(code, split_moves(code, taps))}


def tip_meets_waste(code: str, moves: Sequence[Sequence[Target]], at: int = TIP_MOVE) -> bool:
    """Whether move ``at`` (1-based) pairs the tip with the waste's top card."""
    return len(moves) >= at and set(moves[at - 1]) == {TIP, "waste"}


def search(first: int, count: int) -> list[tuple[str, int]]:
    """Deals in ``first .. first+count-1`` whose shortest win pairs the tip with the waste at
    move 10, with their win's length (the offline search behind :data:`EXAMPLE_CODE`)."""
    found: list[tuple[str, int]] = []
    for number in range(first, first + count):
        code = format_code(number)
        taps = winning_taps(code)
        if taps is None:
            continue
        moves = split_moves(code, taps)
        if tip_meets_waste(code, moves):
            found.append((code, len(moves)))
    return found


if __name__ == "__main__":  # pragma: no cover - the offline search, run by hand
    start, size = (int(arg) for arg in sys.argv[2:4]) if len(sys.argv) >= 4 else (0, 3000)
    for hit_code, length in search(start, size):
        print(hit_code, length, flush=True)
