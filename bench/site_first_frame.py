"""Site figures: page weight and the time from request to the first playable frame.

Starts ``heartsuit serve`` on a free port with a temporary SQLite file, then

* page weight: the Heart to Heart page's HTML plus every CSS and JS file it loads, each
  gzip-compressed (level 6, about what a server or proxy would send), in KB;
* first frame: headless Debian Chromium opens ``/heart-to-heart`` as a new player (no stored
  player id, so hello + a new deal) and reads ``performance.mark("heartsuit:first-frame")``, set by
  the page once the first game state from the server is drawn: milliseconds from the start of the
  navigation. Cold runs use a fresh browser profile (empty cache), warm runs reuse one.

Prints medians (and min/max) of several runs. Usage: ``python bench/site_first_frame.py [runs]``.
"""

from __future__ import annotations

import contextlib
import gzip
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from playwright.sync_api import sync_playwright

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def fetch(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=10) as response:
        body: bytes = response.read()
        return body


def start_server(tmp: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "heartsuit", "serve", "--port", str(port),
         "--db", str(tmp / "bench.sqlite3")],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    for _ in range(300):
        with contextlib.suppress(OSError):
            if fetch(f"{base}/healthz").strip() == b"ok":
                return proc, base
        time.sleep(0.1)
    proc.kill()
    raise SystemExit("the server did not start")


def page_weight(base: str) -> tuple[int, int, list[str]]:
    """(raw bytes, gzip bytes, files) of the play page, its CSS and all its JS modules."""
    html = fetch(f"{base}/heart-to-heart")
    files = {"/heart-to-heart": html}
    queue = re.findall(rb'(?:href|src)="(/static/[^"]+\.(?:css|js)[^"]*)"', html)
    while queue:
        url = queue.pop().decode()
        path = url.split("?")[0]
        if path in files:
            continue
        body = fetch(base + url)
        files[path] = body
        for name in re.findall(rb'from "\./([\w-]+\.js)"', body):
            queue.append(f"/static/js/{name.decode()}".encode())
    raw = sum(len(b) for b in files.values())
    packed = sum(len(gzip.compress(b, 6)) for b in files.values())
    return raw, packed, sorted(files)


def first_frame(context: Any, base: str) -> float:
    page = context.new_page()
    page.goto(f"{base}/healthz")
    page.evaluate("localStorage.clear()")
    page.goto(f"{base}/heart-to-heart")
    page.wait_for_function("performance.getEntriesByName('heartsuit:first-frame').length > 0")
    ms: float = page.evaluate("performance.getEntriesByName('heartsuit:first-frame')[0].startTime")
    page.close()
    return ms


def summary(name: str, values: list[float]) -> str:
    return (f"{name}: median {statistics.median(values):.0f} ms "
            f"(min {min(values):.0f}, max {max(values):.0f}, {len(values)} runs)")


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    tmp = Path(tempfile.mkdtemp(prefix="heartsuit-bench-"))
    proc, base = start_server(tmp)
    try:
        raw, packed, files = page_weight(base)
        print(f"page weight (HTML+CSS+JS of /heart-to-heart, {len(files)} files): "
              f"{raw / 1024:.1f} KB raw, {packed / 1024:.1f} KB gzip")
        with sync_playwright() as pw:
            cold = []
            for i in range(runs):
                profile = tmp / f"cold-{i}"
                ctx = pw.chromium.launch_persistent_context(
                    str(profile), executable_path=CHROMIUM, headless=True, args=ARGS,
                    bypass_csp=True)  # wait_for_function evaluates a string
                cold.append(first_frame(ctx, base))
                ctx.close()
            ctx = pw.chromium.launch_persistent_context(
                str(tmp / "warm"), executable_path=CHROMIUM, headless=True, args=ARGS,
                    bypass_csp=True)  # wait_for_function evaluates a string
            first_frame(ctx, base)  # fill the cache
            warm = [first_frame(ctx, base) for _ in range(runs)]
            ctx.close()
        print(summary("first playable frame, cold cache", cold))
        print(summary("first playable frame, warm cache", warm))
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
