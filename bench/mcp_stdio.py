"""ctxnotes measured over MCP stdio: a real ``ctxnotes serve`` child process per connection.

Figures: start until ``tools/list`` answers (a new process each time), the
first tool call after start (it opens the workspace), ``note_search`` /
``note_create`` / ``note_update`` per call, and the child's peak RSS (VmHWM)
read from /proc just before the connection closes.
"""

from __future__ import annotations

import importlib.util
import os
import random
import sys
import time
from pathlib import Path

from . import corpus as C
from .stats import Timer, children_of, summary, vm_hwm_mb

_FALLBACK = ("import sys; from server.app import create_server; "
             "create_server(sys.argv[1]).run()")


def server_command(ws_dir: Path) -> tuple[str, list[str], str]:
    """(command, args, how): ``ctxnotes --workspace DIR serve`` when the CLI has it."""
    exe = Path(sys.executable).with_name("ctxnotes")
    if importlib.util.find_spec("server.cli_serve") is not None and exe.exists():
        return str(exe), ["--workspace", str(ws_dir), "serve"], "ctxnotes --workspace DIR serve"
    if importlib.util.find_spec("server.cli_serve") is not None:
        return sys.executable, ["-m", "server.cli", "--workspace", str(ws_dir), "serve"], \
            "python -m server.cli --workspace DIR serve"
    return sys.executable, ["-c", _FALLBACK, str(ws_dir)], \
        "python -c 'create_server(DIR).run()' (server.cli_serve not available yet)"


def _params(ws_dir: Path):
    from mcp import StdioServerParameters
    cmd, args, _ = server_command(ws_dir)
    log = ws_dir.parent / f"{ws_dir.name}-server-stderr.log"  # server logs stay out of the report
    return StdioServerParameters(command="/bin/sh", args=["-c", 'exec "$@" 2>>"$0"', str(log), cmd, *args],
                                 cwd=str(ws_dir.parent))


def _child_pid(ws_dir: Path) -> int | None:
    for pid in children_of(os.getpid()):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                cmdline = fh.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if str(ws_dir) in cmdline:
            return pid
    return None


class ToolFailed(RuntimeError):
    pass


async def _call(client, name: str, args: dict) -> tuple[float, object]:
    with Timer() as t:
        r = await client.call_tool(name, args)
    if r.is_error:
        text = r.content[0].text if r.content else "?"
        raise ToolFailed(f"{name} returned an error: {text[:300]}")
    return t.ms, r


def _result_id(r) -> str | None:
    sc = r.structured_content or {}
    if isinstance(sc, dict):
        if "id" in sc:
            return sc["id"]
        for v in sc.values():
            if isinstance(v, dict) and "id" in v:
                return v["id"]
    return None


async def measure(ws_dir: Path, notes: list[C.CorpusNote], *, starts: int, search_rounds: int,
                  per_kind: int, writes: int, progress=print) -> dict:
    try:
        from mcp import Client
    except ImportError as exc:
        return {"error": f"not available: mcp client ({exc})"}
    params = _params(ws_dir)
    out: dict = {"launch": server_command(ws_dir)[2]}

    progress(f"[{len(notes)}] MCP stdio: start until tools/list x{starts}")
    start_ms = []
    tool_names: list[str] = []
    for _ in range(starts):
        t0 = time.perf_counter()
        async with Client(params) as c:
            tools = await c.list_tools()
            start_ms.append((time.perf_counter() - t0) * 1000)
            tool_names = [tl.name for tl in tools.tools]
    out["start_to_tools_list_ms"] = summary(start_ms)
    out["tools"] = tool_names

    progress(f"[{len(notes)}] MCP stdio: search / create / update")
    queries = C.latency_queries(notes, per_kind=per_kind)
    async with Client(params) as c:
        await c.list_tools()
        pid = _child_pid(ws_dir)
        out["pid_found"] = pid is not None
        first_q = queries["word_en"][0] if queries["word_en"] else "file"
        ms, _ = await _call(c, "note_search", {"query": first_q, "limit": 10})
        out["first_call_ms"] = ms  # opens the workspace (catalogue load + folder scan)
        for qs in queries.values():  # warm-up
            for q in qs[:3]:
                await _call(c, "note_search", {"query": q, "limit": 10})
        by_kind: dict[str, dict] = {}
        every: list[float] = []
        for kind, qs in queries.items():
            times = []
            for _ in range(search_rounds):
                for q in qs:
                    ms, _ = await _call(c, "note_search", {"query": q, "limit": 10})
                    times.append(ms)
            by_kind[kind] = summary(times)
            every += times
        by_kind["all"] = summary(every)
        out["search"] = by_kind

        rng = random.Random(9)
        os.sync()  # as in process: the fsyncs below should not pay for earlier dirty pages
        created, ctimes = [], []
        try:
            with Timer() as total:
                for i in range(writes):
                    n = notes[rng.randrange(len(notes))]
                    ms, r = await _call(c, "note_create", {"title": f"{n.title} (mcp new {i})", "content": n.content,
                                                           "note_type": "reference", "tags": ["bench", n.page.lang]})
                    ctimes.append(ms)
                    created.append(_result_id(r))
            out["create_ms"] = summary(ctimes)
            out["create_per_s"] = writes / total.s
            utimes = []
            texts = C.iter_update_texts(writes)
            with Timer() as total:
                for _ in range(writes):
                    nid = notes[rng.randrange(len(notes))].id
                    ms, _ = await _call(c, "note_update", {"note_id": nid, "content": next(texts)})
                    utimes.append(ms)
            out["update_ms"] = summary(utimes)
            out["update_per_s"] = writes / total.s
        except ToolFailed as exc:
            out["write_error"] = str(exc)
        for nid in created:
            if nid:
                await c.call_tool("note_delete", {"note_id": nid})
        out["rss_mb"] = vm_hwm_mb(pid) if pid else None
    return out


def run(ws_dir: Path, notes: list[C.CorpusNote], *, quick: bool, repeat: int, progress=print) -> dict:
    import anyio
    try:
        return anyio.run(lambda: measure(
            ws_dir, notes, starts=1 if quick else max(3, 5 * repeat // 3),
            search_rounds=1 if quick else max(1, 2 * repeat // 3), per_kind=5 if quick else 25,
            writes=10 if quick else max(50, 150 * repeat // 3), progress=progress))
    except Exception as exc:  # the server is being written: report, don't crash the suite
        return {"error": f"not available: MCP stdio run failed: {type(exc).__name__}: {exc}"}
