"""How the site is served: gzip when the browser accepts it, Cache-Control per kind of answer,
content-hashed static URLs that change with the file (and with what a module imports), and what
a stale, plain or unknown static URL gets."""

from __future__ import annotations

import gzip
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.applications import Starlette
from starlette.routing import Route
from starlette.testclient import TestClient

from heartsuit.server.core import assets
from heartsuit.server.core.assets import IMMUTABLE, REVALIDATE, AssetError, Assets
from heartsuit.server.site import pages
from tests.server_support import TEST_ORIGINS, Site, running_site

GZIP = {"accept-encoding": "gzip"}
IDENTITY = {"accept-encoding": "identity"}
PAGES = ["/", "/heart-to-heart", "/heart-to-heart/examples", "/heart-to-heart/rules", "/stats",
         "/hearts", "/hearts/table/T1", "/hearts/join/ABCD2345", "/hearts/rules"]
VERSIONED_URL = re.compile(r"^/static/.+\.[0-9a-f]{10}(\.[a-z]+)?$")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    with running_site(tmp_path_factory.mktemp("serving") / "site.sqlite3") as running:
        yield running


def _static_urls(html: str) -> list[str]:
    return re.findall(r'(?:href|src)="(/static/[^"]+)"', html)


def _raw_get(site: Site, url: str, headers: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
    """Status, headers and the body exactly as sent (no decompression)."""
    with site.client.stream("GET", url, headers=headers) as response:
        body = b"".join(response.iter_raw())
        return response.status_code, dict(response.headers), body


# --- compression ---------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/heart-to-heart", "/hearts"])
def test_pages_are_gzipped_when_accepted_and_plain_when_not(site: Site, path: str) -> None:
    status, headers, packed = _raw_get(site, path, GZIP)
    assert status == 200
    assert headers["content-encoding"] == "gzip"
    assert "accept-encoding" in headers["vary"].lower()
    html = gzip.decompress(packed)
    assert len(packed) < len(html) / 2
    assert html.startswith(b"<!doctype html>")
    status, headers, plain = _raw_get(site, path, IDENTITY)
    assert status == 200
    assert "content-encoding" not in headers
    assert plain == html


def test_static_files_are_gzipped_when_accepted_and_plain_when_not(site: Site) -> None:
    html = site.client.get("/heart-to-heart").text
    urls = [u for u in _static_urls(html) if u.endswith((".js", ".css"))]
    assert len(urls) >= 2
    for url in urls:
        _, headers, packed = _raw_get(site, url, GZIP)
        assert headers["content-encoding"] == "gzip", url
        assert headers["vary"] == "Accept-Encoding", url  # once, not twice
        assert int(headers["content-length"]) == len(packed)
        _, headers, plain = _raw_get(site, url, IDENTITY)
        assert "content-encoding" not in headers, url
        assert gzip.decompress(packed) == plain
        assert len(packed) < len(plain)
        # gzip refused by quality, or only other codings: plain
        for refused in ("gzip;q=0, identity", "br", "deflate;q=1.0"):
            _, headers, body = _raw_get(site, url, {"accept-encoding": refused})
            assert "content-encoding" not in headers, (url, refused)
            assert body == plain


@pytest.mark.parametrize(
    ("header", "accepted"),
    [
        ("gzip", True),
        ("gzip, deflate, br", True),
        ("br;q=1.0, gzip;q=0.8", True),
        ("GZIP", True),
        ("*", True),
        ("gzip;q=0", False),
        ("gzip;q=0.0, *", False),
        ("*;q=0", False),
        ("identity", False),
        ("", False),
        ("gzip;q=nonsense", False),
    ],
)
def test_accept_encoding_is_read_with_its_qualities(header: str, accepted: bool) -> None:
    assert assets.accepts_gzip(header) is accepted


def test_the_socket_still_works_behind_the_compression(site: Site) -> None:
    with site.client.websocket_connect("/ws", headers={"origin": TEST_ORIGINS[0]}) as ws:
        ws.send_json({"type": "hello", "req": 1})
        reply = ws.receive_json()
        assert reply["type"] == "welcome"


# --- Cache-Control -------------------------------------------------------------------------


@pytest.mark.parametrize("path", PAGES)
def test_pages_are_revalidated_and_answer_304_while_unchanged(site: Site, path: str) -> None:
    first = site.client.get(path, params={"lang": "id"})
    assert first.status_code == 200
    assert first.headers["cache-control"] == REVALIDATE
    etag = first.headers["etag"]
    again = site.client.get(path, params={"lang": "id"}, headers={"if-none-match": etag})
    assert again.status_code == 304
    assert again.content == b""
    assert again.headers["etag"] == etag
    assert again.headers["content-security-policy"]  # the security headers stay
    # another language is another body: no 304 for it
    other = site.client.get(path, params={"lang": "en"}, headers={"if-none-match": etag})
    assert other.status_code == 200
    assert other.headers["etag"] != etag


def test_a_304_keeps_the_language_cookie(site: Site) -> None:
    first = site.client.get("/stats", params={"lang": "en"})
    again = site.client.get(
        "/stats", params={"lang": "en"}, headers={"if-none-match": first.headers["etag"]}
    )
    assert again.status_code == 304
    assert "lang=en" in again.headers["set-cookie"]


def test_versioned_static_files_are_immutable_and_plain_ones_revalidated(site: Site) -> None:
    html = site.client.get("/hearts").text
    urls = _static_urls(html)
    assert {u.rsplit(".", 1)[1] for u in urls} >= {"js", "css", "svg"}
    for url in urls:
        assert VERSIONED_URL.match(url), url
        reply = site.client.get(url)
        assert reply.status_code == 200, url
        assert reply.headers["cache-control"] == IMMUTABLE == "public, max-age=31536000, immutable"
        assert reply.headers["content-security-policy"]
        plain_url = re.sub(r"\.[0-9a-f]{10}(?=\.[a-z]+$)", "", url)
        plain = site.client.get(plain_url)
        assert plain.status_code == 200, plain_url
        assert plain.headers["cache-control"] == REVALIDATE
        assert plain.content == reply.content
        # and a 304 when the browser has it
        again = site.client.get(plain_url, headers={"if-none-match": plain.headers["etag"]})
        assert again.status_code == 304
        assert again.content == b""


def test_the_json_api_says_how_long_to_keep_it(site: Site) -> None:
    assert site.client.get("/api/stats").headers["cache-control"] == "no-store"
    assert site.client.get("/api/examples").headers["cache-control"] == "public, max-age=3600"


def test_content_types_of_static_files(site: Site) -> None:
    html = site.client.get("/").text
    types = {url.rsplit(".", 1)[1]: site.client.get(url).headers["content-type"]
             for url in _static_urls(html)}
    assert types["js"] == "text/javascript; charset=utf-8"
    assert types["css"] == "text/css; charset=utf-8"
    assert types["svg"] == "image/svg+xml"


# --- every module of every page from a versioned URL ----------------------------------------


@pytest.mark.parametrize("path", PAGES)
def test_every_module_a_page_loads_is_imported_by_a_versioned_url(site: Site, path: str) -> None:
    html = site.client.get(path).text
    queue = [u for u in _static_urls(html) if u.endswith(".js")]
    seen: set[str] = set()
    while queue:
        url = queue.pop()
        if url in seen:
            continue
        seen.add(url)
        assert VERSIONED_URL.match(url), (path, url)
        reply = site.client.get(url)
        assert reply.status_code == 200, url
        assert reply.headers["cache-control"] == IMMUTABLE, url
        for spec in re.findall(r'(?:from|import)\s*\(?\s*"(\.[^"]+)"', reply.text):
            queue.append(url.rsplit("/", 1)[0] + "/" + spec.removeprefix("./"))
    assert seen or path == "/heart-to-heart/rules" or path == "/hearts/rules"


# --- stale, unknown and hostile static URLs -------------------------------------------------


def test_an_old_version_of_a_file_gets_the_current_file_uncached(site: Site) -> None:
    html = site.client.get("/heart-to-heart").text
    url = next(u for u in _static_urls(html) if u.endswith(".js"))
    current = site.client.get(url)
    stale_url = re.sub(r"\.[0-9a-f]{10}\.js$", ".0123456789.js", url)
    assert stale_url != url
    stale = site.client.get(stale_url)
    assert stale.status_code == 200
    assert stale.content == current.content
    assert stale.headers["cache-control"] == REVALIDATE


@pytest.mark.parametrize(
    "url",
    [
        "/static/no-such-file.css",
        "/static/js/no-such-module.0123456789.js",
        "/static/js/play.js.map",
        "/static/js/",
        "/static/",
        "/static/../pyproject.toml",
        "/static/%2e%2e/%2e%2e/pyproject.toml",
        "/static/js/../../server/site/app.py",
        "/static/js/play.XYZ.js",
    ],
)
def test_unknown_static_urls_are_404(site: Site, url: str) -> None:
    reply = site.client.get(url)
    assert reply.status_code == 404
    assert "cache-control" not in reply.headers or reply.headers["cache-control"] != IMMUTABLE


# --- the asset table itself ---------------------------------------------------------------


def _write(directory: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = directory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _touch_later(path: Path) -> None:
    # a distinct modification time even on a coarse file system clock
    info = path.stat()
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns + 2_000_000_000))


