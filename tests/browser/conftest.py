"""Real-browser fixtures: the real server as a subprocess, and Debian's Chromium via Playwright.

One server (on a free port, with a temporary SQLite file) and one browser serve all the browser
tests; each test gets a fresh page with no cookies and no stored player, so it acts as a new
user. ``server.restart()`` stops and starts the same server on the same database, as a crash
and restart would. Screenshots go to ``artifacts/screenshots/`` (gitignored).
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
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
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
def browser_context() -> Iterator[Any]:
    if sync_api is None or not Path(CHROMIUM).exists():
        pytest.skip("needs playwright and Debian's chromium (./dev test installs both)")
    profile = tempfile.mkdtemp(prefix="heartsuit-chromium-")
    with sync_api.sync_playwright() as pw:
        # Playwright refuses --user-data-dir in launch(); a persistent context takes the
        # fresh profile directory instead
        context = pw.chromium.launch_persistent_context(
            profile,
            executable_path=CHROMIUM,
            headless=True,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
            viewport={"width": 1280, "height": 800},
        )
        context.set_default_timeout(15_000)
        try:
            yield context
        finally:
            context.close()
            shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture
def page(browser_context: Any, server: ServerProcess) -> Iterator[Any]:
    """A fresh tab for a new user: no cookies, no stored player id; page errors fail the test."""
    browser_context.clear_cookies()
    tab = browser_context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    tab.goto(f"{server.url}/healthz")
    tab.evaluate("localStorage.clear()")
    try:
        yield tab
    finally:
        tab.close()
    assert errors == [], errors


def screenshot(page: Any, name: str) -> None:
    """Save a screenshot of the whole page to artifacts/screenshots/<name>.png."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)
