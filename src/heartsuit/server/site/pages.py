"""The site's own pages — the home page, the statistics and the 404 — and the list of every page
the site serves (its own and each game's, for the catalog tests and the docs).

How a page is answered (language, templates, the strings its script reads) is
:mod:`heartsuit.server.core.pages`; each game's pages are its own (``hearts/pages.py``,
``solitaire/pages.py``).
"""

from __future__ import annotations

from typing import Final

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import BaseRoute, Route

from heartsuit import i18n
from heartsuit.i18n import Lang
from heartsuit.server.core.pages import (
    ASSETS,
    STATIC_DIR,
    TEMPLATE_DIR,
    Page,
    asset,
    render,
    script_json,
)
from heartsuit.server.hearts import pages as hearts_pages
from heartsuit.server.solitaire import pages as solitaire_pages

__all__ = [
    "ASSETS",
    "PAGES",
    "SCRIPT_PREFIXES",
    "STATIC_DIR",
    "TEMPLATE_DIR",
    "asset",
    "not_found",
    "routes",
    "script_json",
    "script_messages",
]

HOME: Final = Page("home", "home.html", "home.title", ("home.", "game.error", "game.offline"))
#: the statistics page shows every game's figures (Hearts' words: hearts.stats., hearts.preset.)
STATS: Final = Page(
    "stats",
    "stats.html",
    "stats.title",
    ("stats.", "daily.days", "hearts.stats.", "hearts.preset."),
)
NOT_FOUND: Final = Page("notfound", "404.html", "notfound.title")

#: every page the site serves, by name
PAGES: Final[dict[str, Page]] = {
    page.name: page
    for page in (HOME, STATS, NOT_FOUND, *solitaire_pages.PAGES, *hearts_pages.PAGES)
}
#: catalog key prefixes each page's script reads from the embedded JSON
SCRIPT_PREFIXES: Final[dict[str, tuple[str, ...]]] = {
    name: page.script_prefixes for name, page in PAGES.items()
}


def script_messages(lang: Lang, page: str) -> dict[str, str]:
    """The catalog messages the script of ``page`` reads from the embedded JSON."""
    return i18n.subset(lang, SCRIPT_PREFIXES[page])


async def home(request: Request) -> Response:
    return render(request, HOME)


async def stats(request: Request) -> Response:
    return render(request, STATS)


async def not_found(request: Request, exc: Exception) -> Response:
    """The site's 404: a page in the reader's language with the header, a way home and a way to
    play; a missing static file or API address gets a plain answer."""
    if request.url.path.startswith(("/static/", "/api/")):
        return PlainTextResponse("Not Found", status_code=404)
    return render(request, NOT_FOUND, status_code=404)


#: the site's own pages (each game mounts its own)
routes: Final[list[BaseRoute]] = [
    Route("/", home, name="home"),
    Route("/stats", stats, name="stats"),
]