SMALL_SITE = {
    "js/main.js": 'import { a } from "./a.js";\nimport("./lazy.js");\nexport * from "./b.js";\n',
    "js/a.js": 'import { b } from "./b.js";\nexport const a = b + 1;\n',
    "js/b.js": "export const b = 1;\n",
    "js/lazy.js": "export const lazy = true;\n",
    "js/other.js": "export const other = 2;\n",
    "css/site.css": "body { color: red; }\n",
}


def test_imports_are_rewritten_to_versioned_names(tmp_path: Path) -> None:
    _write(tmp_path, SMALL_SITE)
    table = Assets(tmp_path).table()
    main = table["js/main.js"].body.decode()
    for name in ("a", "b", "lazy"):
        versioned = table[f"js/{name}.js"].versioned.removeprefix("js/")
        assert f'"./{versioned}"' in main
    assert '"./a.js"' not in main and '"./b.js"' not in main and '"./lazy.js"' not in main
    assert table["js/b.js"].body == SMALL_SITE["js/b.js"].encode()


def test_a_changed_file_changes_its_url_and_the_urls_of_its_importers(tmp_path: Path) -> None:
    _write(tmp_path, SMALL_SITE)
    served = Assets(tmp_path)
    before = {path: served.url(path) for path in SMALL_SITE}
    (tmp_path / "js/b.js").write_text("export const b = 2;\n", encoding="utf-8")
    _touch_later(tmp_path / "js/b.js")
    after = {path: served.url(path) for path in SMALL_SITE}
    changed = {path for path in SMALL_SITE if before[path] != after[path]}
    assert changed == {"js/b.js", "js/a.js", "js/main.js"}
    # the old URL of b.js now gets the new file, uncached; the new URL is immutable
    client = TestClient(Starlette(routes=[Route("/static/{path:path}", served.endpoint)]))
    old = client.get(before["js/b.js"])
    assert old.text == "export const b = 2;\n"
    assert old.headers["cache-control"] == REVALIDATE
    new = client.get(after["js/b.js"])
    assert new.text == "export const b = 2;\n"
    assert new.headers["cache-control"] == IMMUTABLE


