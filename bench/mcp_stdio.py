"""ctxnotes measured over MCP stdio: a real ``ctxnotes serve`` child process per connection.

Figures, in the order a user meets them:

- cold index through the server: ``.index/`` removed, spawn until the first
  ``note_search`` is answered (notes/s = notes / that time), and the server's
  peak and current RSS right after (a server that built its own index);
- per call on that server: ``note_search`` per query class (p50/p95/p99),
  ``note_list`` (the per-call floor: a trivial tool call), ``note_create`` /
  ``note_update``, ``build_context`` with 600 turns + the workspace; RSS after;
- restart with nothing changed: spawn until ``tools/list`` answers and until
  the first ``note_search`` is answered (a new process each time); the last
  restarted server runs a search round and one ``build_context`` (tiktoken
  loaded) and its peak RSS is read.

RSS is read from /proc (VmHWM = peak, VmRSS = now) just before a connection closes.
"""

from __future__ import annotations

import importlib.util
import os
import random
import shutil
import sys
import time
from pathlib import Path
from typing import Any
from collections.abc import Callable

from . import corpus as C
from .stats import Timer, children_of, class_summaries, summary, vm_hwm_mb, vm_rss_mb

_FALLBACK = ("import sys; from server.app import create_server; "
             "create_server(sys.argv[1]).run()")


def server_command(ws_dir: Path) -> tuple[str, list[str], str]:
    """(command, args, how): ``ctxnotes --workspace DIR serve`` when the CLI has it."""
    exe = Path(sys.executable).with_name("ctxnotes")
    if importlib.util.find_spec("server.cli.serve") is not None and exe.exists():
        return str(exe), ["--workspace", str(ws_dir), "serve"], "ctxnotes --workspace DIR serve"
    if importlib.util.find_spec("server.cli.serve") is not None:
        return sys.executable, ["-m", "server.cli", "--workspace", str(ws_dir), "serve"], \
            "python -m server.cli --workspace DIR serve"
    return sys.executable, ["-c", _FALLBACK, str(ws_dir)], \
        "python -c 'create_server(DIR).run()' (server.cli.serve not available yet)"


def child_env() -> dict[str, str] | None:
    """What the child needs beyond the SDK's minimal environment: our PYTHONPATH, so that a run with
    ``PYTHONPATH=/some/checkout`` measures that checkout's server and not the installed one."""
    return {"PYTHONPATH": os.environ["PYTHONPATH"]} if os.environ.get("PYTHONPATH") else None


def _params(ws_dir: Path) -> Any:
    from mcp import StdioServerParameters
    cmd, args, _ = server_command(ws_dir)
    log = ws_dir.parent / f"{ws_dir.name}-server-stderr.log"  # server logs stay out of the report
    return StdioServerParameters(command="/bin/sh", args=["-c", 'exec "$@" 2>>"$0"', str(log), cmd, *args],
                                 cwd=str(ws_dir.parent), env=child_env())


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


async def _call(client: Any, name: str, args: dict[str, Any]) -> tuple[float, Any]:
    with Timer() as t:
        r = await client.call_tool(name, args)
    if r.is_error:
        text = r.content[0].text if r.content else "?"
        raise ToolFailed(f"{name} returned an error: {text[:300]}")
    return t.ms, r


def _result_id(r: Any) -> str | None:
    sc = r.structured_content or {}
    if isinstance(sc, dict):
        if isinstance(sc.get("id"), str):
            return str(sc["id"])
        for v in sc.values():
            if isinstance(v, dict) and isinstance(v.get("id"), str):
                return str(v["id"])
    return None


def _rss(pid: int | None) -> dict[str, Any]:
    return {"peak_mb": vm_hwm_mb(pid) if pid else None, "now_mb": vm_rss_mb(pid) if pid else None}


def history_args(data: Path, turns: int = 600) -> tuple[list[dict[str, Any]], list[str]]:
    """The LoCoMo history as MCP ``history`` turns (timestamps as ISO strings), and its questions."""
    history, questions = C.locomo_history(data, turns)
    return [{"role": t["role"], "content": t["content"], "timestamp": t["timestamp"].isoformat()}
            for t in history], questions


async def _search_classes(c: Any, queries: dict[str, list[str]], rounds: int) -> dict[str, Any]:
    for qs in queries.values():  # warm-up, not timed
        for q in qs[:3]:
            await _call(c, "note_search", {"query": q, "limit": 10})
    samples: dict[str, list[float]] = {}
    for kind, qs in queries.items():
        times = samples[kind] = []
        for _ in range(rounds):
            for q in qs:
                ms, _ = await _call(c, "note_search", {"query": q, "limit": 10})
                times.append(ms)
    return class_summaries(samples)


async def _restarted_size(c: Any, ws_dir: Path, queries: dict[str, list[str]], hist: Any,
                          out: dict[str, Any]) -> None:
    """On a restarted server: a short search round and one build_context (tiktoken loaded), then its RSS."""
    pid = _child_pid(ws_dir)
    await _search_classes(c, {k: v[:5] for k, v in queries.items()}, 1)
    if hist is not None:
        history, questions = hist
        try:
            await _call(c, "build_context", {"query": questions[0], "history": history, "max_tokens": 2000})
        except ToolFailed as exc:
            out["build_context_error"] = str(exc)
    out["rss_restarted"] = _rss(pid)


