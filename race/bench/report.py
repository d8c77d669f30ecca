"""The output of ``python -m race bench``: one server's results, the table, the goals and the JSON."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

from .crowd import Crowd
from .load import Phase


@dataclass
class ServerResult:
    label: str
    race: Phase
    echo: Phase | None = None
    fanout: Phase | None = None
    spectators: int = 0
    kib_per_connection: float | None = None
    crowd: Crowd | None = None
    crowd_echo: Crowd | None = None


def table(results: list[ServerResult]) -> str:
    """The results: "ops/s" is validated moves (race) or echoed messages per second; the
    ratios compare round trips with the echo's and the fan-out echo's; "CPU us/op" is the CPU
    time per operation of the server process and of this client; "ops/s/core" is what the
    server process would do with one core to itself (1 s / its CPU time per operation)."""

    def ratio(a: Phase, b: Phase | None, q: float) -> str:
        return f"{a.pct(q) / b.pct(q):.2f}x" if b is not None and b.rtts and a.rtts else "-"

    def num(value: float | None) -> str:
        return "-" if value is None else f"{value:,.0f}"

    head = (
        f"{'phase':<16} {'ops/s':>6} {'p50 ms':>7} {'p99 ms':>7} {'p50/echo':>8} {'p99/echo':>8} "
        f"{'p50/fan':>7} {'p99/fan':>7} {'srv CPU us/op':>13} {'cli CPU us/op':>13} {'ops/s/core':>10} {'err':>4}"
    )
    lines = [head, "-" * len(head)]
    for r in results:
        for ph in (r.race, r.echo, r.fanout):
            if ph is None:
                continue
            race = ph is r.race
            srv = ph.per_op_us(ph.server_cpu)
            lines.append(
                f"{ph.name:<16} {ph.rate:>6,.0f} {ph.pct(0.5):>7.2f} {ph.pct(0.99):>7.2f} "
                f"{ratio(ph, r.echo, 0.5) if race else '-':>8} {ratio(ph, r.echo, 0.99) if race else '-':>8} "
                f"{ratio(ph, r.fanout, 0.5) if race else '-':>7} {ratio(ph, r.fanout, 0.99) if race else '-':>7} "
                f"{num(srv):>13} {num(ph.per_op_us(ph.client_cpu)):>13} {num(1e6 / srv if srv else None):>10} "
                f"{ph.errors:>4}"
            )
    mems = [r for r in results if r.kib_per_connection is not None]
    if mems:
        lines.append("")
        for r in mems:
            lines.append(
                f"connections held ({r.label}): {r.spectators:,} idle spectators, "
                f"{r.kib_per_connection:.1f} KiB of server RSS each"
            )
    crowds = [c for r in results for c in (r.crowd, r.crowd_echo) if c is not None]
    if crowds:
        head = (
            f"{'crowd':<22} {'recipients':>10} {'messages':>8} {'srv CPU us/recipient':>20} "
            f"{'last frame p50 ms':>17} {'max ms':>7} {'lost':>5}"
        )
        lines += ["", head, "-" * len(head)]
        for c in crowds:
            per = c.us_per_recipient
            lines.append(
                f"{c.name:<22} {c.size:>10,} {c.sent:>8} {'-' if per is None else f'{per:.1f}':>20} "
                f"{c.pct(0.5):>17.1f} {max(c.last_ms, default=float('nan')):>7.1f} {c.lost:>5}"
            )
    return "\n".join(lines)


def goals(results: list[ServerResult], rate: float = 0) -> list[str]:
    """The benchmark's goals against ``results``; the throughput goal only at the limit (no
    ``rate``), where the clients send as fast as the server answers."""
    out = []
    load = f"at {rate:,.0f} moves/s offered" if rate > 0 else "at the limit"
    memory = next((r.race.per_op_us(r.race.server_cpu) for r in results if r.label == "memory"), None)
    for r in results:
        move, fan = r.race.per_op_us(r.race.server_cpu), r.fanout.per_op_us(r.fanout.server_cpu) if r.fanout else None
        if r.label == "sqlite" and move and memory:
            ok = move <= 1.3 * memory
            out.append(
                f"goal: sqlite server CPU per move <= 1.3x the memory store's {load}: "
                f"{'met' if ok else 'NOT met'} ({move / memory:.2f}x: {move:,.0f} against {memory:,.0f} us)"
            )
        if move and fan:
            most = {"memory": 1.5, "redis": 2.0, "cluster": 2.0}.get(r.label)
            ratio = move / fan
            verdict = "" if most is None else (": met" if ratio <= most else ": NOT met")
            goal = f" <= {most}x" if most is not None else ""
            out.append(f"goal: {r.label} server CPU per move{goal} the fan-out echo's {load}{verdict} ({ratio:.2f}x)")
        if r.kib_per_connection is not None:
            kib = r.kib_per_connection
            out.append(f"goal: {r.label} idle spectator <= 20 KiB: {'met' if kib <= 20 else 'NOT met'} ({kib:.1f} KiB)")
        if r.crowd is not None and r.crowd_echo is not None:
            a, b = r.crowd.us_per_recipient, r.crowd_echo.us_per_recipient
            if a is not None and b:
                ok = a <= 2 * b and not r.crowd.lost
                out.append(
                    f"goal: {r.label} crowd CPU per spectator <= 2x the fan-out echo's per recipient: "
                    f"{'met' if ok else 'NOT met'} ({a / b:.2f}x)"
                )
        if r.crowd is not None and r.crowd.last_ms:
            worst = max(r.crowd.last_ms)
            ok = worst <= 50 and not r.crowd.lost
            out.append(
                f"goal: {r.label} crowd's last frame <= 50 ms after a move at 1 move/s: "
                f"{'met' if ok else 'NOT met'} (max {worst:.1f} ms of {len(r.crowd.last_ms)})"
            )
        if r.echo is not None and r.echo.rtts and r.race.rtts:
            ok = r.race.pct(0.5) <= 2 * r.echo.pct(0.5) and r.race.pct(0.99) <= 2 * r.echo.pct(0.99)
            out.append(f"goal: {r.label} move round trip <= 2x echo (p50 and p99) {load}: {'met' if ok else 'NOT met'}")
        if r.label == "cluster" and (single := next((x for x in results if x.label == "redis"), None)):
            out.append(cluster_goal(r, single))
        if r.label == "redis" and rate <= 0:
            ok = r.race.rate >= 3000
            srv = r.race.per_op_us(r.race.server_cpu)
            core = f"; {1e6 / srv:,.0f}/s with a core to itself" if srv else ""
            out.append(
                f"goal: >= 3,000 validated moves/s with Redis: {'met' if ok else 'NOT met'} ({r.race.rate:,.0f}{core})"
            )
    return out


def cluster_goal(cluster: ServerResult, single: ServerResult) -> str:
    """The cluster's server CPU per move against one Redis's; and the same with each divided by
    its own fan-out echo's CPU per message (the servers run one after the other: the machine's
    speed may have changed between them, the echo's cost with it)."""
    move, base = cluster.race.per_op_us(cluster.race.server_cpu), single.race.per_op_us(single.race.server_cpu)
    if not move or not base:
        return "goal: cluster server CPU per move <= 1.2x one Redis's: no CPU figures"
    ratio = move / base
    fans = [r.fanout.per_op_us(r.fanout.server_cpu) if r.fanout else None for r in (cluster, single)]
    fair = f"; {ratio * fans[1] / fans[0]:.2f}x against each one's fan-out echo" if fans[0] and fans[1] else ""
    verdict = "met" if ratio <= 1.2 else "NOT met"
    return f"goal: cluster server CPU per move <= 1.2x one Redis's: {verdict} ({ratio:.2f}x{fair})"


def as_json(results: list[ServerResult], args: argparse.Namespace) -> dict[str, Any]:
    def ph(p: Phase | None) -> dict[str, Any] | None:
        if p is None:
            return None
        return {
            "rate": p.rate,
            "done": p.done,
            "errors": p.errors,
            "seconds": p.seconds,
            "p50_ms": p.pct(0.5),
            "p99_ms": p.pct(0.99),
        }

    def crowd(c: Crowd | None) -> dict[str, Any] | None:
        if c is None:
            return None
        return {
            "recipients": c.size,
            "messages": c.sent,
            "lost": c.lost,
            "us_per_recipient": c.us_per_recipient,
            "last_frame_ms": c.last_ms,
        }

    return {
        "players": args.players,
        "rooms": args.rooms,
        "seconds": args.seconds,
        "compression": args.compression,
        "rate": args.rate,
        "results": [
            {
                "label": r.label,
                "race": ph(r.race),
                "echo": ph(r.echo),
                "fanout": ph(r.fanout),
                "spectators": r.spectators,
                "kib_per_connection": r.kib_per_connection,
                "crowd": crowd(r.crowd),
                "crowd_echo": crowd(r.crowd_echo),
            }
            for r in results
        ],
    }
