"""A heartsuit computer against another Hearts program: duplicate deals, the program in 3 seats.

    .venv/bin/python bench/hearts_external.py --driver /path/to/driver --program 1000x20 \\
        --deals 300 --workers 2 --out runs/hard-vs-ext1000x20.jsonl [--bot hard]

The arena (:func:`heartsuit.hearts.bots.arena.run_arena`) plays every deal four times, the
heartsuit computer (``--bot``, ``hard`` unless said) in each seat in turn and the other program
in the other three, standard rules with passing, and prints points per hand with 95% intervals,
the paired difference deal by deal, and the moons each side shot and let through. The results
file goes on from where a stopped run left off.

The other program is not part of heartsuit: it runs as a separate process (one per worker)
that answers one line per request on stdin/stdout. The seat asking is always seat 0 and the
others follow it in play order; cards are codes such as ``10H`` and ``QS``::

    PLAY <sims> <worlds> <seed> | <hand> | <dir> | <passed> | <received> | <tricks> | <trick>
         | <scores>
    PASS <sims> <worlds> <seed> | <hand> | <dir> | <scores>

(a PLAY request is one line; it is folded here).

``<dir>`` is ``hold``, ``left`` (to seat 1), ``right`` (to seat 3) or ``across``; ``<tricks>``
the completed tricks, ``;``-separated, each as its leader's seat then the four cards in play
order; ``<trick>`` the trick in progress the same way, or ``-``; ``<scores>`` the four match
totals. The answer is a card (PLAY) or three cards (PASS); ``ERR <reason>`` stops the run, as
does an answer that is not legal: a substitute card would measure something else.
(docs/hearts-bots.md, "Against a published program", names the program and how its driver
was built for the figures there.)
"""

from __future__ import annotations

import argparse
import atexit
import os
import subprocess
import sys
import time
from pathlib import Path

from heartsuit.cards import Card
from heartsuit.hearts.bots import Bot, make_bot
from heartsuit.hearts.bots.arena import run_arena
from heartsuit.hearts.rules import PassDirection
from heartsuit.hearts.view import SeatView

DRIVER_VARIABLE = "HEARTSUIT_EXTERNAL_DRIVER"  # how worker processes find the driver
PREFIX = "ext"  # bot names ext<sims>x<worlds>
RELATIVE_DIRECTION = {1: "left", 2: "across", 3: "right"}

_driver: subprocess.Popen[str] | None = None


class ExternalError(RuntimeError):
    """The other program refused a request or answered something not allowed."""


def _ask(line: str) -> str:
    global _driver
    if _driver is None or _driver.poll() is not None:
        path = os.environ.get(DRIVER_VARIABLE)
        if not path:
            raise ExternalError(f"set {DRIVER_VARIABLE} (or --driver) to the program's driver")
        _driver = subprocess.Popen(
            [path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )
        atexit.register(_driver.kill)
    assert _driver.stdin is not None and _driver.stdout is not None
    _driver.stdin.write(line + "\n")
    _driver.stdin.flush()
    answer = _driver.stdout.readline().strip()
    if not answer or answer.startswith("ERR"):
        raise ExternalError(f"{line}\n-> {answer or 'no answer (the driver stopped)'}")
    return answer


def _codes(cards: tuple[Card, ...]) -> str:
    return " ".join(c.code for c in cards)


class ExternalBot:
    """The other program in one seat, at ``sims`` simulations over ``worlds`` worlds."""

    def __init__(self, name: str, seed: int) -> None:
        sims, _, worlds = name.removeprefix(PREFIX).partition("x")
        if not (sims.isdigit() and worlds.isdigit()):
            raise ExternalError(f"name the program ext<sims>x<worlds>, not {name!r}")
        self.name = name
        self.sims, self.worlds, self.seed = int(sims), int(worlds), seed % 2**31

    def _request(self, kind: str, view: SeatView, *fields: str) -> str:
        n = view.rules.players
        scores = " ".join(str(view.scores[(view.seat + k) % n]) for k in range(n))
        head = f"{kind} {self.sims} {self.worlds} {self.seed}"
        return " | ".join((head, _codes(view.hand), self._direction(view), *fields, scores))

    def _direction(self, view: SeatView) -> str:
        if view.pass_direction is PassDirection.HOLD:
            return "hold"
        target = view.rules.pass_target(view.seat, view.pass_direction)
        return RELATIVE_DIRECTION[(target - view.seat) % view.rules.players]

    def choose_pass(self, view: SeatView) -> tuple[Card, ...]:
        request = self._request("PASS", view)
        answer = _ask(request)
        cards = tuple(Card.parse(code) for code in answer.split())
        if len(set(cards)) != view.rules.pass_count or not set(cards) <= set(view.hand):
            raise ExternalError(f"{request}\n-> {answer}: not a pass of this hand")
        return cards

    def choose_play(self, view: SeatView) -> Card:
        if len(view.legal) == 1:
            return view.legal[0]
        n = view.rules.players

        def trick(leader: int, plays: tuple[tuple[int, Card], ...]) -> str:
            return " ".join([str((leader - view.seat) % n), *(card.code for _, card in plays)])

        done = "; ".join(trick(t.leader, t.plays) for t in view.tricks)
        now = view.trick
        current = "-" if now is None or not now.plays else trick(now.leader, now.plays)
        request = self._request(
            "PLAY", view, _codes(view.passed), _codes(view.received), done, current
        )
        answer = _ask(request)
        card = Card.parse(answer)
        if card not in view.legal:
            raise ExternalError(f"{request}\n-> {answer}: not a legal card")
        return card


def factory(name: str, seed: int) -> Bot:
    """The arena's bots: ext<sims>x<worlds> is the other program, any other name heartsuit's."""
    if name.startswith(PREFIX):
        return ExternalBot(name, seed)
    return make_bot(name, seed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--driver", required=True, help="the other program's driver")
    parser.add_argument("--program", default="1000x20", help="<simulations>x<worlds>")
    parser.add_argument("--bot", default="hard", help="the heartsuit computer (a bot name)")
    parser.add_argument("--deals", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--out", help="results file (a stopped run goes on from it)")
    args = parser.parse_args()
    driver = Path(args.driver).resolve()
    if not os.access(driver, os.X_OK):
        parser.error(f"{driver} is not an executable driver")
    os.environ[DRIVER_VARIABLE] = str(driver)  # inherited by the arena's worker processes
    program = f"{PREFIX}{args.program}"
    factory(program, 0)  # a malformed --program fails here
    start = time.monotonic()
    result = run_arena(
        [args.bot, program, program, program],
        deals=args.deals,
        seed=args.seed,
        factory=factory,
        workers=args.workers,
        out=args.out,
        progress=sys.stderr.isatty(),
    )
    print(result.table())
    print(f"{time.monotonic() - start:.0f} s")


if __name__ == "__main__":
    main()
