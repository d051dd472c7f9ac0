"""The message bus: who hears a notice, what a slow listener loses, and notices as data."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import pytest

from heartsuit.server.core.bus import LocalBus, Notice, NoticeError, notice, notice_kinds
from heartsuit.server.hearts.service import TableChanged
from heartsuit.server.players.service import PlayerChanged
from heartsuit.server.solitaire.service import GameChanged


@notice("test.counted")
@dataclass(frozen=True, slots=True)
class Counted(Notice):
    n: int


def test_listeners_of_a_channel_hear_its_notices_and_no_others() -> None:
    async def main() -> None:
        bus = LocalBus()
        await bus.publish("player:a", GameChanged("a", "nobody listens", 0))
        async with (
            bus.listen("player:a") as one,
            bus.listen("player:a") as two,
            bus.listen("player:b") as other,
        ):
            assert bus.subscriber_count("player:a") == 2
            await bus.publish("player:a", GameChanged("a", "g1", 3))
            assert one.get_nowait() == GameChanged("a", "g1", 3) == two.get_nowait()
            assert other.empty() and one.empty()
        assert bus.subscriber_count("player:a") == 0

    asyncio.run(main())


def test_a_slow_listener_keeps_the_newest_notices() -> None:
    async def main() -> None:
        bus = LocalBus(queue_size=3)
        async with bus.listen("c") as queue:
            for n in range(5):
                await bus.publish("c", Counted(n))
            kept = [queue.get_nowait() for _ in range(3)]
            assert kept == [Counted(2), Counted(3), Counted(4)]

    asyncio.run(main())


@pytest.mark.parametrize(
    "sent", [PlayerChanged("p1"), GameChanged("p1", "g1", 7), Counted(0)], ids=repr
)
def test_every_notice_survives_a_trip_through_json(sent: Notice) -> None:
    data = sent.to_dict()
    assert data["kind"] == sent.kind and sent.kind in notice_kinds()
    assert all(isinstance(v, str | int | bool) for v in data.values())
    assert Notice.from_dict(data) == sent


def test_the_site_s_notices_have_names() -> None:
    assert {"player_changed", "solitaire.game_changed"} <= set(notice_kinds())
    assert GameChanged("p", "g", 1).to_dict() == {
        "kind": "solitaire.game_changed",
        "player": "p",
        "game": "g",
        "log_length": 1,
    }


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"kind": "nope"},
        {"kind": "player_changed"},
        {"kind": "player_changed", "player": 5},
        {"kind": "solitaire.game_changed", "player": "p", "game": "g", "log_length": "1"},
        {"kind": "solitaire.game_changed", "player": "p", "game": "g", "log_length": True},
    ],
)
def test_a_notice_that_is_not_one_is_refused(data: dict[str, object]) -> None:
    with pytest.raises(NoticeError):
        Notice.from_dict(data)


def test_a_notice_holds_only_plain_values() -> None:
    with pytest.raises(TypeError, match="str, int or bool"):

        @notice("test.bad")
        @dataclass(frozen=True, slots=True)
        class Bad(Notice):
            cards: list[str]


def test_a_notice_may_leave_out_the_fields_that_have_a_default() -> None:
    """A process of the version before sends a table's change without the card played: the
    fields added since take their defaults; a field without one is still required, and a
    field of the wrong type is still refused."""
    old = {"kind": "hearts.table_changed", "table": "t1", "version": 3, "presence": False}
    change = Notice.from_dict(old)
    assert change == TableChanged("t1", 3, False)
    assert isinstance(change, TableChanged) and change.entry() is None
    played = TableChanged("t1", 4, False, seat=2, card="QS", at_ms=7)
    assert Notice.from_dict(played.to_dict()) == played
    entry = played.entry()
    assert entry is not None and (entry.seq, entry.kind, entry.at_ms) == (3, "action", 7)
    assert entry.data == {"type": "play", "seat": 2, "card": "QS"}
    with pytest.raises(NoticeError):
        Notice.from_dict({"kind": "hearts.table_changed", "table": "t1"})
    with pytest.raises(NoticeError):
        Notice.from_dict({**old, "card": 5})


def test_a_listener_s_direct_way_takes_a_notice_only_while_its_queue_is_empty() -> None:
    async def main() -> None:
        bus = LocalBus()
        taken: list[Notice] = []
        accept = True

        def direct(notice: Notice) -> bool:
            taken.append(notice)
            return accept

        async with bus.listen("c", direct) as queue, bus.listen("c") as plain:
            await bus.publish("c", Counted(1))
            assert taken == [Counted(1)] and queue.empty()  # taken at once, nothing queued
            assert plain.get_nowait() == Counted(1)  # a listener without one: queued
            accept = False
            await bus.publish("c", Counted(2))  # declined: queued as usual
            assert taken[-1] == Counted(2) and queue.qsize() == 1
            accept = True
            await bus.publish("c", Counted(3))  # behind a queued one: never offered, queued
            assert taken[-1] == Counted(2)
            assert [queue.get_nowait(), queue.get_nowait()] == [Counted(2), Counted(3)]

    asyncio.run(main())


def test_a_direct_way_that_fails_loses_nothing_and_hurts_no_other_listener(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def main() -> None:
        bus = LocalBus()

        def broken(notice: Notice) -> bool:
            raise RuntimeError("a bug")

        heard: list[Notice] = []

        def fine(notice: Notice) -> bool:
            heard.append(notice)
            return True

        async with bus.listen("c", broken) as queue, bus.listen("c", fine) as other:
            await bus.publish("c", Counted(1))  # the publisher is not hurt
            assert queue.get_nowait() == Counted(1)  # queued instead
            assert heard == [Counted(1)] and other.empty()  # the other took it at once
        assert "failed to take a notice at once" in caplog.text

    asyncio.run(main())
