"""Site figures: page weight and the time from request to the first playable frame.

Starts ``heartsuit serve`` on a free port with a temporary SQLite file, then

* page weight: the Heart to Heart page's HTML plus every file it links and every JS module it
  imports, raw and as the server sends them to a browser that accepts gzip, in KB (bodies only;
  ``bench/site_transfer.py`` counts what Chromium really receives, cold and warm);
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


def fetch(url: str, headers: dict[str, str] | None = None) -> bytes:
    """The body of ``url`` exactly as sent (compressed when the request accepts gzip)."""
    request = urllib.request.Request(url, headers=headers or {})
    with urllib.request.urlopen(request, timeout=10) as response:
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


def page_weight(base: str, path: str = "/heart-to-heart") -> tuple[int, int, list[str]]:
    """(raw bytes, bytes as the server sends them to a browser that accepts gzip, files) of a
    page, its CSS and all its JS modules, followed through their imports."""
    files: dict[str, tuple[bytes, bytes]] = {}
    queue = [path]
    while queue:
        url = queue.pop()
        if url in files:
            continue
        sent = fetch(base + url, {"Accept-Encoding": "gzip"})
        body = gzip.decompress(sent) if sent[:2] == b"\x1f\x8b" else sent
        files[url] = (body, sent)
        if url == path:
            queue += [u.decode() for u in re.findall(rb'(?:href|src)="(/static/[^"]+)"', body)]
        else:
            folder = url.rsplit("/", 1)[0]
            queue += [f"{folder}/{name.decode()}"
                      for name in re.findall(rb'from "\./([\w.-]+\.js)"', body)]
    raw = sum(len(body) for body, _ in files.values())
    sent_total = sum(len(sent) for _, sent in files.values())
    return raw, sent_total, sorted(files)


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
        print(f"page weight (/heart-to-heart and what it loads, {len(files)} files): "
              f"{raw / 1024:.1f} KB raw, {packed / 1024:.1f} KB as sent")
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
