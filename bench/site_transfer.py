"""Bytes a browser really transfers for each page, with an empty cache and with a warm one.

Starts ``heartsuit serve`` (site_first_frame's server, with a temporary SQLite file), makes one
online Hearts table for the table and invite pages, then for each page:

* cold: a fresh Chromium profile (empty cache) opens the page;
* warm: the same browser opens the page again in a new tab, as a second visit does.

Chromium's own network events (the DevTools protocol's ``Network.loadingFinished``
``encodedDataLength``: headers and body as they came over the wire, compressed when the server
compressed) are summed over every HTTP request of the page until the network is idle; requests
answered from the cache cost nothing. The WebSocket's frames are not counted (they are the game,
not the page). Prints KB and requests (and how many came from the cache) per page.

Usage: ``python bench/site_transfer.py [--json out.json]``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

from playwright.sync_api import sync_playwright
from websockets.sync.client import connect

# the browser, the server and the fetch are site_first_frame.py's, so the benches measure alike
from site_first_frame import ARGS, CHROMIUM, start_server


def online_table(base: str) -> tuple[str, str]:
    """(table id, invite code) of a new online Hearts table."""
    with connect(base.replace("http://", "ws://") + "/ws") as ws:
        ws.send(json.dumps({"type": "hello", "req": 1}))
        ws.send(json.dumps({"type": "hearts.create", "mode": "online", "preset": "standard",
                            "options": {}, "name": "Ana", "req": 2}))
        while True:
            reply: dict[str, Any] = json.loads(ws.recv(timeout=30))
            if reply.get("req") == 2:
                assert reply["type"] == "hearts.created", reply
                return str(reply["table"]), str(reply["invite"])


def visit(context: Any, url: str) -> dict[str, int]:
    """Open ``url`` in a new tab; bytes and requests as Chromium's network events count them."""
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    received: dict[str, int] = {}
    cached: set[str] = set()
    requests: set[str] = set()
    sockets: set[str] = set()

    def on_request(event: dict[str, Any]) -> None:
        requests.add(event["requestId"])

    def on_cache(event: dict[str, Any]) -> None:
        cached.add(event["requestId"])

    def on_response(event: dict[str, Any]) -> None:
        response = event["response"]
        if response.get("fromDiskCache") or response.get("fromMemoryCache"):
            cached.add(event["requestId"])

    def on_finished(event: dict[str, Any]) -> None:
        received[event["requestId"]] = int(event["encodedDataLength"])

    def on_socket(event: dict[str, Any]) -> None:
        sockets.add(event["requestId"])

    cdp.on("Network.requestWillBeSent", on_request)
    cdp.on("Network.requestServedFromCache", on_cache)
    cdp.on("Network.responseReceived", on_response)
    cdp.on("Network.loadingFinished", on_finished)
    cdp.on("Network.webSocketCreated", on_socket)
    page.goto(url)
    page.wait_for_load_state("networkidle")
    page.wait_for_timeout(200)
    page.close()
    http = requests - sockets
    return {
        "bytes": sum(size for rid, size in received.items() if rid in http and rid not in cached),
        "requests": len(http),
        "from_cache": len(http & cached),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="heartsuit-bench-"))
    proc, base = start_server(tmp)
    figures: dict[str, dict[str, dict[str, int]]] = {}
    try:
        table, invite = online_table(base)
        pages = {
            "/": "/",
            "/heart-to-heart": "/heart-to-heart",
            "/heart-to-heart/examples": "/heart-to-heart/examples",
            "/heart-to-heart/rules": "/heart-to-heart/rules",
            "/stats": "/stats",
            "/hearts": "/hearts",
            "/hearts/table/<id>": f"/hearts/table/{table}",
            "/hearts/join/<invite>": f"/hearts/join/{invite}",
            "/hearts/rules": "/hearts/rules",
        }
        with sync_playwright() as pw:
            for i, (name, path) in enumerate(pages.items()):
                context = pw.chromium.launch_persistent_context(
                    str(tmp / f"profile-{i}"), executable_path=CHROMIUM, headless=True, args=ARGS
                )
                cold = visit(context, base + path)
                warm = visit(context, base + path)
                context.close()
                figures[name] = {"cold": cold, "warm": warm}
        width = max(len(name) for name in figures)
        print(f"{'page':<{width}}  {'cold KB':>8} {'requests':>8}  {'warm KB':>8} "
              f"{'requests':>8} {'cached':>6}")
        for name, row in figures.items():
            cold, warm = row["cold"], row["warm"]
            print(f"{name:<{width}}  {cold['bytes'] / 1024:8.1f} {cold['requests']:8d}  "
                  f"{warm['bytes'] / 1024:8.1f} {warm['requests']:8d} {warm['from_cache']:6d}")
        if args.json:
            args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
