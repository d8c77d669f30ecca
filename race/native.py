"""Which build of the engine and the solver runs: compiled (mypyc) or pure Python.

``.ci/compile.py`` compiles the modules in :data:`COMPILED` with mypyc into extension modules
beside their sources. Python then imports those in place of the ``.py`` files, unless:

- ``RACE_PURE=1`` is set: the pure modules run (the benchmarks and CI use this for the pure
  build in the same checkout);
- some ``.py`` file is newer than its compiled module, a compiled module is missing, or one
  is left from a module no longer listed: the build is stale, so the pure modules run and one
  line on stderr says so. ``.ci/test`` and ``.ci/serve`` rebuild a stale build before they
  start, so this only happens to a process started otherwise after an edit.

Either way it is all or nothing: compiled modules call each other directly, so a mix of
fresh and stale ones could run old code.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Sequence
from importlib.abc import MetaPathFinder
from importlib.machinery import ModuleSpec
from types import ModuleType

#: The modules mypyc compiles, as paths from the checkout's root.
COMPILED: tuple[str, ...] = (
    "race/engine/rules.py",
    "race/engine/tables.py",
    "race/solver/core.py",
)
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def built(path: str) -> str | None:
    """The compiled module built from the source at ``path``, if there is one."""
    stem = path[:-3]
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        if os.path.exists(stem + suffix):
            return stem + suffix
    return None


def stale() -> list[str]:
    """The sources (paths from the root) with no compiled module or one older than them."""
    out = []
    for rel in COMPILED:
        path = os.path.join(ROOT, rel)
        so = built(path)
        if so is None or os.path.getmtime(so) < os.path.getmtime(path):
            out.append(rel)
    return out


def orphans() -> list[str]:
    """Compiled files no listed module owns: those of modules taken off :data:`COMPILED`, and
    the shared libraries of earlier builds (mypyc names one per set of modules)."""
    wanted = {built(os.path.join(ROOT, rel)) for rel in COMPILED}
    found = [os.path.join(ROOT, name) for name in os.listdir(ROOT) if "__mypyc." in name and name.endswith(".so")]
    for folder, _, names in os.walk(os.path.join(ROOT, "race")):
        found += [os.path.join(folder, n) for n in names if n.endswith((".so", ".pyd"))]
    shared = max((p for p in found if "__mypyc." in p), key=os.path.getmtime, default=None)
    return sorted(p for p in found if p not in wanted and p != shared)


def any_built() -> bool:
    return any(built(os.path.join(ROOT, rel)) is not None for rel in COMPILED)


class PureFinder(MetaPathFinder):
    """Finds the ``race`` package's modules' ``.py`` sources, ahead of any compiled ones."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if not fullname.startswith("race."):
            return None
        source = os.path.join(ROOT, *fullname.split(".")) + ".py"
        return importlib.util.spec_from_file_location(fullname, source) if os.path.isfile(source) else None


def choose() -> str:
    """Pick the build for this process (once, before the engine is imported): "compiled" or "pure"."""
    if os.environ.get("RACE_PURE", "") not in ("", "0"):
        return _pure()
    if not any_built():
        return "pure"
    if old := stale() + [os.path.relpath(p, ROOT) for p in orphans() if "__mypyc." not in p]:
        print(
            f"race: the compiled engine is stale ({old[0]}): running pure Python; .ci/compile.py rebuilds it",
            file=sys.stderr,
        )
        return _pure()
    return "compiled"


def _pure() -> str:
    if not any(isinstance(f, PureFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, PureFinder())
    return "pure"


def active() -> str:
    """Which build this process runs: "compiled" when the solver's core is an extension module."""
    from race.solver import core

    return "pure" if (core.__file__ or "").endswith(".py") else "compiled"
