"""Hearts page figures: page weight and the time from navigation to the hand being drawn.

Starts ``heartsuit serve`` on a free port with a temporary SQLite file (the site's own
settings, so computers play at the default pace), then

* page weight: the start page ``/hearts`` and the table page ``/hearts/table/<id>``, each its
  HTML plus every file it links (JS modules followed through their imports), raw and as the
  server sends them to a browser that accepts gzip (site_first_frame's ``page_weight``), in KB;
* first playable frame of a computer table: before each run a table against three computers is
  created over ``/ws`` (as the start page does) and its seat token put in the browser's
  localStorage (``heartsuit.hearts.<table>``, as the start page does before it navigates); then
  headless Debian Chromium opens ``/hearts/table/<id>``. The table page sets no performance
  mark of its own, so an init script watches the DOM: ``hand in DOM`` is when the hand's
  container (``[data-hand]``) first holds cards and the board is shown, ``hand drawn`` the next
  animation frame after it; both in milliseconds from the start of the navigation. Cold runs use
  a fresh browser profile (empty cache), warm runs reuse one.

Prints medians (and min/max) of several runs. Usage: ``python bench/hearts_first_frame.py [runs]``.
"""

from __future__ import annotations

import json
import shutil
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from playwright.sync_api import sync_playwright
from websockets.sync.client import connect

# the browser, the server and the fetch are site_first_frame.py's, so both measure alike
from site_first_frame import ARGS, CHROMIUM, page_weight, start_server

#: marks "bench:hand" when the hand first holds cards on a shown board, then "bench:hand-frame"
#: at the next animation frame (the hand painted)
WATCH_HAND = """
(() => {
  const seen = () => {
    const hand = document.querySelector("[data-hand]");
    const board = document.querySelector("[data-board]");
    return hand && board && !board.hidden && hand.children.length > 0;
  };
  const start = () => {
    const done = () => {
      performance.mark("bench:hand");
      requestAnimationFrame(() => performance.mark("bench:hand-frame"));
    };
    if (seen()) { done(); return; }
    const watcher = new MutationObserver(() => {
      if (seen()) { watcher.disconnect(); done(); }
    });
    watcher.observe(document.documentElement, {subtree: true, childList: true, attributes: true});
  };
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
"""


def new_table(base: str) -> tuple[str, str, str]:
    """(player id, table id, seat token) of a new table against three computers."""
    with connect(base.replace("http://", "ws://") + "/ws") as ws:

        def ask(message: dict[str, Any]) -> dict[str, Any]:
            ws.send(json.dumps(message))
            while True:
                reply: dict[str, Any] = json.loads(ws.recv(timeout=30))
                if reply.get("req") == message["req"]:
                    return reply

        player = ask({"type": "hello", "req": 1})["player"]
        created = ask({"type": "hearts.create", "mode": "computer", "req": 2})
        assert created["type"] == "hearts.created", created
        return str(player), str(created["table"]), str(created["tokens"][0]["token"])


def first_frame(context: Any, base: str) -> tuple[float, float]:
    """(hand in DOM, hand drawn) in ms from navigation start, on a new computer table."""
    player, table, token = new_table(base)
    page = context.new_page()
    page.goto(f"{base}/healthz")
    page.evaluate(
        """([player, table, token]) => {
             localStorage.clear();
             localStorage.setItem("heartsuit.player", player);
             localStorage.setItem("heartsuit.hearts." + table, JSON.stringify({0: token}));
             localStorage.setItem("heartsuit.hearts.last", table);
           }""",
        [player, table, token],
    )
    page.goto(f"{base}/hearts/table/{table}")
    page.wait_for_function("performance.getEntriesByName('bench:hand-frame').length > 0")
    marks: list[float] = page.evaluate(
        "['bench:hand', 'bench:hand-frame'].map(n => performance.getEntriesByName(n)[0].startTime)"
    )
    cards = page.locator("[data-hand] > *").count()
    assert cards == 13, f"the hand shows {cards} cards"
    page.close()
    return marks[0], marks[1]


def summary(name: str, values: list[float]) -> str:
    return (
        f"{name}: median {statistics.median(values):.0f} ms "
        f"(min {min(values):.0f}, max {max(values):.0f}, {len(values)} runs)"
    )


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    tmp = Path(tempfile.mkdtemp(prefix="heartsuit-bench-"))
    proc, base = start_server(tmp)
    try:
        _player, table, _token = new_table(base)
        for path in ("/hearts", f"/hearts/table/{table}"):
            raw, packed, files = page_weight(base, path)
            name = "/hearts/table/<id>" if path != "/hearts" else path
            print(
                f"page weight of {name} (and what it loads, {len(files)} files): "
                f"{raw / 1024:.1f} KB raw, {packed / 1024:.1f} KB as sent"
            )
        with sync_playwright() as pw:
            cold: list[tuple[float, float]] = []
            for i in range(runs):
                ctx = pw.chromium.launch_persistent_context(
                    str(tmp / f"cold-{i}"), executable_path=CHROMIUM, headless=True, args=ARGS,
                    bypass_csp=True,  # the measuring script waits with an evaluated string
                )
                ctx.add_init_script(WATCH_HAND)
                cold.append(first_frame(ctx, base))
                ctx.close()
            ctx = pw.chromium.launch_persistent_context(
                str(tmp / "warm"), executable_path=CHROMIUM, headless=True, args=ARGS,
                bypass_csp=True,  # the measuring script waits with an evaluated string
            )
            ctx.add_init_script(WATCH_HAND)
            first_frame(ctx, base)  # fill the cache
            warm = [first_frame(ctx, base) for _ in range(runs)]
            ctx.close()
        print(summary("computer table, hand in DOM, cold cache", [c[0] for c in cold]))
        print(summary("computer table, hand drawn,  cold cache", [c[1] for c in cold]))
        print(summary("computer table, hand in DOM, warm cache", [w[0] for w in warm]))
        print(summary("computer table, hand drawn,  warm cache", [w[1] for w in warm]))
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
