"""A table written by another process meanwhile: a change whose log entry finds its seq taken
(``EntryConflict``) catches up from the log and is tried again, a few times; then the intent is
answered ``stale`` with the fresh state, and nothing it asked for is logged.

The other writer is simulated: the store refuses the next N action entries as if their seq had
been taken (the log itself is unchanged, so the catch-up finds the same state). And a copy that
another process's writes left behind catches up by applying only the entries logged since.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import ExitStack
from pathlib import Path

import pytest

from heartsuit.server.hearts.live_table import LiveTable, LogEntry, SeatRecord, TableRecord
from heartsuit.server.hearts.service import CONFLICT_ATTEMPTS, HeartsService
from heartsuit.server.hearts.store import EntryConflict
from heartsuit.server.storage.db import Step
from tests.hearts_support import Seat, table_log
from tests.server_support import Site, running_site


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    # computers think for ten minutes: only the person's pass is written during the test
    with running_site(tmp_path / "site.sqlite3", hearts_pace_ms=600_000) as s:
        yield s


def refuse_actions(site: Site, count: int) -> list[int]:
    """Make the store refuse the next ``count`` action entries; returns the refusal counter."""
    hearts: HeartsService = site.client.app.state.hearts  # type: ignore[attr-defined]
    store = hearts.store
    original = store.append
    refused = [0]

    async def append(
        table: TableRecord,
        entry: LogEntry,
        seats: Sequence[SeatRecord] = (),
        also: Sequence[Step] = (),
    ) -> None:
        if entry.kind == "action" and refused[0] < count:
            refused[0] += 1
            raise EntryConflict(f"entry {entry.seq} of {table.id} is logged (simulated)")
        await original(table, entry, seats, also)

    store.append = append  # type: ignore[method-assign]
    return refused


def passing_person(site: Site, stack: ExitStack) -> Seat:
    peer = stack.enter_context(site.peer())
    peer.ask("lang", lang="en")
    me = Seat(peer)
    me.create(mode="computer", options={"passing": True})
    me.until(lambda s: me.my_turn(s))
    return me


def test_a_pass_that_meets_a_few_conflicts_is_still_logged_once(site: Site) -> None:
    with ExitStack() as stack:
        me = passing_person(site, stack)
        before = len(table_log(site.db_path, me.table)[2])
        refused = refuse_actions(site, CONFLICT_ATTEMPTS - 1)
        reply = me.act()
        assert reply["type"] == "hearts.state", reply
        assert refused[0] == CONFLICT_ATTEMPTS - 1
        log = table_log(site.db_path, me.table)[2]
        assert len(log) == before + 1
        assert log[-1].kind == "action" and log[-1].data["seat"] == 0


def test_a_pass_that_keeps_meeting_conflicts_is_answered_stale_and_not_logged(
    site: Site,
) -> None:
    with ExitStack() as stack:
        me = passing_person(site, stack)
        before = len(table_log(site.db_path, me.table)[2])
        refused = refuse_actions(site, CONFLICT_ATTEMPTS)
        reply = me.act()
        assert reply["type"] == "error" and reply["code"] == "stale", reply
        assert reply["state"]["table"]["version"] == before
        assert refused[0] == CONFLICT_ATTEMPTS
        assert len(table_log(site.db_path, me.table)[2]) == before
        # the socket is still open and the person can pass now
        again = me.act()
        # the stale reply's state is the base the page holds now: the pass is answered with
        # the change from it (a patch), or a whole state when no patch will do
        assert again["type"] in ("hearts.patch", "hearts.state"), again
        version = again["version"] if again["type"] == "hearts.patch" else again["table"]["version"]
        assert version == before + 1
        assert 0 not in again["awaiting"]
        assert len(table_log(site.db_path, me.table)[2]) == before + 1


def test_a_copy_behind_another_writer_catches_up_with_the_new_entries_only(
    tmp_path: Path,
) -> None:
    db = tmp_path / "site.sqlite3"
    with (
        running_site(db, hearts_pace_ms=600_000) as one,
        running_site(db, hearts_pace_ms=600_000) as two,
        ExitStack() as stack,
    ):
        me = passing_person(one, stack)
        other: HeartsService = two.client.app.state.hearts  # type: ignore[attr-defined]
        portal = two.client.portal
        assert portal is not None
        behind = portal.call(other.table, me.table)
        before = behind.version
        read = []
        entries_after = other.store.entries_after

        async def counted(table_id: str, seq: int) -> list[LogEntry]:
            read.append(seq)
            return await entries_after(table_id, seq)

        other.store.entries_after = counted  # type: ignore[method-assign]
        # written by process one (the pass is answered with a patch: the others have to pass)
        assert me.act()["type"] in ("hearts.state", "hearts.patch")
        caught_up = portal.call(lambda: other.table(me.table, at_least=before + 1))
        # the same copy, moved on by the one new entry (not a replay of the whole log)
        assert caught_up is behind and read == [before]
        assert caught_up.version == before + 1
        record, seats, log = table_log(db, me.table)
        assert [e.seq for e in portal.call(entries_after, me.table, before)] == [before]
        fresh = LiveTable.replay(record, seats, log)
        assert caught_up.match is not None and fresh.match is not None
        assert caught_up.match.actions == fresh.match.actions
        assert caught_up.seats == fresh.seats
