"""Hearts statistics per player: scripted matches through the real service and store (won, lost,
left, a moon shot and suffered, Q♠, per preset, averages, best and worst), a crash before the
match's last entry is committed, the double-count guard, a claim that counts old matches, and
the running totals held to a recount of the matches' rows after all of it.

The tables are written to the store with a chosen seed (what ``hearts.create`` gives a secret
one), then played through :class:`HeartsService` exactly as pages play them.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import insert

from heartsuit.cards import Card
from heartsuit.hearts import Moon, Rules
from heartsuit.hearts.actions import Action, Pass, Play
from heartsuit.hearts.game import Hand
from heartsuit.server.core.bus import LocalBus
from heartsuit.server.core.protocol import Stale
from heartsuit.server.core.settings import sqlite_url
from heartsuit.server.hearts.live_table import (
    LiveTable,
    SeatRecord,
    TableRecord,
    hash_token,
    new_table_id,
    new_token,
)
from heartsuit.server.hearts.service import HeartsService
from heartsuit.server.hearts.stats import HeartsStats, recount, seat_figures
from heartsuit.server.hearts.stats_store import SeatResult, SqlHeartsStatsStore, results
from heartsuit.server.hearts.store import SqlTableStore
from heartsuit.server.storage.db import Database
from tests.server_support import scratch_database

#: with :func:`moon_policy`, seat 3 takes every penalty card of hand 0 of seed 130
#: (tests/test_hearts_moon.py)
MOON_SEED, SHOOTER = 130, 3
ALICE = "alice-plays-hearts-01"
BOB = "bob-plays-hearts-0002"
START_MS = 1_700_000_000_000
POSTGRES_URL = os.environ.get("HEARTSUIT_TEST_POSTGRES", "")

Policy = Callable[[Hand, int, list[Card]], Card]


def moon_policy(hand: Hand, seat: int, legal: list[Card]) -> Card:
    return max(legal) if seat == 0 else min(legal)


def lowest(hand: Hand, seat: int, legal: list[Card]) -> Card:
    return min(legal)


@asynccontextmanager
async def counting_service(path: Path | str) -> AsyncIterator[HeartsService]:
    """The service with its statistics on the SQLite file ``path`` (or the database URL)."""
    db = Database(path if isinstance(path, str) else sqlite_url(path))
    await db.open()
    # computers play at once (a left seat's match goes on without waiting)
    service = HeartsService(
        SqlTableStore(db), bus=LocalBus(), clock=lambda: int(time.time() * 1000), pace_ms=0
    )
    service.counting = HeartsStats(SqlHeartsStatsStore(db), service.store)
    await service.start()
    try:
        yield service
    finally:
        await service.stop()
        await db.close()


def stats_of(service: HeartsService) -> HeartsStats:
    assert service.counting is not None
    return service.counting


async def scripted_table(
    service: HeartsService,
    *,
    seed: int = MOON_SEED,
    mode: str = "online",
    preset: str = "standard",
    **options: Any,
) -> tuple[str, dict[int, str]]:
    """A started table of people in every seat, dealt from ``seed``; its tokens by seat."""
    rules = Rules.preset(preset, **options)
    record = TableRecord(
        new_table_id(), mode, preset, rules.to_dict(), seed, None, START_MS  # type: ignore[arg-type]
    )
    tokens = {seat: new_token() for seat in range(rules.players)}
    seats = [SeatRecord(s, "human", f"P{s}", None, hash_token(t)) for s, t in tokens.items()]
    live = LiveTable.replay(record, seats, [])
    start = live.entry("start", {}, START_MS)
    live.apply(start)
    await service.store.create_table(live.record, live.seats, [start])
    return record.id, tokens


async def claim(service: HeartsService, table_id: str, seat: int, player: str) -> None:
    await stats_of(service).claim(await service.table(table_id), [seat], player)


def next_action(live: LiveTable, seat: int, policy: Policy) -> Action:
    assert live.match is not None
    hand = live.match.hand
    if hand.phase == "pass":
        return Pass(seat, hand.holdings[seat][: live.rules.pass_count])
    if hand.phase == "moon":
        return Moon(seat, "others_plus_26")
    return Play(seat, policy(hand, seat, hand.legal_plays(seat)))


async def play(
    service: HeartsService,
    table_id: str,
    tokens: dict[int, str],
    policy: Policy = moon_policy,
    *,
    until: Callable[[LiveTable], bool] = lambda live: live.status == "over",
) -> LiveTable:
    """The people act by ``policy`` until ``until`` (by default: the match is over), and say
    "next hand" as a page does when the computers wait for them between hands."""
    deadline = time.monotonic() + 120  # a hang guard, not a measure
    while True:
        assert time.monotonic() < deadline, "the match stopped moving"
        live = await service.table(table_id)
        if until(live):
            return live
        mine = [s for s in live.awaiting() if s in tokens]
        if not mine:
            waited = [s for s in live.waiting() if s in tokens]
            if waited:
                # a computer leads the new hand (it holds the 2♣ of a hand without a pass):
                # on a shared device it waits until a person has seen the hand before
                await service.ready(table_id, tokens[waited[0]])
            else:
                await asyncio.sleep(0.01)  # a computer's turn: it plays at once (pace 0)
            continue
        seat = mine[0]
        action = next_action(live, seat, policy)
        await service.act(table_id, tokens[seat], action, live.version)


async def rows(service: HeartsService, player: str) -> list[SeatResult]:
    return await stats_of(service).store.results(player)


async def document(service: HeartsService, player: str) -> dict[str, Any]:
    return await stats_of(service).document(player)


async def totals_match_recount(service: HeartsService, player: str) -> None:
    store = stats_of(service).store
    assert await store.totals(player) == recount(await store.results(player))


def run(test: Callable[[HeartsService], Any], path: Path) -> None:
    async def main() -> None:
        async with counting_service(path) as service:
            await test(service)

    asyncio.run(main())


# --- won, lost, a moon, Q♠ ------------------------------------------------------------------


def test_a_moon_match_is_won_by_the_shooter_and_lost_by_the_others(tmp_path: Path) -> None:
    async def test(service: HeartsService) -> None:
        table_id, tokens = await scripted_table(service, target=20)
        await claim(service, table_id, 0, ALICE)
        await claim(service, table_id, SHOOTER, BOB)
        await play(service, table_id, tokens)
        # one hand: seat 3 took every penalty card; the others 26 each, past the target
        [alice] = await rows(service, ALICE)
        [bob] = await rows(service, BOB)
        assert (alice.outcome, alice.hands, alice.points, alice.total) == ("lost", 1, 26, 26)
        assert (alice.moons_shot, alice.moons_suffered, alice.queens) == (0, 1, 0)
        assert (alice.others_best, alice.margin) == (0, -26)
        assert (bob.outcome, bob.hands, bob.points, bob.total) == ("won", 1, 0, 0)
        assert (bob.moons_shot, bob.moons_suffered, bob.queens) == (1, 0, 1)
        assert (bob.others_best, bob.margin) == (26, 26)
        shown = await document(service, BOB)
        assert shown["overall"] == {
            "matches": 1, "won": 1, "lost": 0, "left": 0, "hands": 1, "points": 0,
            "moons_shot": 1, "moons_suffered": 0, "queens": 1, "points_per_hand": 0.0,
        }  # fmt: skip
        assert [g["preset"] for g in shown["by_preset"]] == ["standard"]
        assert shown["best"]["margin"] == 26 and shown["worst"]["margin"] == 26
        await totals_match_recount(service, ALICE)
        await totals_match_recount(service, BOB)

    run(test, tmp_path / "t.sqlite3")


def test_an_unclaimed_seat_counts_for_nobody(tmp_path: Path) -> None:
    async def test(service: HeartsService) -> None:
        table_id, tokens = await scripted_table(service, target=20)
        await play(service, table_id, tokens)
        counted = await service.store.db.read(  # type: ignore[attr-defined]
            lambda conn: conn.execute(results.select()).all()
        )
        assert counted == []

    run(test, tmp_path / "t.sqlite3")


def test_a_match_of_several_hands_adds_every_hand(tmp_path: Path) -> None:
    async def test(service: HeartsService) -> None:
        table_id, tokens = await scripted_table(service, seed=7, target=60)
        await claim(service, table_id, 2, ALICE)
        live = await play(service, table_id, tokens, lowest)
        assert live.match is not None
        [row] = await rows(service, ALICE)
        sheet = live.match.score_sheet()
        assert len(sheet) >= 2, "the script is meant to take more than one hand"
        assert row.hands == len(sheet)
        assert row.points == sum(line.points[2] for line in sheet)
        assert row.total == live.match.scores[2]
        assert row.outcome == ("won" if 2 in live.match.winners else "lost")
        taken = sum(Card.parse("QS") in h.taken[2] for h in live.match.hands)
        assert row.queens == taken
        assert seat_figures(live.match, 2).hands == len(sheet)
        shown = await document(service, ALICE)
        assert shown["overall"]["points_per_hand"] == round(row.points / row.hands, 2)

    run(test, tmp_path / "t.sqlite3")


# --- left -------------------------------------------------------------------------------------


def test_a_match_left_under_way_is_left_and_the_computer_s_end_adds_nothing(
    tmp_path: Path,
) -> None:
    async def test(service: HeartsService) -> None:
        # seed 3 deals the 2♣ of hand 4 (no pass) to seat 0: the computer that takes the seat
        # over leads it, once the people say "next hand" (the matches played so reach it)
        table_id, tokens = await scripted_table(service, seed=3, target=60, mode="hotseat")
        await claim(service, table_id, 0, ALICE)
        # a first hand finished, then seat 0 leaves in the second
        live = await play(
            service, table_id, tokens, lowest,
            until=lambda t: t.match is not None and t.match.hand_number == 1,
        )  # fmt: skip
        assert live.match is not None
        first_hand = live.match.score_sheet()[0].points[0]
        await service.leave(table_id, tokens[0])
        [left] = await rows(service, ALICE)
        assert (left.outcome, left.hands, left.points) == ("left", 1, first_hand)
        assert (left.total, left.margin) == (None, None)
        # the others play on with a computer in seat 0, to the end
        others = {s: t for s, t in tokens.items() if s != 0}
        await play(service, table_id, others, lowest)
        assert [r.outcome for r in await rows(service, ALICE)] == ["left"]
        shown = await document(service, ALICE)
        assert (shown["overall"]["matches"], shown["overall"]["left"]) == (1, 1)
        assert shown["overall"]["won"] == shown["overall"]["lost"] == 0
        assert shown["best"] is None and shown["worst"] is None  # over finished matches only
        await totals_match_recount(service, ALICE)

    run(test, tmp_path / "t.sqlite3")


def test_leaving_in_the_lobby_counts_nothing_and_frees_the_claim(tmp_path: Path) -> None:
    async def test(service: HeartsService) -> None:
        from heartsuit.server.hearts.protocol import HeartsCreate

        created = await service.create(HeartsCreate(type="hearts.create", mode="online"), "Host")
        table_id = created.live.record.id
        live, token = await service.sit(table_id, 1, "Bob")
        await stats_of(service).claim(live, [1], BOB)
        assert (await stats_of(service).store.claims(table_id)) == {1: BOB}
        await service.leave(table_id, token)
        assert (await stats_of(service).store.claims(table_id)) == {}
        assert await rows(service, BOB) == []

    run(test, tmp_path / "t.sqlite3")


# --- presets, averages, best and worst -----------------------------------------------------------


def test_presets_are_counted_apart_and_together_with_best_and_worst(tmp_path: Path) -> None:
    async def test(service: HeartsService) -> None:
        lost_id, tokens = await scripted_table(service, target=20)
        await claim(service, lost_id, 0, ALICE)  # the moon suffered: lost by 26
        await play(service, lost_id, tokens)
        won_id, tokens = await scripted_table(service, target=20)
        await claim(service, won_id, SHOOTER, ALICE)  # the moon shot: won by 26
        await play(service, won_id, tokens)
        three_id, tokens = await scripted_table(service, seed=11, preset="three", target=30)
        await claim(service, three_id, 1, ALICE)
        three = await play(service, three_id, tokens, lowest)
        assert three.match is not None
        shown = await document(service, ALICE)
        by = {g["preset"]: g for g in shown["by_preset"]}
        assert set(by) == {"standard", "three"}
        assert (by["standard"]["matches"], by["standard"]["won"], by["standard"]["lost"]) == (
            2, 1, 1,
        )  # fmt: skip
        assert by["standard"]["points_per_hand"] == 13.0  # 26 and 0 over two hands
        assert by["three"]["matches"] == 1
        assert by["three"]["hands"] == len(three.match.score_sheet())
        overall = shown["overall"]
        assert overall["matches"] == 3
        assert overall["hands"] == 2 + by["three"]["hands"]
        assert overall["points"] == 26 + by["three"]["points"]
        assert overall["points_per_hand"] == round(overall["points"] / overall["hands"], 2)
        assert (overall["moons_shot"], overall["moons_suffered"]) == (
            1 + by["three"]["moons_shot"], 1 + by["three"]["moons_suffered"],
        )  # fmt: skip
        margins = [r.margin for r in await rows(service, ALICE)]
        assert shown["best"]["margin"] == max(m for m in margins if m is not None)
        assert shown["worst"]["margin"] == min(m for m in margins if m is not None)
        assert shown["worst"]["margin"] <= -26 < 26 <= shown["best"]["margin"]
        await totals_match_recount(service, ALICE)

    run(test, tmp_path / "t.sqlite3")


def test_a_rematch_is_a_match_of_its_own(tmp_path: Path) -> None:
    async def test(service: HeartsService) -> None:
        table_id, tokens = await scripted_table(service, target=20)
        await claim(service, table_id, 0, ALICE)
        await play(service, table_id, tokens)
        await service.rematch(table_id, tokens[0])
        await play(service, table_id, tokens, lowest)
        counted = await rows(service, ALICE)
        assert [r.match_no for r in counted] == [0, 1]
        await totals_match_recount(service, ALICE)

    run(test, tmp_path / "t.sqlite3")


# --- a crash, a restart, the double-count guard --------------------------------------------------


def test_a_crash_before_the_last_entry_is_committed_counts_it_once_after_the_restart(
    tmp_path: Path,
) -> None:
    path = tmp_path / "t.sqlite3"

    async def main() -> None:
        async with counting_service(path) as service:
            table_id, tokens = await scripted_table(service, target=20)
            await claim(service, table_id, 0, ALICE)
            live = await play(
                service, table_id, tokens,
                until=lambda t: t.match is not None and sum(map(len, t.match.hand.holdings)) == 1,
            )  # fmt: skip
            version = live.version  # (the copy in memory moves on)
            db = service.store.db  # type: ignore[attr-defined]
            original = db.write

            async def crash(*steps: Any, key: Any = None) -> None:
                raise OSError("the disk went away (simulated)")

            db.write = crash
            with pytest.raises(OSError):
                await play(service, table_id, tokens)
            db.write = original
            assert await rows(service, ALICE) == []
        # the process starts again on the same file: the log ends one card short
        async with counting_service(path) as service:
            live = await service.table(table_id)
            assert live.version == version and live.status == "playing"
            assert await rows(service, ALICE) == []
            await play(service, table_id, tokens)
            assert [r.outcome for r in await rows(service, ALICE)] == ["lost"]
        # and once more: the finished match is not counted again by a restart
        async with counting_service(path) as service:
            assert (await service.table(table_id)).status == "over"
            assert len(await rows(service, ALICE)) == 1
            assert (await document(service, ALICE))["overall"]["matches"] == 1
            await totals_match_recount(service, ALICE)

    asyncio.run(main())


def test_a_second_row_for_the_same_match_refuses_the_entry_that_would_write_it(
    tmp_path: Path,
) -> None:
    async def test(service: HeartsService) -> None:
        table_id, tokens = await scripted_table(service, target=20)
        await claim(service, table_id, 0, ALICE)
        live = await play(
            service, table_id, tokens,
            until=lambda t: t.match is not None and sum(map(len, t.match.hand.holdings)) == 1,
        )  # fmt: skip
        version = live.version
        # a row for this match is there already (what a second count would write)
        fake: dict[str, Any] = {c.name: 0 for c in results.columns}
        fake.update(table_id=table_id, match_no=0, seat=0, player_id=ALICE, mode="online",
                    preset="standard", outcome="won")  # fmt: skip
        db = service.store.db  # type: ignore[attr-defined]
        async with db.writing() as conn:
            await conn.execute(insert(results).values(**fake))
        with pytest.raises(Stale):
            await play(service, table_id, tokens)
        # nothing of the last card was written: neither the log entry nor the totals
        assert (await service.table(table_id)).version == version
        assert await stats_of(service).store.totals(ALICE) == []

    run(test, tmp_path / "t.sqlite3")


def test_a_late_claim_counts_the_matches_already_finished_once(tmp_path: Path) -> None:
    async def test(service: HeartsService) -> None:
        table_id, tokens = await scripted_table(service, target=20)
        await play(service, table_id, tokens)  # finished before anyone claimed a seat
        await service.rematch(table_id, tokens[0])
        await play(service, table_id, tokens, lowest)
        assert await rows(service, BOB) == []
        await claim(service, table_id, SHOOTER, BOB)
        counted = await rows(service, BOB)
        assert len(counted) == 2
        assert (counted[0].match_no, counted[0].outcome, counted[0].moons_shot) == (0, "won", 1)
        # the same page opening the table again, or another process's memory: no more
        await claim(service, table_id, SHOOTER, BOB)
        stats_of(service)._claimed.clear()
        await claim(service, table_id, SHOOTER, BOB)
        await claim(service, table_id, 0, BOB)  # another seat of the same table: not twice
        assert len(await rows(service, BOB)) == 2
        # someone else's token for that seat claims nothing
        await claim(service, table_id, SHOOTER, ALICE)
        assert await rows(service, ALICE) == []
        await totals_match_recount(service, BOB)

    run(test, tmp_path / "t.sqlite3")


def test_no_player_no_figures(tmp_path: Path) -> None:
    async def test(service: HeartsService) -> None:
        shown = await document(service, "")
        assert shown["overall"]["matches"] == 0 and shown["overall"]["points_per_hand"] is None
        assert shown["by_preset"] == [] and shown["best"] is None

    run(test, tmp_path / "t.sqlite3")


# --- PostgreSQL -----------------------------------------------------------------------------------


@pytest.mark.skipif(not POSTGRES_URL, reason="set HEARTSUIT_TEST_POSTGRES to run on PostgreSQL")
def test_the_counting_and_its_guards_on_postgres() -> None:
    async def main(url: str) -> None:
        async with counting_service(url) as service:
            table_id, tokens = await scripted_table(service, target=20)
            await claim(service, table_id, 0, ALICE)
            await play(service, table_id, tokens)
            await service.rematch(table_id, tokens[0])
            await play(service, table_id, tokens, lowest)
            # a late claim counts both matches; a second one nothing
            await claim(service, table_id, SHOOTER, BOB)
            stats_of(service)._claimed.clear()
            await claim(service, table_id, SHOOTER, BOB)
            assert (await rows(service, ALICE))[0].outcome == "lost"
            bob = await rows(service, BOB)
            assert len(bob) == 2 and bob[0].outcome == "won" and bob[0].moons_shot == 1
            await totals_match_recount(service, ALICE)
            await totals_match_recount(service, BOB)
            shown = await document(service, BOB)
            assert shown["overall"]["matches"] == 2 and shown["best"]["margin"] == 26

    with scratch_database(POSTGRES_URL, "hearts_stats") as url:
        asyncio.run(main(url))
