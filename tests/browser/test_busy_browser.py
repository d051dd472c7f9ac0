"""A page the server refuses for being busy (``rate_limited``) says so calmly and tries again by
itself, after the wait the server said: a ``hello`` (a new player, when the address has made
many), and a new game. Against a server of its own with a low limit of new players an address
may make (one a second), so that the other browser tests' server is not disturbed.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.sync.client import connect
from websockets.typing import Origin

from tests.browser import axe
from tests.browser.conftest import ServerProcess

pytestmark = pytest.mark.browser


@pytest.fixture
def busy_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[ServerProcess]:
    monkeypatch.setitem(os.environ, "HEARTSUIT_NEW_PLAYERS_PER_MINUTE", "60")
    tmp = Path(tempfile.mkdtemp(prefix="heartsuit-busy-"))
    proc = ServerProcess(tmp / "site.sqlite3", tmp / "server.log")
    proc.start()
    try:
        yield proc
    finally:
        proc.stop()
        shutil.rmtree(tmp, ignore_errors=True)


def use_up_new_players(server: ServerProcess) -> None:
    """Make new players from this address until the server refuses one."""
    with connect(
        f"ws://127.0.0.1:{server.port}/ws", origin=Origin(server.url), legacy=True
    ) as socket:
        for req in range(1, 200):
            socket.send(json.dumps({"type": "hello", "req": req}))
            reply: dict[str, Any] = json.loads(socket.recv(timeout=10))
            if reply.get("code") == "rate_limited":
                assert reply["retry_after"] == 1
                return
    raise AssertionError("the server never refused a new player")


def test_a_refused_hello_shows_a_calm_note_and_the_page_tries_again(
    busy_server: ServerProcess, new_user: Any
) -> None:
    tab = new_user(360, 740).new_page()
    use_up_new_players(busy_server)
    tab.goto(f"{busy_server.url}/hearts?lang=en")
    note = tab.locator("[data-busy]")
    note.wait_for(state="visible")
    assert "trying again" in note.inner_text()
    axe.check(tab, "the busy note")
    # the page greets again by itself once the server's second has passed, and plays
    note.wait_for(state="hidden", timeout=20_000)
    tab.click('[data-mode="computer"]')
    tab.wait_for_url("**/hearts/table/**")
    tab.wait_for_selector(".ht-hand .hc")
    assert tab.evaluate("localStorage.getItem('heartsuit.player')")
