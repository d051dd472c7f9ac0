"""Duplicate-deal matches between bots: hands or whole matches, on several cores, resumable.

Luck in Hearts is mostly the deal, so every deal is played once per seat rotation of the bots:
with ``n`` seats, rotation ``r`` puts the bot listed ``i``-th in seat ``(i + r) % n``. In hand
mode deal ``k`` is hand ``k`` of the match seeded ``seed`` (:func:`~heartsuit.hearts.game.
deal_seed`), so it passes in that hand's direction of the cycle; in match mode deal ``k`` is a
whole match to the rules' target, from the match seed :func:`match_seed` (its game code is
``format_code(preset, match_seed(seed, k))``), every rotation playing the same deals.
The numbers are in :mod:`heartsuit.hearts.bots.arena_result`.

Every hand is driven through the real engine by the same driver as every table
(:func:`heartsuit.hearts.driver.advance`), so each bot receives only its seat's view and each
decision is a fresh bot seeded from the deal, rotation, version and seat. A deal's result is
therefore a function of the settings and the deal alone (the time-budgeted ``search`` bot
aside: its choices depend on the machine), which is what lets deals run in any order on several
processes (``workers``) and lets a long run stop and go on from its results file (``out``):
one JSON line of settings, then one line per finished deal; a rerun with the same settings
skips the deals already there, and a file written with other settings is refused.
"""

from __future__ import annotations

import json
import multiprocessing
import pickle
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm import tqdm

from heartsuit.hearts.bots import Bot, make_bot
from heartsuit.hearts.bots.arena_result import (
    MODES,
    ArenaError,
    ArenaResult,
    BotScore,
    DealResult,
    Game,
    Mode,
    Moons,
    summarize,
)
from heartsuit.hearts.codes import SEED_COUNT
from heartsuit.hearts.driver import BotFactory, SeatPlayer, advance
from heartsuit.hearts.game import Hand
from heartsuit.hearts.match import Match
from heartsuit.hearts.rules import Rules
from heartsuit.shuffle import derive_seed

__all__ = [
    "ArenaError",
    "ArenaResult",
    "ArenaSettings",
    "BotScore",
    "DealResult",
    "Game",
    "Moons",
    "match_seed",
    "play_deal",
    "play_hand",
    "run_arena",
]

FILE_FORMAT = 1


@dataclass(frozen=True, slots=True)
class ArenaSettings:
    """Everything a deal's result depends on (the number of deals is not: a run can grow)."""

    bots: tuple[str, ...]
    rules: Rules
    seed: int
    mode: Mode = "hands"

    def to_dict(self) -> dict[str, Any]:
        return {
            "bots": list(self.bots),
            "rules": self.rules.to_dict(),
            "seed": self.seed,
            "mode": self.mode,
        }


def match_seed(seed: int, deal: int) -> int:
    """The match seed of deal ``deal`` in match mode (a valid game-code seed)."""
    return derive_seed(f"arena-matches/{seed}", deal) % SEED_COUNT


def play_hand(
    rules: Rules,
    seed: int,
    hand_number: int,
    names: Sequence[str],
    key: str,
    factory: BotFactory = make_bot,
) -> tuple[int, ...]:
    """One hand through the engine and the table driver, bot ``names[i]`` (built by
    ``factory``) in seat ``i``, decisions seeded under ``key``; each seat's points."""
    return _hand_game(rules, seed, hand_number, names, key, factory).points


def _hand_game(
    rules: Rules, seed: int, number: int, names: Sequence[str], key: str, factory: BotFactory
) -> Game:
    hand = Hand.deal(rules, seed, hand_number=number)
    advance(hand, [SeatPlayer.computer(name) for name in names], key, bots=factory)
    shooter = hand.moon_shooter()
    return Game(hand.points(), 1, () if shooter is None else (shooter,))


def _match_game(
    rules: Rules, seed: int, names: Sequence[str], key: str, factory: BotFactory
) -> Game:
    match = Match.new(rules, seed)
    advance(match, [SeatPlayer.computer(name) for name in names], key, bots=factory)
    sheet = match.score_sheet()
    points = tuple(sum(line.points[s] for line in sheet) for s in range(rules.players))
    shooters = tuple(line.shooter for line in sheet if line.shooter is not None)
    return Game(points, len(sheet), shooters, match.winners)


def play_deal(settings: ArenaSettings, deal: int, factory: BotFactory = make_bot) -> DealResult:
    """Deal ``deal`` in every seat rotation (seat ``s`` of rotation ``r`` holds the bot listed
    ``(s - r) % n``); decisions are seeded per deal and rotation."""
    names, rules, seed = settings.bots, settings.rules, settings.seed
    n = rules.players
    games = []
    for rotation in range(n):
        seats = [names[(s - rotation) % n] for s in range(n)]
        if settings.mode == "hands":
            key = f"arena/{seed}/{deal}/{rotation}"
            games.append(_hand_game(rules, seed, deal, seats, key, factory))
        else:
            key = f"arena-matches/{seed}/{deal}/{rotation}"
            games.append(_match_game(rules, match_seed(seed, deal), seats, key, factory))
    return DealResult(deal, tuple(games))


