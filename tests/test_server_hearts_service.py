"""The Hearts service's own bookkeeping, driven directly (no sockets): the table locks, the
computer turns' task, and the shortcuts of the action path keeping every rule of the house.

- A change is never shown before it is logged: a request for the table made while a change
  is being written waits for the write (and then sees it).
- A person's action at a table of people starts no task for computer turns; at a table where
  a computer is awaited, one runs.
- A table in memory keeps one lock; a table asked for once, or that does not exist, leaves no
  lock behind.
- The reasons an illegal card cannot be played are the engine's, whatever objects the view's
  cards are.
"""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path

import pytest

from heartsuit.cards import Card
from heartsuit.hearts import Rules
from heartsuit.hearts.actions import Pass
from heartsuit.hearts.driver import computer_action
from heartsuit.server.core.bus import LocalBus
from heartsuit.server.core.settings import sqlite_url
from heartsuit.server.hearts.frames import illegal_reasons
from heartsuit.server.hearts.live_table import LiveTable, LogEntry, SeatRecord, TableRecord
from heartsuit.server.hearts.protocol import HeartsCreate, HeartsError, TableOptions
from heartsuit.server.hearts.service import HeartsService
from heartsuit.server.hearts.store import SqlTableStore
from heartsuit.server.storage.db import Database, Step


@asynccontextmanager
async def service_on(path: Path, pace_ms: int = 700) -> AsyncIterator[HeartsService]:
    db = Database(sqlite_url(path))
    await db.open()
    service = HeartsService(
        SqlTableStore(db),
        bus=LocalBus(),
        clock=lambda: int(time.time() * 1000),
        pace_ms=pace_ms,
    )
    await service.start()
    try:
        yield service
    finally:
        await service.stop()
        await db.close()


async def online_table(service: HeartsService) -> tuple[str, list[str]]:
    """A started online table of four people; their tokens by seat."""
    created = await service.create(HeartsCreate(type="hearts.create", mode="online"), "Host")
    table_id = created.live.record.id
    tokens = [created.tokens[0]]
    for seat in (1, 2, 3):
        _, token = await service.sit(table_id, seat, f"P{seat}")
        tokens.append(token)
    await service.start_match(table_id, tokens[0])
    return table_id, tokens


def a_pass(live: LiveTable, seat: int) -> Pass:
    assert live.match is not None
    hand = live.match.view(seat).hand
    return Pass(seat, tuple(hand[: live.rules.pass_count]))


def test_a_change_being_written_is_not_shown_before_it_is_logged(tmp_path: Path) -> None:
    async def run() -> None:
        async with service_on(tmp_path / "t.sqlite3") as service:
            table_id, tokens = await online_table(service)
            live = await service.table(table_id)
            version = live.version
            written = asyncio.Event()
            release = asyncio.Event()
            original = service.store.append

            async def slow_append(
                table: TableRecord,
                entry: LogEntry,
                seats: Sequence[SeatRecord] = (),
                also: Sequence[Step] = (),
            ) -> None:
                written.set()
                await release.wait()
                await original(table, entry, seats, also)

            service.store.append = slow_append  # type: ignore[method-assign]
            acting = asyncio.create_task(service.act(table_id, tokens[1], a_pass(live, 1), version))
            await written.wait()
            # the copy in memory has the pass applied, but the log does not have it yet
            assert live.version == version + 1
            reading = asyncio.create_task(service.table(table_id))
            behind = asyncio.create_task(service.table(table_id, at_least=version))
            await asyncio.sleep(0.05)
            assert not reading.done() and not behind.done()
            release.set()
            await acting
            assert (await reading).version == version + 1
            assert (await behind).version == version + 1
            logged = await service.store.versions([table_id])
            assert logged[table_id] == version + 1

    asyncio.run(run())


def test_a_person_acting_among_people_starts_no_computer_turns(tmp_path: Path) -> None:
    async def run() -> None:
        async with service_on(tmp_path / "t.sqlite3") as service:
            table_id, tokens = await online_table(service)
            live = await service.table(table_id)
            assert not service.turns.drivers
            await service.act(table_id, tokens[2], a_pass(live, 2), live.version)
            assert not service.turns.drivers  # nobody but people is awaited: nothing to drive

    asyncio.run(run())


