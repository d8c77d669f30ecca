"""``python -m race bench`` end to end, tiny: it starts its servers, races, echoes, holds
spectators, prints the table and stops by itself."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from race.bench.load import echo_message
from tests.support.processes import ROOT


def test_bench_runs_every_phase_on_every_store(redis_url: str, tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    args = ["--players", "4", "--rooms", "2", "--seconds", "1", "--warmup", "0.2", "--rounds", "2"]
    args += ["--spectators", "20", "--crowd", "30", "--crowd-moves", "3", "--crowd-rate", "10"]
    args += ["--redis-url", redis_url, "--json", str(out)]
    done = subprocess.run(
        [sys.executable, "-m", "race", "bench", *args], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
    for row in ("race (memory)", "echo (memory)", "fan-out (memory)", "race (sqlite)", "race (redis)", "echo (redis)"):
        assert row in done.stdout
    assert "goal: >= 3,000 validated moves/s with Redis" in done.stdout
    assert "goal: sqlite server CPU per move <= 1.3x the memory store's at the limit" in done.stdout
    results = json.loads(out.read_text())["results"]
    assert [r["label"] for r in results] == ["memory", "sqlite", "redis"]
    for r in results:
        for phase in ("race", "echo", "fanout"):
            assert r[phase]["done"] > 0 and r[phase]["errors"] == 0
            assert 0 < r[phase]["p50_ms"] <= r[phase]["p99_ms"]
        assert r["spectators"] == 20 and r["kib_per_connection"] is not None
        # The crowd: every spectator of the room, and every listener of the echo group, got
        # every message, and the server's CPU was measured for them.
        for name in ("crowd", "crowd_echo"):
            c = r[name]
            assert c["recipients"] == 30 and c["messages"] == 3 and c["lost"] == 0, c
            assert c["us_per_recipient"] > 0 and len(c["last_frame_ms"]) == 3
    assert "crowd CPU per spectator <= 2x the fan-out echo's per recipient" in done.stdout


def test_bench_offers_a_fixed_rate_when_asked(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    args = ["--players", "4", "--rooms", "2", "--seconds", "1", "--warmup", "0.2", "--rounds", "1"]
    args += ["--stores", "memory", "--spectators", "0", "--crowd", "0", "--rate", "40", "--json", str(out)]
    done = subprocess.run(
        [sys.executable, "-m", "race", "bench", *args], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "40 moves/s offered" in done.stdout
    assert "at 40 moves/s offered" in done.stdout
    assert "validated moves/s with Redis" not in done.stdout  # the throughput goal is judged at the limit only
    (result,) = json.loads(out.read_text())["results"]
    for phase in ("race", "echo", "fanout"):
        # Unpaced, four clients make thousands of round trips a second; paced, about 40 (the
        # window can catch one more send per client).
        assert 0 < result[phase]["done"] <= 40 * result[phase]["seconds"] + 4


def test_bench_players_restart_a_game_whose_history_is_full(tmp_path: Path) -> None:
    """Players whose game reaches MAX_GAME_MOVES (set low here, passed on to the servers the
    bench starts) get ``too_many_moves``, counted as errors, and start their game over."""
    out = tmp_path / "bench.json"
    args = ["--players", "2", "--rooms", "1", "--seconds", "1", "--warmup", "0.2", "--rounds", "1"]
    args += ["--stores", "memory", "--spectators", "0", "--crowd", "0", "--json", str(out)]
    env = {**os.environ, "MAX_GAME_MOVES": "5"}
    done = subprocess.run(
        [sys.executable, "-m", "race", "bench", *args], cwd=ROOT, capture_output=True, text=True, timeout=120, env=env
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (result,) = json.loads(out.read_text())["results"]
    race = result["race"]
    # Each player goes five moves, a refusal, a restart, five moves...: at most one refusal
    # per six replies, give or take the window's ends (two players).
    assert 0 < race["errors"] <= race["done"] / 6 + 2, race


def test_bench_players_restart_their_game_after_a_game_length(tmp_path: Path) -> None:
    """With ``--game-length 5`` each player restarts after five moves, so a server that
    refuses a sixth move of a game (MAX_GAME_MOVES=6) never has to."""
    out = tmp_path / "bench.json"
    args = ["--players", "2", "--rooms", "1", "--seconds", "1", "--warmup", "0.2", "--rounds", "1"]
    args += ["--stores", "memory", "--spectators", "0", "--crowd", "0", "--game-length", "5", "--json", str(out)]
    env = {**os.environ, "MAX_GAME_MOVES": "6"}
    done = subprocess.run(
        [sys.executable, "-m", "race", "bench", *args], cwd=ROOT, capture_output=True, text=True, timeout=120, env=env
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (result,) = json.loads(out.read_text())["results"]
    assert result["race"]["done"] > 12 and result["race"]["errors"] == 0, result["race"]


def test_echo_clients_send_their_players_state_replies_in_order() -> None:
    states = ['{"type":"state","version":2,"board":"a"}', '{"type":"state","version":3,"board":"b"}']
    sent = [json.loads(echo_message(n, states)) for n in (1, 2, 3)]
    assert sent == [
        {"type": "echo", "n": 1, "version": 2, "board": "a"},
        {"type": "echo", "n": 2, "version": 3, "board": "b"},
        {"type": "echo", "n": 3, "version": 2, "board": "a"},  # over again when they run out
    ]
    filler = json.loads(echo_message(7, []))  # no replies: filler of 2,000 bytes
    assert filler["type"] == "echo" and filler["n"] == 7 and len(echo_message(7, [])) >= 2000


def test_bench_store_measures_commits_reads_and_moves_on_each_embedded_store() -> None:
    args = ["--commits", "200", "--full-commits", "20", "--moves", "200", "--players", "4"]
    done = subprocess.run(
        [sys.executable, "-m", "race", "bench-store", *args], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
    rows = {line.split()[0]: line.split() for line in done.stdout.splitlines() if line.startswith(("memory", "sqlite"))}
    assert set(rows) == {"memory", "sqlite-off", "sqlite-normal", "sqlite-full"}
    assert "200 moves through the room service, 4 players" in done.stdout
    moves = [
        line.split() for line in done.stdout.split("room service")[1].splitlines() if line.startswith(("mem", "sql"))
    ]
    assert [m[0] for m in moves] == ["memory", "sqlite-normal"] and moves[0][2] == "1.00x"
    assert all(float(m[1]) > float(m[3]) > 0 for m in moves)  # a move's CPU, and the store's part of it


def test_bench_starts_a_cluster_of_its_own_and_compares_it(redis_url: str, tmp_path: Path) -> None:
    args = ["--players", "4", "--rooms", "2", "--seconds", "1", "--warmup", "0.2", "--rounds", "1"]
    args += ["--stores", "redis,cluster", "--redis-url", redis_url, "--spectators", "0", "--crowd", "0"]
    done = subprocess.run(
        [sys.executable, "-m", "race", "bench", *args], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
    for row in ("race (redis)", "race (cluster)", "echo (cluster)", "fan-out (cluster)"):
        assert row in done.stdout
    assert "goal: cluster server CPU per move <= 1.2x one Redis's: " in done.stdout
    assert "against each one's fan-out echo" in done.stdout
