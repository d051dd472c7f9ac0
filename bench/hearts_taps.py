"""Hearts: the time from a tap on a legal card to the card showing in the trick, at a 150 ms
round trip.

Starts ``heartsuit serve`` on a free port with a temporary SQLite file, puts the same delaying
TCP proxy as ``solitaire_taps.py`` in front of it (``--delay`` ms each way, 75 by default), and
drives headless Debian Chromium through it as new players: each starts a table against the
computer from the Hearts page, passes three cards, and then, on each of its turns with two or
more legal cards, taps the first legal card and times, in the page (``performance.now()``
before the click, a MutationObserver after it), until that card is in the trick. The next tap
waits for the server's answer (the table's version moves on). One hand per player. Prints the
median (and min/max) of every sample, and the same for the server's answer (the click to the
version after it), which is what a tap waited for before the page answered at once.
Usage: ``python bench/hearts_taps.py [--players 3]``.
"""

from __future__ import annotations

import argparse

from playwright.sync_api import Page

from solitaire_taps import proxied_browser, summary

#: taps the first legal card; resolves with [ms until it is in the trick, ms until the server's
#: state after it is drawn]
MEASURE = """
async () => {
  const table = document.querySelector("[data-hearts]");
  const card = document.querySelector(".ht-hand .hc.legal");
  const code = card.dataset.card;
  const version = Number(table.dataset.version);
  const inTrick = () => Boolean(document.querySelector(`.ht-trick [data-card="${code}"]`));
  const answered = () => Number(table.dataset.version) > version;
  const t0 = performance.now();
  let shown = null;
  return await new Promise((resolve) => {
    const look = () => {
      if (shown === null && inTrick()) shown = performance.now() - t0;
      if (shown !== null && answered()) {
        watch.disconnect();
        resolve([shown, performance.now() - t0]);
      }
    };
    const watch = new MutationObserver(look);
    watch.observe(document.body, { attributes: true, childList: true, subtree: true });
    card.click();
    look();
  });
}
"""

#: two or more legal cards to choose from (the only legal card may play itself), or the hand's end
TURN = """
rows => document.querySelectorAll('.ht-hand .hc.legal').length >= 2 ||
        document.querySelectorAll('.ht-sheet-table tbody tr').length > rows
"""


def play(page: Page, base: str) -> tuple[list[float], list[float]]:
    """One player's hand against the computer: the taps' (in the trick, answered) times."""
    page.set_viewport_size({"width": 360, "height": 740})
    page.goto(f"{base}/hearts?lang=en")
    page.click('[data-mode="computer"]')  # deals at once: the table page opens
    page.wait_for_url("**/hearts/table/*")
    page.wait_for_selector(".ht-hand.passing [data-card]")
    codes = page.eval_on_selector_all(".ht-hand [data-card]", "els => els.map(e => e.dataset.card)")
    for code in codes[-3:]:
        page.click(f'.ht-hand [data-card="{code}"]', position={"x": 6, "y": 12})
    page.click("[data-pass]")
    page.wait_for_function("() => !document.querySelector('.ht-hand.passing [data-card]')")
    shown: list[float] = []
    answered: list[float] = []
    rows = page.locator(".ht-sheet-table tbody tr").count()
    while True:
        page.wait_for_function(TURN, arg=rows, timeout=120_000)
        if page.locator(".ht-sheet-table tbody tr").count() > rows:
            return shown, answered
        in_trick, answer = page.evaluate(MEASURE)
        shown.append(in_trick)
        answered.append(answer)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delay", type=float, default=75.0, help="ms each way (default 75)")
    parser.add_argument("--players", type=int, default=3, help="new players (default 3)")
    args = parser.parse_args()
    shown: list[float] = []
    answered: list[float] = []
    with proxied_browser(args.delay) as (base, browser):
        for _ in range(args.players):
            context = browser.new_context()
            got = play(context.new_page(), base)
            shown += got[0]
            answered += got[1]
            context.close()
    print(f"a legal card tapped, through a proxy delaying {args.delay:.0f} ms each way")
    print(summary("in the trick", shown))
    print(summary("server's answer drawn", answered))


if __name__ == "__main__":
    main()
