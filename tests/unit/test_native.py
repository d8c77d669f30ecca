"""The choice between the compiled and the pure build: freshness, leftovers, and that both agree."""

from __future__ import annotations

import importlib.machinery
import os
import subprocess
import sys
from pathlib import Path

import pytest

import race
from race import native

SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]


def fake_checkout(root: Path) -> None:
    """Every listed source with a compiled module an hour newer, and a shared library."""
    for rel in native.COMPILED:
        source = root / rel
        source.parent.mkdir(parents=True, exist_ok=True)
        source.write_text("")
        built = root / (rel[:-3] + SUFFIX)
        built.write_bytes(b"")
        os.utime(source, (1_000_000, 1_000_000))
        os.utime(built, (1_003_600, 1_003_600))
    (root / ("abc__mypyc" + SUFFIX)).write_bytes(b"")


def test_a_fresh_build_is_not_stale_and_has_no_leftovers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_checkout(tmp_path)
    monkeypatch.setattr(native, "ROOT", str(tmp_path))
    assert native.any_built()
    assert native.stale() == []
    assert native.orphans() == []


def test_an_edited_source_makes_the_build_stale(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_checkout(tmp_path)
    monkeypatch.setattr(native, "ROOT", str(tmp_path))
    edited = native.COMPILED[-1]
    os.utime(tmp_path / edited, (1_007_200, 1_007_200))
    assert native.stale() == [edited]
    (tmp_path / (native.COMPILED[0][:-3] + SUFFIX)).unlink()
    assert native.stale() == [native.COMPILED[0], edited]


def test_modules_built_but_no_longer_listed_are_leftovers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_checkout(tmp_path)
    monkeypatch.setattr(native, "ROOT", str(tmp_path))
    old = tmp_path / "race" / "engine" / ("game" + SUFFIX)
    old.write_bytes(b"")
    older_library = tmp_path / ("old__mypyc" + SUFFIX)
    older_library.write_bytes(b"")
    os.utime(older_library, (1_000_000, 1_000_000))
    assert native.orphans() == sorted([str(old), str(older_library)])


def build_of(env: dict[str, str]) -> str:
    code = "import race, race.native; print(race.BUILD, race.native.active())"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def test_race_pure_forces_the_pure_modules() -> None:
    assert build_of({**os.environ, "RACE_PURE": "1"}) == "pure pure"


def test_the_build_runs_what_it_says() -> None:
    assert native.active() == race.BUILD


@pytest.mark.skipif(race.BUILD != "compiled", reason="not running the compiled build")
def test_both_builds_search_the_same_nodes_to_the_same_results() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "race", "bench-solver", "--deals", "7,14", "--node-limit", "60000"],
        env={k: v for k, v in os.environ.items() if k != "RACE_PURE"},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "the same nodes and results in both builds: yes" in done.stdout
