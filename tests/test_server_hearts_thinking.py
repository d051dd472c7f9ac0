"""The computer players' pool of worker processes (server/hearts/thinking_pool.py).

- The pool makes the choice the serving process makes: the same function, the same seed, over
  positions of every preset and the levels that think in a worker.
- Only the seat's view crosses into a worker: a pickled view is a plain SeatView naming no
  card the seat may not know.
- A worker killed in the middle of a decision (it exits, or the test kills its pid under a
  table's turn) is replaced and the turn tried again; the table goes on.
- A slow worker holds up neither another table's computers nor a person's action.
- A stop with a decision in flight ends, and leaves no worker behind.
- The setting: one worker per core for ``heartsuit serve``, ``HEARTSUIT_HEARTS_THINKERS``, 0.

The workers run functions of this module (``think=``): a worker imports it by name, as it does
:func:`heartsuit.hearts.driver.decide`.
"""

from __future__ import annotations

import asyncio
import os
import pickle
import signal
import statistics
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import fields, is_dataclass
from functools import partial
from itertools import pairwise
from pathlib import Path

import pytest

from heartsuit.cards import Card
from heartsuit.hearts import Match, Rules, SeatView
from heartsuit.hearts.actions import Action, Pass
from heartsuit.hearts.driver import SeatPlayer, advance, computer_action, computer_seed, decide
from heartsuit.server.core.bus import LocalBus
from heartsuit.server.core.settings import Settings, SettingsError, sqlite_url
from heartsuit.server.hearts.game import hearts_game
from heartsuit.server.hearts.live_table import LiveTable, LogEntry, SeatRecord, TableRecord
from heartsuit.server.hearts.protocol import HeartsCreate, SeatChoice, TableOptions
from heartsuit.server.hearts.service import HeartsService
from heartsuit.server.hearts.settings import HeartsSettings
from heartsuit.server.hearts.store import SqlTableStore
from heartsuit.server.hearts.thinking_pool import IN_PROCESS_LEVELS, ThinkingPool
from heartsuit.server.site.app import create_app
from heartsuit.server.storage.db import Database

# --- what the workers run ----------------------------------------------------------------------


def die_once(marker: str, view: SeatView, level: str, seed: int) -> Action:
    """The first decision ends its worker, as a process killed mid-decision would end; then
    the level decides as usual."""
    path = Path(marker)
    if not path.exists():
        path.write_text(str(os.getpid()))
        os._exit(9)
    return decide(view, level, seed)


def held(seconds: float, view: SeatView, level: str, seed: int) -> Action:
    """A decision that takes ``seconds`` (a search on a busy server), then the level's own."""
    time.sleep(seconds)
    return decide(view, level, seed)


def hard_waits(folder: str, view: SeatView, level: str, seed: int) -> Action:
    """A ``hard`` decision says which worker thinks (a file ``thinking-<pid>``) and waits for
    the test's word (a file ``release``) before it decides as ``normal``: a slow worker whose
    end the test chooses. Other levels decide at once."""
    if level == "hard":
        Path(folder, f"thinking-{os.getpid()}").write_text("")
        while not Path(folder, "release").exists():
            time.sleep(0.01)
        level = "normal"
    return decide(view, level, seed)


# --- helpers -----------------------------------------------------------------------------------


@asynccontextmanager
async def pool_of(workers: int, **options: object) -> AsyncIterator[ThinkingPool]:
    pool = ThinkingPool(workers, **options)  # type: ignore[arg-type]
    await pool.start()
    try:
        yield pool
    finally:
        await asyncio.wait_for(pool.stop(), 60)


@asynccontextmanager
async def service_on(
    path: Path, thinking: ThinkingPool, pace_ms: int = 0
) -> AsyncIterator[HeartsService]:
    db = Database(sqlite_url(path))
    await db.open()
    service = HeartsService(
        SqlTableStore(db),
        bus=LocalBus(),
        clock=lambda: int(time.time() * 1000),
        pace_ms=pace_ms,
        thinking=thinking,
    )
    await service.start()
    try:
        yield service
    finally:
        await asyncio.wait_for(service.stop(), 60)
        await db.close()


async def computer_table(service: HeartsService, level: str) -> tuple[str, str]:
    """A table of one person (seat 0) and three computers at ``level``: its id and the token."""
    seats = [SeatChoice(kind="human")] + [SeatChoice(kind="computer", level=level)] * 3  # type: ignore[arg-type]
    created = await service.create(
        HeartsCreate(type="hearts.create", mode="computer", seats=seats), "Me"
    )
    return created.live.record.id, created.tokens[0]


