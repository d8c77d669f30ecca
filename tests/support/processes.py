"""Real processes and a websocket client for the tests: redis-server, the server, players."""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import websockets

from race.store import Doc, StoreUnavailable
from race.store.memory import MemoryStore

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 15.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PortTaken(RuntimeError):
    """A child process could not listen on its port: something else had it."""


def listening(start: Callable[[int], Process], port: int | None, ready: str, pick: Callable[[], int]) -> Process:
    """Start a child with ``start(port)`` and wait until it prints ``ready``; without a
    ``port``, on one that ``pick`` finds free. A port found free may be taken by another
    process (another test run on this machine) before the child binds it: the child is then
    started again on another port."""
    for attempt in range(3):
        process = start(port or pick())
        try:
            process.wait_for(ready)
            return process
        except PortTaken:
            process.stop()
            if port is not None or attempt == 2:
                raise
    raise AssertionError("unreachable")


class Process:
    """A child process whose output is read line by line; :meth:`wait_for` blocks until a
    line containing some text appears (or the process dies, or the timeout passes)."""

    def __init__(self, args: list[str], *, env: dict[str, str] | None = None, cwd: Path | None = None) -> None:
        self.args = args
        self.lines: list[str] = []
        self._cond = threading.Condition()
        self.proc = subprocess.Popen(
            args,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
            cwd=cwd,
            start_new_session=True,
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with self._cond:
                self.lines.append(line.rstrip("\n"))
                self._cond.notify_all()
        with self._cond:
            self._cond.notify_all()

    def wait_for(self, text: str, timeout: float = TIMEOUT, start: int = 0) -> str:
        with self._cond:
            ok = self._cond.wait_for(
                lambda: any(text in line for line in self.lines[start:]) or self.proc.poll() is not None,
                timeout=timeout,
            )
            for line in self.lines[start:]:
                if text in line:
                    return line
        if ok:  # it exited: all it said is read once the pipe is closed
            self._reader.join(timeout=TIMEOUT)
        output = "\n".join(self.lines[-30:])
        error = PortTaken if ok and "address already in use" in output.lower() else RuntimeError
        raise error(f"{self.args[0]} never printed {text!r} ({'exited' if ok else 'timed out'}):\n{output}")

    def kill(self, sig: int = 9) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, sig)
        self.proc.wait(timeout=TIMEOUT)
        self._release()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=TIMEOUT)
            except subprocess.TimeoutExpired:
                self.kill()
        self._release()

    def _release(self) -> None:
        self._reader.join(timeout=TIMEOUT)
        if self._reader.is_alive():
            # Its output is still open: a process it started outlived it (its group shares it).
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, 9)
            self._reader.join(timeout=TIMEOUT)
            raise AssertionError(f"{self.args[0]} left a process behind, holding its output open")
        if self.proc.stdout is not None and not self.proc.stdout.closed:
            self.proc.stdout.close()


class RedisServer:
    """A throwaway redis-server on a free port (persistence off unless asked; ``pick`` finds
    the port when none is given)."""

    def __init__(
        self,
        *extra: str,
        port: int | None = None,
        directory: str | None = None,
        pick: Callable[[], int] = free_port,
    ) -> None:
        exe = shutil.which("redis-server")
        if exe is None:
            raise RuntimeError("redis-server is not installed; the test command installs it")

        def start(port: int) -> Process:
            self.port, self.dir = port, directory or tempfile.mkdtemp(prefix="race-redis-")
            if directory is None:
                atexit.register(shutil.rmtree, self.dir, ignore_errors=True)  # restarts may reuse it
            args = [exe, "--port", str(port), "--bind", "127.0.0.1", "--dir", self.dir, "--save", ""]
            return Process(args + (list(extra) if extra else ["--appendonly", "no"]))

        self.process = listening(start, port, "Ready to accept connections", pick)
        self.url = f"redis://127.0.0.1:{self.port}/0"

    def stop(self) -> None:
        self.process.stop()

    def kill(self) -> None:
        self.process.kill()


#: The daily secret of the servers the tests start (:func:`race.daily.choose_deal`).
DAILY_SECRET = "tests"
#: The tests play the day's deal, so they know its secret; and their bots play at any pace,
#: unless a test of the pace rules sets its own.
DAILY_ENV = {
    "DAILY_SECRET": DAILY_SECRET,
    "DAILY_PACE_MEDIAN_MS": "0",
    "DAILY_PACE_RUN_MS": "0",
    "DAILY_PACE_FLOOR_SECONDS": "0",
}


