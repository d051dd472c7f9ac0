"""What every HTML page shares: the language it is answered in, the Jinja2 templates, the strings
its script reads, and the tags a shared link shows.

A page is a :class:`Page` (its name, template, title and the catalog prefixes its script needs);
each game declares its own (``hearts/pages.py``, ``solitaire/pages.py``) and the site its
cross-game ones (home, statistics, the 404). :func:`render` answers a request with one:
the language comes from ``?lang=`` first (which also sets the ``lang`` cookie), then the
cookie, then Indonesian. Pages are static shells; the games arrive over ``/ws`` and ``/api/…``,
so nothing here touches a store or an engine.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Final
from urllib.parse import urlencode

import jinja2
from starlette.requests import Request
from starlette.responses import Response
from starlette.templating import Jinja2Templates

from heartsuit import i18n
from heartsuit.i18n import Lang
from heartsuit.server.core.assets import Assets, revalidated_page

WEB_DIR: Final = Path(__file__).resolve().parents[2] / "web"
#: served at /static (``site/app.py``)
STATIC_DIR: Final = WEB_DIR / "static"
TEMPLATE_DIR: Final = WEB_DIR / "templates"

LANG_COOKIE: Final = "lang"
LANG_COOKIE_MAX_AGE: Final = 365 * 24 * 60 * 60

#: the static files with their versioned URLs (content-hashed, precompressed; see assets.py)
ASSETS: Final = Assets(STATIC_DIR)

Translate = Callable[..., str]


@dataclass(frozen=True, slots=True)
class Meta:
    """What a shared link of a page shows: the description and Open Graph tags."""

    title: str
    description: str
    url: str  # absolute, without ?lang= (the reader gets their own language)
    image: str  # absolute


#: a page's own preview of a shared link (a deal's code, say), or None for the usual one
Preview = Callable[[Request, Translate], Meta | None]


@dataclass(frozen=True, slots=True)
class Page:
    """One HTML page: its name (``data-page`` and the key of its script's strings), its
    template, the catalog key of its title, the catalog prefixes its script reads from the
    embedded JSON (kept small on purpose), and what its link previews say."""

    name: str
    template: str
    title_key: str
    script_prefixes: tuple[str, ...] = ()
    description_key: str = "meta.description"
    #: what the template needs besides the common context (the same for every request)
    context: Mapping[str, object] = field(default_factory=dict)
    preview: Preview | None = None


def asset(path: str) -> str:
    """The versioned URL of a static file (``asset("js/play.js")``)."""
    return ASSETS.url(path)


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


def page_url(request: Request) -> str:
    """The page's absolute address without its query."""
    return f"{str(request.base_url).rstrip('/')}{request.url.path}"


def icon_url(request: Request) -> str:
    return f"{request.base_url}static/icons/icon-512.png"


def _meta(request: Request, page: Page, title: str, t: Translate) -> Meta:
    if page.preview is not None:
        own = page.preview(request, t)
        if own is not None:
            return own
    return Meta(
        title=f"{title} · {t('site.name')}",
        description=t(page.description_key),
        url=page_url(request),
        image=icon_url(request),
    )


def render(
    request: Request,
    page: Page,
    extra: Mapping[str, object] | None = None,
    status_code: int = 200,
) -> Response:
    """``page`` in the reader's language; ``extra`` adds what this request's template needs."""
    lang, chosen = request_lang(request)
    other: Lang = "en" if lang == "id" else "id"
    t: Translate = partial(i18n.translate, lang)
    title = t(page.title_key)
    context = {
        "lang": lang,
        "other_lang": other,
        "switch_url": _switch_url(request, other),
        "page": page.name,
        "title": title,
        "meta": _meta(request, page, title, t),
        "t": t,
        "i18n_json": script_json(i18n.subset(lang, page.script_prefixes)),
        **page.context,
        **(extra or {}),
    }
    response = templates.TemplateResponse(
        request, page.template, context, status_code=status_code
    )
    if chosen:
        response.set_cookie(
            LANG_COOKIE, lang, max_age=LANG_COOKIE_MAX_AGE, path="/", samesite="lax"
        )
    # the language may come from a cookie, so shared caches must keep languages apart
    response.headers["Vary"] = "Cookie"
    response.headers["Content-Language"] = lang
    # always asked again (a release changes the asset URLs in it), a 304 while unchanged
    return revalidated_page(request, response)