async def until(check: object, what: str, seconds: float = 120) -> None:
    """Wait (a hang guard, not a measure) until ``check()`` holds."""
    deadline = time.monotonic() + seconds
    while not check():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {seconds} s for {what}")
        await asyncio.sleep(0.02)


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def positions() -> Iterator[tuple[str, SeatView, int]]:
    """Seat views (with their seeds) along matches of every preset, computers playing."""
    for name in ("standard", "three", "five", "omnibus", "black-maria", "cancellation"):
        rules = Rules.preset(name, target=30) if name != "cancellation" else Rules.preset(
            name, players=6, target=30
        )
        match = Match.new(rules, seed=len(name))
        players = [SeatPlayer.computer("easy")] * rules.players
        for step in range(60):
            seat = match.awaiting()[0]
            if step % 6 == 0:
                yield name, match.view(seat), computer_seed(f"pos/{name}", match.version, seat)
            advance(match, players, f"pos/{name}", max_actions=1)


def cards_in(value: object) -> Iterator[Card]:
    if isinstance(value, Card):
        yield value
    elif isinstance(value, tuple):
        for item in value:
            yield from cards_in(item)
    elif is_dataclass(value):
        for field in fields(value):
            yield from cards_in(getattr(value, field.name))


# --- the same choice, and only the view -----------------------------------------------------


def test_the_pool_makes_the_choice_the_serving_process_makes() -> None:
    found = list(positions())
    asked = [
        (view, level, seed)
        for i, (_, view, seed) in enumerate(found)
        for level in ("normal", "heuristic", "random", *(("hard",) if i % 10 == 0 else ()))
    ]
    assert not IN_PROCESS_LEVELS & {"normal", "hard", "heuristic", "random"}  # all cross

    async def run() -> list[Action]:
        async with pool_of(2) as pool:
            return list(await asyncio.gather(*(pool.decide(*question) for question in asked)))

    from_pool = asyncio.run(run())
    assert len({name for name, _, _ in found}) == 6 and len(asked) > 150
    assert from_pool == [decide(view, level, seed) for view, level, seed in asked]


def test_what_crosses_into_a_worker_is_the_seats_view_alone() -> None:
    for _, view, _ in positions():
        crossed = pickle.loads(pickle.dumps(view))
        assert type(crossed) is SeatView and crossed == view
        known = {*view.hand, *view.passed, *view.received, *view.kitty, *view.held_over}
        for trick in (*view.tricks, *((view.trick,) if view.trick else ())):
            known.update(card for _, card in trick.plays)
        # the rules name cards too (the pack, the point cards): public, the same for all
        private = [getattr(crossed, f.name) for f in fields(crossed) if f.name != "rules"]
        assert set(cards_in(tuple(private))) <= known


# --- workers that die, stall, and a stop ---------------------------------------------------


def test_a_worker_that_dies_mid_decision_is_replaced_and_the_decision_retried(
    tmp_path: Path,
) -> None:
    marker = tmp_path / "died"
    view = Match.new(Rules(), seed=4).view(2)

    async def run() -> None:
        async with pool_of(1, think=partial(die_once, str(marker))) as pool:
            first = pool.pids()
            action = await pool.decide(view, "normal", 11)
            assert action == decide(view, "normal", 11)
            assert pool.replaced == 1
            assert int(marker.read_text()) in first and not alive(int(marker.read_text()))
            assert pool.pids() and not set(pool.pids()) & set(first)

    asyncio.run(run())


def test_a_worker_killed_under_a_tables_turn_is_replaced_and_the_table_goes_on(
    tmp_path: Path,
) -> None:
    async def run() -> None:
        pool = ThinkingPool(1, think=partial(hard_waits, str(tmp_path)))
        async with service_on(tmp_path / "t.sqlite3", pool) as service:
            table_id, _ = await computer_table(service, "hard")
            live = await service.table(table_id)
            version = live.version
            await until(lambda: list(tmp_path.glob("thinking-*")), "a worker thinking")
            (thinking,) = tmp_path.glob("thinking-*")
            victim = int(thinking.name.removeprefix("thinking-"))
            thinking.unlink()
            os.kill(victim, signal.SIGKILL)  # mid-decision, under the table's lock
            (tmp_path / "release").write_text("")
            # the turn is tried again on a new worker; the three computers pass
            await until(lambda: live.version >= version + 3, "the computers' passes")
            assert pool.replaced == 1 and victim not in pool.pids()
            assert live.match is not None and live.match.hand.phase.value == "pass"
            assert live.awaiting() == (0,)  # only the person's pass is missing

    asyncio.run(run())


