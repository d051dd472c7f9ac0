"""The schema's migrations: a new database, a database from before migrations (its data and its
games carried forward), and the tables the stores query, on SQLite and (when
``HEARTSUIT_TEST_POSTGRES`` holds a ``postgresql+asyncpg://`` URL) on PostgreSQL.

``LEGACY`` is a frozen copy of the tables the site created with ``metadata.create_all`` before
it had migrations: a database made from it is what an existing installation holds.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import pkgutil
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, TypeVar

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Connection,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    inspect,
    text,
)
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import create_async_engine
from starlette.testclient import TestClient

import heartsuit.server
from heartsuit.server.core.settings import Settings, sqlite_url
from heartsuit.server.site.app import create_app
from heartsuit.server.solitaire.frames import game_view
from heartsuit.server.solitaire.stats import recount
from heartsuit.server.storage import db as db_module
from heartsuit.server.storage import migrations
from heartsuit.server.storage.db import Database
from heartsuit.server.storage.migrations import MigrationError
from heartsuit.solitaire import Game, Target
from tests.server_support import (
    START_MS,
    TEST_ORIGINS,
    FakeClock,
    Peer,
    comparable,
    scratch_database,
)

POSTGRES_URL = os.environ.get("HEARTSUIT_TEST_POSTGRES", "")
needs_postgres = pytest.mark.skipif(
    not POSTGRES_URL, reason="set HEARTSUIT_TEST_POSTGRES to a postgres URL"
)
T = TypeVar("T")

# --- the schema before migrations, as the site's code created it ----------------------------

LEGACY = MetaData()
Table(
    "players",
    LEGACY,
    Column("id", String(64), primary_key=True),
    Column("created_at_ms", BigInteger, nullable=False),
    Column("move_errors", Boolean, nullable=False),
    Column("placement_help", Boolean, nullable=False),
    Column("winnable_only", Boolean, nullable=False),
)
Table(
    "solitaire_games",
    LEGACY,
    Column("id", String(64), primary_key=True),
    Column("player_id", String(64), ForeignKey("players.id"), nullable=False),
    Column("code", String(32), nullable=False),
    Column("started_at_ms", BigInteger, nullable=False),
    Column("status", String(16), nullable=False),
    Column("moves", Integer, nullable=False),
    Column("score", Integer, nullable=False),
    Column("ended_at_ms", BigInteger, nullable=True),
    Column("elapsed_ms", BigInteger, nullable=True),
    Column("log_length", Integer, nullable=False),
    Index("ix_solitaire_games_player_status", "player_id", "status"),
)
Table(
    "solitaire_moves",
    LEGACY,
    Column("game_id", String(64), ForeignKey("solitaire_games.id"), primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("action", String(8), nullable=False),
    Column("at_ms", BigInteger, nullable=False),
)
Table(
    "solitaire_deals",
    LEGACY,
    Column("code", String(32), primary_key=True),
    Column("winnable", Boolean, nullable=False),
    Column("solution_moves", Integer, nullable=True),
)

CODE = "HH1-N-AAAAAAM"
TAPS: list[Target] = ["stock", "stock", 25, "waste", "stock", 3]


# --- where the checks run ----------------------------------------------------------------------


def postgres_database() -> AbstractContextManager[str]:
    """A URL of a new, empty PostgreSQL database, dropped afterwards."""
    return scratch_database(POSTGRES_URL, "heartsuit_migrations")


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=needs_postgres)])
def empty_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield sqlite_url(tmp_path / "site.sqlite3")
    else:
        pytest.importorskip("asyncpg")
        with postgres_database() as url:
            yield url


def on_connection(url: str, work: Callable[[Connection], T]) -> T:
    """Run ``work`` on a plain connection to ``url`` (outside the app), committed at the end."""

    async def main() -> T:
        engine = create_async_engine(url)
        try:
            async with engine.begin() as conn:
                return await conn.run_sync(work)
        finally:
            await engine.dispose()

    return asyncio.run(main())


def open_and_close(url: str) -> None:
    async def main() -> None:
        database = Database(url)
        await database.open()
        await database.close()

    asyncio.run(main())


def every_store_table() -> MetaData:
    """The tables every store module (``store`` or ``*_store`` in any package of the server)
    declares (a new store module is found by itself)."""
    for module in pkgutil.walk_packages(heartsuit.server.__path__, "heartsuit.server."):
        name = module.name.rsplit(".", 1)[-1]
        if name == "store" or name.endswith("_store"):
            importlib.import_module(module.name)
    return db_module.metadata


def schema_differences(conn: Connection, metadata: MetaData) -> list[Any]:
    return list(compare_metadata(MigrationContext.configure(conn), metadata))


# --- a database from before migrations -------------------------------------------------------


def played_game() -> tuple[Game, list[tuple[str, int]]]:
    """The game of CODE after TAPS, and its log: (action, time in ms) per change."""
    game = Game.from_code(CODE, now=START_MS / 1000)
    log: list[tuple[str, int]] = []
    for number, tap in enumerate(TAPS, start=1):
        at = START_MS + 1000 * number
        game.tap(tap, now=at / 1000)
        log.append((str(tap), at))
    return game, log


def fill_legacy(conn: Connection) -> None:
    """What an installation holds: players with settings, a game in play with its log."""
    LEGACY.create_all(conn)
    game, log = played_game()
    players = [
        ("player-with-settings-1", 1, True, False, True),
        ("player-with-defaults-2", 2, False, True, False),
    ]
    for pid, at, move_errors, placement_help, winnable_only in players:
        conn.execute(
            LEGACY.tables["players"].insert().values(
                id=pid, created_at_ms=at, move_errors=move_errors,
                placement_help=placement_help, winnable_only=winnable_only,
            )
        )
    conn.execute(
        LEGACY.tables["solitaire_games"].insert().values(
            id="the-game", player_id=players[0][0], code=CODE, started_at_ms=START_MS,
            status="playing", moves=game.moves, score=game.score, ended_at_ms=None,
            elapsed_ms=None, log_length=len(log),
        )
    )
    for seq, (action, at) in enumerate(log):
        conn.execute(
            LEGACY.tables["solitaire_moves"].insert().values(
                game_id="the-game", seq=seq, action=action, at_ms=at
            )
        )
    conn.execute(LEGACY.tables["solitaire_deals"].insert().values(code=CODE, winnable=True))


# --- the checks --------------------------------------------------------------------------------


def test_a_new_database_gets_the_newest_schema_and_the_stores_tables(empty_url: str) -> None:
    open_and_close(empty_url)
    assert on_connection(empty_url, migrations.current) == migrations.head()
    assert on_connection(empty_url, lambda c: schema_differences(c, every_store_table())) == []
    open_and_close(empty_url)  # opening again changes nothing
    assert on_connection(empty_url, migrations.current) == migrations.head()


def test_revision_1_is_exactly_the_schema_from_before_migrations(empty_url: str) -> None:
    on_connection(empty_url, lambda c: migrations.upgrade(c, migrations.BASELINE))
    assert on_connection(empty_url, migrations.current) == "0001_initial"
    assert on_connection(empty_url, lambda c: schema_differences(c, LEGACY)) == []


def test_the_revisions_have_readable_names_in_order() -> None:
    script = ScriptDirectory.from_config(migrations.config())
    names = [rev.revision for rev in reversed(list(script.walk_revisions()))]
    assert names[:9] == [
        "0001_initial",
        "0002_player_preferences",
        "0003_hearts_tables",
        "0004_solitaire_totals",
        "0005_move_intents",
        "0006_play_time",
        "0007_quiet_intents",
        "0008_secret_seeds",
        "0009_hearts_stats",
    ]
    assert names[-1] == migrations.head()


def test_a_database_from_before_migrations_keeps_its_players_and_settings(
    empty_url: str,
) -> None:
    on_connection(empty_url, fill_legacy)
    assert on_connection(empty_url, migrations.current) is None
    open_and_close(empty_url)

    def read(conn: Connection) -> tuple[list[str], dict[str, Any]]:
        columns = [c["name"] for c in inspect(conn).get_columns("players")]
        rows = conn.execute(
            text("SELECT player_id, game, prefs FROM player_preferences ORDER BY player_id")
        ).all()
        return columns, {f"{r.player_id}/{r.game}": json.loads(r.prefs) for r in rows}

    columns, prefs = on_connection(empty_url, read)
    assert on_connection(empty_url, migrations.current) == migrations.head()
    assert sorted(columns) == ["created_at_ms", "id"]
    assert prefs == {
        "player-with-defaults-2/solitaire": {
            "move_errors": False, "placement_help": True, "winnable_only": False
        },
        "player-with-settings-1/solitaire": {
            "move_errors": True, "placement_help": False, "winnable_only": True
        },
    }
    assert on_connection(empty_url, lambda c: schema_differences(c, every_store_table())) == []


def test_a_game_from_before_migrations_resumes_exactly(empty_url: str) -> None:
    on_connection(empty_url, fill_legacy)
    game, _log = played_game()
    expected = game_view(
        game, game_id="the-game", started_at_ms=START_MS, now_ms=START_MS, placement_help=False,
        under_way=True,
    ).model_dump(mode="json")
    settings = Settings(database_url=empty_url, origins=TEST_ORIGINS)
    app = create_app(settings, clock=FakeClock(START_MS + 60_000))
    with TestClient(app) as client, client.websocket_connect("/ws") as socket:
        peer = Peer(socket)
        welcome = peer.ask("hello", player="player-with-settings-1")
        assert welcome["player"] == "player-with-settings-1"
        assert welcome["settings"] == {
            "move_errors": True, "placement_help": False, "winnable_only": True
        }
        resumed = peer.ask("solitaire.resume")
        assert resumed["event"]["kind"] == "resumed"
        assert comparable(resumed["game"]) == comparable(expected)
        # and play goes on, logged after the old moves
        assert peer.tap("the-game", "stock")["game"]["moves"] == game.moves + 1


def test_a_database_with_only_some_of_the_tables_is_refused(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path / "odd.sqlite3")
    on_connection(url, lambda c: LEGACY.tables["players"].create(c))
    with pytest.raises(MigrationError, match="not all"):
        open_and_close(url)


def test_preferences_go_back_into_columns_on_a_downgrade(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path / "down.sqlite3")
    on_connection(url, fill_legacy)
    open_and_close(url)

    def downgrade(conn: Connection) -> None:
        command.downgrade(migrations.config(conn), migrations.BASELINE)

    on_connection(url, downgrade)
    rows = on_connection(
        url,
        lambda c: c.execute(
            text("SELECT id, move_errors, placement_help, winnable_only FROM players ORDER BY id")
        ).all(),
    )
    assert [tuple(row) for row in rows] == [
        ("player-with-defaults-2", False, True, False),
        ("player-with-settings-1", True, False, True),
    ]


# --- 0004: running totals from the games already played ---------------------------------------

DEAD_AT_DEAL = "HH1-N-AAAAAAA"


def fill_history(conn: Connection) -> None:
    """A player with every kind of game the site stored before 0004, in the old statuses."""
    fill_legacy(conn)
    games = LEGACY.tables["solitaire_games"]
    pid = "player-with-defaults-2"
    rows = [
        # id, code, start, status, moves, end, elapsed
        ("w1", "HH1-N-AAAAAAB", 10, "won", 90, 20, 9_000),
        ("w2", "HH1-N-AAAAAAC", 30, "won", 80, 40, 7_000),
        ("a1", "HH1-N-AAAAAAB", 50, "abandoned", 12, 60, None),
        ("u1", "HH1-N-AAAAAAD", 70, "abandoned", 0, 80, None),  # untouched: not a loss now
        ("d1", DEAD_AT_DEAL, 90, "abandoned", 0, 100, 0),  # a dead deal, left
        ("w3", "HH1-N-AAAAAAC", 110, "won", 70, 120, 8_000),
        ("e1", "HH1-N-AAAAAAE", 130, "dead_end", 30, 140, 5_000),  # the open game, a dead end
    ]
    for gid, code, start, status, moves, end, elapsed in rows:
        conn.execute(
            games.insert().values(
                id=gid, player_id=pid, code=code, started_at_ms=START_MS + start, status=status,
                moves=moves, score=0, ended_at_ms=START_MS + end, elapsed_ms=elapsed,
                log_length=moves,
            )
        )


def test_0004_counts_the_games_already_played_and_keeps_them_counting(empty_url: str) -> None:
    on_connection(empty_url, fill_history)
    open_and_close(empty_url)

    def read(conn: Connection) -> tuple[dict[str, str], list[Any], list[Any], Any]:
        statuses: dict[str, str] = {
            row.id: row.status
            for row in conn.execute(text("SELECT id, status FROM solitaire_games")).all()
        }
        totals = conn.execute(
            text(
                "SELECT player_id, games, wins, current_streak, best_streak, best_time_ms,"
                " fewest_moves, dead_deals FROM solitaire_player_stats ORDER BY player_id"
            )
        ).all()
        codes = conn.execute(
            text(
                "SELECT code, games, wins, best_time_ms, fewest_moves, last_at_ms"
                " FROM solitaire_code_stats WHERE player_id = 'player-with-defaults-2'"
                " ORDER BY code"
            )
        ).all()
        before = conn.execute(
            text("SELECT streak_before FROM solitaire_games WHERE id = 'e1'")
        ).scalar_one()
        return statuses, [tuple(r) for r in totals], [tuple(r) for r in codes], before

    statuses, totals, codes, streak_before = on_connection(empty_url, read)
    assert statuses["u1"] == "unplayed" and statuses["d1"] == "unplayable"
    assert statuses["e1"] == "dead_end" and statuses["a1"] == "abandoned"
    assert totals == [
        # games: w1 w2 a1 w3 e1; streak: w3 then the dead end e1
        ("player-with-defaults-2", 5, 3, 0, 2, 7_000, 70, 1),
        # the legacy game in play counts nothing yet
        ("player-with-settings-1", 0, 0, 0, 0, None, None, 0),
    ]
    assert codes == [
        ("HH1-N-AAAAAAB", 2, 1, 9_000, 90, START_MS + 60),
        ("HH1-N-AAAAAAC", 2, 2, 7_000, 70, START_MS + 120),
        ("HH1-N-AAAAAAE", 1, 0, None, None, START_MS + 140),
    ]
    assert streak_before == 1

    # the site reads the totals, and they agree with a count of the rows
    app = create_app(Settings(database_url=empty_url, origins=TEST_ORIGINS), clock=FakeClock())
    with TestClient(app) as client:
        api = client.get(
            "/api/stats", headers={"X-Heartsuit-Player": "player-with-defaults-2"}
        ).json()
        store = client.app.state.solitaire.store  # type: ignore[attr-defined]
        rows = client.portal.call(store.player_games, "player-with-defaults-2")  # type: ignore[union-attr]
    recounted, by_code = recount(rows)
    assert api["overall"]["games"] == recounted.games == 5
    assert api["overall"]["dead_deals"] == recounted.dead_deals == 1
    assert (api["overall"]["current_streak"], api["overall"]["best_streak"]) == (0, 2)
    assert api["by_code_total"] == len(by_code) == 3
    assert [row["code"] for row in api["by_code"]] == [
        "HH1-N-AAAAAAE", "HH1-N-AAAAAAC", "HH1-N-AAAAAAB"
    ]


def test_0004_goes_back_to_the_old_statuses_on_a_downgrade(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path / "down4.sqlite3")
    on_connection(url, fill_history)
    open_and_close(url)
    on_connection(url, lambda c: command.downgrade(migrations.config(c), "0003_hearts_tables"))
    rows = on_connection(
        url, lambda c: c.execute(text("SELECT id, status FROM solitaire_games")).all()
    )
    statuses = {row.id: row.status for row in rows}
    assert statuses["u1"] == "abandoned" and statuses["d1"] == "abandoned"
    tables = on_connection(url, lambda c: set(inspect(c).get_table_names()))
    assert "solitaire_player_stats" not in tables and "solitaire_snapshots" not in tables


# --- 0005: the page's intent ids in the move log ------------------------------------------------


def test_0005_keeps_the_old_moves_and_goes_back_without_the_intents(empty_url: str) -> None:
    on_connection(empty_url, fill_legacy)
    open_and_close(empty_url)  # up to the newest revision
    def read(conn: Connection) -> list[Any]:
        return list(conn.execute(text("SELECT seq, action, intent FROM solitaire_moves")).all())

    _game, log = played_game()
    before = on_connection(empty_url, read)
    assert len(before) == len(log) and all(row.intent is None for row in before)
    # one intent per game: a second entry of the same intent is refused by the store itself
    on_connection(
        empty_url,
        lambda c: c.execute(
            text(
                "INSERT INTO solitaire_moves (game_id, seq, action, at_ms, intent) "
                "VALUES ('the-game', :seq, 'stock', 1, 'tab-1')"
            ),
            {"seq": len(log)},
        ),
    )
    with pytest.raises(IntegrityError):
        on_connection(
            empty_url,
            lambda c: c.execute(
                text(
                    "INSERT INTO solitaire_moves (game_id, seq, action, at_ms, intent) "
                    "VALUES ('the-game', :seq, 'stock', 2, 'tab-1')"
                ),
                {"seq": len(log) + 1},
            ),
        )
    on_connection(
        empty_url, lambda c: command.downgrade(migrations.config(c), "0004_solitaire_totals")
    )
    columns = on_connection(
        empty_url, lambda c: {col["name"] for col in inspect(c).get_columns("solitaire_moves")}
    )
    assert "intent" not in columns
    count = on_connection(
        empty_url, lambda c: c.execute(text("SELECT count(*) FROM solitaire_moves")).scalar_one()
    )
    assert count == len(log) + 1
    open_and_close(empty_url)  # and up again
    assert on_connection(empty_url, migrations.current) == migrations.head()


# --- 0006: play time ---------------------------------------------------------------------------


def test_0006_counts_an_old_game_as_played_up_to_its_last_move_and_pauses_it(
    empty_url: str,
) -> None:
    on_connection(empty_url, fill_legacy)
    open_and_close(empty_url)

    def read(conn: Connection) -> tuple[Any, list[Any], int]:
        game = conn.execute(
            text("SELECT played_ms, running_since_ms FROM solitaire_games WHERE id = 'the-game'")
        ).one()
        moves = conn.execute(
            text("SELECT seq, play_ms FROM solitaire_moves WHERE intent IS NULL ORDER BY seq")
        ).all()
        snapshots = conn.execute(text("SELECT count(*) FROM solitaire_snapshots")).scalar_one()
        return game, list(moves), int(snapshots)

    game, moves, snapshots = on_connection(empty_url, read)
    # the old moves were a second apart from the deal: that much is play time, and no more
    assert tuple(game) == (1000 * len(TAPS), None)
    assert [tuple(m) for m in moves] == [(n, 1000 * (n + 1)) for n in range(len(TAPS))]
    assert snapshots == 0
    # an hour later the game resumes with the time of its last move, paused until shown
    settings = Settings(database_url=empty_url, origins=TEST_ORIGINS)
    app = create_app(settings, clock=FakeClock(START_MS + 3_600_000, step=0))
    with TestClient(app) as client, client.websocket_connect("/ws") as socket:
        peer = Peer(socket)
        peer.ask("hello", player="player-with-settings-1")
        resumed = peer.ask("solitaire.resume")["game"]
        assert (resumed["elapsed_ms"], resumed["clock_running"]) == (1000 * len(TAPS), False)
        assert peer.tap("the-game", "stock")["game"]["moves"] == played_game()[0].moves + 1


def test_0006_goes_back_to_0005_without_its_columns(empty_url: str) -> None:
    url = empty_url
    on_connection(url, fill_legacy)
    open_and_close(url)
    on_connection(url, lambda c: command.downgrade(migrations.config(c), "0005_move_intents"))

    def columns(conn: Connection) -> set[str]:
        found = set()
        for table in ("solitaire_games", "solitaire_moves", "solitaire_player_stats"):
            found |= {c["name"] for c in inspect(conn).get_columns(table)}
        return found

    def move_indexes(conn: Connection) -> set[str]:
        return {str(i["name"]) for i in inspect(conn).get_indexes("solitaire_moves")}

    found = on_connection(url, columns)
    assert not {"played_ms", "running_since_ms", "play_ms", "daily_streak"} & found
    # 0005's intents stay, with their unique index (0006's downgrade rebuilt the moves table)
    assert "intent" in found
    assert "ux_solitaire_moves_game_intent" in on_connection(url, move_indexes)
    assert on_connection(url, migrations.current) == "0005_move_intents"
    open_and_close(url)  # and up again
    assert on_connection(url, migrations.current) == migrations.head()
