"""Real-browser fixtures: the real server as a subprocess, and Debian's Chromium via Playwright.

One server (on a free port, with a temporary SQLite file) and one browser serve all the browser
tests; each test gets a fresh page with no cookies and no stored player, so it acts as a new
user, and ``new_user()`` opens one more such person (a browser context of their own, with its
own storage) for tests where several people meet at a table. ``server.restart()`` stops and
starts the same server on the same database, as a crash and restart would. The server plays
Hearts computers at once (``HEARTSUIT_HEARTS_PACE_MS=0``) and gives a person who dropped out of
an online table a short grace (``GRACE_MS``) before a computer plays for them. Screenshots go to
``artifacts/screenshots/`` (gitignored).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
#: how long the browser tests' server keeps a dropped person's seat before a computer plays it
GRACE_MS = 1500
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "artifacts" / "screenshots"

sync_api: Any
try:
    from playwright import sync_api
except ImportError:  # pragma: no cover - the dev extras install it
    sync_api = None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class ServerProcess:
    """``heartsuit serve`` in a subprocess that can be stopped and started again."""

    def __init__(self, db: Path, log: Path) -> None:
        self.db = db
        self.log = log
        self.port = _free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        env = {
            **os.environ,
            "PYTHONUNBUFFERED": "1",
            "HEARTSUIT_HEARTS_PACE_MS": "0",
            "HEARTSUIT_HEARTS_GRACE_MS": str(GRACE_MS),
        }
        env.pop("DATABASE_URL", None)  # always the temporary SQLite file
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "heartsuit", "serve", "--host", "127.0.0.1",
                 "--port", str(self.port), "--db", str(self.db)],
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=self.db.parent,
                env=env,
            )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited: {self.log.read_text(errors='replace')}")
            with (
                contextlib.suppress(OSError),
                urllib.request.urlopen(f"{self.url}/healthz", timeout=1) as response,
            ):
                if response.read().strip() == b"ok":
                    return
            time.sleep(0.1)
        raise RuntimeError("server did not answer /healthz within 30 s")

    def stop(self) -> None:
        if self.process is None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process = None

    def restart(self) -> None:
        self.stop()
        self.start()


# package scope, not session: Playwright's sync API keeps an event loop running in this thread
# while it is open, and the rest of the suite must be free to call asyncio.run()
@pytest.fixture(scope="package")
def server() -> Iterator[ServerProcess]:
    tmp = Path(tempfile.mkdtemp(prefix="heartsuit-browser-"))
    proc = ServerProcess(tmp / "site.sqlite3", tmp / "server.log")
    proc.start()
    try:
        yield proc
    finally:
        proc.stop()
        shutil.rmtree(tmp, ignore_errors=True)


@pytest.fixture(scope="package")
def playwright_api() -> Iterator[Any]:
    if sync_api is None or not Path(CHROMIUM).exists():
        pytest.skip("needs playwright and Debian's chromium (./dev test installs both)")
    with sync_api.sync_playwright() as pw:
        yield pw


@pytest.fixture(scope="package")
def browser_context(playwright_api: Any) -> Iterator[Any]:
    profile = tempfile.mkdtemp(prefix="heartsuit-chromium-")
    # Playwright refuses --user-data-dir in launch(); a persistent context takes the
    # fresh profile directory instead
    context = playwright_api.chromium.launch_persistent_context(
        profile,
        executable_path=CHROMIUM,
        headless=True,
        args=CHROMIUM_ARGS,
        viewport={"width": 1280, "height": 800},
    )
    context.set_default_timeout(15_000)
    try:
        yield context
    finally:
        context.close()
        shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture(scope="package")
def browser(playwright_api: Any) -> Iterator[Any]:
    """A second Chromium whose contexts are more people (each with storage of their own)."""
    chromium = playwright_api.chromium.launch(
        executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
    )
    try:
        yield chromium
    finally:
        chromium.close()


class User:
    """One more person at the site: a browser context of their own, with the pages they open.

    Closing every page of the context drops the person's connection (a phone put away); the
    context keeps their localStorage, so a page opened later is the same person coming back.
    """

    def __init__(self, context: Any, errors: list[str]) -> None:
        self.context = context
        self.errors = errors

    def new_page(self) -> Any:
        tab = self.context.new_page()
        tab.on("pageerror", lambda error: self.errors.append(str(error)))
        return tab


@pytest.fixture
def new_user(browser: Any, server: ServerProcess) -> Iterator[Any]:
    """``new_user(width, height)`` -> a :class:`User`; page errors fail the test."""
    contexts: list[Any] = []
    errors: list[str] = []

    def make(width: int = 1280, height: int = 800) -> User:
        context = browser.new_context(viewport={"width": width, "height": height})
        context.set_default_timeout(15_000)
        # as for ``page``: each card tapped by the test (unless a test chose otherwise)
        context.add_init_script(
            "try { const k = 'heartsuit.hearts.setting.autoplay';"
            " if (localStorage.getItem(k) === null) localStorage.setItem(k, '0'); } catch {}"
        )
        contexts.append(context)
        return User(context, errors)

    try:
        yield make
    finally:
        for context in contexts:
            context.close()
    assert errors == [], errors


@pytest.fixture
def page(browser_context: Any, server: ServerProcess) -> Iterator[Any]:
    """A fresh tab for a new user: no cookies, no stored player id; page errors fail the test."""
    browser_context.clear_cookies()
    tab = browser_context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(f"{error}\n{error.stack}"))
    tab.goto(f"{server.url}/healthz")
    tab.evaluate("localStorage.clear()")
    # the tests tap every card themselves (they were written before a lone legal card played
    # itself); the tests of that setting turn it back on
    tab.evaluate("localStorage.setItem('heartsuit.hearts.setting.autoplay', '0')")
    try:
        yield tab
    finally:
        tab.close()
    assert errors == [], errors


def screenshot(page: Any, name: str) -> None:
    """Save a screenshot of the whole page to artifacts/screenshots/<name>.png."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)
