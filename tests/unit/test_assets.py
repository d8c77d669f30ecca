"""The client's files as served: versioned addresses, the module graph, the page's head, and
the flattened script, which must run as the modules themselves do (checked in Node: the
same modules run as ES modules and flattened must log the same)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from race.edge.assets import ENTRY, FLAT, build, module_graph, static_closure
from race.edge.flatten import Unflattenable, flatten
from race.edge.static import read_client
from tests.support.processes import ROOT

NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed")

# A small client using every form the flattening knows, logging its order of evaluation.
MODULES = {
    "/app.js": """import { a, b as bee } from "./lib/a.js";
import * as words from "./words.js";
import {
  NAME,
  again,
} from "./lib/a.js";
import "./side.js";
log("app", a(), bee, words.hello("x"), NAME, again);
export const done = true;
import("./lazy.js").then((m) => log("lazy", m.late(), m.NAME));
""",
    "/lib/a.js": """import { hello } from "../words.js";
log("a");
export function a() { return hello("a"); }
export const b = 2;
export class Thing {}
export async function later() { return 1; }
export { NAME, NAME as again } from "../words.js";
""",
    "/words.js": """log("words");
export const NAME = "n";
export function hello(who) { return `hi ${who}`; }
""",
    "/side.js": 'log("side");\n',
    "/lazy.js": """import { hello } from "./words.js";
import { extra } from "./only-lazy.js";
log("lazy body", extra);
export function late() { return hello("late"); }
export { NAME } from "./words.js";
""",
    "/only-lazy.js": 'log("only-lazy");\nexport const extra = 7;\n',
}


def _run_node(directory: Path, entry: str) -> list[str]:
    assert NODE is not None
    done = subprocess.run([NODE, entry], cwd=directory, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


LOGGER = "globalThis.log = (...xs) => console.log(JSON.stringify(xs));\n"


@needs_node
def test_the_flattened_script_runs_as_the_modules_do(tmp_path: Path) -> None:
    as_modules = tmp_path / "modules"
    for path, text in MODULES.items():
        (as_modules / path.lstrip("/")).parent.mkdir(parents=True, exist_ok=True)
        (as_modules / path.lstrip("/")).write_text(text)
    (as_modules / "main.mjs").write_text(LOGGER + 'await import("./app.js");\n')
    (as_modules / "package.json").write_text('{"type": "module"}')
    expected = _run_node(as_modules, "main.mjs")

    script, chunks = flatten(MODULES, "/app.js")
    made = '__r.factories.set("/only-lazy.js"'
    assert list(chunks) == ["/lazy.js"] and made in chunks["/lazy.js"] and made not in script
    flat = tmp_path / "flat"
    flat.mkdir()
    (flat / "package.json").write_text('{"type": "module"}')
    (flat / "lazy.js").write_text(chunks["/lazy.js"])
    (flat / "main.js").write_text(LOGGER + script.replace("@@CHUNK:/lazy.js@@", "./lazy.js"))
    got = _run_node(flat, "main.js")
    assert got == expected
    assert [json.loads(x)[0] for x in got] == ["words", "a", "side", "app", "only-lazy", "lazy body", "lazy"]


def test_a_module_keeps_its_line_numbers_when_flattened() -> None:
    script, _ = flatten(MODULES, "/app.js")
    start = script.index('__r.factories.set("/app.js"')
    lines = script[start:].splitlines()
    assert lines[8].startswith('log("app"')  # the app's line 8, 8 lines below its function's start


@pytest.mark.parametrize(
    ("source", "named"),
    [
        ("export default 1;\n", "export default"),
        ("export let x = 1;\n", "export let"),
        ('import x from "./b.js";\n', "default import"),
        ("const u = import.meta.url;\n", "import.meta"),
        ("const m = import(name);\n", "literal"),
        ('import { x } from "./nowhere.js";\n', "nowhere"),
    ],
)
def test_forms_it_does_not_know_are_refused_with_the_reason(source: str, named: str) -> None:
    with pytest.raises(Unflattenable, match=named):
        flatten({"/app.js": source, "/b.js": "export const y = 1;\n"}, "/app.js")


def test_an_import_cycle_is_refused() -> None:
    cycle = {
        "/app.js": 'import { b } from "./b.js";\nexport const a = 1;\n',
        "/b.js": 'import { a } from "./app.js";\n',
    }
    with pytest.raises(Unflattenable, match=re.escape("cycle: /app.js -> /b.js -> /app.js")):
        flatten(cycle, "/app.js")


def test_unflattenable_modules_are_served_one_by_one_preloaded() -> None:
    files = {
        "/index.html": b"",
        "/app.js": b'import { y } from "./b.js";\nexport default y;\n',
        "/b.js": b"export const y=1;",
    }
    client = build(files)
    assert client.flat is None and client.why_not is not None and "export default" in client.why_not
    head = client.head('<head>\n  <script type="module" src="/app.js"></script>\n</head>')
    assert f'src="{client.files["/app.js"].url}"' in head
    assert f'<link rel="modulepreload" href="{client.files["/b.js"].url}">' in head
    importmap = json.loads(head.split('<script type="importmap">')[1].split("</script>")[0])
    assert importmap == {"imports": {p: client.files[p].url for p in ("/app.js", "/b.js")}}


def test_the_clients_own_modules_flatten_and_preload_every_module_the_entry_imports() -> None:
    web = ROOT / "web"
    client = read_client(web)
    assert client.why_not is None and client.flat == FLAT + ENTRY
    sources = {"/" + p.relative_to(web).as_posix(): p.read_text() for p in web.rglob("*.js")}
    graph = module_graph(sources)
    reached = set(static_closure(graph, ENTRY))
    lazy = {d for p in reached for d in graph[p][1]} - reached
    assert lazy == {"/pages/replay.js", "/pages/me.js"}  # the pages loaded when first visited
    later = {m for page in lazy for m in static_closure(graph, page)}  # (and what those pages import)
    assert set(sources) == reached | later  # every module is reached by the page
    unflat = read_client(web, flat=False)
    assert set(unflat.preload) == reached and unflat.preload[0] == ENTRY


def test_a_changed_file_gets_a_new_address_and_no_other_does() -> None:
    files = {"/app.js": b'import { x } from "./b.js";\n', "/b.js": b"export const x = 1;\n", "/s.css": b"a{}"}
    before = build(files)
    after = build({**files, "/b.js": b"export const x = 2;\n"})
    assert after.files["/b.js"].url != before.files["/b.js"].url
    assert after.files["/s.css"].url == before.files["/s.css"].url
    assert after.files["/app.js"].url == before.files["/app.js"].url
    assert after.flat is not None and after.files[after.flat].url != before.files[after.flat].url  # it holds b.js
    # An address of the old content gets the current file, which is not to be kept for ever.
    assert after.lookup(before.files["/b.js"].url) == (after.files["/b.js"], False)
    assert after.lookup(after.files["/b.js"].url) == (after.files["/b.js"], True)
    assert after.lookup("/b.js") == (after.files["/b.js"], False)
    assert after.lookup("/nope.js") == (None, False)
