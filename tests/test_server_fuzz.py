"""The /ws protocol against generated frames: broken JSON, lone surrogates, hostile ids, wrong
types, every message type with random fields.

For every frame: a reply comes (or the socket is closed cleanly, never with 1011), a frame that
is refused changes nothing in the database, and a canary connection keeps working throughout.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.websockets import WebSocketDisconnect

from tests.server_support import Peer, Site, running_site, site_rows

TABLES = (
    "players",
    "player_preferences",
    "solitaire_games",
    "solitaire_moves",
    "hearts_tables",
    "hearts_seats",
    "hearts_events",
)

TYPES = (
    "hello", "lang", "settings", "stats", "solitaire.new", "solitaire.resume", "solitaire.tap",
    "solitaire.undo", "hearts.create", "hearts.open", "hearts.invite", "hearts.sit",
    "hearts.start", "hearts.pass", "hearts.play", "hearts.moon", "hearts.look", "hearts.leave",
    "hearts.free", "hearts.rematch",
)  # fmt: skip

#: text a client should never be able to break the server with
HOSTILE = st.one_of(
    st.text(max_size=30),
    st.sampled_from(
        [
            "\ud800", "\udc00", "a\udfffb", "\ud83d\ude00", "../../etc/passwd", "A" * 64,
            "A" * 65, "%00", "\x00", "' OR 1=1 --", "<script>", "HH1-N-AAAAAß", "\u202e",
        ]
    ),
)  # fmt: skip
JSON_LEAF = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), HOSTILE)
JSON_VALUE = st.recursive(
    JSON_LEAF,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(HOSTILE, inner, max_size=4),
    max_leaves=12,
)
FIELDS = ("player", "game", "target", "code", "table", "tokens", "token", "seat", "card",
          "cards", "version", "invite", "name", "mode", "preset", "options", "lang",
          "winnable_only", "move_errors")  # fmt: skip


@st.composite
def messages(draw: st.DrawFn, game_ids: tuple[str, ...]) -> str:
    """One frame's text: mostly a message of a known type with random or hostile fields."""
    kind = draw(st.one_of(st.sampled_from(TYPES), HOSTILE))
    fields = draw(st.dictionaries(st.sampled_from(FIELDS), JSON_VALUE, max_size=4))
    if draw(st.booleans()) and game_ids:
        # the real ids, spoilt: a surrogate inside, a case changed, a suffix
        real = draw(st.sampled_from(game_ids))
        fields[draw(st.sampled_from(("game", "table")))] = draw(
            st.sampled_from([real + "\udc00", real.swapcase(), real + "x", real[:-1]])
        )
    data = {"type": kind, **fields}
    # ensure_ascii: lone surrogates travel as \\udXXX escapes, as a hostile client sends them
    return json.dumps(data, ensure_ascii=True)


FRAMES = st.one_of(
    st.text(max_size=60).map(lambda t: t.encode("utf-8", "replace").decode("utf-8")),
    JSON_VALUE.map(lambda v: json.dumps(v, ensure_ascii=True)),
    st.just('{"type":"\\ud800"}'),
    st.just("[" * 5000 + "]" * 5000),
)


def snapshot(site: Site) -> dict[str, Any]:
    return {t: site_rows(site, f"SELECT * FROM {t} ORDER BY 1") for t in TABLES}


def settled(site: Site) -> dict[str, Any]:
    """The data once nothing is writing any more: an earlier frame's work can go on after its
    reply (computer players of a table it created, the play clock paused when its tab closed),
    and must not be taken for what the next frame did."""
    last = snapshot(site)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        time.sleep(0.05)
        now = snapshot(site)
        if now == last:
            return now
        last = now
    raise AssertionError("the site never stopped writing")


def test_every_frame_gets_a_reply_and_a_refusal_changes_nothing(tmp_path: Path) -> None:
    with (
        running_site(
            tmp_path / "site.sqlite3", hearts_pace_ms=0, hellos_per_minute=100_000
        ) as site,
        site.peer() as victim,
        site.peer() as canary,
    ):
        game = victim.new_game("HH1-N-AAAAAAM")
        victim.tap(game["id"], "stock")
        created = victim.ask("hearts.create", mode="online", preset="standard", options={})
        ids = (game["id"], str(created["table"]))
        marker = [10_000]

        @settings(
            max_examples=200,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        )
        @given(frame=st.one_of(messages(ids), FRAMES))
        def check(frame: str) -> None:
            before = settled(site)
            # each frame on a fresh tab of the victim: a socket that died cannot hide the next
            with site.client.websocket_connect("/ws") as socket:
                tab = Peer(socket)
                tab.hello(victim.player)
                socket.send_text(frame)
                # a marker after the frame: whatever the frame caused arrives before its reply
                marker[0] += 1
                socket.send_text(json.dumps({"type": "lang", "lang": "en", "req": marker[0]}))
                replies: list[dict[str, Any]] = []
                try:
                    while True:
                        text = socket.receive_text()
                        # a real socket sends UTF-8: half a character would kill it (1011)
                        text.encode("utf-8")
                        message: dict[str, Any] = json.loads(text)
                        if message.get("req") == marker[0]:
                            break
                        replies.append(message)
                except WebSocketDisconnect as closed:
                    raise AssertionError(f"{frame!r} closed the socket ({closed.code})") from None
            answers = [m for m in replies if m.get("type") != "hearts.state" or "req" in m]
            assert answers, f"no reply to {frame!r}: {replies}"
            if all(m.get("type") == "error" for m in answers):
                assert snapshot(site) == before, f"{frame!r} was refused but changed the data"
            assert canary.ask("stats")["type"] == "stats"

        check()
        # the victim's first tab still answers (its games may have changed by valid frames)
        assert victim.ask("stats")["type"] == "stats"
