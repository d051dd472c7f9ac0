"""Statistics: the rules of what counts (:func:`recount`, :func:`close_game`, :func:`tally`),
and the running totals the service keeps, checked against a count of the rows after any
sequence of new games, restarts, taps and undos."""

from __future__ import annotations

import asyncio
from pathlib import Path

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from sqlalchemy import event as sa_event
from sqlalchemy import text

from heartsuit.server.core.protocol import ProtocolError
from heartsuit.server.core.settings import sqlite_url
from heartsuit.server.players.service import PlayerService
from heartsuit.server.players.store import SqlPlayersStore
from heartsuit.server.solitaire.protocol import SolitaireErrorCode
from heartsuit.server.solitaire.service import SolitaireService
from heartsuit.server.solitaire.stats import close_game, recount, tally, under_way
from heartsuit.server.solitaire.store import (
    GameRecord,
    GameStatus,
    MoveRecord,
    PlayerTotals,
    SqlSolitaireStore,
    Tally,
    TallyKind,
)
from heartsuit.server.storage.db import Database
from tests.server_support import FakeClock
from tests.test_server_games import flat_win
from tests.test_server_lifecycle import greedy_to_dead_end

W, L, D, P = GameStatus.WON, GameStatus.ABANDONED, GameStatus.DEAD_END, GameStatus.PLAYING
U, DD, UP = GameStatus.UNPLAYED, GameStatus.DEAD_DEAL, GameStatus.UNPLAYABLE


def game(
    n: int,
    status: GameStatus,
    code: str = "HH1-N-AAAAAAM",
    moves: int = 80,
    elapsed: int | None = None,
) -> GameRecord:
    ended = None if status is P else 1000 * n + 500
    if status is W and elapsed is None:
        elapsed = 60_000 + n
    return GameRecord(f"g{n}", "p", code, 1000 * n, status, moves, 0, ended, elapsed)


def test_no_games_no_figures() -> None:
    totals, codes = recount([])
    assert totals.games == 0 and totals.best_time_ms is None and codes == {}


def test_only_wins_losses_and_dead_ends_count() -> None:
    totals, codes = recount(
        [
            game(1, P),
            game(2, D),
            game(3, L),
            game(4, U, moves=0),
            game(5, DD, moves=0),
            game(6, UP, moves=0),
        ]
    )
    assert (totals.games, totals.wins, totals.dead_deals) == (2, 0, 2)
    assert codes["HH1-N-AAAAAAM"].games == 2


def test_streaks_follow_the_order_games_ended() -> None:
    games = [
        game(1, W),
        game(2, W),
        game(3, L),
        game(4, W),
        game(5, W),
        game(6, W),
        game(7, L),
        game(8, W),
    ]
    totals, _ = recount(list(reversed(games)))
    assert (totals.best_streak, totals.current_streak) == (3, 1)


def test_bests_are_over_wins_only() -> None:
    totals, _ = recount(
        [
            game(1, W, moves=90, elapsed=50_000),
            game(2, W, moves=70, elapsed=80_000),
            game(3, D, moves=10, elapsed=1_000),
        ]
    )
    assert (totals.best_time_ms, totals.fewest_moves) == (50_000, 70)


def test_what_leaving_a_game_does() -> None:
    playing, untouched = game(1, P, moves=3), game(2, P, moves=0)
    assert under_way(playing) and not under_way(untouched)
    closed, counted = close_game(playing, 9_000)
    assert closed.status is L and closed.ended_at_ms == 9_000
    assert counted is not None and counted.kind is TallyKind.LOSS
    assert close_game(untouched, 9_000)[0].status is U and close_game(untouched, 9_000)[1] is None
    assert close_game(game(3, D), 9_000) == (game(3, L), None)  # counted when it got there
    assert close_game(game(4, DD, moves=0), 9_000)[0].status is UP
    assert close_game(game(5, W), 9_000) == (game(5, W), None)


def test_what_a_move_does() -> None:
    assert tally(P, game(1, W)).kind is TallyKind.WIN  # type: ignore[union-attr]
    assert tally(P, game(1, D)).kind is TallyKind.LOSS  # type: ignore[union-attr]
    assert tally(D, game(1, P)).kind is TallyKind.UNLOSS  # type: ignore[union-attr]
    assert tally(P, game(1, P)) is None and tally(D, game(1, D)) is None


# --- the running totals against a count of the rows ------------------------------------------

