"""Where the time of a trivial MCP call goes: ``python -m bench.call_layers [--workspace DIR]``.

The same ``note_list {limit: 10}`` is timed at each layer, on the same workspace:

1. the library call (``ws.notes.list(limit=10)``);
2. an in-memory SDK client on our server (``Client(server)``): ``ping`` (the SDK's request
   round trip with no tool; handshake-era client, the only one with ping) and ``note_list`` (+ argument parsing, our tool code, the output
   model, the client's check of the result against the output schema);
3. the client's own output-schema check alone (``session.validate_tool_result``);
4. a real ``ctxnotes serve`` child over stdio: ``ping`` and ``note_list`` (+ JSON framing, pipes,
   the process hop and the server's thread hop).

Differences between the layers are the breakdown: printed as a Markdown table (medians, ms).
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path
from typing import Any
from collections.abc import Awaitable, Callable

from .stats import summary


async def _time(fn: Callable[[], Awaitable[Any]], n: int) -> dict[str, Any]:
    for _ in range(min(20, n)):  # warm-up
        await fn()
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        await fn()
        times.append((time.perf_counter() - t0) * 1000)
    return summary(times)


async def measure(ws_dir: Path, calls: int = 300) -> dict[str, Any]:
    """Medians per layer (see the module doc) on the workspace at ``ws_dir``."""
    from mcp import Client

    from notes_store import open_workspace
    from server.app import create_server
    from server.state import WorkspaceHandle

    from .mcp_stdio import _params

    out: dict[str, Any] = {"calls": calls}
    args = {"limit": 10}
    ws = open_workspace(ws_dir)
    try:
        times = []
        for _ in range(calls):
            t0 = time.perf_counter()
            ws.notes.list(limit=10)
            times.append((time.perf_counter() - t0) * 1000)
        out["library"] = summary(times)
    finally:
        ws.close()

    handle = WorkspaceHandle(ws_dir)
    server = create_server(ws_dir, handle=handle)
    try:
        async with Client(server, mode="legacy") as c:  # ping exists only in the handshake era
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out["memory_ping"] = await _time(lambda: c.send_ping(), calls)
        async with Client(server) as c:
            await c.list_tools()
            out["memory_note_list"] = await _time(lambda: c.call_tool("note_list", args), calls)
            result = await c.call_tool("note_list", args)
            validate = getattr(c.session, "validate_tool_result", None)
            if validate is not None:
                out["client_output_check"] = await _time(lambda: validate("note_list", result), calls)
    finally:
        handle.close()

    async with Client(_params(ws_dir), mode="legacy") as c:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out["stdio_ping"] = await _time(lambda: c.send_ping(), calls)
    async with Client(_params(ws_dir)) as c:
        await c.list_tools()
        await c.call_tool("note_list", args)  # opens the workspace
        out["stdio_note_list"] = await _time(lambda: c.call_tool("note_list", args), calls)
    return out


def render(res: dict[str, Any]) -> str:
    """The breakdown as a Markdown table of medians."""
    def p50(key: str) -> float:
        return float((res.get(key) or {}).get("p50") or 0.0)

    lib, mping, mlist, check = p50("library"), p50("memory_ping"), p50("memory_note_list"), p50("client_output_check")
    sping, slist = p50("stdio_ping"), p50("stdio_note_list")
    rows = [
        ("note_list per stdio call (what a client sees)", slist),
        ("library call `ws.notes.list(limit=10)`", lib),
        ("SDK request round trip, in memory (`ping`)", mping),
        ("tool layer in memory: note_list − ping − library (arguments, our tool code, output model, "
         "client schema check)", mlist - mping - lib),
        ("  of which the client's output-schema check", check),
        ("stdio transport: stdio ping − in-memory ping (JSON, pipes, process hop)", sping - mping),
        ("rest: stdio note_list − in-memory note_list − transport (thread hop, larger message)",
         slist - mlist - (sping - mping)),
    ]
    lines = [f"Per-call floor breakdown ({res['calls']} calls each, medians in ms):", "",
             "| layer | ms (p50) |", "|---|---|"]
    lines += [f"| {label} | {v:.2f} |" for label, v in rows]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.call_layers", description=__doc__.splitlines()[0])
    ap.add_argument("--workspace", type=Path, default=Path("/tmp/ctxnotes-bench/ws-1000"),
                    help="an existing workspace (default: the bench's 1k workspace)")
    ap.add_argument("--calls", type=int, default=300)
    args = ap.parse_args(argv)
    if not (args.workspace / "notes").is_dir():
        print(f"not available: {args.workspace} has no notes/ folder (run `python -m bench --notes 1000` first, "
              "or pass --workspace DIR)")
        return 2
    import anyio
    res = anyio.run(measure, args.workspace.resolve(), args.calls)
    print(render(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
