"""Restart a real ``ctxnotes serve`` on an existing bench workspace and time its searches over MCP stdio.

Quicker than the full ``python -m bench`` when only the restarted-server figures are wanted (issue 13):
restart → first search answered, search per call for every query class (a warm-up round, then a
measured round), then three ``build_context`` calls, and the server's peak RSS after all of it.

    python -m bench.restart_search --workspace /tmp/ctxnotes-bench/ws-100000 --notes 100000
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

from bench import corpus as C
from bench import mcp_stdio as M
from bench.stats import summary


async def _run(ws: Path, data: Path, notes: int, rounds: int) -> None:
    from mcp import Client

    en, zh = C.load_pages(data)
    queries = C.latency_queries(C.corpus(en, zh, notes), per_kind=25)
    history, questions = M.history_args(data)
    started = time.perf_counter()
    async with Client(M._params(ws)) as client:
        await client.list_tools()
        await client.call_tool("note_search", {"query": "file", "limit": 10})
        print(f"restart -> first search answered: {time.perf_counter() - started:.2f} s "
              f"(load {os.getloadavg()[0]:.1f})")
        pid = M._child_pid(ws)
        pooled: list[float] = []
        for round_ in range(rounds + 1):  # round 0 warms the caches and is not reported
            for name, qs in queries.items():
                times: list[float] = []
                for q in qs:
                    t0 = time.perf_counter()
                    await client.call_tool("note_search", {"query": q, "limit": 10})
                    times.append((time.perf_counter() - t0) * 1000)
                if round_:
                    pooled += times
                    s: dict[str, Any] = summary(times)
                    print(f"  {name:10s} p50 {s['p50']:6.1f}  p95 {s['p95']:6.1f}  p99 {s['p99']:6.1f} ms")
        for q in questions[:3]:
            await client.call_tool("build_context", {"query": q, "history": history, "max_tokens": 2000})
        s = summary(pooled)
        print(f"  {'all':10s} p50 {s['p50']:6.1f}  p95 {s['p95']:6.1f}  p99 {s['p99']:6.1f} ms "
              f"({s['n']} searches)")
        print(f"server RSS after searches and build_context: {M._rss(pid)} (load {os.getloadavg()[0]:.1f})")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workspace", type=Path, required=True, help="a workspace `python -m bench` wrote")
    ap.add_argument("--notes", type=int, required=True, help="how many notes it holds (to rebuild its queries)")
    ap.add_argument("--data", default=None, help="tldr/LoCoMo data (default ../shared/data)")
    ap.add_argument("--rounds", type=int, default=1)
    args = ap.parse_args(argv)
    data = C.data_dir(args.data)
    if data is None or not (args.workspace / "notes").is_dir():
        print("need --workspace with a notes/ folder and the shared data (--data)", file=sys.stderr)
        return 2
    import anyio
    anyio.run(_run, args.workspace, data, args.notes, args.rounds)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
