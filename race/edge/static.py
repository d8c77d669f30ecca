"""Serving the browser client's files and its page (the shell around :mod:`race.edge.assets`).

``web/`` is read, hashed and gzipped once, when the app is made: a change to it is served
after a restart.

- A file at its versioned address is sent ``Cache-Control: public, max-age=31536000,
  immutable``: the browser never asks for it again.
- The page, and any file at its plain address (``/style.css``, ``/og.png``) or at an older
  version's address, is sent ``no-cache`` with an ``ETag``: the browser asks each time,
  and a 304 answers when its copy is current.
- Text is sent gzipped to a browser whose ``Accept-Encoding`` takes gzip, as it is to one
  that does not; ``Vary: Accept-Encoding`` says so to caches on the way. The two have
  different ETags (``"D"`` and ``"D.gz"``), and either validates the same content.
"""

from __future__ import annotations

import gzip
import hashlib
import logging
from pathlib import Path

from starlette.requests import Request
from starlette.responses import Response

from race.edge.assets import Asset, Client, accepts_gzip, build, is_current

log = logging.getLogger(__name__)
IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"


def read_client(web_dir: Path, *, flat: bool = True) -> Client:
    """The client from the files under ``web_dir`` (hidden ones left out), its modules
    flattened when ``flat`` (and when they can be: a warning says why not)."""
    contents = {
        "/" + path.relative_to(web_dir).as_posix(): path.read_bytes()
        for path in sorted(web_dir.rglob("*"))
        if path.is_file() and not any(part.startswith(".") for part in path.relative_to(web_dir).parts)
    }
    client = build(contents, flat=flat)
    if client.why_not is not None:
        log.warning("the client's modules are served one by one, preloaded: %s", client.why_not)
    return client


def send(request: Request, asset: Asset, cache_control: str) -> Response:
    """``asset`` in the encoding ``request`` takes, or a 304 when the browser's copy is current."""
    packed = asset.gzipped is not None and accepts_gzip(request.headers.get("accept-encoding"))
    headers = {"Cache-Control": cache_control, "ETag": asset.gzip_etag if packed else asset.etag}
    if asset.gzipped is not None:
        headers["Vary"] = "Accept-Encoding"
    if is_current(request.headers.get("if-none-match"), asset.etag, asset.gzip_etag):
        return Response(status_code=304, headers=headers)
    if packed:
        headers["Content-Encoding"] = "gzip"
    body = asset.gzipped if packed and asset.gzipped is not None else asset.body
    return Response(body, media_type=asset.media_type, headers=headers)


def page(path: str, text: str) -> Asset:
    """A page made from the client's index (per request for /r/CODE and /daily, once for the
    others) as an :class:`Asset`, gzipped quickly: it may be made per request."""
    body = text.encode()
    digest = hashlib.sha256(body).hexdigest()[:32]
    packed = gzip.compress(body, compresslevel=6, mtime=0)
    return Asset(path, body, packed, "text/html; charset=utf-8", digest)


def file_response(client: Client, request: Request) -> Response | None:
    """The client's file at the request's path, or None when there is none."""
    asset, current = client.lookup(request.url.path)
    if asset is None:
        return None
    return send(request, asset, IMMUTABLE if current else REVALIDATE)
