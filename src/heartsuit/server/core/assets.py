"""The static files: content-hashed URLs, compressed once, cached for a year.

Every file under ``web/static`` is served at ``/static/<name>.<hash>.<ext>`` (``asset(path)``
gives that URL to the templates), where the hash covers the file *and every file it refers to*,
so a release that changes ``i18n.js`` also changes the URL of ``play.js``, which imports it.
The ES modules import each other by relative paths (``from "./i18n.js"``); those paths are
rewritten, once, to the versioned names (``from "./i18n.3f2a1b9c0d.js"``), so the browser
fetches every module of a page from a versioned URL without an import map (which would be an
inline script under the Content-Security-Policy) and without a build step. A relative CSS
``url(…)`` and a quoted ``/static/…`` path in any text file are versioned the same way.

How each request is answered:

* the current versioned URL: the file, ``Cache-Control: public, max-age=31536000, immutable``;
* the plain path (``/static/js/play.js``) or an older hash of a file that still exists: the
  current file with ``Cache-Control: no-cache`` (so a page from before a release still gets
  working code, and no cache keeps it under the wrong URL);
* anything else: 404.

Each file is gzip-compressed once (level 9) when the table is built and sent compressed when the
request accepts gzip and it saves bytes; ``Vary: Accept-Encoding`` tells caches. Every answer
has an ``ETag``, and ``If-None-Match`` gets a 304.

The table is built from the files on disk and rebuilt when one of them changes (a cheap check
of names, sizes and modification times on each use), so editing a script during development
needs no restart.

Also here: :func:`revalidated_page` (``no-cache`` and an ``ETag`` for the HTML pages, 304 while
unchanged) and :class:`Compression` (gzip for pages and JSON, when the request allows it).
"""

from __future__ import annotations

import gzip
import hashlib
import mimetypes
import os
import posixpath
import re
import threading
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Final

from starlette.datastructures import Headers
from starlette.middleware.gzip import GZipResponder, IdentityResponder
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

#: hex digits of the content hash in a versioned file name
HASH_LENGTH: Final = 10
#: a versioned URL never changes its content: keep it for a year, never revalidate
IMMUTABLE: Final = "public, max-age=31536000, immutable"
#: anything else (pages, plain or stale static URLs): store, but ask the server each time
REVALIDATE: Final = "no-cache"

#: relative module specifiers in ``import … from "./x.js"``, ``export … from "./x.js"``,
#: ``import "./x.js"`` and ``import("./x.js")``
_IMPORT: Final = re.compile(r"""(\bfrom\s*|\bimport\s*\(?\s*)(["'])(\.{1,2}/[^"'\s]+)\2""")
#: ``/static/<path>`` after a quote or an opening parenthesis, in any text file
_ABSOLUTE: Final = re.compile(r"""(?<=["'(])(/static/[^"'()\s?#]+)""")
#: relative ``url(…)`` in CSS (not data:, not another site, not absolute)
_CSS_URL: Final = re.compile(r"""url\(\s*(["']?)(?![a-z]+:|/)([^"')\s?#]+)\1\s*\)""")
#: the URL prefix the files are served under
STATIC_PREFIX: Final = "/static/"
#: text files whose ``/static/…`` references are versioned too
_TEXT: Final = {".json", ".webmanifest", ".svg", ".html", ".txt", ".xml"}
#: ``name.<hash>.ext`` or ``name.<hash>``
_VERSIONED: Final = re.compile(
    rf"^(?P<stem>.+)\.(?P<hash>[0-9a-f]{{{HASH_LENGTH}}})(?P<ext>\.[^./]+)?$"
)

_MEDIA_TYPES: Final = {
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".json": "application/json",
    ".webmanifest": "application/manifest+json",
    ".html": "text/html; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
}
#: already compressed formats: gzip would only add bytes
_PACKED: Final = {".png", ".jpg", ".jpeg", ".gif", ".webp", ".avif", ".woff", ".woff2", ".gz"}


class AssetError(ValueError):
    """The static files cannot be served as they are (a module imports a missing file)."""


@dataclass(frozen=True, slots=True)
class Asset:
    """One static file as it is served."""

    path: str  # "js/play.js", relative to the static directory
    versioned: str  # "js/play.3f2a1b9c0d.js"
    body: bytes  # with relative imports rewritten to versioned names
    gzipped: bytes | None  # the body gzip-compressed, when that is smaller
    media_type: str
    etag: str

    @property
    def url(self) -> str:
        return f"/static/{self.versioned}"


def versioned_name(path: str, digest: str) -> str:
    """``js/play.js`` with hash ``abc…`` → ``js/play.abc….js`` (no dot: ``name.abc…``)."""
    head, tail = posixpath.split(path)
    stem, dot, ext = tail.rpartition(".")
    name = f"{stem}.{digest}.{ext}" if dot and stem else f"{tail}.{digest}"
    return posixpath.join(head, name)