def test_a_slow_worker_holds_up_neither_another_table_nor_a_person(tmp_path: Path) -> None:
    async def run() -> None:
        pool = ThinkingPool(2, think=partial(hard_waits, str(tmp_path)))
        async with service_on(tmp_path / "t.sqlite3", pool) as service:
            slow_id, _ = await computer_table(service, "hard")
            slow = await service.table(slow_id)
            await until(lambda: list(tmp_path.glob("thinking-*")), "the hard computer thinking")
            stuck_at = slow.version
            # meanwhile, at another table: its computers pass, its person passes, and the
            # computers play on until the person's turn
            quick_id, token = await computer_table(service, "normal")
            quick = await service.table(quick_id)
            await until(lambda: quick.awaiting() == (0,), "the other table's computers")
            assert quick.match is not None
            hand = quick.match.view(0).hand
            await service.act(quick_id, token, Pass(0, tuple(hand[:3])), quick.version)
            await until(lambda: 0 in quick.awaiting(), "the other table's computers playing")
            assert quick.match.hand.phase.value == "play"
            # all the while the hard decision was still out, and its table waited
            assert slow.version == stuck_at and list(tmp_path.glob("thinking-*"))
            (tmp_path / "release").write_text("")
            await until(lambda: slow.version >= stuck_at + 3, "the slow table going on")

    asyncio.run(run())


def test_a_persons_pass_does_not_wait_for_the_computers_thinking_at_its_table(
    tmp_path: Path,
) -> None:
    async def run() -> None:
        pool = ThinkingPool(2, think=partial(hard_waits, str(tmp_path)))
        async with service_on(tmp_path / "t.sqlite3", pool) as service:
            table_id, token = await computer_table(service, "hard")
            live = await service.table(table_id)
            await until(lambda: list(tmp_path.glob("thinking-*")), "a hard computer thinking")
            assert live.match is not None
            before = live.version
            hand = live.match.view(0).hand
            # the computers' passes are being decided: the person's pass is logged now
            await asyncio.wait_for(
                service.act(table_id, token, Pass(0, tuple(hand[:3])), live.version), 30
            )
            live = await service.table(table_id)
            assert live.version == before + 1 and 0 not in live.awaiting()
            assert list(tmp_path.glob("thinking-*")) and not (tmp_path / "release").exists()
            (tmp_path / "release").write_text("")
            # the computers' choices were made on the table before the person's pass: made
            # again on the new one, then logged
            await until(
                lambda: live.match is not None and live.match.hand.phase.value == "play",
                "the computers' passes",
            )
            assert service.turns.decided_again >= 1

    asyncio.run(run())


def test_a_persons_pass_within_the_pace_makes_no_computer_decide_again(tmp_path: Path) -> None:
    """Passes are simultaneous: the computers wait out the pace before deciding theirs, so a
    person who passes within it costs no pass decided twice (decided first, each computer's
    pass would be made again on the table after the person's)."""
    passes: list[int] = []

    def counted(view: SeatView, level: str, seed: int) -> Action:
        if view.must_pass:
            passes.append(view.seat)
        return decide(view, level, seed)

    async def run() -> None:
        pool = ThinkingPool(0, think=counted)
        async with service_on(tmp_path / "t.sqlite3", pool, pace_ms=600) as service:
            table_id, token = await computer_table(service, "normal")
            live = await service.table(table_id)
            assert live.match is not None
            await asyncio.sleep(0.2)  # well within the pace of 600 ms
            hand = live.match.view(0).hand
            await service.act(table_id, token, Pass(0, tuple(hand[:3])), live.version)
            await until(
                lambda: live.match is not None and live.match.hand.phase.value == "play",
                "the computers' passes",
            )
            assert service.turns.decided_again == 0
            assert sorted(passes) == [1, 2, 3]

    asyncio.run(run())


