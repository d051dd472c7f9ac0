"""What `hard` would need to know to stop the moon hunters: moons let through when it is told
where some hidden cards are.

    .venv/bin/python bench/hearts_moon_bounds.py --deals 120 --reveal none,all,hearts,high \\
        [--when start|1|8] [--pass] [--oracle docs/arena/hard-vs-moonhunter-close.jsonl] \\
        [--workers 2]

Each deal is played four times, `hard` in each seat in turn against three `moonhunter`s, with
the decisions seeded as the arena seeds them (so ``--reveal none`` is the arena's own
``moons`` comparison for ``hard``, deal for deal). While it plays a card (the pass is told
nothing unless ``--pass``), `hard`'s search is given more than its seat sees:

* ``all``: every world it samples is the true deal;
* ``hearts``, ``highhearts`` (J♥ and up), ``high`` (every queen, king and ace), ``top`` (every
  king and ace), ``queen`` (Q♠): those cards are pinned to the seats that truly hold them, the
  rest dealt at random as usual;
* ``threat``: the hint ``oracle`` gives (below), for the seat the public play names
  (:func:`heartsuit.hearts.bots.search.moon_threat`, from ``--when`` points or 1): nothing
  beyond what the seat sees, a rule a player could use;
* ``oracle``: no card is shown, but the worlds doubt (``sampling.runner_hint``) that any
  seat but the one that shot the moon against `hard` in the same hand of the ``--oracle``
  results file holds a queen, king or ace or a heart from the jack up: a perfect detector of
  the seat that will run, fed to the sampling as a hint.

``--pass`` also tells `hard`'s pass the deal: the pass search's worlds are the true hands
before the pass (the other seats' passes are still its model's guesses), whatever
``--reveal`` says of the card play.

``--when 1`` (or 8) tells it only while one other seat has taken every point so far and at
least that many (:func:`heartsuit.hearts.bots.search.moon_threat`); ``start`` from the first
card. It prints, per reveal, the moons let through and `hard`'s points a hand. The search is
changed by patching this process's (and its workers') ``search`` module, so this is a
measurement, never a player.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Callable, MutableSequence
from dataclasses import replace
from multiprocessing import Pool
from pathlib import Path
from typing import Any

from heartsuit.cards import Card
from heartsuit.hearts import Hand, Rules
from heartsuit.hearts.bots import make_bot, search
from heartsuit.hearts.bots.arena_result import DealResult
from heartsuit.hearts.bots.passing import PassConfig
from heartsuit.hearts.bots.sampling import Knowledge, runner_hint
from heartsuit.hearts.driver import SeatPlayer, advance
from heartsuit.hearts.fast_tables import card_index
from heartsuit.hearts.view import SeatView

HUNTER = "moonhunter"
SEED = 1  # the arena suite's seed (its results files are of seed 1)
CLASSES: dict[str, Callable[[int], bool]] = {
    "hearts": lambda i: i // 13 == 2,
    "highhearts": lambda i: i // 13 == 2 and i % 13 >= 9,
    "high": lambda i: i % 13 >= 10,
    "top": lambda i: i % 13 >= 11,
    "queen": lambda i: i == 3 * 13 + 10,
}
REVEALS = ("none", "all", "oracle", "threat", *CLASSES)

_hand: Hand | None = None  # the hand being played (the truth the patched search reads)
_shooter = -1  # the oracle's runner in this hand (-1: none)
_seat = -1  # hard's seat in this hand: only its searches are told (the hunters search too)
_reveal = "none"
_when = 0  # reveal only while moon_threat(view, _when) names a seat (0: from the start)
_pass = False  # also tell hard's pass the deal
_original_knowledge = search.knowledge
_original_choose_pass = search.choose_pass_by_playouts
_original_world_masks = search._Search.world_masks


def parse_reveals(text: str) -> list[str]:
    reveals = [r.strip() for r in text.split(",") if r.strip()]
    bad = [r for r in reveals if r not in REVEALS]
    if not reveals or bad:
        raise ValueError(f"reveal one or more of {', '.join(REVEALS)}, not {text!r}")
    return reveals


def parse_when(text: str) -> int:
    if text == "start":
        return 0
    if not text.isdigit() or int(text) < 1:
        raise ValueError(f"--when is 'start' or a number of points from 1, not {text!r}")
    return int(text)


def _told(view: SeatView) -> bool:
    if _hand is None or view.seat != _seat:
        return False
    return _when == 0 or search.moon_threat(view, _when) >= 0


def revealed(know: Knowledge, hand: Hand, reveal: str) -> Knowledge:
    """``know`` with the cards of class ``reveal`` allowed only in the seats that hold them."""
    test = CLASSES[reveal]
    allowed = list(know.allowed)
    for holder in range(know.players):
        if holder == know.seat:
            continue
        for card in hand.view(holder).hand:
            index = card_index(card)
            if test(index):
                for seat in range(know.players):
                    if seat != holder:
                        allowed[seat] &= ~(1 << index)
    return replace(know, allowed=tuple(allowed))


def _knowledge(view: SeatView, soft: bool = True, hints: bool = False) -> Knowledge:
    know = _original_knowledge(view, soft, hints)
    if _hand is None or _reveal in ("none", "all") or view.seat != _seat:
        return know
    if _reveal != "threat" and not _told(view):
        return know
    if _reveal == "oracle":
        return runner_hint(know, _shooter) if _shooter not in (-1, view.seat) else know
    if _reveal == "threat":
        threat = search.moon_threat(view, max(_when, 1))
        return runner_hint(know, threat) if threat >= 0 else know
    return revealed(know, _hand, _reveal)


def _world_masks(self: search._Search) -> list[list[int]]:
    if _reveal != "all" or _hand is None or not _told(self.view):
        return _original_world_masks(self)
    hand = _hand
    world = [
        [] if s == self.me else sorted(card_index(c) for c in hand.view(s).hand)
        for s in range(self.table.players)
    ]
    return [*world, []]  # the kitty's slot (none in these rules)


def set_hand(hand: Hand | None, seat: int = -1, shooter: int = -1) -> None:
    """The hand being played (None: none), the seat told, and the oracle's runner in it."""
    global _hand, _seat, _shooter
    _hand, _seat, _shooter = hand, seat, shooter


