"""Many agents, one server: ``ctxnotes serve --http`` on loopback under 8 concurrent SDK clients.

For each load a fresh workspace of 300 seed notes (tldr pages) and a fresh
server on a free 127.0.0.1 port; 8 client processes (each its own
``mcp.Client`` session, so the client side does not share one GIL) connect,
meet at a barrier, then make 120 calls each:

- ``search``: 8 clients searching;
- ``writer``: 1 client creating + 7 searching;
- ``mixed``: 8 clients, 40% create, 20% each search / update / read.

Every acknowledged create is checked for read-your-writes by *another* session
(a checker beside each writing client searches the new note's unique word right
after the acknowledgement; the checks are extra calls, reported apart, and make
the figures conservative). After the load a fresh session reads back every
acknowledged create and the last acknowledged update of every note (each note
is updated by one client only, so the last acknowledgement must win), and after
the server stops every acknowledged note's file must be on disk.

CPU per call: the server's CPU (user+sys from /proc/PID/stat, all its threads)
and the clients' CPU (``time.process_time`` in each client process) over the
load window only (from the barrier to the last result; start-up, warm-up and the
verify pass excluded), divided by the calls made. On a 2-core machine the SDK
clients themselves use much of the CPU; the server's CPU per call is the figure
that says what the server could serve with the machine to itself.

Two kinds of client (``client=``): ``sdk`` (default; the issue's figure) is a
real ``mcp.Client`` session per client; ``raw`` speaks the same JSON-RPC over
one keep-alive ``http.client`` connection per session (legacy ``initialize``
handshake, ``tools/call``), a light client that lets the server's own capacity
show. Same plan, checks and verification for both.

Bounded: 30 s per call, 300 s per load, and the server and clients are killed
on the way out.  ``python -m bench --concurrency`` runs this section alone;
``python -m bench.concurrency --base DIR`` runs it interleaved with the code in
DIR (a ``git worktree`` of an older revision, given to the server as
``PYTHONPATH``), with CPU per call beside each figure.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import multiprocessing as mp
import queue
import threading
import os
import random
import statistics
import shutil
import socket
import string
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from collections.abc import Callable

from . import corpus as C
from .stats import summary

CLIENTS = 8
CALLS = 120
SEEDS = 300
CALL_TIMEOUT = 30.0
LOAD_TIMEOUT = 300.0
LOADS = ("search", "writer", "mixed")
LOAD_LABELS = {"search": "8 clients searching", "writer": "1 client creating + 7 searching",
               "mixed": "8 clients mixed (40% create, 20% each search/update/read)"}


def free_port() -> int:
    """A port nothing listens on right now (loopback)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _token(rng: random.Random) -> str:
    """A made-up word no tldr page contains: what the read-your-writes check searches for."""
    return "zq" + "".join(rng.choice(string.ascii_lowercase) for _ in range(10))


def _ids(structured: Any) -> list[str]:
    hits = structured.get("hits", []) if isinstance(structured, dict) else []
    return [h["id"] for h in hits if isinstance(h, dict) and "id" in h]


def _created_id(structured: Any) -> str | None:
    if isinstance(structured, dict):
        if isinstance(structured.get("id"), str):
            return str(structured["id"])
        for v in structured.values():
            if isinstance(v, dict) and isinstance(v.get("id"), str):
                return str(v["id"])
    return None


def _content(structured: Any) -> str | None:
    if isinstance(structured, dict):
        if isinstance(structured.get("content"), str):
            return str(structured["content"])
        for v in structured.values():
            if isinstance(v, dict) and isinstance(v.get("content"), str):
                return str(v["content"])
    return None


def call_for(op: str, rng: random.Random, idx: int, i: int, queries: list[str], updatable: list[str],
             readable: list[str]) -> tuple[str, dict[str, Any]]:
    """The tool and arguments of client ``idx``'s ``i``-th call of kind ``op`` (both client kinds use it)."""
    if op == "search":
        return "note_search", {"query": queries[rng.randrange(len(queries))], "limit": 10}
    if op == "create":
        token = _token(rng)
        return "note_create", {"title": f"load {token} client {idx} call {i}",
                               "content": f"Written under load by client {idx}: {token}.",
                               "note_type": "general", "tags": ["load"]}
    if op == "update":
        target = rng.choice(updatable)  # before the token: the same random sequence as before the fold
        return "note_update", {"note_id": target, "content": f"Updated under load by client {idx}, call {i}: {_token(rng)}."}
    return "note_read", {"note_id": rng.choice(readable)}


