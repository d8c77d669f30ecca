"""Redis Cluster and Redis Sentinel of real processes for the tests: nodes that a test kills,
starts again and reshards, and what it reads of them (``CLUSTER NODES``, ``CLIENT LIST``)
through ``redis-cli``. Every wait polls its condition against a deadline."""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from tests.support.processes import TIMEOUT, Process, RedisServer, free_port, listening

T = TypeVar("T")


def poll(condition: Callable[[], T | None], what: str, timeout: float = TIMEOUT) -> T:
    """Call ``condition`` every 50 ms until it returns something (not None nor False), at most
    ``timeout`` seconds; then raise, saying ``what`` was awaited."""
    deadline = time.monotonic() + timeout
    while True:
        got = condition()
        if got is not None and got is not False:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not after {timeout:g} s")
        time.sleep(0.05)


def redis_cli() -> str:
    cli = shutil.which("redis-cli")
    if cli is None:
        raise RuntimeError("redis-cli is not installed; the test command installs it")
    return cli


def cli(port: int, *args: str, check: bool = True) -> str:
    """``redis-cli -p PORT ARGS...``'s output ("" from a node that is down, unless ``check``)."""
    done = subprocess.run([redis_cli(), "-p", str(port), *args], capture_output=True, text=True, timeout=30)
    if check and (done.returncode != 0 or done.stdout.startswith(("ERR", "Could not connect"))):
        raise RuntimeError(f"redis-cli {' '.join(args)} on {port}: {done.stdout}{done.stderr}")
    return "" if done.returncode != 0 else done.stdout.strip()


def clients(port: int) -> list[dict[str, str]]:
    """``CLIENT LIST`` of the node on ``port``, one dict per connection (asked again when the
    connection is closed under it, as Sentinel does to the clients of a server it demotes)."""
    for _ in range(3):
        text = cli(port, "client", "list", check=False)
        if text:
            break
    else:
        text = cli(port, "client", "list")
    out = []
    for line in text.splitlines():
        out.append(dict(field.split("=", 1) for field in line.split() if "=" in field))
    return out


def cluster_port() -> int:
    """A free port whose cluster bus port (the port + 10000) is free as well."""
    for _ in range(100):
        port = free_port()
        if port + 10000 > 65535:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port + 10000))
            except OSError:
                continue
        return port
    raise RuntimeError("no free port pair for a cluster node")


