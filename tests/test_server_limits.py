"""What one client may take of the site (``server/core/limits.py``), who may open ``/ws``, the
security headers, and the player id kept out of URLs.

Each limit is reached with the real app, refused with its own error code, and leaves other
clients (a canary connection) and the database as they were.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest
from starlette.websockets import WebSocketDisconnect

from heartsuit.server.core.headers import HEADERS
from heartsuit.server.core.settings import Settings, allowed_hosts, allowed_origins
from tests.server_support import Site, running_site, site_rows

CODE = "HH1-N-AAAAAAM"


@pytest.fixture
def site(tmp_path: Path) -> Any:
    with running_site(
        tmp_path / "site.sqlite3",
        max_connections_per_address=4,
        max_tabs_per_player=2,
        hellos_per_minute=5,
        new_players_per_minute=3,
        new_games_per_minute=3,
        lookups_per_minute=4,
        address_share=2,
        hearts_pace_ms=0,
    ) as running:
        yield running


def test_sockets_per_address_are_limited(site: Site) -> None:
    sockets = [site.client.websocket_connect("/ws").__enter__() for _ in range(4)]
    with site.client.websocket_connect("/ws") as extra:
        refusal = extra.receive_json()
        assert refusal["code"] == "too_many_connections"
        assert extra.receive()["code"] == 1008
    sockets.pop().__exit__(None, None, None)
    with site.peer(hello=False) as again:  # a freed place can be taken
        assert again.ask("lang", lang="en")["type"] == "lang"
    for socket in sockets:
        socket.__exit__(None, None, None)


def test_new_player_ids_are_limited_per_address(site: Site) -> None:
    """A hello without a kept id makes a new player: that, one address may do 3 times a
    minute here; the refusal says truthfully when the next is taken."""
    with site.peer(hello=False) as peer:
        replies = [peer.ask("hello") for _ in range(4)]
        assert [r["type"] for r in replies] == ["welcome"] * 3 + ["error"]
        refused = replies[-1]
        assert refused["code"] == "rate_limited" and refused["retry_after"] == 20
        assert "20 detik" in refused["message"]
        # a known player is not a new one: its own hellos go on
        assert peer.ask("hello", player=replies[0]["player"])["type"] == "welcome"
    # nothing was made for the refused hello
    assert site_rows(site, "SELECT count(*) FROM players") == [(0,)]


def test_hellos_of_one_player_are_limited_per_player(site: Site) -> None:
    with site.peer(hello=False) as peer:
        me = peer.ask("hello")["player"]
        other = peer.ask("hello")["player"]
        # the first hello made the id: five more with it, then its bucket is empty
        replies = [peer.ask("hello", player=me) for _ in range(6)]
        assert [r["type"] for r in replies[:5]] == ["welcome"] * 5
        assert replies[5]["code"] == "rate_limited" and replies[5]["retry_after"] == 12
        # another person at the same address has their own (the address's ceiling is 10)
        assert peer.ask("hello", player=other)["type"] == "welcome"


def test_new_games_are_limited_per_player_and_per_address(site: Site) -> None:
    with site.peer() as first, site.peer() as second, site.peer() as third:
        # three new games each a minute here: the first person's fourth waits...
        first.new_game(CODE)
        first.new_game(CODE)
        created = first.ask("hearts.create", mode="computer", preset="standard", options={})
        assert created["type"] == "hearts.created", created
        refused = first.ask("solitaire.new", code=CODE)
        assert refused["code"] == "rate_limited" and refused["retry_after"] == 20
        assert first.ask("hearts.create", mode="computer")["code"] == "rate_limited"
        # ...while another person behind the same address plays on
        second.new_game(CODE)
        second.new_game(CODE)
        second.new_game(CODE)
        # six at one address is its ceiling here (twice one person's): a third person waits
        ceiling = third.ask("solitaire.new", code=CODE)
        assert ceiling["code"] == "rate_limited" and ceiling["retry_after"] >= 1
        # the refused deals changed nothing: five solitaire games were dealt
        games = site_rows(site, "SELECT id FROM solitaire_games")
        assert len(games) == 5
        assert first.ask("solitaire.resume")["type"] == "solitaire.state"


def test_invite_guesses_and_replays_are_limited_per_player_and_per_address(site: Site) -> None:
    with site.peer() as guesser:
        replies = [guesser.ask("hearts.invite", invite=f"ABCDEFG{c}") for c in "HJKM"]
        # four wrong guesses are answered as such; the fifth lookup of either kind waits
        assert [r["code"] for r in replies] == ["bad_invite"] * 4
        refused = guesser.ask("hearts.invite", invite="ABCDEFGN")
        assert refused["code"] == "rate_limited" and refused["retry_after"] == 15
        assert "15 detik" in refused["message"]
        assert guesser.ask("hearts.replay", table="abcdefgh")["code"] == "rate_limited"
    with site.peer() as other:  # a second person: four more, then the address's ceiling
        codes = [other.ask("hearts.invite", invite=f"ABCDEFG{c}")["code"] for c in "PQRST"]
        assert codes == ["bad_invite"] * 4 + ["rate_limited"]
    with site.peer() as third:
        assert third.ask("hearts.invite", invite="ABCDEFGU")["code"] == "rate_limited"


def test_tabs_per_player_are_limited(site: Site) -> None:
    with site.peer() as first:
        first.new_game(CODE)
        with site.peer(first.player) as second, site.peer(hello=False) as third:
            assert second.player == first.player
            refused = third.ask("hello", player=first.player)
            assert refused["code"] == "too_many_tabs"
            assert third.ask("solitaire.resume")["code"] == "no_player"
        with site.peer(first.player) as again:  # a closed tab frees its place
            assert again.player == first.player


def test_serve_help_names_every_limit_with_its_variable_and_default(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from heartsuit.cli import main
    from heartsuit.server.core.settings import LIMIT_ENV

    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    text = capsys.readouterr().out
    for name in LIMIT_ENV:
        assert name in text, name
    assert "HEARTSUIT_NEW_PLAYERS_PER_MINUTE (default 120)\n" in text
    assert "HEARTSUIT_MAX_CONNECTIONS_PER_ADDRESS (default 1000)\n" in text


def test_every_limit_must_be_at_least_one() -> None:
    from heartsuit.server.core.settings import SettingsError

    with pytest.raises(SettingsError, match="at least 1"):
        Settings(address_share=0)


def test_hellos_alone_store_no_player(site: Site) -> None:
    with site.peer(hello=False) as peer:
        me = peer.ask("hello")["player"]
        for _ in range(4):
            peer.ask("hello", player=me)
    assert site_rows(site, "SELECT count(*) FROM players") == [(0,)]


# --- frames the server could not even write back ------------------------------------------


@pytest.mark.parametrize(
    "frame",
    [
        '{"type":"\\ud800"}',
        '{"type":"solitaire.tap","game":"\\udc00","target":1}',
        '{"type":"hello","player":"\\ud800\\ud800"}',
        '{"\\udfff":1,"type":"lang","lang":"en"}',
    ],
)
def test_a_lone_surrogate_is_refused_and_the_socket_stays(
    site: Site, frame: str, caplog: pytest.LogCaptureFixture
) -> None:
    with site.peer() as peer:
        game = peer.new_game(CODE)
        reply = peer.raw(frame)
        assert reply["code"] == "bad_text", reply
        assert peer.ask("solitaire.resume")["game"]["id"] == game["id"]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


def test_a_surrogate_pair_is_a_character_like_any_other(site: Site) -> None:
    with site.peer() as peer:
        reply = peer.raw('{"type":"\\ud83d\\ude00"}')
        assert reply["code"] == "unknown_type"
        assert "\U0001f600" in reply["message"]


# --- who may open /ws ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "headers",
    [
        {"origin": "http://evil.example"},
        {"origin": "null"},
        {"origin": "http://testserver.evil.example"},
        {"host": "evil.example"},
        {"host": "evil.example", "origin": "http://evil.example"},
    ],
)
def test_ws_refuses_other_origins_and_hosts(site: Site, headers: dict[str, str]) -> None:
    with (
        pytest.raises(WebSocketDisconnect) as closed,
        site.client.websocket_connect("/ws", headers=headers) as socket,
    ):
        socket.receive_json()
    assert closed.value.code == 1008


def test_ws_accepts_its_own_origin_and_clients_without_one(site: Site) -> None:
    with site.client.websocket_connect("/ws", headers={"origin": "http://testserver"}) as s:
        s.send_text(json.dumps({"type": "lang", "lang": "en"}))
        assert s.receive_json()["type"] == "lang"


def test_the_default_origins_are_the_served_address_and_localhost() -> None:
    origins = allowed_origins(Settings(host="192.168.1.5", port=8000))
    assert origins == {
        "http://192.168.1.5:8000",
        "http://localhost:8000",
        "http://127.0.0.1:8000",
        "http://[::1]:8000",
    }
    assert "localhost:8000" in allowed_hosts(Settings())
    configured = Settings(origins=("https://hearts.example",))
    assert allowed_origins(configured) == {"https://hearts.example"}
    assert allowed_hosts(configured) == {"hearts.example", "hearts.example:443"}


# --- HTTP ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path", ["/", "/heart-to-heart", "/hearts", "/healthz", "/api/stats", "/static/css/site.css"]
)
def test_every_answer_carries_the_security_headers(site: Site, path: str) -> None:
    response = site.client.get(path)
    assert response.status_code == 200
    for name, value in HEADERS.items():
        assert response.headers[name] == value
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
    assert "server" not in response.headers


def test_stats_take_the_player_from_a_header_never_the_url(site: Site) -> None:
    with site.peer() as peer:
        first = peer.new_game(CODE)
        peer.tap(first["id"], "stock")
        peer.new_game(CODE, leave=first["id"])  # leaves the first under way: one game
        player = peer.player
    by_header = site.client.get("/api/stats", headers={"X-Heartsuit-Player": player}).json()
    assert by_header["overall"]["games"] == 1
    by_url = site.client.get("/api/stats", params={"player": player}).json()
    assert by_url["overall"]["games"] == 0  # an id in a URL ends up in logs: not read there
