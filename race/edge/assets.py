"""The browser client's files as the server sends them: each with a versioned address, a
gzipped copy made once, and the page's head that maps and preloads its modules.

Pure functions of the files' bytes; :mod:`race.edge.static` reads ``web/`` and serves them.

- A file's versioned address puts the first 12 hex digits of its content's SHA-256 before its
  extension: ``/pages/home.js`` is also ``/pages/home.3f2a1b9c0d4e.js``. That address names
  one content for ever, so a browser may keep it a year without asking again.
- The modules import one another by relative addresses (``./dom.js``), which resolve to the
  plain names. The page's import map sends each plain name to its versioned address, so a
  module's own text never changes when another file does, and an edit gives only the edited
  file a new address.
- The page's head preloads (``<link rel="modulepreload">``) every module its entry imports,
  found by reading the imports of ``web/``: all are asked for at once, not a level of the
  import graph per round trip. Modules only imported by ``import()`` (the replay and "my
  games" pages) stay out of the first load.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import html
import json
import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass

from race.edge.flatten import Unflattenable, flatten, placeholder, resolve

DIGEST_CHARS = 12
ENTRY = "/app.js"  # the page's one module script
INLINE_BYTES = 1024  # an image of the page this small is put in it
#: What each extension is sent as; text is UTF-8. Other files are sent as bytes.
MEDIA_TYPES = {
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".html": "text/html; charset=utf-8",
    ".svg": "image/svg+xml",
    ".json": "application/json",
    ".webmanifest": "application/manifest+json",
    ".txt": "text/plain; charset=utf-8",
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".webp": "image/webp",
    ".ico": "image/x-icon",
    ".woff2": "font/woff2",
}
#: Kinds of file worth gzipping (images and fonts other than SVG are compressed already).
COMPRESSIBLE = frozenset({".js", ".css", ".html", ".svg", ".json", ".webmanifest", ".txt"})

_VERSIONED = re.compile(rf"(?P<stem>.+)\.(?P<digest>[0-9a-f]{{{DIGEST_CHARS}}})(?P<ext>\.[A-Za-z0-9]+)")
# An import or re-export of another module: `import x from "./a.js"`, `import "./a.js"`,
# `export { y } from "../b.js"` (a statement at the start of a line, maybe over several lines).
_STATIC_IMPORT = re.compile(
    r"""^[ \t]*(?:import[ \t]*|(?:import|export)\b[^;'"]*?\bfrom\s*)["']([^"'\n]+)["']""", re.MULTILINE
)
_DYNAMIC_IMPORT = re.compile(r"""\bimport\(\s*["']([^"'\n]+)["']\s*\)""")
_TAG_ADDRESS = re.compile(r"""\b(href|src)="(/[^"?#]*)\"""")


@dataclass(frozen=True)
class Asset:
    """One file of the client: its plain address (``/dom.js``), bytes, a gzipped copy when
    that is smaller, and its content's digest."""

    path: str
    body: bytes
    gzipped: bytes | None
    media_type: str
    digest: str

    @property
    def url(self) -> str:
        """The versioned address: the same address, the same bytes, for ever."""
        stem, ext = posixpath.splitext(self.path)
        return f"{stem}.{self.digest}{ext}"

    @property
    def etag(self) -> str:
        return f'"{self.digest}"'

    @property
    def gzip_etag(self) -> str:
        """The gzipped copy's validator: another encoding, another tag (of the same content)."""
        return f'"{self.digest}.gz"'


def make_asset(path: str, body: bytes) -> Asset:
    """``body`` as the file at ``path``, gzipped once (at the highest level: it is done once)."""
    ext = posixpath.splitext(path)[1].lower()
    packed = gzip.compress(body, compresslevel=9, mtime=0) if ext in COMPRESSIBLE else None
    digest = hashlib.sha256(body).hexdigest()[:DIGEST_CHARS]
    media = MEDIA_TYPES.get(ext, "application/octet-stream")
    return Asset(path, body, packed if packed is not None and len(packed) < len(body) else None, media, digest)


def imports(source: str) -> tuple[list[str], list[str]]:
    """The specifiers ``source`` imports, statically and by ``import()``.

    >>> imports('import { a } from "./a.js";\\nimport {\\n  b,\\n} from "../b.js";\\nconst p = import("./c.js");')
    (['./a.js', '../b.js'], ['./c.js'])
    """
    return _STATIC_IMPORT.findall(source), _DYNAMIC_IMPORT.findall(source)


def module_graph(files: Mapping[str, str]) -> dict[str, tuple[list[str], list[str]]]:
    """Each module's static and dynamic imports among ``files`` (address -> source)."""
    graph = {}
    for path, source in files.items():
        static, dynamic = imports(source)
        found = [
            [r for s in specs if (r := resolve(path, s)) is not None and r in files] for specs in (static, dynamic)
        ]
        graph[path] = (list(dict.fromkeys(found[0])), list(dict.fromkeys(found[1])))
    return graph


def static_closure(graph: Mapping[str, tuple[list[str], list[str]]], entry: str) -> list[str]:
    """Every module ``entry`` loads before it runs (itself first), nearest first.

    >>> g = {"/a.js": (["/b.js", "/c.js"], ["/z.js"]), "/b.js": (["/c.js", "/d.js"], []),
    ...      "/c.js": ([], []), "/d.js": ([], []), "/z.js": (["/d.js"], [])}
    >>> static_closure(g, "/a.js")
    ['/a.js', '/b.js', '/c.js', '/d.js']
    """
    seen = [entry]
    for path in seen:  # grows as it goes: breadth first
        seen += [m for m in graph.get(path, ([], []))[0] if m not in seen]
    return seen


FLAT = "/_flat"  # where the flattened scripts live: /_flat/app.js, /_flat/pages/replay.js


@dataclass(frozen=True)
class Client:
    """The client's files by plain address and by versioned address, and how the page loads
    its code: ``flat`` (the flattened script's plain address) or, when the modules could not
    be flattened (``why_not``) or flattening is off, the entry's modules preloaded."""

    files: dict[str, Asset]
    versioned: dict[str, Asset]
    preload: list[str]  # the plain addresses of the entry's modules, nearest first
    flat: str | None = None
    why_not: str | None = None

    def lookup(self, path: str) -> tuple[Asset | None, bool]:
        """The file at ``path`` and whether ``path`` is its current versioned address (which
        may be cached for ever). A versioned address of an older content (a page loaded
        before a deploy) gets the current file, to be revalidated."""
        if (asset := self.versioned.get(path)) is not None:
            return asset, True
        if (asset := self.files.get(path)) is not None:
            return asset, False
        if (m := _VERSIONED.fullmatch(path)) is not None:
            return self.files.get(m["stem"] + m["ext"]), False
        return None, False

    def import_map(self) -> str:
        """The page's import map: each module's plain address to its versioned one."""
        mods = {p: a.url for p, a in sorted(self.files.items()) if p.endswith(".js") and not p.startswith(FLAT)}
        return json.dumps({"imports": mods}, separators=(",", ":"))

    def head(self, page: str) -> str:
        """``page`` (index.html) with its own files' addresses versioned: the flattened
        script instead of the entry when there is one, else the entry with the import map and
        the module preloads before it."""
        entry = f'src="{ENTRY}"'
        if self.flat is not None:
            return _TAG_ADDRESS.sub(lambda m: f'{m[1]}="{self._url(m[2])}"', page.replace(entry, f'src="{self.flat}"'))
        versioned = _TAG_ADDRESS.sub(lambda m: f'{m[1]}="{self._url(m[2])}"', page)
        tags = [f'  <script type="importmap">{self.import_map()}</script>']
        tags += [f'  <link rel="modulepreload" href="{html.escape(self._url(p))}">' for p in self.preload]
        at = versioned.find('  <script type="module"')
        if at < 0:
            at = versioned.index("</head>")
        return versioned[:at] + "\n".join(tags) + "\n" + versioned[at:]

    def _url(self, path: str) -> str:
        """The address the page names ``path`` by: versioned, or for a small image (the icon)
        the image itself, as a ``data:`` address (no request at all)."""
        asset = self.files.get(path)
        if asset is None:
            return path
        if asset.media_type.startswith("image/") and len(asset.body) <= INLINE_BYTES:
            return f"data:{asset.media_type};base64,{base64.b64encode(asset.body).decode()}"
        return asset.url


def build(contents: Mapping[str, bytes], entry: str = ENTRY, *, flat: bool = True) -> Client:
    """The client from its files' bytes (plain address -> bytes); with ``flat``, its
    modules flattened into one script (and one per page loaded by ``import()``) when they
    can be (see :mod:`race.edge.flatten`)."""
    files = {path: make_asset(path, body) for path, body in contents.items()}
    sources = {p: b.decode("utf-8", errors="replace") for p, b in contents.items() if p.endswith(".js")}
    graph = module_graph(sources)
    preload = static_closure(graph, entry) if entry in graph else []
    flat_path, why_not = None, None
    if flat and entry in sources:
        try:
            script, chunks = flatten(sources, entry)
        except Unflattenable as exc:
            why_not = str(exc)
        else:
            for root, text in chunks.items():
                chunk = make_asset(FLAT + root, text.encode())
                files[chunk.path] = chunk
                script = script.replace(placeholder(root), chunk.url)
            files[FLAT + entry] = make_asset(FLAT + entry, script.encode())
            flat_path = FLAT + entry
    return Client(files, {a.url: a for a in files.values()}, preload, flat_path, why_not)


def accepts_gzip(accept_encoding: str | None) -> bool:
    """Whether an ``Accept-Encoding`` header takes gzip (``q=0`` refuses it).

    >>> [accepts_gzip(h) for h in (None, "", "gzip, deflate, br", "br;q=1, gzip;q=0", "*", "identity", "GZIP;q=0.5")]
    [False, False, True, False, True, False, True]
    """
    if not accept_encoding:
        return False
    weights: dict[str, float] = {}
    for item in accept_encoding.split(","):
        name, _, params = item.strip().partition(";")
        q = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        weights[name.strip().lower()] = q
    return weights.get("gzip", weights.get("*", 0.0)) > 0


def is_current(if_none_match: str | None, *tags: str) -> bool:
    """Whether a browser's ``If-None-Match`` names one of ``tags`` (then a 304 answers).

    >>> [is_current(h, '"a"', '"a.gz"') for h in (None, '"a"', 'W/"a.gz", "b"', '"b"', "*")]
    [False, True, True, False, True]
    """
    if not if_none_match:
        return False
    named = {t.strip().removeprefix("W/") for t in if_none_match.split(",")}
    return "*" in named or any(tag in named for tag in tags)
