"""Heart to Heart: the time from a tap to the board showing it, at a 150 ms round trip.

Starts ``heartsuit serve`` on a free port with a temporary SQLite file (or uses ``--url``, a
server already running), puts a small asyncio TCP proxy in front of it that holds every chunk
for ``--delay`` ms (75 by default) in each direction, so that each round trip through the proxy
takes at least 150 ms, and drives headless Debian Chromium through the proxy as new players:

* selection: the time from the click on a free heart card (nothing selected) to the DOM
  showing it selected (the card's ``selected`` class);
* pair: with one card of a pair selected, the time from the click on its partner to the DOM
  showing both removed (the cards' ``empty`` class).

Each tap is measured in the page (``performance.now()`` before the click, a MutationObserver
after it), and the next tap waits until the server has answered. Prints medians (and min/max)
of every sample. Usage: ``python bench/solitaire_taps.py [--players 4] [--taps 5]``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import shutil
import statistics
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, sync_playwright

from site_first_frame import ARGS, CHROMIUM, free_port, start_server

#: measures one click in the page: resolves with the milliseconds until `done(el, other)` holds
MEASURE = """
async ([selector, other, what]) => {
  const el = document.querySelector(selector);
  const partner = other ? document.querySelector(other) : null;
  // a pair: the card selected first (a heart card) is removed, and so is the one tapped
  const done = () => what === "selected"
    ? el.classList.contains("selected")
    : partner.classList.contains("empty") && (el.dataset.pile || el.classList.contains("empty"));
  const t0 = performance.now();
  return await new Promise((resolve) => {
    const watch = new MutationObserver(() => {
      if (done()) { watch.disconnect(); resolve(performance.now() - t0); }
    });
    watch.observe(document.querySelector("[data-heart]"), {
      attributes: true, subtree: true, attributeFilter: ["class"],
    });
    el.click();
    if (done()) { watch.disconnect(); resolve(performance.now() - t0); }
  });
}
"""

#: a pair to take: [heart card, heart card or the waste] as selectors, or null
FIND_PAIR = """
() => {
  const free = [...document.querySelectorAll("[data-pos].free:not(.empty)")];
  const waste = document.querySelector('[data-pile="waste"]:not(.empty)');
  for (const a of free) {
    for (const b of free) {
      if (a !== b && a.dataset.rank === b.dataset.rank) {
        return [`[data-pos="${a.dataset.pos}"]`, `[data-pos="${b.dataset.pos}"]`];
      }
    }
    if (waste && waste.dataset.rank === a.dataset.rank) {
      return [`[data-pos="${a.dataset.pos}"]`, '[data-pile="waste"]'];
    }
  }
  return null;
}
"""

#: a free heart card, as a selector
FIND_FREE = """
() => {
  const el = document.querySelector("[data-pos].free:not(.empty):not(.selected)");
  return el ? `[data-pos="${el.dataset.pos}"]` : null;
}
"""


class DelayProxy:
    """A TCP proxy on 127.0.0.1 that delays every chunk by ``delay`` seconds each way (order
    kept), run in a thread of its own."""

    def __init__(self, port: int, target_port: int, delay: float) -> None:
        self.target_port = target_port
        self.delay = delay
        self.port = port
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> DelayProxy:
        self._thread.start()
        self._ready.wait(10)
        return self

    def __exit__(self, *exc: object) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        server = self._loop.run_until_complete(
            asyncio.start_server(self._client, "127.0.0.1", self.port)
        )
        self._ready.set()
        try:
            self._loop.run_forever()
        finally:
            server.close()
            tasks = asyncio.all_tasks(self._loop)
            for task in tasks:
                task.cancel()
            self._loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
            self._loop.close()

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            writer.close()
            return
        await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()

        async def deliver() -> None:
            while True:
                due, chunk = await queue.get()
                wait = due - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
                if not chunk:
                    with contextlib.suppress(OSError):
                        writer.close()
                    return
                writer.write(chunk)
                with contextlib.suppress(OSError):
                    await writer.drain()

        sender = asyncio.create_task(deliver())
        try:
            while True:
                chunk = await reader.read(65536)
                queue.put_nowait((loop.time() + self.delay, chunk))
                if not chunk:
                    break
        except OSError:
            queue.put_nowait((loop.time(), b""))
        await sender


def settle(page: Page, seq: int) -> None:
    """Wait until the page has drawn a server state after ``seq`` (the tap's answer)."""
    page.wait_for_function(
        "(seq) => Number(document.querySelector('[data-game]').dataset.seq) > seq"
        " && document.querySelector('[data-game]').dataset.pending !== 'true'",
        arg=seq,
    )


def seq_of(page: Page) -> int:
    return int(page.get_attribute("[data-game]", "data-seq") or "0")


def play(page: Page, base: str, taps: int) -> tuple[list[float], list[float]]:
    """One new player's samples: selections and pairs."""
    page.goto(f"{base}/heart-to-heart?lang=en")
    page.wait_for_function("() => Number(document.querySelector('[data-game]').dataset.seq) > 0")
    selections: list[float] = []
    pairs: list[float] = []
    for _ in range(taps * 12):
        if len(selections) >= taps and len(pairs) >= taps:
            break
        if page.get_attribute("[data-game]", "data-outcome") != "playing":
            break
        found: Any = page.evaluate(FIND_PAIR)
        if found is None:
            alone: Any = page.evaluate(FIND_FREE)
            if alone is not None and len(selections) < taps:
                seq = seq_of(page)
                selections.append(page.evaluate(MEASURE, [alone, None, "selected"]))
                settle(page, seq)
                seq = seq_of(page)
                page.click(alone)  # deselect
                settle(page, seq)
            seq = seq_of(page)
            page.click('[data-pile="stock"]')
            settle(page, seq)
            continue
        first, second = found
        seq = seq_of(page)
        selections.append(page.evaluate(MEASURE, [first, None, "selected"]))
        settle(page, seq)
        seq = seq_of(page)
        pairs.append(page.evaluate(MEASURE, [second, first, "pair"]))
        settle(page, seq)
    return selections, pairs


def summary(name: str, samples: list[float]) -> str:
    if not samples:
        return f"{name:<10} no samples"
    return (
        f"{name:<10} median {statistics.median(samples):7.1f} ms   min {min(samples):7.1f}"
        f"   max {max(samples):7.1f}   n={len(samples)}"
    )


@contextlib.contextmanager
def proxied_browser(
    delay_ms: float, url: str | None = None, proxy_port: int = 0
) -> Iterator[tuple[str, Browser]]:
    """The site (``url``, or ``heartsuit serve`` started on a temporary SQLite file) behind a
    :class:`DelayProxy` of ``delay_ms`` each way, and headless Chromium: the proxy's base URL
    and the browser. Everything is stopped and removed after."""
    tmp = Path(tempfile.mkdtemp(prefix="heartsuit-taps-"))
    proc = None
    try:
        proxy_port = proxy_port or free_port()
        if url:
            target = url.rstrip("/")
        else:
            # the page's origin is the proxy's: the server must accept its /ws
            os.environ["HEARTSUIT_ORIGINS"] = f"http://127.0.0.1:{proxy_port}"
            proc, target = start_server(tmp)
        port = int(target.rsplit(":", 1)[1])
        with (
            DelayProxy(proxy_port, port, delay_ms / 1000) as proxy,
            sync_playwright() as pw,
        ):
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            try:
                yield f"http://127.0.0.1:{proxy.port}", browser
            finally:
                browser.close()
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(10)
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--url",
        help="a running server (default: start one); it must accept /ws from the proxy's "
        "origin: HEARTSUIT_ORIGINS=http://127.0.0.1:<--proxy-port>",
    )
    parser.add_argument("--proxy-port", type=int, default=0, help="default: a free port")
    parser.add_argument("--delay", type=float, default=75.0, help="ms each way (default 75)")
    parser.add_argument("--players", type=int, default=4, help="new players (default 4)")
    parser.add_argument("--taps", type=int, default=5, help="samples of each per player")
    args = parser.parse_args()
    selections: list[float] = []
    pairs: list[float] = []
    with proxied_browser(args.delay, args.url, args.proxy_port) as (base, browser):
        for _ in range(args.players):
            context = browser.new_context()
            got = play(context.new_page(), base, args.taps)
            selections += got[0]
            pairs += got[1]
            context.close()
    print(f"tap to visible through a proxy delaying {args.delay:.0f} ms each way")
    print(summary("selection", selections))
    print(summary("pair", pairs))


if __name__ == "__main__":
    main()
