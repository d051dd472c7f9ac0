"""Serving in Chromium: every page loads every module it needs, all from versioned URLs,
compressed and immutable; a second visit takes them from the cache without asking the server."""

from __future__ import annotations

import re
import urllib.request
from typing import Any

import pytest

from tests.browser.conftest import ServerProcess
from tests.browser.test_security_browser import _online_table

pytestmark = pytest.mark.browser

VERSIONED = re.compile(r"/static/.+\.[0-9a-f]{10}(\.[a-z]+)?$")


def _modules_by_http(server: ServerProcess, path: str) -> set[str]:
    """Every JS module the page at ``path`` reaches, following imports over plain HTTP."""
    with urllib.request.urlopen(server.url + path, timeout=10) as reply:
        html = reply.read().decode()
    queue = re.findall(r'src="(/static/[^"]+\.js)"', html)
    seen: set[str] = set()
    while queue:
        url = queue.pop()
        if url in seen:
            continue
        seen.add(url)
        with urllib.request.urlopen(server.url + url, timeout=10) as reply:
            text = reply.read().decode()
        for spec in re.findall(r'from\s*"\./([^"]+)"', text):
            queue.append(url.rsplit("/", 1)[0] + "/" + spec)
    return seen


def test_pages_load_all_their_modules_from_versioned_urls_and_then_from_the_cache(
    new_user: Any, server: ServerProcess
) -> None:
    table, invite = _online_table(server)
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
        user = new_user()  # an empty cache
        tab = user.new_page()
        static: dict[str, Any] = {}
        tab.on(
            "response",
            lambda r, static=static: static.setdefault(r.url, r) if "/static/" in r.url else None,
        )
        assert tab.goto(server.url + path).status == 200
        tab.wait_for_load_state("networkidle")
        assert static, path
        for url, response in static.items():
            assert VERSIONED.search(url), (path, url)
            assert response.status == 200, (path, url)
            headers = response.all_headers()
            assert headers["cache-control"] == "public, max-age=31536000, immutable", url
            if url.endswith((".js", ".css")):
                assert headers.get("content-encoding") == "gzip", url
        loaded = {u.removeprefix(server.url) for u in static if u.endswith(".js")}
        assert loaded == _modules_by_http(server, path), path
        # the page's modules really ran: the language switch is there and no page error came
        assert tab.locator("[data-lang-switch]").count() == 1

        # again, in the same browser: every static file from the cache, none asked for
        tab.reload()
        tab.wait_for_load_state("networkidle")
        sizes = tab.evaluate(
            """performance.getEntriesByType("resource")
                 .filter((e) => e.name.includes("/static/"))
                 .map((e) => [e.name, e.transferSize])"""
        )
        assert len(sizes) == len(static), (path, sizes)
        assert all(size == 0 for _, size in sizes), (path, sizes)
        user.context.close()