async def measure(ws_dir: Path, notes: list[C.CorpusNote], data: Path | None, *, restarts: int,
                  search_rounds: int, per_kind: int, writes: int, list_calls: int, ctx_runs: int,
                  progress: Callable[[str], None] = print) -> dict[str, Any]:
    try:
        import anyio
        from mcp import Client
    except ImportError as exc:
        return {"error": f"not available: mcp client ({exc})"}
    n = len(notes)
    params = _params(ws_dir)
    out: dict[str, Any] = {"launch": server_command(ws_dir)[2]}
    queries = C.latency_queries(notes, per_kind=per_kind)
    first_q = queries["word_en"][0] if queries["word_en"] else "file"
    hist = history_args(data) if data is not None and (data / "locomo" / "conv-26.json").is_file() else None

    # 1. Cold index through the server: no .index/, spawn until the first search is answered.
    progress(f"[{n}] MCP stdio: cold index (spawn until the first search answers)")
    shutil.rmtree(ws_dir / ".index", ignore_errors=True)
    t0 = time.perf_counter()
    async with Client(params) as c:
        with anyio.fail_after(max(120.0, n / 50)):  # 50 notes/s would be a failure anyway
            await c.list_tools()
            pid = _child_pid(ws_dir)
            out["pid_found"] = pid is not None
            ms, _ = await _call(c, "note_search", {"query": first_q, "limit": 10})
        cold_s = time.perf_counter() - t0
        out["cold_index"] = {"seconds": cold_s, "notes_per_s": n / cold_s, "first_call_ms": ms}
        out["rss_after_cold_index"] = _rss(pid)

        progress(f"[{n}] MCP stdio: search classes, note_list floor")
        out["search"] = await _search_classes(c, queries, search_rounds)
        times = []
        for _ in range(list_calls):
            ms, _ = await _call(c, "note_list", {"limit": 10})
            times.append(ms)
        out["note_list_ms"] = summary(times)

        progress(f"[{n}] MCP stdio: create / update")
        rng = random.Random(9)
        os.sync()  # as in process: the fsyncs below should not pay for earlier dirty pages
        created: list[str | None] = []
        ctimes: list[float] = []
        try:
            with Timer() as total:
                for i in range(writes):
                    note = notes[rng.randrange(n)]
                    ms, r = await _call(c, "note_create", {
                        "title": f"{note.title} (mcp new {i})", "content": note.content,
                        "note_type": "reference", "tags": ["bench", note.page.lang]})
                    ctimes.append(ms)
                    created.append(_result_id(r))
            out["create_ms"] = summary(ctimes)
            out["create_per_s"] = writes / total.s
            utimes = []
            texts = C.iter_update_texts(writes)
            with Timer() as total:
                for _ in range(writes):
                    nid = notes[rng.randrange(n)].id
                    ms, _ = await _call(c, "note_update", {"note_id": nid, "content": next(texts)})
                    utimes.append(ms)
            out["update_ms"] = summary(utimes)
            out["update_per_s"] = writes / total.s
        except ToolFailed as exc:
            out["write_error"] = str(exc)
        for created_id in created:
            if created_id:
                await c.call_tool("note_delete", {"note_id": created_id})
        out["rss_before_build_context"] = _rss(pid)

        if hist is not None and ctx_runs:
            progress(f"[{n}] MCP stdio: build_context x{ctx_runs + 1}")
            history, questions = hist
            try:
                times = []
                for i, q in enumerate((questions * (ctx_runs // len(questions) + 1))[:ctx_runs + 1]):
                    ms, _ = await _call(c, "build_context", {"query": q, "history": history, "max_tokens": 2000})
                    if i == 0:
                        out["build_context_cold_ms"] = ms  # loads tiktoken
                    else:
                        times.append(ms)
                out["build_context_ms"] = summary(times)
            except ToolFailed as exc:
                out["build_context_error"] = str(exc)
        out["rss"] = _rss(pid)  # the cold-built server after everything, tiktoken loaded

    # 2. Restart with nothing changed: a new process each time; the last one also reports its size
    #    once it has searched and built a context (tiktoken loaded).
    progress(f"[{n}] MCP stdio: restart with no changes x{restarts}, then RSS after searches + build_context")
    starts: list[dict[str, Any]] = []
    for i in range(restarts):
        with anyio.fail_after(max(60.0, n / 200)):
            t0 = time.perf_counter()
            async with Client(params) as c:
                tools = await c.list_tools()
                tools_ms = (time.perf_counter() - t0) * 1000
                await _call(c, "note_search", {"query": first_q, "limit": 10})
                starts.append({"tools_list_ms": tools_ms, "first_search_ms": (time.perf_counter() - t0) * 1000})
                out["tools"] = [tl.name for tl in tools.tools]
                if i == restarts - 1:
                    await _restarted_size(c, ws_dir, queries, hist, out)
    out["restart"] = {"tools_list_ms": summary([r["tools_list_ms"] for r in starts]),
                      "first_search_ms": summary([r["first_search_ms"] for r in starts])}
    out["start_to_tools_list_ms"] = out["restart"]["tools_list_ms"]  # the older name, kept for the report
    return out


def run(ws_dir: Path, notes: list[C.CorpusNote], *, quick: bool, repeat: int, data: Path | None = None,
        progress: Callable[[str], None] = print) -> dict[str, Any]:
    import anyio
    try:
        return anyio.run(lambda: measure(
            ws_dir, notes, data, restarts=1 if quick else max(3, 3 * repeat // 3),
            search_rounds=1 if quick else max(1, 4 * repeat // 3), per_kind=5 if quick else 25,
            writes=10 if quick else max(50, 150 * repeat // 3), list_calls=10 if quick else 50,
            ctx_runs=1 if quick else max(10, 20 * repeat // 3), progress=progress))
    except Exception as exc:  # the server is being written: report, don't crash the suite
        return {"error": f"not available: MCP stdio run failed: {type(exc).__name__}: {exc}"}