def run_arena(
    bot_names: Sequence[str],
    *,
    deals: int,
    seed: int = 0,
    rules: Rules | None = None,
    progress: bool = False,
    factory: Callable[[str, int], Bot] = make_bot,
    mode: Mode = "hands",
    workers: int = 1,
    out: str | Path | None = None,
) -> ArenaResult:
    """Play ``deals`` duplicate deals with every seat rotation of ``bot_names``.

    ``workers`` > 1 plays deals in that many processes (``factory`` must then be picklable:
    a module-level function). With ``out``, each finished deal is appended to that results
    file at once, and the deals already in it are not played again.
    """
    rules = rules if rules is not None else Rules()
    names = tuple(n.strip().lower() for n in bot_names)
    n = rules.players
    if len(names) != n:
        raise ArenaError(f"these rules seat {n} players: list {n} bots, not {len(names)}")
    if not isinstance(deals, int) or deals < 1:
        raise ArenaError(f"play at least one deal, not {deals!r}")
    if not isinstance(seed, int) or seed < 0:
        raise ArenaError(f"a seed is a non-negative whole number, not {seed!r}")
    if mode not in MODES:
        raise ArenaError(f"the mode is one of {', '.join(MODES)}, not {mode!r}")
    if not isinstance(workers, int) or workers < 1:
        raise ArenaError(f"use at least one worker, not {workers!r}")
    for name in set(names):
        factory(name, 0)  # an unknown name fails here, before any hand is played
    settings = ArenaSettings(names, rules, seed, mode)
    done = _load(Path(out), settings) if out is not None else {}
    todo = [d for d in range(deals) if d not in done]
    with (
        _Recorder(Path(out) if out is not None else None, settings) as record,
        tqdm(
            total=deals, initial=deals - len(todo), desc="deals", unit="deal",
            disable=not progress,
        ) as bar,
    ):
        for result in _play_all(settings, todo, factory, workers):
            done[result.deal] = result
            record(result)
            bar.update(1)
    return summarize(names, rules, seed, mode, [done[d] for d in range(deals)])


def _play_all(
    settings: ArenaSettings, deals: list[int], factory: BotFactory, workers: int
) -> Iterator[DealResult]:
    if workers == 1 or len(deals) <= 1:
        for deal in deals:
            yield play_deal(settings, deal, factory)
        return
    try:
        pickle.dumps(factory)
    except (pickle.PicklingError, AttributeError, TypeError) as exc:
        raise ArenaError(f"several workers need a module-level bot factory ({exc})") from exc
    # spawned, not forked: the parent may hold threads (the progress bar's monitor)
    context = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=context)
    try:
        # a few deals ahead of each worker, so a stop loses little and memory stays small
        pending: set[Future[DealResult]] = set()
        queue = iter(deals)
        for deal in queue:
            pending.add(pool.submit(play_deal, settings, deal, factory))
            if len(pending) >= 2 * workers:
                break
        while pending:
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                yield future.result()
                following = next(queue, None)
                if following is not None:
                    pending.add(pool.submit(play_deal, settings, following, factory))
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _load(path: Path, settings: ArenaSettings) -> dict[int, DealResult]:
    """The deals already in the results file at ``path`` (none if there is no file)."""
    if not path.exists() or path.stat().st_size == 0:
        return {}
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    if not text.endswith("\n"):
        # the last deal was cut off mid-line (the run was killed): drop it, it is played again
        lines = lines[:-1]
        path.write_text("\n".join(lines) + "\n" if lines else "", encoding="utf-8")
        if not lines:
            return {}
    try:
        header = json.loads(lines[0])
    except json.JSONDecodeError as exc:
        raise ArenaError(f"{path} is not an arena results file ({exc})") from exc
    if not isinstance(header, dict) or header.get("arena") != FILE_FORMAT:
        raise ArenaError(f"{path} is not an arena results file (format {FILE_FORMAT})")
    # compared as JSON reads them back (tuples become lists)
    theirs, ours = header.get("settings"), json.loads(json.dumps(settings.to_dict()))
    if theirs != ours:
        differ = sorted(k for k in ours if not isinstance(theirs, dict) or theirs.get(k) != ours[k])
        raise ArenaError(
            f"{path} holds deals played with other settings ({', '.join(differ)} differ); "
            "choose another file, or delete it to start over"
        )
    done: dict[int, DealResult] = {}
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        try:
            result = DealResult.from_dict(json.loads(line))
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise ArenaError(f"{path}, line {number}: not a deal's result ({exc})") from exc
        if len(result.games) != settings.rules.players:
            raise ArenaError(f"{path}, line {number}: a deal needs one game per rotation")
        done.setdefault(result.deal, result)
    return done


class _Recorder:
    """Appends each finished deal to the results file (and the settings line to a new one)."""

    def __init__(self, path: Path | None, settings: ArenaSettings) -> None:
        self.path, self.settings = path, settings
        self.file: Any = None

    def __enter__(self) -> Callable[[DealResult], None]:
        if self.path is not None:
            new = not self.path.exists() or self.path.stat().st_size == 0
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.file = self.path.open("a", encoding="utf-8")
            if new:
                header = {"arena": FILE_FORMAT, "settings": self.settings.to_dict()}
                self.file.write(json.dumps(header) + "\n")
                self.file.flush()
        return self.write

    def write(self, result: DealResult) -> None:
        if self.file is not None:
            self.file.write(json.dumps(result.to_dict(), separators=(",", ":")) + "\n")
            self.file.flush()

    def __exit__(self, *exc: object) -> None:
        if self.file is not None:
            self.file.close()
