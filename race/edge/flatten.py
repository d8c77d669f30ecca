"""The client's module graph flattened into one script, made by the server when it starts
(there is no build step): a page then loads its code in one request, not one per module.

Over HTTP/1.1 a browser opens at most six connections to a server, so even with every
module preloaded, 37 modules take six or seven round trips one after the other. Flattening
takes them to one.

Each module becomes a function of its own (so its names stay its own), registered under its
address; its ``import`` statements become look-ups of the modules it imports, which have
run before it, and it returns its exports. That is the modules' own order of evaluation
(depth first, in import order) and their semantics for the forms the client uses:

- ``import { a, b as c } from "./x.js"``, ``import * as x from "./x.js"``, ``import "./x.js"``;
- ``export function``, ``export async function``, ``export class``, ``export const``, and
  ``export { a, b } from "./x.js"``;
- ``import("./x.js")`` of a module outside the entry's graph: that module and what it needs
  beyond the entry's graph become a second script, loaded when it is first imported.

Any other form (a default export, ``export let``, an import cycle, ``import.meta``, an
``import()`` of something that is not a literal address) raises :class:`Unflattenable`, and
the server then serves the modules as they are, preloaded. Line numbers inside a module
are kept (an import's lines are left blank), so a stack trace's line is the module's own
plus the line its function starts on.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Mapping

REGISTRY = "globalThis.crescentModules"

_IMPORT = re.compile(r"""^import\s*(?:(?P<what>[^;'"]*?)\s*from\s*)?["'](?P<spec>[^"'\n]+)["'][ \t]*;?""", re.M)
_REEXPORT = re.compile(r"""^export\s*\{(?P<names>[^}]*)\}\s*from\s*["'](?P<spec>[^"'\n]+)["'][ \t]*;?""", re.M)
_DECLARED = re.compile(r"^export\s+(?:async\s+function\*?|function\*?|class|const)\s+(?P<name>[A-Za-z_$][\w$]*)", re.M)
_EXPORT_KEYWORD = re.compile(r"^export\s+(?=async\s|function|class|const)", re.M)
_ANY_MODULE_LINE = re.compile(r"^[ \t]*(?:import|export)\b(?!\s*\()", re.M)
_DYNAMIC = re.compile(r"""\bimport\(\s*(?:["'](?P<spec>[^"'\n]+)["']\s*\))?""")
_NAME = r"[A-Za-z_$][\w$]*"
_BINDING = re.compile(rf"^(?P<name>{_NAME})(?:\s+as\s+(?P<alias>{_NAME}))?$")

PRELUDE = f"""const __r = ({REGISTRY} ??= {{ factories: new Map(), done: new Map(), chunks: {{}} }});
__r.require ??= (path) => {{
  if (!__r.done.has(path)) {{
    const make = __r.factories.get(path);
    if (!make) throw new Error(`module ${{path}} is not loaded`);
    __r.done.set(path, make());
  }}
  return __r.done.get(path);
}};
__r.load ??= (path) =>
  (__r.factories.has(path) ? Promise.resolve() : import(__r.chunks[path])).then(() => __r.require(path));
"""


def resolve(importer: str, specifier: str) -> str | None:
    """The plain address ``specifier`` names from the module at ``importer``; None for a
    bare name or another origin's address (not one of ours).

    >>> [resolve("/pages/home.js", s) for s in ("../dom.js", "./howto.js", "/net.js", "lit")]
    ['/dom.js', '/pages/howto.js', '/net.js', None]
    """
    if specifier.startswith("/") and not specifier.startswith("//"):
        return posixpath.normpath(specifier)
    if specifier.startswith(("./", "../")):
        return posixpath.normpath(posixpath.join(posixpath.dirname(importer), specifier))
    return None


class Unflattenable(ValueError):
    """A module uses a form the flattening does not know; the message says which and where."""


def _bindings(what: str, where: str) -> str:
    """``{ a, b as c }`` as the destructuring ``{ a, b: c }``."""
    names = [n.strip() for n in what.strip().removeprefix("{").removesuffix("}").split(",") if n.strip()]
    out = []
    for n in names:
        m = _BINDING.fullmatch(n)
        if m is None:
            raise Unflattenable(f"{where}: cannot flatten the import of {n!r}")
        out.append(m["name"] if m["alias"] is None else f"{m['name']}: {m['alias']}")
    return "{ " + ", ".join(out) + " }"


def _blank(text: str) -> str:
    """``text`` with everything but its line breaks removed: later lines keep their numbers."""
    return "\n" * text.count("\n")


def module_function(path: str, source: str, known: Mapping[str, str]) -> tuple[str, list[str], list[str]]:
    """``source`` (the module at ``path``) as a registered function; also the addresses it
    imports statically (in order) and by ``import()``. ``known`` holds every module."""

    def target(spec: str) -> str:
        resolved = resolve(path, spec)
        if resolved is None or resolved not in known:
            raise Unflattenable(f"{path}: imports {spec!r}, which is not one of the client's modules")
        return resolved

    if "import.meta" in source:
        raise Unflattenable(f"{path}: uses import.meta")
    requires: list[str] = []
    deps: list[str] = []
    exports: list[str] = []

    def on_import(m: re.Match[str]) -> str:
        dep = target(m["spec"])
        deps.append(dep)
        what = (m["what"] or "").strip()
        if not what:
            requires.append(f"__r.require({json.dumps(dep)});")
        elif what.startswith("* as "):
            requires.append(f"const {what[5:].strip()} = __r.require({json.dumps(dep)});")
        elif what.startswith("{"):
            requires.append(f"const {_bindings(what, path)} = __r.require({json.dumps(dep)});")
        else:
            raise Unflattenable(f"{path}: cannot flatten a default import ({what!r})")
        return _blank(m[0])

    def on_reexport(m: re.Match[str]) -> str:
        dep = target(m["spec"])
        deps.append(dep)
        for pair in _bindings("{" + m["names"] + "}", path).strip("{} ").split(","):
            name, _, alias = (x.strip() for x in pair.partition(":"))
            exports.append(f"{alias or name}: __r.require({json.dumps(dep)}).{name}")  # no name of its own
        return _blank(m[0])

    body = _IMPORT.sub(on_import, source)
    body = _REEXPORT.sub(on_reexport, body)
    exports += _DECLARED.findall(body)
    body = _EXPORT_KEYWORD.sub("", body)
    if (left := _ANY_MODULE_LINE.search(body)) is not None:
        line = body.count("\n", 0, left.start()) + 1
        raise Unflattenable(f"{path}:{line}: cannot flatten {body[left.start() : body.find(chr(10), left.start())]!r}")
    lazy: list[str] = []

    def on_dynamic(m: re.Match[str]) -> str:
        if m["spec"] is None:
            raise Unflattenable(f"{path}: import() of something other than a literal address")
        lazy.append(target(m["spec"]))
        return f"__r.load({json.dumps(lazy[-1])})"

    body = _DYNAMIC.sub(on_dynamic, body)
    names = ", ".join(dict.fromkeys(exports))
    head = f"__r.factories.set({json.dumps(path)}, () => {{ {' '.join(requires)}"
    return f"{head}\n{body.rstrip()}\nreturn Object.freeze({{ {names} }});\n}});\n", deps, lazy


def _order(entry: str, graph: Mapping[str, list[str]]) -> list[str]:
    """The modules ``entry`` needs, each after those it imports (depth first, in import
    order, as modules are evaluated); a cycle raises :class:`Unflattenable`."""
    done: list[str] = []
    visiting: list[str] = []

    def visit(path: str) -> None:
        if path in done:
            return
        if path in visiting:
            cycle = " -> ".join([*visiting[visiting.index(path) :], path])
            raise Unflattenable(f"an import cycle: {cycle}")
        visiting.append(path)
        for dep in graph[path]:
            visit(dep)
        visiting.pop()
        done.append(path)

    visit(entry)
    return done


def placeholder(root: str) -> str:
    """What stands for the address of the script of ``root`` (an ``import()``-ed module) in
    the entry's script, until the caller knows that script's versioned address."""
    return f"@@CHUNK:{root}@@"


def flatten(sources: Mapping[str, str], entry: str) -> tuple[str, dict[str, str]]:
    """The entry's script, and a script for each module first reached by ``import()`` (that
    module's address -> the script, which holds it and what it needs beyond the entry's
    graph). The entry's script names their addresses by :func:`placeholder`."""
    made = {path: module_function(path, source, sources) for path, source in sources.items()}
    graph = {path: deps for path, (_, deps, _) in made.items()}
    main = _order(entry, graph)
    chunks: dict[str, str] = {}
    owner: dict[str, str] = {}  # a module outside the entry's graph -> the import()-ed root holding it
    pending = [lazy for path in main for lazy in made[path][2]]
    loaded = set(main)
    while pending:
        root = pending.pop(0)
        if root in loaded:
            continue
        own = [p for p in _order(root, graph) if p not in loaded]
        chunks[root] = PRELUDE + "".join(made[p][0] for p in own)
        owner.update(dict.fromkeys(own, root))
        loaded.update(own)
        pending += [lazy for p in own for lazy in made[p][2]]
    table = ", ".join(f"{json.dumps(p)}: {json.dumps(placeholder(root))}" for p, root in owner.items())
    script = PRELUDE + f"Object.assign(__r.chunks, {{ {table} }});\n"
    script += "".join(made[p][0] for p in main) + f"__r.require({json.dumps(entry)});\n"
    return script, chunks