def _media_type(path: str) -> str:
    ext = posixpath.splitext(path)[1].lower()
    if ext in _MEDIA_TYPES:
        return _MEDIA_TYPES[ext]
    guessed, _ = mimetypes.guess_type(path)
    return guessed or "application/octet-stream"


def _target(path: str, spec: str) -> str:
    """The static file a reference ``spec`` in file ``path`` names (relative or ``/static/…``)."""
    if spec.startswith(STATIC_PREFIX):
        return posixpath.normpath(spec.removeprefix(STATIC_PREFIX))
    return posixpath.normpath(posixpath.join(posixpath.dirname(path), spec))


def _patterns(path: str) -> tuple[tuple[re.Pattern[str], int, bool], ...]:
    """(pattern, group of the reference, must exist) for the kind of file ``path`` is."""
    ext = posixpath.splitext(path)[1].lower()
    if ext in (".js", ".mjs"):
        return ((_IMPORT, 3, True), (_ABSOLUTE, 1, False))
    if ext == ".css":
        return ((_CSS_URL, 2, False), (_ABSOLUTE, 1, False))
    if ext in _TEXT:
        return ((_ABSOLUTE, 1, False),)
    return ()


def _references(path: str, text: str, known: set[str]) -> list[str]:
    """The static files that file ``path`` refers to, each once, in order of appearance."""
    found: list[str] = []
    for pattern, group, strict in _patterns(path):
        for match in pattern.finditer(text):
            spec = match.group(group)
            target = _target(path, spec)
            if target not in known:
                if strict:
                    raise AssetError(f"{path} imports {spec!r}, which is not a static file")
                continue  # a URL the file means as it is: left alone
            if target not in found:
                found.append(target)
    return found


def _rewrite(path: str, text: str, digests: dict[str, str]) -> str:
    """``text`` of file ``path`` with every reference to a static file made versioned."""

    def swap(match: re.Match[str], group: int) -> str:
        spec = match.group(group)
        target = _target(path, spec)
        if target not in digests:
            return match.group(0)
        versioned = versioned_name(target, digests[target])
        if spec.startswith(STATIC_PREFIX):
            new = STATIC_PREFIX + versioned
        else:
            new = posixpath.join(posixpath.dirname(spec), posixpath.basename(versioned))
        start, end = match.span(group)
        offset = match.start(0)
        whole = match.group(0)
        return whole[: start - offset] + new + whole[end - offset :]

    for pattern, group, _ in _patterns(path):
        text = pattern.sub(partial(swap, group=group), text)
    return text


def build(sources: dict[str, bytes]) -> dict[str, Asset]:
    """Versioned, rewritten and compressed assets from ``{relative path: raw bytes}``.

    A file's hash covers its own bytes and those of every file it reaches through its
    references (module imports, CSS ``url()``, ``/static/…`` paths; cycles included), so a
    change anywhere below a file changes its URL. A module importing a missing file is an
    :class:`AssetError`; other references to unknown files are left as they are.
    """
    known = set(sources)
    graph: dict[str, list[str]] = {}
    texts: dict[str, str] = {}
    for path, raw in sources.items():
        graph[path] = []
        if not _patterns(path):
            continue
        try:
            texts[path] = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            if path.endswith((".js", ".mjs")):
                raise AssetError(f"{path} is not UTF-8 text: {error}") from None
            continue
        graph[path] = _references(path, texts[path], known)

    def reach(start: str) -> list[str]:
        seen = {start}
        todo = [start]
        while todo:
            for target in graph[todo.pop()]:
                if target not in seen:
                    seen.add(target)
                    todo.append(target)
        return sorted(seen)

    digests: dict[str, str] = {}
    for path in sources:
        digest = hashlib.sha256()
        for name in reach(path):
            digest.update(name.encode() + b"\0" + hashlib.sha256(sources[name]).digest())
        digests[path] = digest.hexdigest()[:HASH_LENGTH]

    assets: dict[str, Asset] = {}
    for path, raw in sources.items():
        body = raw
        if graph[path]:
            body = _rewrite(path, texts[path], digests).encode("utf-8")
        packed = None
        if posixpath.splitext(path)[1].lower() not in _PACKED:
            candidate = gzip.compress(body, compresslevel=9, mtime=0)
            if len(candidate) < len(body):
                packed = candidate
        assets[path] = Asset(
            path=path,
            versioned=versioned_name(path, digests[path]),
            body=body,
            gzipped=packed,
            media_type=_media_type(path),
            etag=f'"{hashlib.sha256(body).hexdigest()[:16]}"',
        )
    return assets


def accepts_gzip(header: str) -> bool:
    """Whether an ``Accept-Encoding`` value allows gzip (``gzip;q=0`` refuses it)."""
    allowed: dict[str, bool] = {}
    for part in header.lower().split(","):
        coding, _, params = part.strip().partition(";")
        coding = coding.strip()
        if not coding:
            continue
        quality = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key.strip() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        allowed[coding] = quality > 0
    if "gzip" in allowed:
        return allowed["gzip"]
    return allowed.get("*", False)