class _TrueDeal(random.Random):
    """A pass search's generator whose shuffle deals the true hands: the pass search deals
    the cards it does not hold to the other seats in seat order, from one shuffled list."""

    def __init__(self, rng: random.Random, order: list[int]) -> None:
        super().__init__()
        self.rng = rng
        self.order = order

    def random(self) -> float:
        return self.rng.random()

    def shuffle(self, x: MutableSequence[Any]) -> None:  # type: ignore[override]
        if sorted(x) != sorted(self.order):
            raise AssertionError("the pass search deals other cards than the true hands")
        x[:] = self.order


def _choose_pass(
    view: SeatView, config: PassConfig, rng: random.Random
) -> tuple[tuple[Card, ...], int]:
    hand = _hand
    if not _pass or hand is None or view.seat != _seat:
        return _original_choose_pass(view, config, rng)
    order = [
        card_index(c)
        for seat in range(view.rules.players)
        if seat != view.seat
        for c in hand.view(seat).hand
    ]
    return _original_choose_pass(view, config, _TrueDeal(rng, order))


def install(reveal: str, when: int, tell_pass: bool = False) -> None:
    """Patch this process's search to be told what ``reveal`` names (``when`` as --when;
    ``tell_pass``: the pass is told the deal too)."""
    global _reveal, _when, _pass
    _reveal, _when, _pass = reveal, when, tell_pass
    search.knowledge = _knowledge  # type: ignore[assignment]
    search._Search.world_masks = _world_masks  # type: ignore[method-assign]
    search.choose_pass_by_playouts = _choose_pass


