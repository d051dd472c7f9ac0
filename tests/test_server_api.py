"""The HTTP side of the server: /healthz, /api/stats, /api/examples, the mounts, the settings
and the ``heartsuit serve`` command line."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import pytest

from heartsuit.cli import build_parser, serve_cmd
from heartsuit.server.core.settings import DEFAULT_DB_FILE, Settings, SettingsError, sqlite_url
from heartsuit.server.hearts.settings import HeartsSettings
from heartsuit.server.solitaire import examples
from heartsuit.solitaire import Game, solve
from heartsuit.solitaire.codes import deal_for_code
from heartsuit.solitaire.layout import TIP
from tests.server_support import Site, running_site


@pytest.fixture
def site(tmp_path: Path) -> Any:
    with running_site(tmp_path / "site.sqlite3") as running:
        yield running


def test_healthz_says_ok(site: Site) -> None:
    reply = site.client.get("/healthz")
    assert (reply.status_code, reply.text) == (200, "ok")


def test_pages_and_static_files_are_mounted(site: Site) -> None:
    assert site.client.get("/").status_code == 200
    assert site.client.get("/static/no-such-file.css").status_code == 404


@pytest.mark.parametrize("query", ["", "?player=", "?player=nobody", "?player=" + "A" * 22])
def test_stats_of_an_unknown_or_absent_player_are_empty(site: Site, query: str) -> None:
    body = site.client.get("/api/stats" + query).json()
    assert body["type"] == "stats"
    assert body["overall"]["games"] == 0 and body["by_code"] == []


def test_examples_are_a_real_won_game_replayed_move_by_move(site: Site) -> None:
    reply = site.client.get("/api/examples")
    assert reply.status_code == 200
    body = reply.json()
    assert body == site.client.get("/api/examples").json()  # cached, and stable
    assert body["code"] == examples.EXAMPLE_CODE
    frames = body["frames"]
    assert frames[0]["move"] == 0 and frames[0]["taps"] == []
    assert frames[0]["game"]["score"] == 0 and frames[0]["game"]["stock_count"] == 26
    # replaying the frames' taps through the engine gives each frame's state and ends in a win
    game = Game.from_code(body["code"])
    for number, frame in enumerate(frames[1:], start=1):
        assert frame["move"] == number
        for tap in frame["taps"]:
            game.tap(tap)
        view = frame["game"]
        assert (view["score"], view["moves"], view["outcome"]) == (
            game.score, game.moves, game.outcome.value
        )
        assert [c and c["card"] for c in view["heart"]] == [
            c and str(c) for c in game.heart
        ]
    assert game.won and frames[-1]["game"]["score"] == 250
    elapsed = [f["game"]["elapsed_ms"] for f in frames]
    assert elapsed == sorted(elapsed) and elapsed[-1] > 0


def test_the_pinned_example_pairs_the_tip_with_a_waste_four_at_move_ten() -> None:
    moves = examples.winning_moves(examples.EXAMPLE_CODE)
    assert moves is not None
    # the line is the solver's proven fewest-move win, so it cannot drift with machine load
    assert solve(deal_for_code(examples.EXAMPLE_CODE), budget_s=60).optimal
    assert examples.tip_meets_waste(moves)
    game = Game.from_code(examples.EXAMPLE_CODE)
    tip = game.heart[TIP - 1]
    assert tip is not None and str(tip) == "4♥"
    for move in moves[: examples.TIP_MOVE - 1]:
        for tap in move:
            game.tap(tap)
    assert game.card_at("waste") == tip
    game.tap(TIP)
    game.tap("waste")
    # the two cards the tip covered are free now
    assert {23, 24} <= set(game.free_positions())


def test_settings_come_from_the_environment_and_the_command_line() -> None:
    assert Settings.from_env({}).database_url == sqlite_url(DEFAULT_DB_FILE)
    assert Settings.from_env({"HEARTSUIT_DB": "/x/y.db"}).database_url == sqlite_url("/x/y.db")
    assert Settings.from_env({"HEARTSUIT_DB": "/x/y.db"}, db_path="z.db").database_url == (
        sqlite_url("z.db")
    )
    pg = "postgresql+asyncpg://u:p@db/heartsuit"
    assert Settings.from_env({"DATABASE_URL": pg}, db_path="z.db").database_url == pg
    chosen = Settings.from_env({}, host="0.0.0.0", port=9000)
    assert (chosen.host, chosen.port) == ("0.0.0.0", 9000)


def test_hearts_pace_and_grace_come_from_the_environment() -> None:
    default = HeartsSettings.from_env({})
    assert (default.pace_ms, default.grace_ms) == (700, 30_000)
    quick = HeartsSettings.from_env(
        {"HEARTSUIT_HEARTS_PACE_MS": "0", "HEARTSUIT_HEARTS_GRACE_MS": " 1500 "}
    )
    assert (quick.pace_ms, quick.grace_ms) == (0, 1500)
    assert HeartsSettings.from_env({"HEARTSUIT_HEARTS_PACE_MS": ""}).pace_ms == 700


@pytest.mark.parametrize("name", ["HEARTSUIT_HEARTS_PACE_MS", "HEARTSUIT_HEARTS_GRACE_MS"])
@pytest.mark.parametrize("value", ["-1", "1.5", "fast", "١٢", "86400001"])
def test_unusable_hearts_timings_are_refused(name: str, value: str) -> None:
    with pytest.raises(SettingsError, match=name):
        HeartsSettings.from_env({name: value})


@pytest.mark.parametrize(
    "kwargs",
    [{"port": 70000}, {"database_url": "heartsuit.sqlite3"}, {"max_frame_bytes": 10}],
)
def test_unusable_settings_are_refused(kwargs: dict[str, Any]) -> None:
    with pytest.raises(SettingsError):
        Settings(**kwargs)


def test_serve_parses_its_arguments() -> None:
    args = build_parser().parse_args(["serve", "--host", "0.0.0.0", "--port", "9001", "--db",
                                      "games.sqlite3"])
    assert (args.host, args.port, args.db) == ("0.0.0.0", 9001, "games.sqlite3")
    assert args.handler is serve_cmd.run
    defaults = build_parser().parse_args(["serve"])
    assert (defaults.host, defaults.port, defaults.db) == ("127.0.0.1", 8000, None)


@pytest.mark.parametrize("port", ["http", "-1", "65536"])
def test_serve_refuses_a_bad_port(port: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve", "--port", port])
    assert "port" in capsys.readouterr().err


def test_serve_runs_uvicorn_with_the_chosen_settings(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seen: list[Settings] = []
    monkeypatch.setattr(serve_cmd, "serve", lambda settings, games: seen.append(settings))
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.setenv("HEARTSUIT_MAX_TABS_PER_PLAYER", "3")
    db = tmp_path / "g.sqlite3"
    args = argparse.Namespace(host="127.0.0.1", port=8123, db=str(db))
    assert serve_cmd.run(args) == 0
    (settings,) = seen
    assert (settings.host, settings.port, settings.max_tabs_per_player) == ("127.0.0.1", 8123, 3)
    assert "http://127.0.0.1:8123/" in capsys.readouterr().out
    config = serve_cmd.uvicorn_config(settings)
    assert (config.host, config.port) == ("127.0.0.1", 8123)
    assert config.ws_max_size > 16 * 1024
    assert config.server_header is False
    assert config.timeout_graceful_shutdown is not None
    assert config.app.state.settings.database_url == sqlite_url(db)  # type: ignore[union-attr]