def test_the_same_files_give_the_same_urls(tmp_path: Path) -> None:
    _write(tmp_path / "one", SMALL_SITE)
    _write(tmp_path / "two", SMALL_SITE)
    one, two = Assets(tmp_path / "one"), Assets(tmp_path / "two")
    assert [one.url(p) for p in SMALL_SITE] == [two.url(p) for p in SMALL_SITE]
    assert one.url("js/main.js") != one.url("js/other.js")


def test_modules_that_import_each_other_are_served(tmp_path: Path) -> None:
    _write(tmp_path, {
        "x.js": 'import { y } from "./y.js";\nexport const x = 1;\n',
        "y.js": 'import { x } from "./x.js";\nexport const y = 2;\n',
    })
    served = Assets(tmp_path)
    x, y = served.table()["x.js"], served.table()["y.js"]
    assert f'"./{y.versioned}"' in x.body.decode()
    assert f'"./{x.versioned}"' in y.body.decode()
    before = served.url("x.js")
    (tmp_path / "y.js").write_text('import { x } from "./x.js";\nexport const y = 3;\n')
    _touch_later(tmp_path / "y.js")
    assert served.url("x.js") != before


def test_a_module_importing_a_missing_file_is_refused_clearly(tmp_path: Path) -> None:
    _write(tmp_path, {"main.js": 'import { gone } from "./gone.js";\n'})
    with pytest.raises(AssetError, match=r"main\.js imports '\./gone\.js', which is not a"):
        Assets(tmp_path)


def test_css_urls_and_absolute_static_paths_are_versioned_too(tmp_path: Path) -> None:
    _write(tmp_path, {
        "css/site.css": 'a { background: url("../img/x.svg"); }\n'
                        "b { background: url(/static/img/x.svg); }\n"
                        "c { background: url(data:image/png;base64,AAAA); }\n"
                        "d { background: url(../img/missing.svg); }\n",
        "img/x.svg": "<svg/>",
        "js/main.js": 'const icon = "/static/img/x.svg";\nconst other = "/static/nothing.png";\n',
        "app.webmanifest": '{"icons": [{"src": "/static/img/x.svg"}]}',
    })
    served = Assets(tmp_path)
    table = served.table()
    svg = table["img/x.svg"].versioned
    css = table["css/site.css"].body.decode()
    assert f'url("../img/{svg.removeprefix("img/")}")' in css
    assert f"url(/static/{svg})" in css
    assert "url(data:image/png;base64,AAAA)" in css  # not a file: left alone
    assert "url(../img/missing.svg)" in css  # unknown: left alone, not an error
    assert f'"/static/{svg}"' in table["js/main.js"].body.decode()
    assert '"/static/nothing.png"' in table["js/main.js"].body.decode()
    assert f'"/static/{svg}"' in table["app.webmanifest"].body.decode()
    before = {path: served.url(path) for path in table}
    (tmp_path / "img/x.svg").write_text("<svg></svg>")
    _touch_later(tmp_path / "img/x.svg")
    after = {path: served.url(path) for path in table}
    assert {p for p in table if before[p] != after[p]} == set(table)  # all four refer to it


def test_an_unknown_asset_in_a_template_is_an_error() -> None:
    with pytest.raises(KeyError, match=r"no-such\.js"):
        pages.asset("js/no-such.js")


def test_the_real_static_files_build_and_every_one_is_versioned() -> None:
    table = pages.ASSETS.table()
    on_disk = {p.relative_to(pages.STATIC_DIR).as_posix()
               for p in pages.STATIC_DIR.rglob("*") if p.is_file()}
    assert set(table) == on_disk
    for asset in table.values():
        assert VERSIONED_URL.match(asset.url), asset.url
        if asset.path.endswith(".js"):
            assert not re.search(r'from\s*"\./[\w-]+\.js"', asset.body.decode()), asset.path