class RedisCluster:
    """A throwaway Redis Cluster of ``masters`` masters with ``replicas`` replicas each, on
    free ports, each node in its own temporary directory; ready when every node reports
    ``cluster_state:ok`` and every replica is in sync. ``extra`` arguments go to every
    redis-server (persistence is off unless they turn it on; ``--cluster-node-timeout``, the
    time before a silent master counts as failed, is 15 s unless they shorten it)."""

    def __init__(self, *extra: str, masters: int = 3, replicas: int = 0) -> None:
        self.nodes: list[RedisServer] = []
        self.down: set[int] = set()  # ports of the nodes killed and not started again
        self.args = (
            "--cluster-enabled",
            "yes",
            "--cluster-config-file",
            "nodes.conf",
            *(extra or ("--appendonly", "no")),
        )
        try:
            for _ in range(masters * (1 + replicas)):
                self.nodes.append(RedisServer(*self.args, pick=cluster_port))
            addresses = [f"127.0.0.1:{n.port}" for n in self.nodes]
            create = [redis_cli(), "--cluster", "create", *addresses, "--cluster-replicas", str(replicas)]
            done = subprocess.run([*create, "--cluster-yes"], capture_output=True, text=True, timeout=60)
            if done.returncode != 0 or "[OK] All 16384 slots covered" not in done.stdout:
                raise RuntimeError(f"redis-cli --cluster create failed:\n{done.stdout}\n{done.stderr}")
            self.ports = [n.port for n in self.nodes]
            self.wait_ok()
        except BaseException:
            self.stop()
            raise
        self.url = f"redis+cluster://127.0.0.1:{self.ports[0]}"

    def live(self) -> list[int]:
        return [p for p in self.ports if p not in self.down]

    def _nodes(self) -> list[tuple[int, int | None, list[tuple[int, int]]]]:
        """Each node that is not marked failed: its port, its master's port (None for a master)
        and its slot ranges, as a live node sees the cluster (``CLUSTER NODES``)."""
        text = ""
        for port in self.live():
            text = cli(port, "cluster", "nodes", check=False)
            if text:
                break
        ids, rows = {}, []
        for line in text.splitlines():
            node_id, address, flags, master, *rest = line.split()
            port = int(address.split("@")[0].rpartition(":")[2])
            ids[node_id] = port
            if "fail" in flags.split(",") or "noaddr" in flags:
                continue
            slots = []
            for part in rest[4:]:
                if not part.startswith("["):  # (a slot being migrated)
                    lo, _, hi = part.partition("-")
                    slots.append((int(lo), int(hi or lo)))
            rows.append((port, None if "master" in flags else master, slots))
        return [(port, None if master is None else ids.get(master), slots) for port, master, slots in rows]

    def roles(self) -> dict[int, int | None]:
        """Each node's port and, for a replica, its master's port (None for a master)."""
        return {port: master for port, master, _ in self._nodes()}

    def masters(self) -> list[int]:
        return [p for p, m in self.roles().items() if m is None]

    def replicas_of(self, master: int) -> list[int]:
        return [p for p, m in self.roles().items() if m == master]

    def master_of(self, slot: int) -> int:
        """The port of the master that serves ``slot``."""
        for port, master, slots in self._nodes():
            if master is None and any(lo <= slot <= hi for lo, hi in slots):
                return port
        raise AssertionError(f"no master serves slot {slot}")

    def wait_ok(self, timeout: float = TIMEOUT) -> None:
        """Until every live node sees the whole cluster ok and every live replica is in sync."""

        def ok() -> bool:
            for port in self.live():
                info = cli(port, "cluster", "info", check=False)
                if "cluster_state:ok" not in info or f"cluster_known_nodes:{len(self.nodes)}" not in info:
                    return False
                replication = cli(port, "info", "replication", check=False)
                if "role:slave" in replication and "master_link_status:up" not in replication:
                    return False
            return True

        poll(ok, "the cluster ok with its replicas in sync", timeout)

    def kill(self, port: int) -> None:
        """``kill -9`` the node on ``port``."""
        self.nodes[self.ports.index(port)].kill()
        self.down.add(port)

    def start(self, port: int) -> None:
        """Start the node on ``port`` again, on its directory (its cluster identity is in
        ``nodes.conf``: a master that was replaced comes back as a replica)."""
        i = self.ports.index(port)
        self.nodes[i] = RedisServer(*self.args, port=port, directory=self.nodes[i].dir)
        self.down.discard(port)

    def restart(self, i: int) -> None:
        """``kill -9`` node ``i`` and start it again; return when the cluster is ok again."""
        self.kill(self.ports[i])
        self.start(self.ports[i])
        self.wait_ok()

    def heal(self) -> None:
        """Start every node that is down, and wait until the cluster is whole again."""
        for port in sorted(self.down):
            self.start(port)
        self.wait_ok(timeout=3 * TIMEOUT)

    def move_slots(self, slots: list[int], source: int, target: int) -> None:
        """Move hash slots with their keys from the master on port ``source`` to the one on
        ``target``, the way ``redis-cli --cluster reshard`` does: importing, migrating,
        ``MIGRATE`` of every key, then the new owner announced to every master; each step for
        every slot at once, so that they all change hands together."""
        target_id, source_id = cli(target, "cluster", "myid"), cli(source, "cluster", "myid")
        for slot in slots:
            cli(target, "cluster", "setslot", str(slot), "importing", source_id)
            cli(source, "cluster", "setslot", str(slot), "migrating", target_id)
        for slot in slots:
            while keys := cli(source, "cluster", "getkeysinslot", str(slot), "100").split():
                cli(source, "migrate", "127.0.0.1", str(target), "", "0", "5000", "keys", *keys)
        for port in (target, source, *(p for p in self.masters() if p not in (source, target))):
            for slot in slots:
                cli(port, "cluster", "setslot", str(slot), "node", target_id)

    def move_slot(self, slot: int, source: int, target: int) -> None:
        self.move_slots([slot], source, target)

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()


SERVICE = "race"


