"""Where a trivial MCP tool call's time goes: p50/p95/p99 of note_read on a small note, in process and over
stdio, and a profile of the in-process calls split into our code, the SDK, pydantic, JSON and thread hops.

    .venv/bin/python -m bench.call_floor [--calls 300] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

ROOT = Path(__file__).resolve().parent.parent


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


def line(name: str, ms: list[float]) -> str:
    return (f"{name:<34} p50 {statistics.median(ms):6.2f} ms  p95 {pct(ms, 0.95):6.2f}  p99 {pct(ms, 0.99):6.2f}"
            f"  (n={len(ms)})")


async def timed_calls(client: Client, calls: int, tool: str, args: dict[str, Any]) -> list[float]:
    for _ in range(20):  # warm-up: imports, the index searcher, caches
        await client.call_tool(tool, args)
    out = []
    cpu0 = time.process_time()
    for _ in range(calls):
        t0 = time.perf_counter()
        r = await client.call_tool(tool, args)
        out.append((time.perf_counter() - t0) * 1000)
        assert not r.is_error
    # CPU of the whole process (client and server threads) per call: steadier than wall time on a busy machine.
    print(f"  {tool}: {(time.process_time() - cpu0) / calls * 1000:.2f} ms CPU per call in this process")
    return out


async def run(args: argparse.Namespace) -> None:
    from server.app import create_server
    from server.state import WorkspaceHandle
    with tempfile.TemporaryDirectory() as tmp:
        handle = WorkspaceHandle(Path(tmp) / "ws")
        server = create_server(Path(tmp) / "ws", handle=handle)
        async with Client(server) as c:
            note = (await c.call_tool("note_create", {"title": "floor", "content": "tiny"})).structured_content
            read = {"note_id": note["id"]}
            print(line("in process, note_search", await timed_calls(c, args.calls, "note_search", {"query": "floor"})))
            print(line("in process, note_read", await timed_calls(c, args.calls, "note_read", read)))
            print(line("in process, note_summary", await timed_calls(c, args.calls, "note_summary", {})))
            if args.profile:
                prof = cProfile.Profile()
                prof.enable()
                await timed_calls(c, args.calls, "note_read", read)
                prof.disable()
                stats = pstats.Stats(prof)
                stats.sort_stats("cumulative").print_stats(35)
        handle.close()
        params = StdioServerParameters(command=sys.executable, cwd=str(ROOT),
                                       args=["-m", "server.cli", "serve", "--workspace", str(Path(tmp) / "ws")])
        async with Client(params, mode="legacy") as c:  # CPU printed here is the client's only
            print(line("stdio, note_read", await timed_calls(c, args.calls, "note_read", read)))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--calls", type=int, default=300)
    ap.add_argument("--profile", action="store_true")
    anyio.run(run, ap.parse_args(argv))
    return 0


if __name__ == "__main__":
    sys.exit(main())
