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

Bounded: 30 s per call, 300 s per load, and the server and clients are killed
on the way out.  ``python -m bench --concurrency`` runs this section alone.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import random
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
            for i, op in enumerate(ops):
                args: dict[str, Any]
                if op == "search":
                    name, args = "note_search", {"query": queries[rng.randrange(len(queries))], "limit": 10}
                elif op == "create":
                    token = _token(rng)
                    name, args = "note_create", {"title": f"load {token} client {idx} call {i}",
                                                 "content": f"Written under load by client {idx}: {token}.",
                                                 "note_type": "general", "tags": ["load"]}
                elif op == "update":
                    target = rng.choice(created or mine)
                    text = f"Updated under load by client {idx}, call {i}: {_token(rng)}."
                    name, args = "note_update", {"note_id": target, "content": text}
                else:
                    name, args = "note_read", {"note_id": rng.choice(created + seed_ids)}
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
    return {"records": records, "checks": checks, "created": created, "updates": acked_updates,
            "missed_checks": missed_checks}


def _client_process(url: str, role: str, idx: int, calls: int, seed_ids: list[str], queries: list[str],
                    barrier: Any, out: Any) -> None:
    import anyio
    try:
        res = anyio.run(_client_main, url, role, idx, calls, seed_ids, queries, barrier)
    except BaseException as exc:  # report, the parent decides; never hang the barrier
        try:
            barrier.abort()
        except Exception:
            pass
        res = {"fatal": f"{type(exc).__name__}: {exc}"[:500]}
    out.put((idx, res))


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
             load_timeout: float = LOAD_TIMEOUT, progress: Callable[[str], None] = print) -> dict[str, Any]:
    """One load on a fresh workspace and server; figures and checks."""
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
    server = subprocess.Popen(_server_cmd(ws_dir, port), stdout=log, stderr=subprocess.STDOUT,
                              cwd=str(scratch), env=os.environ.copy())
    ctx = mp.get_context("spawn")
    procs: list[Any] = []
    out: dict[str, Any] = {"load": load, "label": LOAD_LABELS[load], "clients": clients, "calls_each": calls,
                           "seeds": len(notes)}
    try:
        _wait_ready(server, port)
        anyio.run(_warm, url, queries[0])  # opens the workspace: the index of 300 notes is built here
        barrier = ctx.Barrier(clients, timeout=120)
        results = ctx.Queue()
        for i, role in enumerate(roles):
            p = ctx.Process(target=_client_process, args=(url, role, i, calls, seed_ids, queries, barrier, results),
                            daemon=True)
            p.start()
            procs.append(p)
        got: dict[int, dict[str, Any]] = {}
        deadline = time.monotonic() + load_timeout
        while len(got) < clients and time.monotonic() < deadline:
            try:
                idx, res = results.get(timeout=1.0)
                got[idx] = res
            except Exception:
                if all(not p.is_alive() for p in procs) and results.empty():
                    break
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
        progress: Callable[[str], None] = print) -> dict[str, Any]:
    """All three loads, with the issue-16 checks."""
    en, zh = C.load_pages(data)
    notes = C.corpus(en, zh, seeds)
    out: dict[str, Any] = {"clients": clients, "calls_each": calls, "seeds": seeds, "loads": {}}
    for load in LOADS:
        progress(f"[concurrency {load}] {LOAD_LABELS[load]}: {clients} clients x {calls} calls")
        out["loads"][load] = run_load(load, scratch, notes, clients=clients, calls=calls, progress=progress)
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
    out.append(("read-your-writes for every create (another session finds it right after the ack)",
                f"{ryw_found} / {ryw_acked}", ryw_acked > 0 and ryw_found == ryw_acked))
    return out


def render(res: dict[str, Any]) -> str:
    """The concurrency table and the target checks, in Markdown."""
    def f(v: float | None) -> str:
        return "—" if v is None else f"{v:.1f}"

    lines = [f"{res['clients']} SDK clients (one process each) on one `ctxnotes serve --http` (127.0.0.1), "
             f"{res['seeds']} seed notes, {res['calls_each']} calls each; a fresh server per load. "
             f"Load average after: {res.get('load_average', 0):.1f}.", "",
             "| load | calls/s | search p50 / p95 ms | create p50 / p95 ms | update p50 / p95 ms | "
             "read p50 / p95 ms | errors | RYW found / creates (check delay p95 ms) |",
             "|---|---|---|---|---|---|---|---|"]
    for key in LOADS:
        ld = res["loads"].get(key, {})
        if ld.get("error") and not ld.get("calls"):
            lines.append(f"| {LOAD_LABELS[key]} | failed: {ld['error']} | | | | | | |")
            continue
        cells = []
        for op in ("search", "create", "update", "read"):
            s = (ld.get("ops") or {}).get(op)
            cells.append("—" if not s or not s.get("n") else f"{f(s['p50'])} / {f(s['p95'])}")
        ryw = ld.get("ryw", {})
        ryw_cell = "—" if not ryw.get("creates_acked") else \
            f"{ryw['found']} / {ryw['creates_acked']} ({f(ryw['check_delay_ms'].get('p95'))})"
        lines.append(f"| {LOAD_LABELS[key]} | {f(ld.get('calls_per_s'))} | " + " | ".join(cells)
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