class RedisSentinels:
    """A Redis primary with ``replicas`` replicas, watched by ``sentinels`` real Sentinels
    (``redis-sentinel``, or ``redis-server --sentinel``) as the service ``race``: a primary
    that does not answer for ``down_after_ms`` counts as down, and when a majority agree one
    of its replicas is promoted. Ready when every Sentinel knows every replica and the other
    Sentinels."""

    def __init__(self, *, replicas: int = 2, sentinels: int = 3, down_after_ms: int = 1000) -> None:
        self.servers: dict[int, RedisServer] = {}
        self.extra: dict[int, tuple[str, ...]] = {}  # each server's arguments
        self.sentinels: list[Process] = []
        self.sentinel_ports: list[int] = []
        self.down: set[int] = set()
        try:
            primary = self._server("--appendonly", "no")
            for _ in range(replicas):
                self._server("--appendonly", "no", "--replicaof", "127.0.0.1", str(primary))
            exe = shutil.which("redis-sentinel")
            command = [exe] if exe else [shutil.which("redis-server") or "redis-server"]
            quorum = sentinels // 2 + 1
            for _ in range(sentinels):
                directory, tried = Path(tempfile.mkdtemp(prefix="race-sentinel-")), list[int]()

                def start(port: int, directory: Path = directory, tried: list[int] = tried) -> Process:
                    conf = directory / "sentinel.conf"
                    conf.write_text(
                        f"port {port}\nbind 127.0.0.1\ndir {directory}\n"
                        f"sentinel monitor {SERVICE} 127.0.0.1 {primary} {quorum}\n"
                        f"sentinel down-after-milliseconds {SERVICE} {down_after_ms}\n"
                        f"sentinel failover-timeout {SERVICE} 10000\n"
                    )
                    tried.append(port)
                    return Process([*command, str(conf), *([] if exe else ["--sentinel"])])

                self.sentinels.append(listening(start, None, "+monitor master", free_port))
                self.sentinel_ports.append(tried[-1])
            poll(self._known, "every Sentinel knowing the replicas and the other Sentinels", 3 * TIMEOUT)
        except BaseException:
            self.stop()
            raise
        hosts = ",".join(f"127.0.0.1:{p}" for p in self.sentinel_ports)
        self.url = f"redis+sentinel://{hosts}/{SERVICE}/0"

    def _server(self, *extra: str, port: int | None = None, directory: str | None = None) -> int:
        server = RedisServer(*extra, port=port, directory=directory)
        self.servers[server.port] = server
        self.extra[server.port] = extra
        return server.port

    def _known(self) -> bool:
        for port in self.sentinel_ports:
            fields = cli(port, "sentinel", "master", SERVICE, check=False).splitlines()
            info = dict(zip(fields[::2], fields[1::2], strict=False))
            if info.get("num-slaves") != str(len(self.servers) - 1) or info.get("num-other-sentinels") != str(
                len(self.sentinel_ports) - 1
            ):
                return False
        return True

    def events(self) -> str:
        """The Sentinels' failover events so far (for a failing test's message)."""
        marks = ("+try-failover", "+switch-master", "+sdown", "+odown", "+promoted-slave")
        return "\n".join(line for s in self.sentinels for line in s.lines if any(m in line for m in marks))

    def primary(self) -> int:
        """The primary's port, as the first Sentinel that answers says."""
        for port in self.sentinel_ports:
            answer = cli(port, "sentinel", "get-master-addr-by-name", SERVICE, check=False).split()
            if answer:
                return int(answer[1])
        raise AssertionError("no Sentinel answers")

    def role(self, port: int) -> str:
        """``master`` or ``slave``, as the server on ``port`` says of itself ("" when it does not
        answer, or Sentinel closed the connection as it demoted the server)."""
        return (cli(port, "role", check=False).split() or [""])[0]

    def kill(self, port: int) -> None:
        self.servers[port].kill()
        self.down.add(port)

    def start(self, port: int) -> None:
        """Start the server on ``port`` again as it was configured at first (an old primary
        comes back as a primary: Sentinel turns it into a replica of the new one)."""
        self._server(*self.extra[port], port=port, directory=self.servers[port].dir)
        self.down.discard(port)

    def heal(self) -> None:
        """Start every server that is down, and wait until each replica (an old primary too,
        once Sentinel has turned it into one) is in sync with the primary."""
        for port in sorted(self.down):
            self.start(port)
        primary = self.primary()

        def whole() -> bool:
            for port in self.servers:
                # (check=False: Sentinel closes every client's connection of the server it demotes)
                if port != primary and "master_link_status:up" not in cli(port, "info", "replication", check=False):
                    return False
            return self._known()

        try:
            poll(whole, "every replica in sync", 4 * TIMEOUT)
        except AssertionError as exc:
            roles = {port: cli(port, "role", check=False).split("\n")[:3] for port in self.servers}
            raise AssertionError(f"{exc}; primary {primary}, roles {roles}\n{self.events()}") from None

    def stop(self) -> None:
        for s in self.sentinels:
            s.stop()
        for server in self.servers.values():
            server.stop()