def test_a_computer_awaited_after_an_action_gets_its_turns_played(tmp_path: Path) -> None:
    async def run() -> None:
        async with service_on(tmp_path / "t.sqlite3", pace_ms=10) as service:
            created = await service.create(
                HeartsCreate(
                    type="hearts.create", mode="computer", options=TableOptions(passing=False)
                ),
                "Me",
            )
            table_id, token = created.live.record.id, created.tokens[0]
            live = await service.table(table_id)
            assert live.match is not None
            for _ in range(20):
                for _ in range(200):
                    if 0 in live.awaiting():
                        break
                    await asyncio.sleep(0.02)
                assert live.awaiting() == (0,)
                action = computer_action(live.match, 0, "easy", "test")
                await service.act(table_id, token, action, live.version)
                if live.awaiting() != (0,):
                    break  # (else seat 0 took the trick and leads the next)
            assert live.awaiting() and 0 not in live.awaiting()
            assert table_id in service.turns.drivers  # a computer plays next
            version = live.version
            for _ in range(200):
                if live.version > version:
                    break
                await asyncio.sleep(0.02)
            assert live.version > version

    asyncio.run(run())


def test_a_table_keeps_one_lock_and_an_unknown_one_leaves_none(tmp_path: Path) -> None:
    async def run() -> None:
        async with service_on(tmp_path / "t.sqlite3") as service:
            table_id, _ = await online_table(service)
            await service.table(table_id)
            lock = service._lock(table_id)
            await service.table(table_id)
            assert service._lock(table_id) is lock
            with pytest.raises(HeartsError):
                await service.table("nosuchtable00000")
            service.forget(table_id)
            del lock
            gc.collect()
            assert "nosuchtable00000" not in service._locks
            assert not service._locks.is_kept("nosuchtable00000")
            assert not service._locks.is_kept(table_id)
            assert table_id not in service._locks

    asyncio.run(run())


def test_illegal_reasons_are_the_engines_whatever_the_cards_objects() -> None:
    rules = Rules.preset("standard")
    record = TableRecord("t" * 16, "online", "standard", rules.to_dict(), 7, None, 0)
    seats = [SeatRecord(s, "human", f"P{s}") for s in range(4)]
    live = LiveTable.replay(record, seats, [])
    live.apply(live.entry("start", {}, 0))
    checked = 0
    while checked < 40:
        match = live.match
        assert match is not None
        seat = live.awaiting()[0]
        view = match.view(seat)
        reasons = illegal_reasons(match, view)
        expected = {}
        for card in view.hand if view.to_play == seat else ():
            why = match.hand.why_illegal(seat, card)
            if card not in view.legal and why is not None:
                expected[card.code] = why.value
        assert reasons == expected
        # equal cards that are other objects: the same answer
        copies = replace(view, legal=tuple(Card(c.rank, c.suit) for c in view.legal))
        assert illegal_reasons(match, copies) == expected
        if view.phase == "play":
            checked += 1
        action = computer_action(match, seat, "easy", "test")
        live.apply(live.entry("action", action.to_dict(), 0))


def test_events_since_any_version_are_the_events_of_the_entries_after_it() -> None:
    rules = Rules.preset("standard")
    record = TableRecord("e" * 16, "online", "standard", rules.to_dict(), 11, None, 0)
    seats = [SeatRecord(s, "human", f"P{s}") for s in range(4)]
    live = LiveTable.replay(record, seats, [])
    caused = [live.apply(live.entry("start", {}, 0))]
    entries = [LogEntry(0, "start", {}, 0)]
    while live.version < 300:  # past the window of remembered versions
        match = live.match
        assert match is not None
        seat = live.awaiting()[0]
        action = computer_action(match, seat, "easy", "test")
        entry = live.entry("action", action.to_dict(), 0)
        entries.append(entry)
        caused.append(live.apply(entry, action=action))  # the action given: not read back
        for version in (0, live.version - 300, live.version - 256, live.version - 255):
            if version < 0:
                continue
            expected = [e for events in caused[version:] for e in events]
            remembered = live.version - version <= 256
            assert live.events_since(version) == (expected if remembered else None)
        for version in range(max(0, live.version - 5), live.version + 1):
            assert live.events_since(version) == [e for events in caused[version:] for e in events]
    assert live.events_since(live.version + 1) is None
    # the same table replayed from its log (each action read from its dict) is the same
    again = LiveTable.replay(live.record, seats, entries)
    assert again.record == live.record and again.history == live.history
    assert again.match is not None and live.match is not None
    assert again.match.view(0) == live.match.view(0)
