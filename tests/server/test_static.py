"""The client's files and pages over a real server: gzip when the browser takes it and the
bytes as they are when not, versioned files kept for ever and pages revalidated, and a
changed file under a new address after a restart."""

from __future__ import annotations

import gzip
import re
import shutil
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.processes import ROOT, Server

WEB = ROOT / "web"
IMMUTABLE = "public, max-age=31536000, immutable"
PAGES = ["/", "/how", "/me", "/watch/ABCDEFG", "/r/ABCDEFG", "/daily"]


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    s = Server()
    yield s
    s.stop()


def fetch(url: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
    """Status, headers (lower-case names) and the body as sent (not decoded)."""
    request = urllib.request.Request(url, headers={k.replace("_", "-"): v for k, v in headers.items()})
    try:
        with urllib.request.urlopen(request, timeout=10) as r:
            return r.status, {k.lower(): v for k, v in r.headers.items()}, r.read()
    except urllib.error.HTTPError as e:
        return e.code, {k.lower(): v for k, v in e.headers.items()}, e.read()


def addresses(page: str) -> dict[str, str]:
    """The page's own files, plain address -> the versioned one it names."""
    found = re.findall(r'(?:href|src)="(/[^"]+)"', page)
    return {re.sub(r"\.[0-9a-f]{12}(\.\w+)$", r"\1", a): a for a in found if re.search(r"\.[0-9a-f]{12}\.\w+$", a)}


def test_text_is_gzipped_when_the_browser_takes_it_and_sent_as_is_otherwise(server: Server) -> None:
    for path in ("/style.css", "/app.js", "/favicon.svg"):
        raw = (WEB / path.lstrip("/")).read_bytes()
        status, head, body = fetch(server.url + path, Accept_Encoding="gzip, deflate, br")
        assert status == 200 and head["content-encoding"] == "gzip" and head["vary"] == "Accept-Encoding", path
        assert gzip.decompress(body) == raw and int(head["content-length"]) == len(body), path
        if len(raw) > 1000:
            assert len(body) < 0.5 * len(raw), path
        for refusing in ({}, {"Accept_Encoding": "identity"}, {"Accept_Encoding": "br, gzip;q=0"}):
            status, head, body = fetch(server.url + path, **refusing)
            assert status == 200 and "content-encoding" not in head and body == raw, (path, refusing)
            assert head["vary"] == "Accept-Encoding", path
    status, head, body = fetch(server.url + "/og.png", Accept_Encoding="gzip")  # compressed already: as it is
    assert status == 200 and "content-encoding" not in head and body == (WEB / "og.png").read_bytes()
    for path in PAGES:
        status, head, body = fetch(server.url + path, Accept_Encoding="gzip")
        assert status == 200 and head["content-encoding"] == "gzip", path
        assert b"Crescent Race" in gzip.decompress(body), path
        status, head, body = fetch(server.url + path)
        assert status == 200 and "content-encoding" not in head and body.startswith(b"<!doctype html>"), path


def test_versioned_files_are_kept_for_ever_and_pages_revalidated(server: Server) -> None:
    _, _, body = fetch(server.url + "/")
    own = addresses(body.decode())
    assert set(own) == {"/style.css", "/_flat/app.js"}, own
    assert '<link rel="icon" href="data:image/svg+xml;base64,' in body.decode()  # small: in the page
    for plain, versioned in own.items():
        status, head, data = fetch(server.url + versioned, Accept_Encoding="gzip")
        assert status == 200 and head["cache-control"] == IMMUTABLE, versioned
        status, head, _ = fetch(server.url + plain)  # the plain address: asked for again each time
        assert status == 200 and head["cache-control"] == "no-cache" and head["etag"], plain
    # Pages and plain addresses: no-cache, and a 304 for the ETag of either encoding.
    for path in [*PAGES, "/style.css", "/og.png"]:
        for encoding in ("gzip", "identity"):
            status, head, _ = fetch(server.url + path, Accept_Encoding=encoding)
            assert status == 200 and head["cache-control"] == "no-cache", path
            for tag in (head["etag"], head["etag"].replace('.gz"', '"')):
                status, again, data = fetch(server.url + path, Accept_Encoding="gzip", If_None_Match=tag)
                assert (status, data) == (304, b""), (path, tag)
                assert again["cache-control"] == "no-cache", path
    # The page of /r/CODE says what the room is: its ETag follows what it says.
    _, first, _ = fetch(server.url + "/r/ABCDEFG")
    _, other, _ = fetch(server.url + "/r/ZZZZZZZ")
    assert first["etag"] != other["etag"]
    assert fetch(server.url + "/r/ZZZZZZZ", If_None_Match=first["etag"])[0] == 200


def test_unknown_files_get_the_not_found_page(server: Server) -> None:
    for path in ("/nope.js", "/style.0123456789ab.nope", "/pages/", "/../pyproject.toml", "/.hidden"):
        status, head, body = fetch(server.url + path)
        assert status == 404 and head["content-type"].startswith("text/html") and b"No such page" in body, path


def test_a_changed_file_gets_a_new_address_after_a_restart(tmp_path: Path) -> None:
    web = tmp_path / "web"
    shutil.copytree(WEB, web)
    first = Server(WEB_DIR=str(web))
    try:
        before = addresses(fetch(first.url + "/")[2].decode())
        tags = {p: fetch(first.url + p)[1]["etag"] for p in ("/dom.js", "/model/words.js")}  # their digests
    finally:
        first.stop()
    (web / "style.css").write_text((web / "style.css").read_text() + "\n.new-rule { color: red; }\n")
    (web / "model" / "words.js").write_text((web / "model" / "words.js").read_text() + "\n// a change\n")
    second = Server(WEB_DIR=str(web))
    try:
        after = addresses(fetch(second.url + "/")[2].decode())
        assert after["/style.css"] != before["/style.css"] and after["/_flat/app.js"] != before["/_flat/app.js"]
        assert fetch(second.url + "/dom.js")[1]["etag"] == tags["/dom.js"]  # unchanged: the same digest
        assert fetch(second.url + "/model/words.js")[1]["etag"] != tags["/model/words.js"]
        # A page from before the restart asks for the old addresses: it gets today's files,
        # to be revalidated, never to be kept for ever under the old address.
        status, head, body = fetch(second.url + before["/style.css"])
        assert status == 200 and head["cache-control"] == "no-cache" and b".new-rule" in body
        assert fetch(second.url + after["/style.css"])[1]["cache-control"] == IMMUTABLE
    finally:
        second.stop()
    # Served one by one (WEB_FLATTEN=0), each module has its own address in the import map.
    third = Server(WEB_DIR=str(web), WEB_FLATTEN="0")
    try:
        page = fetch(third.url + "/")[2].decode()
        words = re.search(r'"/model/words\.js":"(/model/words\.[0-9a-f]{12}\.js)"', page)
        assert words is not None and f'<link rel="modulepreload" href="{words[1]}">' in page
        status, head, body = fetch(third.url + words[1])
        assert status == 200 and head["cache-control"] == IMMUTABLE and body.endswith(b"// a change\n")
    finally:
        third.stop()


def test_the_page_says_loading_in_the_browsers_language_before_its_script_runs(server: Server) -> None:
    for path in ("/", "/how", "/daily"):
        status, headers, body = fetch(server.url + path, **{"Accept-Language": "es-ES,es;q=0.9"})
        page = body.decode()
        assert status == 200 and '<html lang="es">' in page, path
        assert ">Cargando…<" in page and ">Loading…<" not in page, path
        assert "Accept-Language" in headers["vary"], path
    _, _, body = fetch(server.url + "/", **{"Accept-Language": "fr-FR,en;q=0.5"})
    assert '<html lang="en">' in body.decode() and ">Loading…<" in body.decode()