def play_deal(deal: int, oracle: dict[tuple[int, int], int]) -> list[tuple[int, int, int]]:
    """Deal ``deal`` with `hard` in each seat: per rotation, `hard`'s seat, the moon shooter
    (-1: none) and `hard`'s points."""
    names = ["hard", HUNTER, HUNTER, HUNTER]
    out = []
    for rotation in range(4):
        seats = [names[(s - rotation) % 4] for s in range(4)]
        hand = Hand.deal(Rules(), SEED, hand_number=deal)
        set_hand(hand, rotation, oracle.get((deal, rotation), -1))
        try:
            players = [SeatPlayer.computer(name) for name in seats]
            advance(hand, players, f"arena/{SEED}/{deal}/{rotation}", bots=_bot)
        finally:
            set_hand(None)
        shooter = hand.moon_shooter()
        out.append((rotation, -1 if shooter is None else shooter, hand.points()[rotation]))
    return out


def _bot(name: str, seed: int) -> search.SearchBot:
    bot = make_bot(name, seed)
    assert isinstance(bot, search.SearchBot)
    return bot


def read_oracle(path: Path) -> dict[tuple[int, int], int]:
    """(deal, rotation) -> the seat that shot the moon against the one-against seat, from an
    arena results file of `hard` (or any bot) against three others."""
    out: dict[tuple[int, int], int] = {}
    for line in path.read_text().splitlines()[1:]:  # the first line holds the settings
        result = DealResult.from_dict(json.loads(line))
        for rotation, game in enumerate(result.games):
            shooters = [s for s in game.shooters if s != rotation]
            if shooters:
                out[(result.deal, rotation)] = shooters[0]
    return out


def _work(args: tuple[int, dict[tuple[int, int], int]]) -> list[tuple[int, int, int]]:
    return play_deal(*args)


def measure(
    reveal: str,
    when: int,
    deals: int,
    workers: int,
    oracle: dict[tuple[int, int], int],
    tell_pass: bool = False,
) -> tuple[int, float]:
    """Moons let through by `hard` over ``deals`` deals × 4, and its points a hand."""
    jobs = [(deal, oracle) for deal in range(deals)]
    if workers > 1:
        with Pool(workers, initializer=install, initargs=(reveal, when, tell_pass)) as pool:
            results = pool.map(_work, jobs)
    else:
        install(reveal, when, tell_pass)
        results = [_work(job) for job in jobs]
    games = [game for result in results for game in result]
    conceded = sum(1 for rotation, shooter, _ in games if shooter not in (-1, rotation))
    points = sum(p for _, _, p in games) / len(games)
    return conceded, points


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=120)
    parser.add_argument("--reveal", default="none,all,hearts,highhearts,high,top,queen")
    parser.add_argument("--when", default="start")
    parser.add_argument("--oracle", type=Path, default=None)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--pass", dest="tell_pass", action="store_true", help="tell the pass too")
    args = parser.parse_args()
    try:
        reveals = parse_reveals(args.reveal)
        when = parse_when(args.when)
    except ValueError as exc:
        parser.error(str(exc))
    if args.deals < 1 or args.workers < 1:
        parser.error("--deals and --workers are at least 1")
    if "oracle" in reveals and args.oracle is None:
        parser.error("--reveal oracle needs --oracle RESULTS.jsonl (hard against 3 hunters)")
    oracle = read_oracle(args.oracle) if args.oracle is not None else {}
    told = "; the pass told the deal" if args.tell_pass else ""
    print(f"hard against 3 {HUNTER}s, {args.deals} deals × 4, told from {args.when}{told}")
    for reveal in reveals:
        conceded, points = measure(reveal, when, args.deals, args.workers, oracle, args.tell_pass)
        hands = 4 * args.deals
        print(f"{reveal:11} moons let through {conceded:3}/{hands}  points a hand {points:.2f}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
