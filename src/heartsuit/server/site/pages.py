"""The site's HTML pages: routes, the language choice and the Jinja2 templates.

Owns the page URLs (``/``, ``/heart-to-heart``, its examples and rules, ``/stats``, and the
Hearts pages ``/hearts``, ``/hearts/table/<id>``, ``/hearts/join/<invite>``,
``/hearts/replay/<id>[/<match>]``, ``/hearts/rules``),
which language a request is answered in (``?lang=`` first, then the ``lang`` cookie, then
Indonesian), and what every template receives: the catalog through ``t(key, **values)`` and the
strings the page's script needs as JSON. Pages are static shells; the game itself arrives over
``/ws`` and ``/api/...`` (``app.py``), so nothing here touches the store or the engine. The
heart's geometry comes from :mod:`heartsuit.solitaire.layout`, so the browser never has its own
copy of it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Final
from urllib.parse import urlencode

import jinja2
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import BaseRoute, Route
from starlette.templating import Jinja2Templates

from heartsuit import i18n
from heartsuit.gamecodes import CodeError
from heartsuit.hearts.bots import LEVELS
from heartsuit.i18n import Lang
from heartsuit.server.core.assets import Assets, revalidated_page
from heartsuit.solitaire.codes import normalize_code
from heartsuit.solitaire.layout import COVERS, POSITIONS, ROW, TIP, X2

WEB_DIR: Final = Path(__file__).resolve().parents[2] / "web"
#: served by app.py at /static
STATIC_DIR: Final = WEB_DIR / "static"
TEMPLATE_DIR: Final = WEB_DIR / "templates"

LANG_COOKIE: Final = "lang"
LANG_COOKIE_MAX_AGE: Final = 365 * 24 * 60 * 60

#: catalog key prefixes each page's script reads from the embedded JSON (kept small on purpose)
SCRIPT_PREFIXES: Final[dict[str, tuple[str, ...]]] = {
    "home": ("home.", "game.error", "game.offline"),
    "play": ("game.", "card.", "pile.", "share.", "code.", "win.", "confirm_"),
    "examples": ("ex.", "card.", "pile.", "game."),
    "rules": (),
    "stats": ("stats.", "daily.days", "hearts.stats.", "hearts.preset."),
    "hearts": ("hsetup.", "hearts.err.", "hearts.level.", "game.offline"),
    "hearts_table": ("hearts.", "hcard.", "game.offline"),
    "hearts_join": ("hjoin.", "hearts.err.", "hearts.kind.", "game.offline"),
    "hearts_replay": ("hreplay.", "hearts.", "hcard.", "game.offline"),
    "hearts_rules": (),
    "notfound": (),
}

#: computer difficulty levels the Hearts pages offer, easiest first (the bots' service decides
#: which exist; the page shows only these)
HEARTS_LEVELS: Final[tuple[str, ...]] = tuple(LEVELS)
#: the Hearts presets in the order the setup page lists them, with their player count
HEARTS_PRESETS: Final[tuple[tuple[str, int], ...]] = (
    ("standard", 4),
    ("three", 3),
    ("five", 5),
    ("omnibus", 4),
    ("black-maria", 3),
    ("cancellation", 6),
)


@dataclass(frozen=True, slots=True)
class Slot:
    """One place of the heart as the template draws it."""

    position: int
    x2: int  # doubled x in half-card steps, 0 = the middle
    row: int  # 1 (top) .. 7 (the tip)
    is_tip: bool


SLOTS: Final = tuple(Slot(p, X2[p - 1], ROW[p - 1], p == TIP) for p in POSITIONS)


#: the static files with their versioned URLs (served by app.py at /static)
ASSETS: Final = Assets(STATIC_DIR)


def asset(path: str) -> str:
    """The versioned URL of a static file (``asset("js/play.js")``); see :mod:`.assets`."""
    return ASSETS.url(path)


def script_messages(lang: Lang, page: str) -> dict[str, str]:
    """The catalog messages the script of ``page`` reads from the embedded JSON."""
    return i18n.subset(lang, SCRIPT_PREFIXES[page])


def script_json(data: object) -> str:
    """JSON safe to put inside a ``<script type="application/json">`` element."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    # "</script>" or "<!--" in a message must not end the element early
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


_env = jinja2.Environment(
    loader=jinja2.FileSystemLoader(TEMPLATE_DIR),
    autoescape=True,
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)
_env.globals["asset"] = asset
templates: Final = Jinja2Templates(env=_env)


def request_lang(request: Request) -> tuple[Lang, bool]:
    """The language to answer in, and whether ``?lang=`` chose it (so the cookie is set)."""
    from_query = request.query_params.get("lang")
    if from_query is not None and i18n.is_lang(from_query.strip().lower()):
        return i18n.pick_lang(from_query), True
    return i18n.pick_lang(request.cookies.get(LANG_COOKIE)), False


def _switch_url(request: Request, lang: Lang) -> str:
    """This page in the other language, keeping its other query parameters."""
    params = [(k, v) for k, v in request.query_params.multi_items() if k != "lang"]
    params.append(("lang", lang))
    return f"{request.url.path}?{urlencode(params)}"


