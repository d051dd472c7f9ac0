"""Heart to Heart games on the site: the move log, reconnect, restart, stats, other tabs.

The database is read with ``sqlite3`` right after each reply, outside the app, to show that
every accepted move was written before the player heard about it.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from heartsuit.server.core.settings import Settings, sqlite_url
from heartsuit.server.site.app import create_app
from heartsuit.server.solitaire.examples import winning_moves
from heartsuit.server.solitaire.service import SolitaireService
from heartsuit.solitaire import Game
from heartsuit.solitaire.codes import deal_for_code
from heartsuit.solitaire.layout import TIP
from heartsuit.solitaire.solver import decide
from tests.server_support import (
    TEST_ORIGINS,
    FakeClock,
    Peer,
    Site,
    comparable,
    game_row,
    logged_actions,
    running_site,
)

#: deal 12: its fewest-move win is 70 moves (the solver finds it in a few milliseconds)
WIN_CODE = "HH1-N-AAAAAAM"


@pytest.fixture
def site(tmp_path: Path) -> Any:
    with running_site(tmp_path / "site.sqlite3") as running:
        yield running


def flat_win(code: str) -> list[int | str]:
    moves = winning_moves(code)
    assert moves is not None
    return [tap for move in moves for tap in move]


def play_to_the_end(site: Site, peer: Peer, game_id: str, taps: list[int | str]) -> dict[str, Any]:
    """Play ``taps``, checking after every reply that its move is already in the database."""
    reply: dict[str, Any] = {}
    for count, tap in enumerate(taps, start=1):
        reply = peer.tap(game_id, tap)
        assert reply["type"] == "solitaire.state", reply
        assert len(logged_actions(site.db_path, game_id)) == count
    return reply


def test_every_accepted_move_is_in_the_database_before_the_reply(site: Site) -> None:
    with site.peer() as peer:
        game = peer.new_game(WIN_CODE)
        assert game_row(site.db_path, game["id"])["status"] == "playing"
        peer.tap(game["id"], TIP)
        assert logged_actions(site.db_path, game["id"]) == ["25"]
        peer.tap(game["id"], "stock")
        assert logged_actions(site.db_path, game["id"]) == ["25", "stock"]
        peer.ask("solitaire.undo", game=game["id"])
        assert logged_actions(site.db_path, game["id"]) == ["25", "stock", "undo"]
        # a tap that changes nothing (a covered card) is not a move and is not logged
        peer.tap(game["id"], 1)
        assert logged_actions(site.db_path, game["id"]) == ["25", "stock", "undo"]
        row = game_row(site.db_path, game["id"])
    assert (row["moves"], row["score"], row["log_length"]) == (0, 0, 3)


def test_a_won_game_is_logged_scored_and_final(site: Site) -> None:
    taps = flat_win(WIN_CODE)
    with site.peer() as peer:
        game_id = peer.new_game(WIN_CODE)["id"]
        final = play_to_the_end(site, peer, game_id, taps)
        game = final["game"]
        assert game["outcome"] == "won" and game["score"] == 250
        assert all(slot is None for slot in game["heart"])
        row = game_row(site.db_path, game_id)
        assert row["status"] == "won"
        assert row["elapsed_ms"] == game["elapsed_ms"] > 0
        assert row["moves"] == game["moves"] == len(winning_moves(WIN_CODE) or [])
        # the clock stopped at the win
        assert peer.ask("solitaire.resume")["type"] == "solitaire.none"
        assert peer.tap(game_id, "stock")["code"] == "game_over"
        assert peer.ask("solitaire.undo", game=game_id)["code"] == "game_over"
        assert len(logged_actions(site.db_path, game_id)) == len(taps)


def test_stats_after_a_won_and_a_lost_game(site: Site) -> None:
    with site.peer() as peer:
        game_id = peer.new_game(WIN_CODE)["id"]
        won = play_to_the_end(site, peer, game_id, flat_win(WIN_CODE))["game"]
        after_win = peer.ask("stats")
        assert after_win["overall"] == {
            "games": 1, "wins": 1, "win_pct": 100.0, "current_streak": 1, "best_streak": 1,
            "best_time_ms": won["elapsed_ms"], "fewest_moves": won["moves"], "dead_deals": 0,
        }
        lost = peer.new_game("HH1-N-AAAAAAB")
        peer.tap(lost["id"], "stock")
        peer.new_game("HH1-N-AAAAAAD", leave=lost["id"])  # leaves AAAAAAB under way: a loss
        stats = peer.ask("stats")
        player = peer.player
    assert stats["overall"] == {
        "games": 2, "wins": 1, "win_pct": 50.0, "current_streak": 0, "best_streak": 1,
        "best_time_ms": won["elapsed_ms"], "fewest_moves": won["moves"], "dead_deals": 0,
    }
    assert stats["by_code"] == [
        {"code": "HH1-N-AAAAAAB", "games": 1, "wins": 0, "best_time_ms": None,
         "fewest_moves": None},
        {"code": WIN_CODE, "games": 1, "wins": 1, "best_time_ms": won["elapsed_ms"],
         "fewest_moves": won["moves"]},
    ]
    api = site.client.get("/api/stats", headers={"X-Heartsuit-Player": player}).json()
    assert api == {k: v for k, v in stats.items() if k != "req"}


def test_a_new_game_closes_the_unfinished_one(site: Site) -> None:
    with site.peer() as peer:
        first = peer.new_game(WIN_CODE)
        peer.tap(first["id"], "stock")
        second = peer.new_game(WIN_CODE, leave=first["id"])
        third = peer.new_game(WIN_CODE)  # the second had no move: nothing to ask
        assert peer.ask("solitaire.resume")["game"]["id"] == third["id"]
    assert game_row(site.db_path, first["id"])["status"] == "abandoned"
    assert game_row(site.db_path, second["id"])["status"] == "unplayed"
    assert game_row(site.db_path, third["id"])["status"] == "playing"


def test_reconnecting_with_the_same_player_resumes_the_same_game(site: Site) -> None:
    with site.peer() as peer:
        player = peer.hello()
        game_id = peer.new_game(WIN_CODE)["id"]
        peer.tap(game_id, "stock")
        last = peer.tap(game_id, TIP)["game"]
    with site.peer(player) as again:
        resumed = again.ask("solitaire.resume")
    assert resumed["event"]["kind"] == "resumed"
    assert comparable(resumed["game"]) == comparable(last)
    assert resumed["game"]["heart"][TIP - 1]["selected"] is True


def test_a_restarted_server_continues_every_game_exactly(tmp_path: Path) -> None:
    db = tmp_path / "site.sqlite3"
    taps: list[int | str] = ["stock", "stock", TIP, "waste", "stock", 3, TIP]
    with running_site(db) as first, first.peer() as peer:
        player = peer.hello()
        game_id = peer.new_game(WIN_CODE)["id"]
        for tap in taps:
            peer.tap(game_id, tap)
        before = peer.ask("solitaire.undo", game=game_id)["game"]
        service: SolitaireService = first.client.app.state.solitaire  # type: ignore[attr-defined]
        played = first.client.portal.call(service.game_of, player, game_id)  # type: ignore[union-attr]
        snapshot = played.live.game.to_dict()
        clock_at = first.clock.now
    with running_site(db, clock=FakeClock(start=clock_at)) as second, second.peer(player) as peer:
        resumed = peer.ask("solitaire.resume")["game"]
        service = second.client.app.state.solitaire  # type: ignore[attr-defined]
        replayed = second.client.portal.call(  # type: ignore[union-attr]
            service.game_of, player, game_id
        ).live.game
        assert comparable(resumed) == comparable(before)
        assert resumed["elapsed_ms"] >= before["elapsed_ms"]
        mine = replayed.to_dict()
        for key in ("clock", "settings"):
            mine.pop(key), snapshot.pop(key)
        assert mine == snapshot
        # and play goes on from there
        assert peer.tap(game_id, "stock")["game"]["moves"] == before["moves"] + 1


def test_another_tab_of_the_same_player_is_kept_up_to_date(site: Site) -> None:
    with site.peer() as first:
        player = first.hello()
        game_id = first.new_game(WIN_CODE)["id"]
        with site.peer(player) as second:
            assert second.ask("solitaire.resume")["game"]["id"] == game_id
            flipped = first.tap(game_id, "stock")
            pushed = second.socket.receive_json()
            assert pushed["type"] == "solitaire.state" and "req" not in pushed
            assert pushed["event"]["kind"] == "synced"
            assert comparable(pushed["game"]) == comparable(flipped["game"])
            second.ask("settings", move_errors=True)
            assert first.wait_for_push("settings") == {
                "type": "settings", "move_errors": True, "placement_help": True,
                "winnable_only": False,
            }


def test_winnable_only_draws_until_the_solver_says_yes_and_caches_verdicts(
    tmp_path: Path,
) -> None:
    asked: list[str] = []

    def third_time_lucky(code: str) -> bool:
        asked.append(code)
        return len(asked) == 3

    db = tmp_path / "s.sqlite3"
    with running_site(db, analyse=third_time_lucky) as site, site.peer() as peer:
        plain = peer.new_game()
        assert asked == [] and plain["code"]
        game = peer.new_game(None, winnable_only=True)
        assert asked[-1] == game["code"] and len(asked) == 3
        peer.ask("settings", winnable_only=True)
        asked.clear()
        peer.new_game()
        assert len(asked) >= 1
        # a code the player names is dealt as it is, whatever the setting
        asked.clear()
        assert peer.new_game("HH1-N-AAAAAAA")["code"] == "HH1-N-AAAAAAA"
        assert asked == []
    with closing(sqlite3.connect(db)) as conn:
        cached = conn.execute("SELECT COUNT(*) FROM solitaire_deals").fetchone()[0]
    assert cached >= 4


def test_winnable_only_gives_up_after_its_attempts_and_still_deals(tmp_path: Path) -> None:
    asked: list[str] = []

    def never(code: str) -> bool:
        asked.append(code)
        return False

    with running_site(tmp_path / "s.sqlite3", analyse=never) as site, site.peer() as peer:
        game = peer.new_game(None, winnable_only=True)
    assert game["outcome"] in ("playing", "dead_end")
    assert len(asked) == 40


def test_winnable_only_with_the_real_solver_deals_a_winnable_deal(tmp_path: Path) -> None:
    settings = Settings(database_url=sqlite_url(tmp_path / "s.sqlite3"), origins=TEST_ORIGINS)
    app = create_app(settings)
    with TestClient(app) as client, client.websocket_connect("/ws") as socket:
        peer = Peer(socket)
        peer.hello()
        codes = [peer.new_game(None, winnable_only=True)["code"] for _ in range(3)]
    assert all(decide(deal_for_code(code)) for code in codes)


def test_a_selection_survives_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "site.sqlite3"
    with running_site(db) as first, first.peer() as peer:
        player = peer.hello()
        game_id = peer.new_game(WIN_CODE)["id"]
        peer.tap(game_id, TIP)
    with running_site(db) as second, second.peer(player) as peer:
        game = peer.ask("solitaire.resume")["game"]
    assert game["id"] == game_id
    assert game["heart"][TIP - 1]["selected"] is True
    assert Game.from_code(WIN_CODE).selected is None
