"""Which build of the engine and the solver runs: compiled (mypyc) or pure Python.

``.ci/compile.py`` compiles the modules in :data:`COMPILED` with mypyc into extension modules
beside their sources. Python then imports those in place of the ``.py`` files, unless:

- ``RACE_PURE=1`` is set: the pure modules run (the benchmarks and CI use this for the pure
  build in the same checkout);
- some ``.py`` file is newer than its compiled module, or a compiled module is missing: the
  build is stale, so the pure modules run and a warning says so once. ``.ci/test`` and
  ``.ci/serve`` rebuild a stale build before they start.

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
MODULES: dict[str, str] = {path[:-3].replace("/", "."): os.path.join(ROOT, path) for path in COMPILED}


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


def any_built() -> bool:
    return any(built(os.path.join(ROOT, rel)) is not None for rel in COMPILED)


class PureFinder(MetaPathFinder):
    """Finds the listed modules' ``.py`` sources, ahead of the compiled ones."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        source = MODULES.get(fullname)
        return None if source is None else importlib.util.spec_from_file_location(fullname, source)


def choose() -> str:
    """Pick the build for this process (once, before the engine is imported): "compiled" or "pure"."""
    if os.environ.get("RACE_PURE", "") not in ("", "0"):
        return _pure()
    if not any_built():
        return "pure"
    if old := stale():
        print(
            f"race: the compiled engine is older than {old[0]}: running pure Python (.ci/compile.py rebuilds it)",
            file=sys.stderr,
        )
        return _pure()
    return "compiled"


def _pure() -> str:
    if not any(isinstance(f, PureFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, PureFinder())
    return "pure"


def active() -> str:
    """Which build this process runs: "compiled" when the engine's game module is an extension."""
    from race.engine import game

    return "compiled" if not game.__file__ or not game.__file__.endswith(".py") else "pure"