#: deals: a winnable one, others, and one dead from the start
CODES = ["HH1-N-AAAAAAM", "HH1-N-AAAAAAB", "HH1-N-AAAAAAE", "HH1-N-AAAAAAA"]
WIN = flat_win(CODES[0])
DEAD_END = [tap for move in greedy_to_dead_end(CODES[2]) for tap in move]
operation = st.one_of(
    st.tuples(st.just("new"), st.sampled_from(CODES)),
    st.tuples(st.just("new"), st.sampled_from(CODES[:3])),
    st.tuples(st.just("restart"), st.just("")),
    st.tuples(st.just("undo"), st.just("")),
    # that many moves of the first pair on offer (else a flip): games get to dead ends
    st.tuples(st.just("pair"), st.integers(1, 70)),
    # the winning line of the first deal, if the game is that deal untouched
    st.tuples(st.just("win"), st.just("")),
    st.tuples(
        st.just("tap"),
        st.sampled_from(["stock", "stock", "stock", "waste", 25, 24, 23, 22, 21, 20, 19, 1]),
    ),
)


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(ops=st.lists(operation, min_size=1, max_size=160), seed=st.integers(0, 10**9))
def test_the_running_totals_always_equal_a_count_of_the_rows(
    tmp_path: Path, ops: list[tuple[str, object]], seed: int
) -> None:
    async def main() -> None:
        db = Database(sqlite_url(tmp_path / f"totals-{seed}.sqlite3"))
        await db.open()
        store, players = SqlSolitaireStore(db), PlayerService(SqlPlayersStore(db))
        try:
            service = SolitaireService(store, players, clock=FakeClock())
            player = (await players.hello(None)).id
            current: str | None = None
            for kind, value in ops:
                try:
                    if kind in ("new", "restart"):
                        leave_id = current if (seed + len(str(value))) % 3 else None
                        if kind == "new" or current is None:
                            played = await service.new_game(
                                player, str(value or CODES[0]), leave=leave_id
                            )
                        else:
                            played = await service.restart(player, current, leave=leave_id)
                    elif kind in ("win", "dead"):
                        # a new game of that deal, played to its end
                        code, line = (CODES[0], WIN) if kind == "win" else (CODES[2], DEAD_END)
                        played = await service.new_game(player, code, leave=current)
                        for target in line:
                            played = await service.tap(player, played.live.record.id, target)
                    elif current is None:
                        continue
                    elif kind == "undo":
                        played = await service.undo(player, current)
                    elif kind == "pair":
                        for _ in range(int(str(value))):
                            engine = (await service.game_of(player, current)).live.game
                            pairs = engine.pairs()
                            for target in pairs[0] if pairs else ("stock",):
                                played = await service.tap(player, current, target)
                    else:
                        played = await service.tap(player, current, value)
                    current = played.live.record.id
                except ProtocolError as err:
                    refused = (SolitaireErrorCode.GAME_UNDER_WAY, SolitaireErrorCode.GAME_OVER)
                    assert err.code in refused
            rows = await store.player_games(player)
            for status in sorted({row.status.value for row in rows}):
                event(f"a game {status}")
            if ops and ops[-1][0] == "undo" and any(o[0] == "dead" for o in ops):
                event("an undo after a dead end")
            totals, codes = recount(rows)
            assert await store.totals(player) == totals
            page, count = await store.code_totals(player, 0, 100)
            assert count == len(codes)
            assert {row.code: row for row in page}.keys() == codes.keys()
            for row in page:
                want = codes[row.code]
                assert (row.games, row.wins, row.best_time_ms, row.fewest_moves) == (
                    want.games,
                    want.wins,
                    want.best_time_ms,
                    want.fewest_moves,
                )
            stats = await service.stats(player)
            assert stats.overall.games == totals.games
            assert sum(r.games for r in stats.by_code) == totals.games
        finally:
            await db.close()

    asyncio.run(main())


def count_commits(db: Database, commits: list[int]) -> None:
    """Count every commit of the open ``db`` in ``commits`` (group commit: fewer than writes)."""
    engines = {db.engine.sync_engine, db.batch_engine}  # the batches may have their own
    for engine in engines:
        sa_event.listen(engine, "commit", lambda _conn: commits.append(1))


