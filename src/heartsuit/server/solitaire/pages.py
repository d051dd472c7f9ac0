"""Heart to Heart's pages: ``/heart-to-heart`` (the game), its examples and its rules.

The heart's geometry comes from :mod:`heartsuit.solitaire.layout`, so the browser never has its
own copy of it; a shared link to a deal (``?code=…``) previews that deal.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from heartsuit.gamecodes import CodeError
from heartsuit.server.core.pages import Meta, Page, Translate, icon_url, page_url, render
from heartsuit.solitaire.codes import normalize_code
from heartsuit.solitaire.layout import COVERS, POSITIONS, ROW, TIP, X2


@dataclass(frozen=True, slots=True)
class Slot:
    """One place of the heart as the template draws it."""

    position: int
    x2: int  # doubled x in half-card steps, 0 = the middle
    row: int  # 1 (top) .. 7 (the tip)
    is_tip: bool


SLOTS: Final = tuple(Slot(p, X2[p - 1], ROW[p - 1], p == TIP) for p in POSITIONS)
#: what the templates that draw the heart need
BOARD: Final = {"slots": SLOTS, "tip_covers": COVERS[TIP - 1]}


def deal_preview(request: Request, t: Translate) -> Meta | None:
    """A shared deal link (``?code=…``) previews that deal; a bad code previews the game."""
    try:
        code = normalize_code(request.query_params.get("code", ""))
    except CodeError:
        return None
    if not code:
        return None
    return Meta(
        title=t("meta.deal_title", code=code),
        description=t("meta.deal", code=code),
        url=f"{page_url(request)}?{urlencode({'code': code})}",
        image=icon_url(request),
    )


PLAY: Final = Page(
    "play",
    "play.html",
    "game.title",
    ("game.", "card.", "pile.", "share.", "code.", "win.", "confirm_"),
    description_key="meta.play",
    context=BOARD,
    preview=deal_preview,
)
EXAMPLES: Final = Page(
    "examples",
    "examples.html",
    "ex.title",
    ("ex.", "card.", "pile.", "game."),
    description_key="meta.play",
    context=BOARD,
)
RULES: Final = Page(
    "rules", "rules.html", "rules.title", description_key="meta.play", context=BOARD
)

PAGES: Final = (PLAY, EXAMPLES, RULES)


async def play(request: Request) -> Response:
    return render(request, PLAY)


async def examples(request: Request) -> Response:
    return render(request, EXAMPLES)


async def rules(request: Request) -> Response:
    return render(request, RULES)


routes: Final[list[BaseRoute]] = [
    Route("/heart-to-heart", play, name="play"),
    Route("/heart-to-heart/examples", examples, name="examples"),
    Route("/heart-to-heart/rules", rules, name="rules"),
]