def plan(role: str, idx: int, calls: int) -> list[str]:
    """The operations one client makes, in order (fixed seed per client)."""
    if role == "search":
        return ["search"] * calls
    if role == "create":
        return ["create"] * calls
    rng = random.Random(1000 + idx)
    ops = ["create"] * 40 + ["search"] * 20 + ["update"] * 20 + ["read"] * 20
    return [rng.choice(ops) for _ in range(calls)]


async def _client_main(url: str, role: str, idx: int, calls: int, seed_ids: list[str], queries: list[str],
                       barrier: Any) -> dict[str, Any]:
    """One client: connect, wait for the others, make its calls; returns its records."""
    import anyio
    from mcp import Client

    rng = random.Random(idx)
    ops = plan(role, idx, calls)
    mine = seed_ids[idx::CLIENTS]  # seeds only this client updates: the last acknowledgement must win
    created: list[str] = []
    records: list[tuple[str, float, float, bool, str]] = []  # op, start, ms, ok, error
    checks: list[tuple[float, float, bool]] = []              # delay after ack (ms), ms, found
    acked_updates: dict[str, str] = {}
    missed_checks: list[str] = []
    send, receive = anyio.create_memory_object_stream[tuple[str, str, float] | None](1000)

    async def checker(session: Any) -> None:
        async with receive:
            async for item in receive:
                if item is None:
                    return
                nid, token, acked = item
                t0 = time.monotonic()
                why = ""
                try:
                    with anyio.fail_after(CALL_TIMEOUT):
                        r = await session.call_tool("note_search", {"query": token, "limit": 10})
                    ids = _ids(r.structured_content)
                    found = not r.is_error and nid in ids
                    if not found:
                        why = (f"error: {getattr(r.content[0], 'text', '?') if r.content else '?'}" if r.is_error
                               else f"not in the {len(ids)} hit(s) for {token!r}")
                except Exception as exc:
                    found, why = False, f"{type(exc).__name__}: {exc}"
                checks.append(((t0 - acked) * 1000, (time.monotonic() - t0) * 1000, found))
                if not found:
                    missed_checks.append(f"{nid}: {why[:200]} ({(t0 - acked) * 1000:.0f} ms after the ack)")

    async with contextlib.AsyncExitStack() as stack:
        c = await stack.enter_async_context(Client(url))
        if "create" in ops:  # a second session: "another client finds it", not the writer's own
            session = await stack.enter_async_context(Client(url))
            await session.list_tools()
        else:
            session = None
        async with anyio.create_task_group() as tg:
            if session is not None:
                tg.start_soon(checker, session)
            await c.list_tools()
            await anyio.to_thread.run_sync(barrier.wait)
            cpu0 = time.process_time()
            for i, op in enumerate(ops):
                name, args = call_for(op, rng, idx, i, queries, created or mine, created + seed_ids)
                t0 = time.monotonic()
                ok, err = True, ""
                try:
                    with anyio.fail_after(CALL_TIMEOUT):
                        r = await c.call_tool(name, args)
                    if r.is_error:
                        ok, err = False, str(getattr(r.content[0], "text", "?") if r.content else "?")[:200]
                except Exception as exc:
                    ok, err = False, f"{type(exc).__name__}: {exc}"[:200]
                t1 = time.monotonic()
                records.append((op, t0, (t1 - t0) * 1000, ok, err))
                if ok and op == "create":
                    nid = _created_id(r.structured_content)
                    if nid:
                        created.append(nid)
                        await send.send((nid, args["title"].split()[1], t1))
                    else:
                        records[-1] = (op, t0, (t1 - t0) * 1000, False, "create acknowledged without an id")
                elif ok and op == "update":
                    acked_updates[args["note_id"]] = args["content"]
            await send.send(None)
            await send.aclose()
        cpu_s = time.process_time() - cpu0  # the checker's calls included: they are load too
    return {"records": records, "checks": checks, "created": created, "updates": acked_updates,
            "missed_checks": missed_checks, "cpu_s": cpu_s}