def etag_matches(request: Request, etag: str) -> bool:
    """Whether the request's ``If-None-Match`` names ``etag`` (weak comparison)."""
    header = request.headers.get("if-none-match")
    if header is None:
        return False
    if header.strip() == "*":
        return True
    wanted = etag.removeprefix("W/")
    return any(tag.strip().removeprefix("W/") == wanted for tag in header.split(","))


class Assets:
    """The static files of one directory, kept current with the files on disk."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._lock = threading.Lock()
        self._signature: tuple[tuple[str, int, int], ...] | None = None
        self._by_path: dict[str, Asset] = {}
        self._by_versioned: dict[str, Asset] = {}
        self.table()

    def _scan(self) -> tuple[tuple[str, int, int], ...]:
        found = []
        for root, dirs, files in os.walk(self.directory):
            dirs.sort()
            for name in sorted(files):
                full = os.path.join(root, name)
                info = os.stat(full)
                relative = Path(full).relative_to(self.directory).as_posix()
                found.append((relative, info.st_size, info.st_mtime_ns))
        return tuple(found)

    def table(self) -> dict[str, Asset]:
        """Every asset by its plain relative path, rebuilt first if a file changed."""
        signature = self._scan()
        if signature != self._signature:
            with self._lock:
                if signature != self._signature:
                    sources = {
                        path: (self.directory / path).read_bytes() for path, _, _ in signature
                    }
                    assets = build(sources)
                    self._by_path = assets
                    self._by_versioned = {a.versioned: a for a in assets.values()}
                    self._signature = signature
        return self._by_path

    def url(self, path: str) -> str:
        """The versioned URL of static file ``path`` (``"js/play.js"``)."""
        asset = self.table().get(path)
        if asset is None:
            raise KeyError(f"no static file {path!r} in {self.directory}")
        return asset.url

    def find(self, name: str) -> tuple[Asset, bool] | None:
        """The asset a request path names, and whether it is the current versioned URL."""
        by_path = self.table()
        asset = self._by_versioned.get(name)
        if asset is not None:
            return asset, True
        asset = by_path.get(name)
        if asset is not None:
            return asset, False
        match = _VERSIONED.match(name)
        if match is not None:
            asset = by_path.get(match["stem"] + (match["ext"] or ""))
            if asset is not None:
                return asset, False  # an older version of a file that still exists
        return None

    async def endpoint(self, request: Request) -> Response:
        """``GET /static/{path}``: the file, compressed and cached as the module says."""
        name = str(request.path_params["path"])
        found = self.find(name)
        if found is None:
            return PlainTextResponse("Not Found", status_code=404)
        asset, current = found
        headers = {
            "Cache-Control": IMMUTABLE if current else REVALIDATE,
            "ETag": asset.etag,
        }
        if asset.gzipped is not None:
            headers["Vary"] = "Accept-Encoding"
        if etag_matches(request, asset.etag):
            return Response(status_code=304, headers=headers)
        body = asset.body
        if asset.gzipped is not None and accepts_gzip(request.headers.get("accept-encoding", "")):
            body = asset.gzipped
            headers["Content-Encoding"] = "gzip"
        return Response(body, headers=headers, media_type=asset.media_type)


def revalidated_page(request: Request, response: Response) -> Response:
    """A rendered page with ``Cache-Control: no-cache`` and an ``ETag`` of its body, or a 304
    (keeping the response's other headers, such as a cookie) when the browser has that body."""
    etag = f'W/"{hashlib.sha256(response.body).hexdigest()[:16]}"'
    response.headers["Cache-Control"] = REVALIDATE
    response.headers["ETag"] = etag
    if not etag_matches(request, etag):
        return response
    not_modified = Response(status_code=304)
    for key, value in response.raw_headers:
        if key not in (b"content-length", b"content-type"):
            not_modified.raw_headers.append((key, value))
    return not_modified


class Compression:
    """ASGI middleware: gzip for the pages and the JSON API (Starlette's gzip responder), only
    when the request's ``Accept-Encoding`` allows it with a quality above zero; ``/static/``
    negotiates for itself (its files are compressed once, ahead of time)."""

    def __init__(self, app: ASGIApp, minimum_size: int = 500) -> None:
        self.app = app
        self.minimum_size = minimum_size

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or str(scope["path"]).startswith("/static/"):
            await self.app(scope, receive, send)
            return
        responder: ASGIApp
        if accepts_gzip(Headers(scope=scope).get("accept-encoding", "")):
            responder = GZipResponder(self.app, self.minimum_size)
        else:
            responder = IdentityResponder(self.app, self.minimum_size)  # adds Vary only
        await responder(scope, receive, send)
