"""The processes of ``python -m race bench``: the servers it starts (the race server, a
throwaway ``redis-server`` and a throwaway Redis Cluster, each on free loopback ports,
stopped at the end), what it reads of
a server process in ``/proc`` (CPU time, memory), and its own open-files limit.
"""

from __future__ import annotations

import contextlib
import os
import resource
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
CONNECT_TIMEOUT = 20.0
#: The servers' WS_DEFLATE_IDLE_SECONDS: longer than the crowd's second between moves.
DEFLATE_IDLE = 3.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_port(port: int, proc: subprocess.Popen[bytes], log: Path, timeout: float = CONNECT_TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{proc.args!r} exited:\n{log.read_text(errors='replace')[-2000:]}")
        with socket.socket() as s:
            s.settimeout(0.2)
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listened on port {port} after {timeout:g} s")


@contextlib.contextmanager
def child(args: list[str], port: int, env: dict[str, str] | None, workdir: Path) -> Iterator[subprocess.Popen[bytes]]:
    log = workdir / f"{Path(args[0]).name}-{port}.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=ROOT)
    try:
        wait_port(port, proc, log)
        yield proc
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)


@contextlib.contextmanager
def redis_server(workdir: Path) -> Iterator[str]:
    exe = shutil.which("redis-server")
    if exe is None:
        raise RuntimeError("redis-server is not installed: give --redis-url, or run with --stores memory")
    port = free_port()
    args = [exe, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(workdir), "--save", ""]
    args += ["--appendonly", "no"]
    with child(args, port, None, workdir):
        yield f"redis://127.0.0.1:{port}/0"


def cluster_port() -> int:
    """A free port whose cluster bus port (the port + 10000) is free as well."""
    for _ in range(100):
        port = free_port()
        if port + 10000 <= 65535:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port + 10000)) != 0:
                    return port
    raise RuntimeError("no free port pair for a cluster node")


@contextlib.contextmanager
def redis_cluster(workdir: Path, masters: int = 3) -> Iterator[str]:
    """A throwaway Redis Cluster of ``masters`` masters (no replicas: the server's work is the
    same) on free loopback ports; yields its ``redis+cluster://`` URL."""
    exe, cli = shutil.which("redis-server"), shutil.which("redis-cli")
    if exe is None or cli is None:
        raise RuntimeError("redis-server and redis-cli are needed for a cluster: or run with --stores memory,redis")
    ports = [cluster_port() for _ in range(masters)]
    with contextlib.ExitStack() as stack:
        for port in ports:
            directory = workdir / f"cluster-{port}"
            directory.mkdir()
            args = [exe, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(directory), "--save", ""]
            args += ["--appendonly", "no", "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf"]
            stack.enter_context(child(args, port, None, workdir))
        create = [cli, "--cluster", "create", *(f"127.0.0.1:{p}" for p in ports), "--cluster-replicas", "0"]
        done = subprocess.run([*create, "--cluster-yes"], capture_output=True, text=True, timeout=60)
        if done.returncode != 0:
            raise RuntimeError(f"redis-cli --cluster create failed:\n{done.stdout}{done.stderr}")
        deadline = time.monotonic() + CONNECT_TIMEOUT
        for port in ports:
            while (
                "cluster_state:ok"
                not in subprocess.run(
                    [cli, "-p", str(port), "cluster", "info"], capture_output=True, text=True, timeout=10
                ).stdout
            ):
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the cluster node on port {port} never reached cluster_state:ok")
                time.sleep(0.05)
        yield f"redis+cluster://127.0.0.1:{ports[0]}"


@contextlib.contextmanager
def race_server(store_url: str, spectators: int, workdir: Path, **settings: str) -> Iterator[tuple[str, int]]:
    """A server on a free loopback port, with the bench's settings and ``settings`` (more
    environment); yields its ws:// origin and its process id."""
    port = free_port()
    env = {
        **os.environ,
        "REDIS_URL": store_url,
        "COUNTDOWN_SECONDS": "0",
        "RATE_LIMIT_PER_SECOND": "1000000",
        "RATE_LIMIT_BURST": "1000000",
        "MAX_CONNECTIONS_PER_IP": str(10 * spectators + 10_000),
        "ROOMS_PER_MINUTE_PER_IP": "1000000",  # every bench player is 127.0.0.1
        "ROOM_TTL_SECONDS": "900",
        "LOG_LEVEL": "WARNING",
        "BENCH_ECHO": "1",
        "DAILY_WARM": "0",  # the daily deals' solver would take a core from what is measured
        "SPECTATOR_DELAY_SECONDS": "0",  # the spectators' frames are measured as they leave
        "WS_DEFLATE_IDLE_SECONDS": str(DEFLATE_IDLE),  # idle spectators are measured once idle
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
        **settings,
    }
    args = [sys.executable, "-m", "race", "serve", "--host", "127.0.0.1", "--port", str(port)]
    with child(args, port, env, workdir) as proc:
        yield f"ws://127.0.0.1:{port}", proc.pid


def server_compression() -> str:
    """The ``WS_COMPRESSION`` the servers this command starts will run with."""
    from race.settings import Settings

    return Settings.from_env().ws_compression


def cpu_seconds(pid: int | None) -> float | None:
    """User + system CPU time of a process so far (``/proc/PID/stat``), or None."""
    if pid is None:
        return None
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_ns(pid: int | None) -> int | None:
    """CPU time of a process's threads so far, in nanoseconds (``/proc/PID/task/*/schedstat``:
    finer than :func:`cpu_seconds`' clock ticks, for phases that use little CPU), or None."""
    if pid is None:
        return None
    total = 0
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            with contextlib.suppress(OSError):  # a thread that just ended
                total += int((task / "schedstat").read_text().split()[0])
    except OSError:
        return None
    return total


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for process {pid}")


def raise_fd_limit(needed: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
    if soft != resource.RLIM_INFINITY and soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