def test_a_stop_with_a_decision_in_flight_ends_and_leaves_no_worker(tmp_path: Path) -> None:
    async def run() -> None:
        pool = ThinkingPool(1, think=partial(hard_waits, str(tmp_path)))
        service_ctx = service_on(tmp_path / "t.sqlite3", pool)
        service = await service_ctx.__aenter__()
        await computer_table(service, "hard")
        await until(lambda: list(tmp_path.glob("thinking-*")), "a worker thinking")
        workers = pool.pids()
        assert workers
        # the decision never ends by itself (nobody releases it): the stop ends it
        await service_ctx.__aexit__(None, None, None)
        assert pool.pids() == []
        await until(lambda: not any(alive(pid) for pid in workers), "the workers gone", 10)

    asyncio.run(run())


# --- the pace ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pace_ms", "think_s"),
    [(800, 0.5), (500, 1.2)],
    ids=["thinking shorter than the pace", "thinking longer than the pace"],
)
def test_the_thinking_is_part_of_the_pace_not_added_to_it(
    tmp_path: Path, pace_ms: int, think_s: float
) -> None:
    """Each computer card comes max(pace, thinking) after the change before it (twice the pace
    after a finished trick), not the pace plus the thinking; and it is still the card its
    view and seed give."""

    async def run() -> tuple[TableRecord, list[SeatRecord], list[LogEntry]]:
        pool = ThinkingPool(0, think=partial(held, think_s))
        async with service_on(tmp_path / "t.sqlite3", pool, pace_ms=pace_ms) as service:
            seats = [SeatChoice(kind="human")] + [SeatChoice(kind="computer", level="normal")] * 3
            created = await service.create(
                HeartsCreate(
                    type="hearts.create",
                    mode="computer",
                    seats=seats,
                    options=TableOptions(passing=False),
                ),
                "Me",
            )
            table_id, token = created.live.record.id, created.tokens[0]
            live = await service.table(table_id)
            start = live.version
            deadline = time.monotonic() + 60  # a hang guard, not a measure
            while live.version < start + 9:  # two tricks and a card: ~7 computer cards
                assert time.monotonic() < deadline, "the computers stopped playing"
                if live.awaiting() == (0,) and live.match is not None:
                    action = computer_action(live.match, 0, "easy", "me")
                    await service.act(table_id, token, action, live.version)
                await asyncio.sleep(0.01)
            found = await service.store.get_table(table_id)
            assert found is not None
            return found

    record, seats, entries = asyncio.run(run())
    table = LiveTable.replay(record, seats, [])
    excess: list[int] = []
    for before, entry in pairwise(entries):
        table.apply(before, replaying=True)
        if entry.kind != "action" or entry.data["seat"] == 0:
            continue
        seat = int(entry.data["seat"])
        match = table.match
        assert match is not None
        trick = match.hand.view(0).trick
        pace = pace_ms * (2 if trick is None or not trick.plays else 1)
        expected = max(pace, think_s * 1000)
        gap = entry.at_ms - before.at_ms
        assert gap >= expected - 15, (entry, gap, expected)
        excess.append(gap - int(expected))
        seed = computer_seed(f"{record.id}/0", match.version, seat)
        assert entry.data == decide(match.view(seat), "normal", seed).to_dict()
    assert len(excess) >= 5
    # the thinking added to the pace would be 500 ms or more each time: what is measured is
    # the serving's own few milliseconds (generous for a loaded machine)
    assert statistics.median(excess) < 300, excess


# --- the setting ----------------------------------------------------------------------------


def test_serve_thinks_in_one_worker_per_core_unless_told() -> None:
    assert HeartsSettings().thinkers == 0  # settings made in code: in process
    assert HeartsSettings.from_env({}).thinkers == (os.cpu_count() or 1)
    assert HeartsSettings.from_env({"HEARTSUIT_HEARTS_THINKERS": "3"}).thinkers == 3
    assert HeartsSettings.from_env({"HEARTSUIT_HEARTS_THINKERS": "0"}).thinkers == 0
    with pytest.raises(SettingsError, match="HEARTSUIT_HEARTS_THINKERS"):
        HeartsSettings.from_env({"HEARTSUIT_HEARTS_THINKERS": "two"})
    with pytest.raises(SettingsError, match="processes"):
        HeartsSettings(thinkers=-1)
    app = create_app(
        Settings(database_url="sqlite+aiosqlite:///unused"),
        games=[hearts_game(HeartsSettings(thinkers=3))],
    )
    assert app.state.hearts.thinking.workers == 3