def _client_process(url: str, role: str, idx: int, calls: int, seed_ids: list[str], queries: list[str],
                    barrier: Any, out: Any, client: str = "sdk") -> None:
    import anyio
    try:
        if client == "raw":
            res = _raw_client_main(url, role, idx, calls, seed_ids, queries, barrier)
        else:
            res = anyio.run(_client_main, url, role, idx, calls, seed_ids, queries, barrier)
    except BaseException as exc:  # report, the parent decides; never hang the barrier
        try:
            barrier.abort()
        except Exception:
            pass
        res = {"fatal": f"{type(exc).__name__}: {exc}"[:500]}
    out.put((idx, res))


class RawSession:
    """One MCP session over one keep-alive HTTP/1.1 connection, JSON-RPC by hand (the ``raw`` client).

    The legacy handshake (``initialize`` then ``notifications/initialized``), then ``tools/call`` with the
    session id; the server answers JSON (``--json-response``, its default). Returns what the SDK's
    ``call_tool`` would: (is_error, structuredContent, first text).
    """

    def __init__(self, url: str, timeout: float = CALL_TIMEOUT) -> None:
        rest = url.split("://", 1)[1]
        hostport, _, path = rest.partition("/")
        host, _, port = hostport.rpartition(":")
        self.path = "/" + path
        self.conn = http.client.HTTPConnection(host, int(port), timeout=timeout)
        self.headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
        self.next_id = 1
        init = self._post({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                           "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                                      "clientInfo": {"name": "bench-raw", "version": "0"}}})
        self.headers["mcp-protocol-version"] = init["result"]["protocolVersion"]
        self._post({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def _post(self, message: dict[str, Any]) -> Any:
        self.conn.request("POST", self.path, json.dumps(message).encode(), self.headers)
        r = self.conn.getresponse()
        body = r.read()
        sid = r.getheader("mcp-session-id")
        if sid:
            self.headers["mcp-session-id"] = sid
        if r.status == 202:
            return None
        if r.status != 200:
            raise RuntimeError(f"HTTP {r.status}: {body[:200]!r}")
        return json.loads(body)

    def call_tool(self, name: str, args: dict[str, Any]) -> tuple[bool, Any, str]:
        self.next_id += 1
        reply = self._post({"jsonrpc": "2.0", "id": self.next_id, "method": "tools/call",
                            "params": {"name": name, "arguments": args}})
        if "error" in reply:
            return True, None, str(reply["error"].get("message", "?"))
        res = reply["result"]
        content = res.get("content") or [{}]
        return bool(res.get("isError")), res.get("structuredContent"), str(content[0].get("text", ""))

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.conn.request("DELETE", self.path, headers=self.headers)
            self.conn.getresponse().read()
        self.conn.close()


def _raw_client_main(url: str, role: str, idx: int, calls: int, seed_ids: list[str], queries: list[str],
                     barrier: Any) -> dict[str, Any]:
    """The ``raw`` client: the same plan and checks as ``_client_main``, over ``RawSession`` (the
    read-your-writes checker is a thread with its own session, as the SDK client's is a task)."""
    rng = random.Random(idx)
    ops = plan(role, idx, calls)
    mine = seed_ids[idx::CLIENTS]
    created: list[str] = []
    records: list[tuple[str, float, float, bool, str]] = []
    checks: list[tuple[float, float, bool]] = []
    acked_updates: dict[str, str] = {}
    missed_checks: list[str] = []
    todo: queue.Queue[tuple[str, str, float] | None] = queue.Queue()

    def checker(session: RawSession) -> None:
        while (item := todo.get()) is not None:
            nid, token, acked = item
            t0 = time.monotonic()
            why = ""
            try:
                is_error, structured, text = session.call_tool("note_search", {"query": token, "limit": 10})
                ids = _ids(structured)
                found = not is_error and nid in ids
                if not found:
                    why = f"error: {text}" if is_error else f"not in the {len(ids)} hit(s) for {token!r}"
            except Exception as exc:
                found, why = False, f"{type(exc).__name__}: {exc}"
            checks.append(((t0 - acked) * 1000, (time.monotonic() - t0) * 1000, found))
            if not found:
                missed_checks.append(f"{nid}: {why[:200]} ({(t0 - acked) * 1000:.0f} ms after the ack)")

    c = RawSession(url)
    check_thread = None
    if "create" in ops:
        check_session = RawSession(url)
        check_thread = threading.Thread(target=checker, args=(check_session,), daemon=True)
        check_thread.start()
    barrier.wait()
    cpu0 = time.process_time()
    for i, op in enumerate(ops):
        name, args = call_for(op, rng, idx, i, queries, created or mine, created + seed_ids)
        t0 = time.monotonic()
        ok, err, structured = True, "", None
        try:
            is_error, structured, text = c.call_tool(name, args)
            if is_error:
                ok, err = False, text[:200]
        except Exception as exc:
            ok, err = False, f"{type(exc).__name__}: {exc}"[:200]
        t1 = time.monotonic()
        records.append((op, t0, (t1 - t0) * 1000, ok, err))
        if ok and op == "create":
            nid = _created_id(structured)
            if nid:
                created.append(nid)
                todo.put((nid, args["title"].split()[1], t1))
            else:
                records[-1] = (op, t0, (t1 - t0) * 1000, False, "create acknowledged without an id")
        elif ok and op == "update":
            acked_updates[args["note_id"]] = args["content"]
    todo.put(None)
    if check_thread is not None:
        check_thread.join(timeout=LOAD_TIMEOUT)
        check_session.close()
    cpu_s = time.process_time() - cpu0
    c.close()
    return {"records": records, "checks": checks, "created": created, "updates": acked_updates,
            "missed_checks": missed_checks, "cpu_s": cpu_s}


def proc_cpu_seconds(pid: int) -> float | None:
    """user+sys CPU seconds of a process and all its threads so far (Linux /proc), None if unreadable."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def _wait_quiet(pid: int, quiet: float = 1.5, step: float = 0.25, timeout: float = 15.0) -> float:
    """Wait until the server has spent at most a clock tick of CPU per ``step`` for ``quiet`` seconds in a
    row (its start-up work done: the index opened, the clients' sessions initialised, and, for an older
    ``--base`` tree, the tokenizer it loads ~1 s after the workspace opens: ``quiet`` outlasts that pause), at most
    ``timeout`` seconds; the seconds waited. Without it a load's first second shares the server's GIL
    with ~0.2 s of start-up CPU (searches of 60-80 ms), and that lands in the p95 of a 4-s load."""
    started = time.monotonic()
    tick = 1.5 / os.sysconf("SC_CLK_TCK")
    last = proc_cpu_seconds(pid)
    calm_since = time.monotonic()
    while last is not None and time.monotonic() - started < timeout:
        time.sleep(step)
        now = proc_cpu_seconds(pid)
        if now is None:
            break
        if now - last > tick:
            calm_since = time.monotonic()
        elif time.monotonic() - calm_since >= quiet:
            break
        last = now
    return time.monotonic() - started


def _wait_ready(proc: subprocess.Popen[bytes], port: int, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"ctxnotes serve --http exited with status {proc.returncode} before listening")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"ctxnotes serve --http did not listen on 127.0.0.1:{port} within {timeout:.0f} s")


def _server_cmd(ws_dir: Path, port: int) -> list[str]:
    exe = Path(sys.executable).with_name("ctxnotes")
    head = [str(exe)] if exe.exists() else [sys.executable, "-m", "server.cli"]
    return head + ["--workspace", str(ws_dir), "serve", "--http", "--host", "127.0.0.1", "--port", str(port)]


async def _verify(url: str, created: list[str], updates: dict[str, str]) -> dict[str, Any]:
    """Read back every acknowledged create and the last acknowledged update of every note."""
    import anyio
    from mcp import Client
    missing, stale = [], []
    async with Client(url) as c:
        for nid in created:
            with anyio.fail_after(CALL_TIMEOUT):
                r = await c.call_tool("note_read", {"note_id": nid})
            if r.is_error:
                missing.append(nid)
        for nid, text in updates.items():
            with anyio.fail_after(CALL_TIMEOUT):
                r = await c.call_tool("note_read", {"note_id": nid})
            if r.is_error or (_content(r.structured_content) or "").strip() != text.strip():
                stale.append(nid)
    return {"missing": missing, "stale": stale}


def run_load(load: str, scratch: Path, notes: list[C.CorpusNote], *, clients: int = CLIENTS, calls: int = CALLS,
             load_timeout: float = LOAD_TIMEOUT, progress: Callable[[str], None] = print, client: str = "sdk",
             server_pythonpath: str | None = None, quiet: float = 1.5) -> dict[str, Any]:
    """One load on a fresh workspace and server; figures, CPU per call and checks.

    ``server_pythonpath``: run the server from that source tree (an older revision, for a baseline).
    ``quiet``: seconds the server must be idle before the load starts (0: start once the clients are ready,
    as a measurement that knows nothing of the server's start-up work would).
    """
    import anyio
    ws_dir = scratch / f"conc-{load}"
    shutil.rmtree(ws_dir, ignore_errors=True)
    C.write_workspace(ws_dir, notes)
    seed_ids = [n.id for n in notes]
    q = C.latency_queries(notes, per_kind=25)
    queries = [x for k in ("desc_en", "desc_zh", "kept_en", "kept_zh", "word_en", "word_zh") for x in q[k]]
    roles = {"search": ["search"] * clients, "writer": ["create"] + ["search"] * (clients - 1),
             "mixed": ["mixed"] * clients}[load]
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    log = open(scratch / f"conc-{load}-server.log", "wb")
    env = os.environ.copy()
    if server_pythonpath:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (server_pythonpath, env.get("PYTHONPATH")) if p)
    server = subprocess.Popen(_server_cmd(ws_dir, port), stdout=log, stderr=subprocess.STDOUT,
                              cwd=str(scratch), env=env)
    ctx = mp.get_context("spawn")
    procs: list[Any] = []
    out: dict[str, Any] = {"load": load, "label": LOAD_LABELS[load], "clients": clients, "calls_each": calls,
                           "seeds": len(notes), "client": client, "server_pythonpath": server_pythonpath,
                           "load_average_before": os.getloadavg()[0]}
    try:
        _wait_ready(server, port)
        anyio.run(_warm, url, queries[0])  # opens the workspace: the index of 300 notes is built here
        barrier = ctx.Barrier(clients + 1, timeout=120)  # +1: this process notes the server's CPU at the start
        results = ctx.Queue()
        for i, role in enumerate(roles):
            p = ctx.Process(target=_client_process,
                            args=(url, role, i, calls, seed_ids, queries, barrier, results, client), daemon=True)
            p.start()
            procs.append(p)
        out["quiet_wait_s"] = _wait_quiet(server.pid, quiet=quiet) if quiet > 0 else 0.0
        barrier.wait()
        server_cpu0 = proc_cpu_seconds(server.pid)
        got: dict[int, dict[str, Any]] = {}
        deadline = time.monotonic() + load_timeout
        while len(got) < clients and time.monotonic() < deadline:
            try:
                idx, res = results.get(timeout=1.0)
                got[idx] = res
            except Exception:
                if all(not p.is_alive() for p in procs) and results.empty():
                    break
        server_cpu1 = proc_cpu_seconds(server.pid)
        out["load_average_after"] = os.getloadavg()[0]
        fatal = {i: r["fatal"] for i, r in got.items() if "fatal" in r}
        if len(got) < clients or fatal:
            out["error"] = (f"{clients - len(got)} client(s) gave no result within {load_timeout:.0f} s; "
                            f"fatal: {fatal}")
        recs = [rec for r in got.values() if "records" in r for rec in r["records"]]
        checks = [c for r in got.values() if "checks" in r for c in r["checks"]]
        created = [nid for r in got.values() if "created" in r for nid in r["created"]]
        updates: dict[str, str] = {}
        for r in got.values():
            updates.update(r.get("updates", {}))
        if recs:
            t0 = min(r[1] for r in recs)
            t1 = max(r[1] + r[2] / 1000 for r in recs)
            out["seconds"] = t1 - t0
            out["calls"] = len(recs)
            out["calls_per_s"] = len(recs) / (t1 - t0)
            # every call the server answered in the window, the read-your-writes checks included
            served = len(recs) + len(checks)
            out["calls_served"] = served
            if server_cpu0 is not None and server_cpu1 is not None:
                out["server_cpu_ms_per_call"] = 1000 * (server_cpu1 - server_cpu0) / served
            client_cpu = [r["cpu_s"] for r in got.values() if "cpu_s" in r]
            if len(client_cpu) == clients:
                out["client_cpu_ms_per_call"] = 1000 * sum(client_cpu) / served
        out["ops"] = {op: summary([r[2] for r in recs if r[0] == op and r[3]])
                      for op in ("search", "create", "update", "read") if any(r[0] == op for r in recs)}
        errors = [r[4] for r in recs if not r[3]]
        out["errors"] = len(errors)
        out["error_samples"] = sorted(set(errors))[:5]
        out["ryw"] = {"creates_acked": len(created), "checked": len(checks),
                      "found": sum(1 for c in checks if c[2]),
                      "check_delay_ms": summary([c[0] for c in checks]), "check_ms": summary([c[1] for c in checks]),
                      "missed": [m for r in got.values() for m in r.get("missed_checks", [])][:10]}
        progress(f"[concurrency {load}] verifying {len(created)} creates and {len(updates)} updates")
        out["verify"] = anyio.run(_verify, url, created, updates)
    except Exception as exc:
        out["error"] = f"{type(exc).__name__}: {exc}"
        created = []
    finally:
        for p in procs:
            if p.is_alive():
                p.kill()
            p.join(timeout=5)
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=5)
        log.close()
    if created:
        on_disk = {p.stem for p in (ws_dir / "notes").rglob("*.md")}
        out["verify"]["missing_on_disk"] = [nid for nid in created if nid not in on_disk]
    return out


async def _warm(url: str, query: str) -> None:
    import anyio
    from mcp import Client
    with anyio.fail_after(60):
        async with Client(url) as c:
            await c.list_tools()
            await c.call_tool("note_search", {"query": query, "limit": 10})


def run(scratch: Path, data: Path, *, clients: int = CLIENTS, calls: int = CALLS, seeds: int = SEEDS,
        progress: Callable[[str], None] = print, client: str = "sdk", server_pythonpath: str | None = None,
        loads: tuple[str, ...] = LOADS, quiet: float = 1.5) -> dict[str, Any]:
    """All three loads, with the issue-16 checks."""
    en, zh = C.load_pages(data)
    notes = C.corpus(en, zh, seeds)
    out: dict[str, Any] = {"clients": clients, "calls_each": calls, "seeds": seeds, "loads": {}, "client": client}
    for load in loads:
        progress(f"[concurrency {load}] {LOAD_LABELS[load]}: {clients} {client} clients x {calls} calls")
        out["loads"][load] = run_load(load, scratch, notes, clients=clients, calls=calls, progress=progress,
                                      client=client, server_pythonpath=server_pythonpath, quiet=quiet)
    out["load_average"] = os.getloadavg()[0]
    return out


def _p95(load: dict[str, Any], op: str) -> float | None:
    return ((load.get("ops") or {}).get(op) or {}).get("p95")


def checks(res: dict[str, Any]) -> list[tuple[str, str, bool | None]]:
    """(target, figure, passed) for the issue-16 targets."""
    loads = res.get("loads", {})
    s, w, m = loads.get("search", {}), loads.get("writer", {}), loads.get("mixed", {})
    out: list[tuple[str, str, bool | None]] = []
    base, under = _p95(s, "search"), _p95(w, "search")
    if base is not None and under is not None:
        limit = 1.25 * base + 5
        out.append(("1 writer + 7 searchers: search p95 ≤ 1.25 × all-searchers p95 + 5 ms",
                    f"{under:.1f} ms vs limit {limit:.1f} ms", under <= limit))
    if w.get("calls_per_s") is not None:
        out.append(("1 writer + 7 searchers: ≥ 250 calls/s", f"{w['calls_per_s']:.0f} calls/s",
                    w["calls_per_s"] >= 250))
    if m.get("calls_per_s") is not None:
        out.append(("mixed: ≥ 150 calls/s", f"{m['calls_per_s']:.0f} calls/s", m["calls_per_s"] >= 150))
        worst = max(((op, s_["p95"]) for op, s_ in (m.get("ops") or {}).items() if s_.get("p95") is not None),
                    key=lambda t: t[1], default=None)
        if worst:
            out.append(("mixed: p95 of every operation ≤ 60 ms", f"worst {worst[0]} {worst[1]:.1f} ms", worst[1] <= 60))
    errors = sum(ld.get("errors", 0) for ld in loads.values())
    lost = sum(len((ld.get("verify") or {}).get(k, [])) for ld in loads.values()
               for k in ("missing", "stale", "missing_on_disk"))
    ryw_acked = sum(ld.get("ryw", {}).get("creates_acked", 0) for ld in loads.values())
    ryw_found = sum(ld.get("ryw", {}).get("found", 0) for ld in loads.values())
    failed = [k for k, ld in loads.items() if ld.get("error")]
    out.append(("zero errors", f"{errors} error(s)" + (f"; runs failed: {failed}" if failed else ""),
                errors == 0 and not failed))
    out.append(("nothing acknowledged lost (creates read back, last updates won, files on disk)",
                f"{lost} lost or stale", lost == 0 and not failed))
    writes = any(k in loads for k in ("writer", "mixed"))  # the search-only load creates nothing to check
    out.append(("read-your-writes for every create (another session finds it right after the ack)",
                f"{ryw_found} / {ryw_acked}", (ryw_acked > 0 and ryw_found == ryw_acked) if writes else None))
    return out


def render(res: dict[str, Any]) -> str:
    """The concurrency table and the target checks, in Markdown."""
    def f(v: float | None) -> str:
        return "—" if v is None else f"{v:.1f}"

    kind = "raw JSON-RPC (http.client)" if res.get("client") == "raw" else "SDK"
    lines = [f"{res['clients']} {kind} clients (one process each) on one `ctxnotes serve --http` (127.0.0.1), "
             f"{res['seeds']} seed notes, {res['calls_each']} calls each; a fresh server per load. "
             f"Load average after: {res.get('load_average', 0):.1f}. CPU ms per call over the load window "
             "(server process; all client processes), read-your-writes checks counted as calls.", "",
             "| load | calls/s | search p50 / p95 ms | create p50 / p95 ms | update p50 / p95 ms | "
             "read p50 / p95 ms | server CPU ms/call | client CPU ms/call | errors | "
             "RYW found / creates (check delay p95 ms) |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for key in LOADS:
        if key not in res["loads"]:
            continue
        ld = res["loads"][key]
        if ld.get("error") and not ld.get("calls"):
            lines.append(f"| {LOAD_LABELS[key]} | failed: {ld['error']} | | | | | | | | |")
            continue
        cells = []
        for op in ("search", "create", "update", "read"):
            s = (ld.get("ops") or {}).get(op)
            cells.append("—" if not s or not s.get("n") else f"{f(s['p50'])} / {f(s['p95'])}")
        ryw = ld.get("ryw", {})
        ryw_cell = "—" if not ryw.get("creates_acked") else \
            f"{ryw['found']} / {ryw['creates_acked']} ({f(ryw['check_delay_ms'].get('p95'))})"
        lines.append(f"| {LOAD_LABELS[key]} | {f(ld.get('calls_per_s'))} | " + " | ".join(cells)
                     + f" | {f(ld.get('server_cpu_ms_per_call'))} | {f(ld.get('client_cpu_ms_per_call'))}"
                     + f" | {ld.get('errors', '—')} | {ryw_cell} |")
    for key in LOADS:
        ld = res["loads"].get(key, {})
        if ld.get("error"):
            lines.append(f"\n- {key}: {ld['error']}")
        if ld.get("error_samples"):
            lines.append(f"- {key} errors, e.g.: " + "; ".join(ld["error_samples"]))
        if (ld.get("ryw") or {}).get("missed"):
            lines.append(f"- {key}: read-your-writes checks that missed: " + "; ".join(ld["ryw"]["missed"]))
    lines += ["", "| target (issue 16) | figure | |", "|---|---|---|"]
    for target, figure, ok in checks(res):
        lines.append(f"| {target} | {figure} | {'—' if ok is None else '**PASS**' if ok else '**MISS**'} |")
    return "\n".join(lines)


def _row(variant: str, client: str, load: str, ld: dict[str, Any]) -> str:
    def f(v: float | None) -> str:
        return "—" if v is None else f"{v:.1f}"
    cells = []
    for op in ("search", "create", "update", "read"):
        s = (ld.get("ops") or {}).get(op)
        cells.append("—" if not s or not s.get("n") else f"{f(s['p50'])} / {f(s['p95'])}")
    return (f"| {variant} | {client} | {load} | {f(ld.get('calls_per_s'))} | " + " | ".join(cells)
            + f" | {f(ld.get('server_cpu_ms_per_call'))} | {f(ld.get('client_cpu_ms_per_call'))} | "
            f"{ld.get('errors', '—')} | {f(ld.get('load_average_before'))} |")


def _median_rows(everything: list[dict[str, Any]]) -> list[str]:
    """One row per variant, client and load: the median over rounds of calls/s, each p50/p95 and CPU."""
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for res in everything:
        for load, ld in res["loads"].items():
            groups.setdefault((res["variant"], res.get("client", "?"), load), []).append(ld)

    def med(values: list[float | None]) -> float | None:
        xs = [v for v in values if v is not None]
        return statistics.median(xs) if xs else None

    out = []
    for (variant, kind, load), lds in sorted(groups.items()):
        ops: dict[str, dict[str, float | None]] = {}
        for op in ("search", "create", "update", "read"):
            per = [(ld.get("ops") or {}).get(op) or {} for ld in lds]
            if any(p.get("n") for p in per):
                ops[op] = {"n": 1, "p50": med([p.get("p50") for p in per]), "p95": med([p.get("p95") for p in per])}
        merged = {"calls_per_s": med([ld.get("calls_per_s") for ld in lds]), "ops": ops,
                  "server_cpu_ms_per_call": med([ld.get("server_cpu_ms_per_call") for ld in lds]),
                  "client_cpu_ms_per_call": med([ld.get("client_cpu_ms_per_call") for ld in lds]),
                  "errors": sum(ld.get("errors", 0) for ld in lds),
                  "load_average_before": med([ld.get("load_average_before") for ld in lds])}
        out.append(_row(variant, kind, load, merged))
    return out


def main(argv: list[str] | None = None) -> int:
    """Interleaved runs of this revision and a baseline tree, SDK and raw clients: one line per load and run."""
    ap = argparse.ArgumentParser(prog="python -m bench.concurrency", description=main.__doc__)
    ap.add_argument("--base", help="source tree of the baseline server (e.g. a git worktree), run as PYTHONPATH")
    ap.add_argument("--runs", type=int, default=2, help="rounds; each runs every variant once, interleaved")
    ap.add_argument("--client", default="sdk", help="comma list of client kinds: sdk, raw (default sdk)")
    ap.add_argument("--loads", default=",".join(LOADS), help=f"comma list of loads (default {','.join(LOADS)})")
    ap.add_argument("--calls", type=int, default=CALLS)
    ap.add_argument("--scratch", type=Path, default=Path(os.environ.get("CTXNOTES_BENCH_SCRATCH",
                                                                         "/tmp/ctxnotes-bench")))
    ap.add_argument("--data", help="shared data folder with the tldr pages")
    ap.add_argument("--json-out", type=Path, help="write every result here")
    ap.add_argument("--quiet", type=float, default=1.5,
                    help="seconds the server must be idle before each load starts (default 1.5; 0: don't wait)")
    args = ap.parse_args(argv)
    data = C.data_dir(args.data)
    if data is None:
        print("not available: tldr pages not found (pass --data). Nothing measured.")
        return 0
    loads = tuple(x for x in args.loads.split(",") if x)
    kinds = [x for x in args.client.split(",") if x]
    if any(x not in LOADS for x in loads) or any(k not in ("sdk", "raw") for k in kinds):
        print(f"unknown load or client kind: loads {loads}, clients {kinds}", file=sys.stderr)
        return 2
    variants: list[tuple[str, str | None]] = [("new", None)]
    if args.base:
        variants = [("base", str(Path(args.base).resolve())), ("new", None)]
    scratch = args.scratch.resolve()
    scratch.mkdir(parents=True, exist_ok=True)
    header = ["| variant | client | load | calls/s | search p50 / p95 | create p50 / p95 | update p50 / p95 | "
              "read p50 / p95 | server CPU ms/call | client CPU ms/call | errors | load avg |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    rows: list[str] = []
    everything: list[dict[str, Any]] = []
    # Interleaved load by load (base and new back to back on the same load, who goes first alternating), so
    # that a change in the machine's load between two runs falls on both variants alike.
    step = 0
    for r in range(args.runs):
        for kind in kinds:
            for load in loads:
                # + r: a round's step count may be even, and each pair must change who goes first by round.
                order = variants if (step + r) % 2 == 0 else variants[::-1]
                step += 1
                for variant, tree in order:
                    res = run(scratch, data, calls=args.calls, progress=lambda m: None, client=kind,
                              server_pythonpath=tree, loads=(load,), quiet=args.quiet)
                    everything.append({"variant": variant, "round": r, **res})
                    rows.append(_row(variant, kind, load, res["loads"][load]))
                    print(rows[-1], flush=True)
                    failed = [c for c in checks(res)
                              if c[2] is False and "calls/s" not in c[0] and "p95" not in c[0]]
                    for target, figure, _ok in failed:
                        print(f"  {variant}/{kind} correctness MISS: {target}: {figure}", flush=True)
    print("\n" + "\n".join(header + sorted(rows, key=lambda x: x.split("|")[1:4])))
    if args.runs > 1:
        print(f"\nmedians of {args.runs} rounds:\n" + "\n".join(header[:2] + _median_rows(everything)))
    if args.json_out:
        args.json_out.write_text(json.dumps(everything, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
