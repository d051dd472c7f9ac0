"""The in-process message bus: who hears a notice, and what a slow listener loses."""

from __future__ import annotations

import asyncio

from heartsuit.server.bus import LocalBus


def test_listeners_of_a_channel_hear_its_notices_and_no_others() -> None:
    async def main() -> None:
        bus = LocalBus()
        await bus.publish("player:a", {"game": "nobody listens"})
        async with (
            bus.listen("player:a") as one,
            bus.listen("player:a") as two,
            bus.listen("player:b") as other,
        ):
            assert bus.subscriber_count("player:a") == 2
            await bus.publish("player:a", {"game": "g1"})
            assert one.get_nowait() == {"game": "g1"} == two.get_nowait()
            assert other.empty() and one.empty()
        assert bus.subscriber_count("player:a") == 0

    asyncio.run(main())


def test_a_slow_listener_keeps_the_newest_notices() -> None:
    async def main() -> None:
        bus = LocalBus(queue_size=3)
        async with bus.listen("c") as queue:
            for n in range(5):
                await bus.publish("c", {"n": str(n)})
            assert [queue.get_nowait()["n"] for _ in range(3)] == ["2", "3", "4"]

    asyncio.run(main())
