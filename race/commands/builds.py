"""The same benchmark in the other build: the pure Python one, run beside the compiled one.

A benchmark command measures in its own process (the compiled build when there is one), then
runs itself again with ``RACE_PURE=1`` and ``--json`` in a child process and prints both, with
their ratio: the same machine, the same minute, the same work.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import race


def compiled() -> bool:
    """Whether this process runs the compiled engine and solver."""
    return race.BUILD == "compiled"


def in_pure_build(argv: list[str]) -> dict[str, Any]:
    """``python -m race ARGV --json`` with the pure modules: its JSON answer."""
    env = {**os.environ, "RACE_PURE": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "race", *argv, "--json"], env=env, capture_output=True, text=True, check=True
    )
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


def build_note() -> str:
    """One line on the builds compared, or why there is no comparison."""
    if compiled():
        return "compiled (mypyc) build, then the pure Python build in a child process (RACE_PURE=1)"
    return "pure Python build only: no compiled build here (.ci/compile.py makes one where a C compiler is)"