class Server:
    """``python -m race serve`` in a child process, ready when uvicorn says so. On the memory
    store unless told otherwise; ``store_url=""`` is the server's default, the durable store in
    ``DATA_DIR``: a throwaway folder, unless the test names one (to start a server again on
    the same data), never the checkout's."""

    def __init__(self, store_url: str = "memory://", *, port: int | None = None, **env: str) -> None:
        if "DATA_DIR" not in env:
            env["DATA_DIR"] = tempfile.mkdtemp(prefix="race-data-")
            atexit.register(shutil.rmtree, env["DATA_DIR"], ignore_errors=True)
        environ = {
            **os.environ,
            "REDIS_URL": store_url,
            "COUNTDOWN_SECONDS": "0",
            "DAILY_WARM": "0",  # no background solving unless a test asks for it
            "SOLVER_NODE_LIMIT": "0",  # nor the solver's lines of finished races
            # Every test's clients come from 127.0.0.1: a test of the limit sets its own.
            "ROOMS_PER_MINUTE_PER_IP": "100000",
            "DAILY_PLAYERS_PER_DAY_PER_IP": "100000",
            "SPECTATOR_DELAY_SECONDS": "0",  # spectators live, unless a test of the delay asks
            **DAILY_ENV,
            "LOG_LEVEL": "INFO",
            "PYTHONUNBUFFERED": "1",
            **env,
        }

        def start(port: int) -> Process:
            self.port = port
            return Process([sys.executable, "-m", "race", "serve", "--port", str(port)], env=environ, cwd=ROOT)

        self.process = listening(start, port, "Uvicorn running on", free_port)
        self.url = f"http://127.0.0.1:{self.port}"
        self.ws_url = f"ws://127.0.0.1:{self.port}/ws"

    def stop(self) -> None:
        """Stop the server; every game it put on the record replayed to its result through
        the engine (it logs, and keeps nothing of, one that did not)."""
        self.process.stop()
        unkept = [line for line in self.process.lines if "is not kept on the record" in line]
        assert not unkept, "games that did not replay through the engine:\n" + "\n".join(unkept)

    def kill(self) -> None:
        self.process.kill()


@contextlib.contextmanager
def running(*servers: Server) -> Iterator[None]:
    try:
        yield
    finally:
        for s in servers:
            s.stop()


class Client:
    """One websocket client. :meth:`expect` waits for the next message of a type, keeping
    the others in arrival order for later :meth:`expect` calls."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.inbox: list[dict[str, Any]] = []
        self.hello: dict[str, Any] = {}

    @classmethod
    async def connect(cls, url: str, **kwargs: Any) -> Client:
        ws = await websockets.connect(url, max_size=2**22, **kwargs)
        client = cls(ws)
        client.hello = await client.expect("hello")
        return client

    async def send(self, message: dict[str, Any] | str) -> None:
        await self.ws.send(message if isinstance(message, str) else json.dumps(message))

    async def expect(self, *types: str, timeout: float = TIMEOUT, where: Any = None) -> dict[str, Any]:
        def match(m: dict[str, Any]) -> bool:
            return m.get("type") in types and (where is None or where(m))

        for i, m in enumerate(self.inbox):
            if match(m):
                return self.inbox.pop(i)
        async with asyncio.timeout(timeout):
            while True:
                msg: dict[str, Any] = json.loads(await self.ws.recv())
                if match(msg):
                    return msg
                self.inbox.append(msg)

    async def request(self, message: dict[str, Any] | str, *types: str) -> dict[str, Any]:
        """Send ``message`` and return the first reply of ``types`` or an error."""
        await self.send(message)
        return await self.expect(*types, "error")

    async def started(self) -> dict[str, Any]:
        """This player's ``state`` once the race runs (no board reaches anyone before)."""
        state = await self.request({"type": "sync"}, "state")
        assert state["type"] == "state" and state["legal_moves"], state
        return state

    async def close(self) -> None:
        await self.ws.close()


class FailingOnce(MemoryStore):
    """The embedded store, whose next whole-room read fails once when ``armed``."""

    armed = False

    async def read_all(self, room: str) -> dict[str, Doc]:
        if self.armed:
            self.armed = False
            raise StoreUnavailable("gone for a moment")
        return await super().read_all(room)
