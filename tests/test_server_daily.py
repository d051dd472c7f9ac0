"""The deal of the day: one code per UTC day, the same for everyone, winnable when the solver can
tell; its own statistics, and the daily streak beside the winning streak."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from heartsuit.server.core.settings import sqlite_url
from heartsuit.server.players.service import PlayerService
from heartsuit.server.players.store import SqlPlayersStore
from heartsuit.server.solitaire.daily import ATTEMPTS, candidate, daily_code, date_of, day_of
from heartsuit.server.solitaire.examples import deal_is_winnable
from heartsuit.server.solitaire.service import SolitaireService
from heartsuit.server.solitaire.store import SqlSolitaireStore
from heartsuit.server.storage.db import Database
from heartsuit.solitaire.codes import deal_for_code, normalize_code
from heartsuit.solitaire.solver import solve
from tests.server_support import START_MS, FakeClock, running_site

DAY = 86_400_000


def win_taps(code: str) -> list[int | str]:
    solution = solve(deal_for_code(code), optimal=False)
    assert solution.winnable
    return [tap for step in solution.steps for tap in step.taps()]


def test_the_day_is_the_utc_day() -> None:
    assert day_of(0) == 0 and day_of(DAY - 1) == 0 and day_of(DAY) == 1
    assert date_of(day_of(START_MS)).isoformat() == "2023-11-14"


@given(st.integers(0, 100_000))
def test_a_day_has_one_code_and_it_is_a_valid_one(day: int) -> None:
    code = daily_code(day)
    assert code == daily_code(day) == candidate(day, 0)
    assert normalize_code(code) == code


def test_days_have_different_deals_and_the_solver_picks_a_winnable_one() -> None:
    days = range(20_000, 20_030)
    assert len({daily_code(day) for day in days}) == len(days)
    for day in days:
        code = daily_code(day, deal_is_winnable)
        assert deal_is_winnable(code)
        first = next(n for n in range(ATTEMPTS) if deal_is_winnable(candidate(day, n)))
        assert code == candidate(day, first)


def test_a_solver_that_never_says_yes_falls_back_to_the_first_candidate() -> None:
    assert daily_code(3, lambda _code: False) == candidate(3, 0)


Body = Callable[[SolitaireService, FakeClock, list[str]], Awaitable[None]]


def run(tmp_path: Path, body: Body) -> None:
    async def main() -> None:
        db = Database(sqlite_url(tmp_path / "daily.sqlite3"))
        await db.open()
        try:
            players = PlayerService(SqlPlayersStore(db))
            clock = FakeClock(START_MS, step=0)
            service = SolitaireService(
                SqlSolitaireStore(db), players, clock=clock, analyse=deal_is_winnable
            )
            ids = [(await players.hello(None)).id for _ in range(3)]
            await body(service, clock, ids)
        finally:
            await db.close()

    asyncio.run(main())


async def win_daily(service: SolitaireService, player: str) -> str:
    played = await service.new_game(player, daily=True)
    for target in win_taps(played.live.record.code):
        await service.tap(player, played.live.record.id, target)
    assert played.live.game.outcome.value == "won"
    return played.live.record.code


def test_the_deal_of_the_day_is_the_same_for_everyone_and_has_its_own_statistics(
    tmp_path: Path,
) -> None:
    async def body(service: SolitaireService, clock: FakeClock, ids: list[str]) -> None:
        today = day_of(clock.now)
        first, second, third = ids
        code = await win_daily(service, first)
        assert code == daily_code(today, deal_is_winnable) == await service.daily_code()
        lost = await service.new_game(second, daily=True)
        assert lost.live.record.code == code
        await service.tap(second, lost.live.record.id, "stock")
        await service.new_game(second, "HH1-N-AAAAAAB", leave=lost.live.record.id)  # a loss
        stats = await service.stats(third)  # a player who has not played it sees it too
        daily = stats.daily
        assert daily is not None
        assert (daily.code, daily.date) == (code, date_of(today).isoformat())
        assert (daily.players, daily.winners) == (2, 1)
        assert daily.fewest_moves is not None and daily.fewest_moves > 0
        assert (daily.won_today, daily.streak, daily.best_streak) == (False, 0, 0)
        mine = (await service.stats(first)).daily
        assert mine is not None and (mine.won_today, mine.streak, mine.best_streak) == (True, 1, 1)
        # the winning streak counts the same win as any other
        assert (await service.stats(first)).overall.current_streak == 1

    run(tmp_path, body)


def test_the_daily_streak_counts_days_in_a_row(tmp_path: Path) -> None:
    async def body(service: SolitaireService, clock: FakeClock, ids: list[str]) -> None:
        player = ids[0]

        async def daily() -> tuple[int, int, bool]:
            reply = (await service.stats(player)).daily
            assert reply is not None
            return reply.streak, reply.best_streak, reply.won_today

        await win_daily(service, player)
        await win_daily(service, player)  # the same day again: still one day
        assert await daily() == (1, 1, True)
        clock.now += DAY
        assert await daily() == (1, 1, False)  # alive until today's is missed
        await win_daily(service, player)
        assert await daily() == (2, 2, True)
        # yesterday's deal won today is not today's deal of the day
        yesterday = daily_code(day_of(clock.now) - 1, deal_is_winnable)
        clock.now += DAY
        old = await service.new_game(player, yesterday)
        for target in win_taps(yesterday):
            await service.tap(player, old.live.record.id, target)
        assert await daily() == (2, 2, False)
        clock.now += DAY  # a day missed: the streak is broken
        assert await daily() == (0, 2, False)
        await win_daily(service, player)
        assert await daily() == (1, 2, True)

    run(tmp_path, body)


def test_the_page_asks_for_the_deal_of_the_day(tmp_path: Path) -> None:
    with running_site(tmp_path / "site.sqlite3", analyse=deal_is_winnable) as site:
        with site.peer() as page:
            game = page.ask("solitaire.new", daily=True)["game"]
            assert game["daily"] is True
            assert game["code"] == daily_code(day_of(site.clock.now), deal_is_winnable)
            other = page.new_game("HH1-N-AAAAAAB")
            assert other["daily"] is False
            stats = page.ask("stats")
        api = site.client.get("/api/stats", headers={"X-Heartsuit-Player": page.player}).json()
    assert stats["daily"]["code"] == game["code"]
    assert api["daily"]["code"] == game["code"]