@dataclass(frozen=True, slots=True)
class Meta:
    """What a shared link of a page shows: the description and Open Graph tags."""

    title: str
    description: str
    url: str  # absolute, without ?lang= (the reader gets their own language)
    image: str  # absolute


def _meta(request: Request, page: str, title: str, t: Callable[..., str]) -> Meta:
    base = str(request.base_url)
    url = f"{base.rstrip('/')}{request.url.path}"
    description = t("meta.play") if page in ("play", "examples", "rules") else t("meta.description")
    if page == "play":
        # a shared deal link (?code=...) previews that deal; a bad code previews the game
        try:
            code = normalize_code(request.query_params.get("code", ""))
        except CodeError:
            code = ""
        if code:
            return Meta(
                title=t("meta.deal_title", code=code),
                description=t("meta.deal", code=code),
                url=f"{url}?{urlencode({'code': code})}",
                image=f"{base}static/icons/icon-512.png",
            )
    return Meta(
        title=f"{title} · {t('site.name')}",
        description=description,
        url=url,
        image=f"{base}static/icons/icon-512.png",
    )


def _render(
    request: Request,
    page: str,
    template: str,
    title_key: str,
    extra: dict[str, object] | None = None,
    status_code: int = 200,
) -> Response:
    lang, chosen = request_lang(request)
    other: Lang = "en" if lang == "id" else "id"
    t: Callable[..., str] = partial(i18n.translate, lang)
    title = t(title_key)
    context = {
        "lang": lang,
        "other_lang": other,
        "switch_url": _switch_url(request, other),
        "page": page,
        "title": title,
        "meta": _meta(request, page, title, t),
        "t": t,
        "i18n_json": script_json(script_messages(lang, page)),
        "slots": SLOTS,
        "tip_covers": COVERS[TIP - 1],
        **(extra or {}),
    }
    response = templates.TemplateResponse(request, template, context, status_code=status_code)
    if chosen:
        response.set_cookie(
            LANG_COOKIE, lang, max_age=LANG_COOKIE_MAX_AGE, path="/", samesite="lax"
        )
    # the language may come from a cookie, so shared caches must keep languages apart
    response.headers["Vary"] = "Cookie"
    response.headers["Content-Language"] = lang
    # always asked again (a release changes the asset URLs in it), a 304 while unchanged
    return revalidated_page(request, response)


async def home(request: Request) -> Response:
    return _render(request, "home", "home.html", "home.title")


async def play(request: Request) -> Response:
    return _render(request, "play", "play.html", "game.title")


async def examples(request: Request) -> Response:
    return _render(request, "examples", "examples.html", "ex.title")


async def rules(request: Request) -> Response:
    return _render(request, "rules", "rules.html", "rules.title")


async def stats(request: Request) -> Response:
    return _render(request, "stats", "stats.html", "stats.title")


async def hearts(request: Request) -> Response:
    config = {"levels": list(HEARTS_LEVELS), "presets": [list(p) for p in HEARTS_PRESETS]}
    return _render(
        request,
        "hearts",
        "hearts.html",
        "hsetup.title",
        {"hearts_json": script_json(config), "presets": HEARTS_PRESETS, "levels": HEARTS_LEVELS},
    )


async def hearts_table(request: Request) -> Response:
    table_id = str(request.path_params["table_id"])
    return _render(
        request, "hearts_table", "hearts_table.html", "hearts.title", {"table_id": table_id}
    )


async def hearts_join(request: Request) -> Response:
    invite = str(request.path_params["invite"])
    return _render(request, "hearts_join", "hearts_join.html", "hjoin.title", {"invite": invite})


async def hearts_replay(request: Request) -> Response:
    table_id = str(request.path_params["table_id"])
    match = request.path_params.get("match")
    return _render(
        request,
        "hearts_replay",
        "hearts_replay.html",
        "hreplay.title",
        {"table_id": table_id, "match": "" if match is None else str(match)},
    )


async def hearts_rules(request: Request) -> Response:
    return _render(request, "hearts_rules", "hearts_rules.html", "hrules.title")


async def not_found(request: Request, exc: Exception) -> Response:
    """The site's 404: a page in the reader's language with the header, a way home and a way to
    play; a missing static file or API address gets a plain answer."""
    if request.url.path.startswith(("/static/", "/api/")):
        return PlainTextResponse("Not Found", status_code=404)
    return _render(request, "notfound", "404.html", "notfound.title", status_code=404)


routes: list[BaseRoute] = [
    Route("/", home, name="home"),
    Route("/heart-to-heart", play, name="play"),
    Route("/heart-to-heart/examples", examples, name="examples"),
    Route("/heart-to-heart/rules", rules, name="rules"),
    Route("/stats", stats, name="stats"),
    Route("/hearts", hearts, name="hearts"),
    Route("/hearts/table/{table_id:str}", hearts_table, name="hearts_table"),
    Route("/hearts/join/{invite:str}", hearts_join, name="hearts_join"),
    Route("/hearts/replay/{table_id:str}", hearts_replay, name="hearts_replay_last"),
    Route("/hearts/replay/{table_id:str}/{match:int}", hearts_replay, name="hearts_replay"),
    Route("/hearts/rules", hearts_rules, name="hearts_rules"),
]
