"""The computer players' turns at the tables this process plays (its own, or those it holds the
lease of when the site is several processes).

A table's turns are played by one task at a time (:meth:`ComputerTurns.resume` starts it when a
computer is awaited), at a natural pace: a computer's move comes ``pace_ms`` at the table's pace
setting (:data:`PACE_FACTORS`) after the table's last change (the log's time of its newest
entry), twice that after a finished trick so people see it. The thinking is part of that wait,
not added to it: the gap is the pace or the decision's time, whichever is longer, so a ``hard``
computer or a busy server keeps the pace chosen. Passes are the exception: they are
simultaneous, so a person may pass while the computers wait, which would make a pass decided
before it be made again; the computers wait out the pace first and then decide their passes
(one after another: a table holds at most one thinking worker). Between hands the
computers wait for "next hand" (:meth:`ComputerTurns.hold`): on a computer or one-device table
for the person; online for each person or a timer of ``next_hand_ms`` from the log's time of the
hand's end, which the table's owner runs (any change wakes it to look again).

A decision is made **outside the table's lock**: the seat's view, level and seed go to the
thinking pool while people's intents are served, and the choice is logged under the lock only
if the table is still at the version it was made at (else it is made again on the new state),
so the choice logged is always the one its view and seed give, and a person's pass never waits
for the computers' passes.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Final

from heartsuit.hearts.actions import Action
from heartsuit.hearts.driver import BotError, computer_seed, decide
from heartsuit.server.hearts.live_table import LiveTable, Pace
from heartsuit.server.hearts.new_table import DEFAULT_LEVEL
from heartsuit.server.hearts.store import EntryConflict
from heartsuit.server.hearts.thinking_pool import ThinkerLost

if TYPE_CHECKING:
    from heartsuit.server.hearts.service import HeartsService

log = logging.getLogger("heartsuit.server.hearts")

#: the computers' pace at each setting, as a share of the server's pace (``pace_ms``)
PACE_FACTORS: Final[dict[Pace, float]] = {"slow": 1.8, "normal": 1.0, "fast": 0.45}

#: the level that plays when a stronger one fails (a bug, logged)
FALLBACK_LEVEL: Final = "easy"


class ComputerTurns:
    """Plays the awaited computer seats (and dropped people's, once away) of each table."""

    def __init__(self, service: HeartsService, *, pace_ms: int, next_hand_ms: int) -> None:
        self.service = service
        self.pace_ms = pace_ms
        #: online, how long the computers wait between hands for people who have not said
        #: "next hand" (on a computer or shared-device table they wait for the person)
        self.next_hand_ms = next_hand_ms
        #: per table, the task playing its computer turns
        self.drivers: dict[str, asyncio.Task[None]] = {}
        #: per table, the (match, hand) whose wait between hands this process has sat out
        #: (its timer ran out here: the computers go on whatever the clock says)
        self._waited: dict[str, tuple[int, int]] = {}
        #: per table whose computer turns wait out the timer between hands, what wakes them
        #: (a change: "next hand", a card, a seat handed over) to look again at once
        self._wake: dict[str, asyncio.Event] = {}
        #: how many decisions were made again because the table moved on while they were made
        self.decided_again = 0

    def seats(self, live: LiveTable) -> list[int]:
        """The awaited seats a computer plays: computers', and dropped people's once away."""
        if live.status != "playing":
            return []
        away = self.service.away(live.record.id)
        return [
            seat for seat in live.awaiting() if live.seats[seat].kind == "computer" or seat in away
        ]

    def resume(self, table_id: str) -> None:
        """Make sure the table's computer turns are being played (by its owner)."""
        service = self.service
        if service.closing:
            return
        if not service.ownership.owns(table_id):
            service.ownership.ask_for(table_id)  # the owner, if another process, hears of it
            return
        task = self.drivers.get(table_id)
        if task is not None and not task.done():
            wake = self._wake.get(table_id)
            if wake is not None:
                wake.set()  # it waits out the timer between hands: a change may end the wait
            return
        live = service.cached(table_id)
        if live is not None and not self.seats(live) and not service.changing(table_id):
            # nothing for a computer to do now (the driver would look and stop): every change
            # and every seat handed over resumes them; a table not in memory, or one being
            # changed right now, is looked at by the driver
            return
        self.drivers[table_id] = asyncio.get_running_loop().create_task(self._drive(table_id))

    def tasks(self) -> list[asyncio.Task[None]]:
        return list(self.drivers.values())

    def hold(self, live: LiveTable) -> float | None:
        """How long the computers still wait before the hand goes on, in seconds: 0 not at
        all, None until a person says "next hand" (or plays on)."""
        waiting = live.waiting()
        match = live.match
        if not waiting or match is None:
            return 0
        if live.record.mode != "online":
            return None
        if self._waited.get(live.record.id) == (live.match_no, match.hand_number):
            return 0
        if not set(waiting) - self.service.away(live.record.id):
            return 0  # only people who dropped out are waited for: their computer goes on
        between = live.between
        assert between is not None
        return max(0, between.since_ms + self.next_hand_ms - self.service.clock()) / 1000

    async def _drive(self, table_id: str) -> None:
        service = self.service
        owns = service.ownership.owns
        try:
            while True:
                if not owns(table_id):
                    return  # the lease was lost: the new owner plays on
                live = await service.table(table_id)
                seats = self.seats(live)
                if not seats:
                    return
                hold = self.hold(live)
                if hold is None:
                    return  # the people have not seen the last hand yet: "next hand" resumes them
                if hold > 0:
                    await self._wait_between_hands(live, hold)
                    continue
                version = live.version
                gap_ms = self._gap_ms(live)
                # decided outside the table's lock: people are served meanwhile
                if live.match is not None and live.match.hand.phase.value == "play":
                    # one card at a time, and nobody else can move: decided at once, within
                    # the pace (the thinking is part of the wait, not added to it)
                    actions = [(seats[0], await self._choose(live, seats[0]))]
                    await self._rest_of_pace(live, gap_ms)
                else:
                    # passes are simultaneous and a person's pass moves the table on (a pass
                    # decided on the version before would be made again): the pace first,
                    # then every computer's pass, one after another (a table holds at most
                    # one worker, so one table's passes never hold up every other table)
                    await self._rest_of_pace(live, gap_ms)
                    if not owns(table_id):
                        return  # lost during the delay
                    live = await service.table(table_id)
                    if live.version != version:
                        continue  # a person passed meanwhile: look again
                    seats = self.seats(live)
                    if not seats or self.hold(live) != 0:
                        continue
                    actions = [(seat, await self._choose(live, seat)) for seat in seats]
                if not owns(table_id):
                    return  # lost during the delay
                live = await service.table(table_id)
                if live.version != version:
                    self.decided_again += 1
                    continue  # the table moved on while they thought: decide on it
                if not set(seats) <= set(self.seats(live)) or self.hold(live) != 0:
                    continue  # a dropped person came back meanwhile: look again
                async with service.lock(table_id):
                    live = await service.load(table_id)
                    if live.version != version:
                        self.decided_again += 1
                        continue  # the table moved on while they thought: decide on it
                    try:
                        for _seat, action in actions:
                            await service.append_action(live, action)
                    except EntryConflict:
                        # another process logged this turn first (it believed it owned the
                        # table too, or a person's intent came first): catch up and look again
                        continue
                await service.announce(live)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("computer turns of table %s stopped", table_id)
        finally:
            if self.drivers.get(table_id) is asyncio.current_task():
                del self.drivers[table_id]

    async def _rest_of_pace(self, live: LiveTable, gap_ms: float) -> None:
        """Wait until ``gap_ms`` after the table's last change (at once if that is past)."""
        wait_ms = min(gap_ms, live.changed_ms + gap_ms - self.service.clock())
        if wait_ms > 0:
            await asyncio.sleep(wait_ms / 1000)

    def _gap_ms(self, live: LiveTable) -> float:
        """How long after the table's last change a computer's move comes: the pace at the
        table's setting, twice that after a finished trick so people see it."""
        trick = live.match.hand.view(0).trick if live.match is not None else None
        fresh_trick = trick is not None and not trick.plays
        return self.pace_ms * PACE_FACTORS[live.pace] * (2 if fresh_trick else 1)

    async def _wait_between_hands(self, live: LiveTable, hold: float) -> None:
        """Online, the timer between hands (run by the table's owner: a restart or a new owner
        counts from the log's time of the hand's end); any change to the table meanwhile
        wakes it to look again."""
        table_id = live.record.id
        wake = self._wake[table_id] = asyncio.Event()
        try:
            await asyncio.wait_for(wake.wait(), hold)
        except TimeoutError:
            if live.match is not None:
                self._waited[table_id] = (live.match_no, live.match.hand_number)
        finally:
            if self._wake.get(table_id) is wake:
                del self._wake[table_id]

    async def _choose(self, live: LiveTable, seat: int) -> Action:
        assert live.match is not None
        level = live.seats[seat].level or DEFAULT_LEVEL
        key = f"{live.record.id}/{live.match_no}"
        # only the seat's view, the level and the seed go to the thinking worker, taken now:
        # whatever happens at the table while it thinks, they are this version's
        view = live.match.view(seat)
        seed = computer_seed(key, live.match.version, seat)
        try:
            return await self.service.thinking.decide(view, level, seed)
        except (BotError, ThinkerLost):
            # a bot's bug, or workers that keep dying, must not stop a table: the simplest
            # level always has an answer, at once and in this process
            log.exception("the %s computer of table %s failed; easy plays", level, key)
            return decide(view, FALLBACK_LEVEL, seed)
