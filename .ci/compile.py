"""Compile the engine and the solver with mypyc, beside their sources; or say why not.

Run by the venv's Python from the checkout's root (``.ci/lib.sh`` does, on every ``.ci/test`` and
``.ci/serve``). It rebuilds only when a listed source is newer than its compiled module, and
prints one line either way it builds: compiled, or pure Python and why. ``RACE_PURE=1`` skips it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
SKIP = os.environ.get("RACE_PURE", "") not in ("", "0")
os.environ["RACE_PURE"] = "1"  # import race.native without choosing a build

from race.native import COMPILED, orphans, stale  # noqa: E402

# The C goes to build/, the modules to build/mypyc-lib, and from there they are renamed into
# place: a process running the old ones keeps them (a copy over them could crash it).
LIB = os.path.join("build", "mypyc-lib")
BUILD_SCRIPT = f"""
import sys
from setuptools import setup
from mypyc.build import mypycify
setup(name="race-native", ext_modules=mypycify(sys.argv[1:], opt_level="3"),
      script_args=["build_ext", "--force", "--build-lib", {LIB!r}, "--build-temp", "build/mypyc"])
"""


def why_not() -> str | None:
    """Why this machine cannot compile, or None."""
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        return f"no C compiler ({compiler})"
    include = sysconfig.get_paths()["include"]
    if not os.path.exists(os.path.join(include, "Python.h")):
        return "no Python headers (Python.h)"
    try:
        import mypyc  # noqa: F401
        import setuptools  # noqa: F401
    except ImportError as exc:
        return f"{exc.name} is not installed"
    return None


def install() -> None:
    """Rename the built modules into place beside their sources."""
    lib = os.path.join(ROOT, LIB)
    for folder, _, names in os.walk(lib):
        for name in names:
            path = os.path.join(folder, name)
            os.replace(path, os.path.join(ROOT, os.path.relpath(path, lib)))


def main() -> int:
    if SKIP:
        return 0
    for path in orphans():  # built from a module no longer listed, or an old shared library
        os.remove(path)
    if not stale():
        return 0
    reason = why_not()
    if reason is None:
        print("==> compiling the engine and the solver with mypyc (C compiler found; under a minute)")
        shutil.rmtree(os.path.join(ROOT, LIB), ignore_errors=True)
        with tempfile.TemporaryFile("w+") as log:
            done = subprocess.run(
                [sys.executable, "-c", BUILD_SCRIPT, *COMPILED], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT
            )
            if done.returncode == 0:
                install()
                if not stale():
                    return 0
            log.seek(0)
            tail = log.read().strip().splitlines()[-15:]
        print("\n".join(tail), file=sys.stderr)
        reason = "mypyc failed (above)"
    print(f"==> pure Python engine and solver: {reason}; everything works, the solver is slower")
    return 0


if __name__ == "__main__":
    sys.exit(main())
