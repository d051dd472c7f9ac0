"""The Content-Security-Policy against the real pages in Chromium: every page, the Hearts pages
with a real table and invite too, loads and runs without the browser refusing anything."""

from __future__ import annotations

import json
from typing import Any

import pytest
from websockets.sync.client import connect

from tests.browser.conftest import ServerProcess

pytestmark = pytest.mark.browser

WATCH = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__csp.push(e.violatedDirective + " " + e.blockedURI);
});
"""


def _online_table(server: ServerProcess) -> tuple[str, str]:
    """A real online table: its id and its invite code."""
    with connect(f"ws://127.0.0.1:{server.port}/ws") as ws:
        ws.send(json.dumps({"type": "hello", "req": 1}))
        ws.send(
            json.dumps(
                {
                    "type": "hearts.create",
                    "mode": "online",
                    "preset": "standard",
                    "options": {},
                    "name": "Ana",
                    "req": 2,
                }
            )
        )
        while True:
            reply = json.loads(ws.recv(timeout=10))
            if reply.get("req") == 2:
                assert reply["type"] == "hearts.created", reply
                return str(reply["table"]), str(reply["invite"])


def test_no_page_breaks_the_content_security_policy(page: Any, server: ServerProcess) -> None:
    table, invite = _online_table(server)
    console: list[str] = []
    page.on("console", lambda m: console.append(m.text))
    page.add_init_script(WATCH)
    paths = [
        "/",
        "/heart-to-heart?code=HH1-N-AAAAAAM",
        "/heart-to-heart/examples",
        "/heart-to-heart/rules",
        "/stats",
        "/hearts",
        f"/hearts/table/{table}",
        f"/hearts/join/{invite}",
        "/hearts/rules",
    ]
    for path in paths:
        response = page.goto(server.url + path)
        assert response.status == 200
        assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
        page.wait_for_load_state("networkidle")
        page.wait_for_timeout(300)
        violations = page.evaluate("window.__csp")
        assert violations == [], (path, violations)
    assert not [text for text in console if "Content Security Policy" in text], console