def test_totals_stay_exact_when_many_players_finish_games_in_the_same_batches(
    tmp_path: Path,
) -> None:
    """Many players win, reach dead ends, undo out of them and leave games at the same time,
    so their moves share transactions: each one's totals are still those its games give."""
    db = Database(sqlite_url(tmp_path / "many.sqlite3"))
    commits: list[int] = []

    async def main() -> None:
        await db.open()
        count_commits(db, commits)
        store, players = SqlSolitaireStore(db), PlayerService(SqlPlayersStore(db))
        service = SolitaireService(store, players, clock=FakeClock())
        ids = [(await players.hello(None)).id for _ in range(24)]

        async def play(player: str, script: int) -> None:
            current: str | None = None
            steps = ("win", "dead", "undo", "dead", "win", "dead", "undo", "leave")
            for step in steps[(0, 1, 3)[script % 3] :]:
                if step in ("win", "dead", "leave"):
                    code, line = (CODES[0], WIN) if step != "dead" else (CODES[2], DEAD_END)
                    played = await service.new_game(player, code, leave=current)
                    current = played.live.record.id
                    for target in line if step != "leave" else line[:3]:
                        await service.tap(player, current, target)
                else:
                    assert current is not None
                    await service.undo(player, current)  # out of the dead end
            # a last game left under way counts as a loss
            await service.new_game(player, CODES[1], leave=current)

        try:
            await asyncio.gather(*(play(p, i) for i, p in enumerate(ids)))
            moves = 0
            for player in ids:
                rows = await store.player_games(player)
                moves += sum(r.log_length for r in rows)
                totals, codes = recount(rows)
                assert totals.games > 0
                assert await store.totals(player) == totals
                page, count = await store.code_totals(player, 0, 100)
                assert count == len(codes)
                for row in page:
                    want = codes[row.code]
                    assert (row.games, row.wins, row.best_time_ms, row.fewest_moves) == (
                        want.games,
                        want.wins,
                        want.best_time_ms,
                        want.fewest_moves,
                    )
            # the moves really were written together (how many share a commit depends on how
            # the event loop and the writer thread are scheduled: 3.3 a commit at load 10 on two
            # cores; the exact membership of a batch is the next test's)
            assert len(commits) < moves / 2, (len(commits), moves)
        finally:
            await db.close()

    asyncio.run(main())


def test_one_players_games_ending_in_one_batch_count_in_order(tmp_path: Path) -> None:
    """Wins, losses and undone losses of one player in the same transaction: each is applied
    after the one before it (a loss keeps the streak it ended, the next loss finds none)."""
    db = Database(sqlite_url(tmp_path / "one.sqlite3"))
    commits: list[int] = []

    async def main() -> None:
        await db.open()
        count_commits(db, commits)
        store, players = SqlSolitaireStore(db), PlayerService(SqlPlayersStore(db))
        player = (await players.hello(None)).id
        await players.ensure(player)
        games = [GameRecord(f"g{n}", player, CODES[n % 2], 1000 * n) for n in range(7)]
        for record in games:
            await store.start_game(record)

        def ended(record: GameRecord, status: GameStatus, n: int) -> GameRecord:
            return GameRecord(
                record.id,
                player,
                record.code,
                record.started_at_ms,
                status,
                40 + n,
                250,
                10_000 + n,
                9_000 - n if status is W else None,
                record.log_length + 1,
            )

        async def append(record: GameRecord, kind: TallyKind, status: GameStatus) -> GameRecord:
            after = ended(record, status, int(record.id[1:]))
            move = MoveRecord(record.id, record.log_length, "25", after.ended_at_ms or 0)
            await store.append_move(move, after, Tally(kind, after))
            return after

        try:
            before = len(commits)
            won = [append(g, TallyKind.WIN, W) for g in games[:5]]
            lost = [append(g, TallyKind.LOSS, D) for g in games[5:]]
            after = await asyncio.gather(*won, *lost)
            assert len(commits) - before == 1  # all seven in one transaction
            totals, codes = recount(after)
            assert (
                await store.totals(player)
                == totals
                == PlayerTotals(
                    games=7,
                    wins=5,
                    current_streak=0,
                    best_streak=5,
                    best_time_ms=8_996,
                    fewest_moves=40,
                )
            )
            async with db.reading() as conn:
                kept: dict[str, int | None] = dict(
                    (
                        await conn.execute(
                            text(
                                "SELECT id, streak_before FROM solitaire_games WHERE id IN "
                                "('g5', 'g6')"
                            )
                        )
                    ).all()
                )
            assert kept == {"g5": 5, "g6": 0}  # the second loss found the streak already ended
            # both losses undone in one transaction, the later first: the streak is back
            g5, g6 = after[5], after[6]
            before = len(commits)
            back = await asyncio.gather(
                append(replace_status(g6), TallyKind.UNLOSS, P),
                append(replace_status(g5), TallyKind.UNLOSS, P),
            )
            assert len(commits) - before == 1
            totals, codes = recount([*after[:5], *back])
            assert await store.totals(player) == totals
            assert totals.current_streak == 5 and totals.games == 5
            page, _count = await store.code_totals(player, 0, 10)
            assert {r.code: (r.games, r.wins) for r in page} == {
                code: (c.games, c.wins) for code, c in codes.items()
            }
        finally:
            await db.close()

    asyncio.run(main())


def replace_status(record: GameRecord) -> GameRecord:
    """A game as it was before its last move was undone (only its log has grown)."""
    return GameRecord(
        record.id,
        record.player_id,
        record.code,
        record.started_at_ms,
        log_length=record.log_length,
    )
