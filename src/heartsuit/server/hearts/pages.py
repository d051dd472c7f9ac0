"""Hearts' pages: ``/hearts`` (choosing a table), ``/hearts/table/<id>``, ``/hearts/join/<invite>``,
``/hearts/replay/<id>[/<match>]`` and ``/hearts/rules``."""

from __future__ import annotations

from typing import Final

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from heartsuit.hearts.bots import LEVELS
from heartsuit.server.core.pages import Page, render, script_json

#: computer difficulty levels the setup page offers, easiest first
HEARTS_LEVELS: Final[tuple[str, ...]] = tuple(LEVELS)
#: the presets in the order the setup page lists them, with their player count
HEARTS_PRESETS: Final[tuple[tuple[str, int], ...]] = (
    ("standard", 4),
    ("three", 3),
    ("five", 5),
    ("omnibus", 4),
    ("black-maria", 3),
    ("cancellation", 6),
)

OFFLINE: Final = "game.offline"
SETUP: Final = Page(
    "hearts", "hearts.html", "hsetup.title", ("hsetup.", "hearts.err.", "hearts.level.", OFFLINE)
)
TABLE: Final = Page(
    "hearts_table", "hearts_table.html", "hearts.title", ("hearts.", "hcard.", OFFLINE)
)
JOIN: Final = Page(
    "hearts_join",
    "hearts_join.html",
    "hjoin.title",
    ("hjoin.", "hearts.err.", "hearts.kind.", "hearts.preset.", OFFLINE),
)
REPLAY: Final = Page(
    "hearts_replay",
    "hearts_replay.html",
    "hreplay.title",
    ("hreplay.", "hearts.", "hcard.", OFFLINE),
)
RULES: Final = Page("hearts_rules", "hearts_rules.html", "hrules.title")

PAGES: Final = (SETUP, TABLE, JOIN, REPLAY, RULES)


async def setup(request: Request) -> Response:
    config = {"levels": list(HEARTS_LEVELS), "presets": [list(p) for p in HEARTS_PRESETS]}
    return render(
        request,
        SETUP,
        {"hearts_json": script_json(config), "presets": HEARTS_PRESETS, "levels": HEARTS_LEVELS},
    )


async def table(request: Request) -> Response:
    return render(request, TABLE, {"table_id": str(request.path_params["table_id"])})


async def join(request: Request) -> Response:
    return render(request, JOIN, {"invite": str(request.path_params["invite"])})


async def replay(request: Request) -> Response:
    match = request.path_params.get("match")
    return render(
        request,
        REPLAY,
        {
            "table_id": str(request.path_params["table_id"]),
            "match": "" if match is None else str(match),
        },
    )


async def rules(request: Request) -> Response:
    return render(request, RULES)


routes: Final[list[BaseRoute]] = [
    Route("/hearts", setup, name="hearts"),
    Route("/hearts/table/{table_id:str}", table, name="hearts_table"),
    Route("/hearts/join/{invite:str}", join, name="hearts_join"),
    Route("/hearts/replay/{table_id:str}", replay, name="hearts_replay_last"),
    Route("/hearts/replay/{table_id:str}/{match:int}", replay, name="hearts_replay"),
    Route("/hearts/rules", rules, name="hearts_rules"),
]
