"""Runner for basic-memory, executed with the peer venv's own interpreter (Python 3.12).

JSON in (stdin): {"project", "corpus_dir" (plain Markdown files), "project_dir" (fresh copy target),
"queries": {kind: [q]}, "quality": {"en": [[q, key]], ...}, "time_box": s, "writes": n,
"index_timeout": s}. The caller sets HOME, BASIC_MEMORY_CONFIG_DIR and the offline variables.
JSON out (stdout, last line): figures in the same shape as ctxnotes' results.
Standalone on purpose: it must not import the bench package or ctxnotes.
"""

from __future__ import annotations

import asyncio
import json
import math
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

BM = str(Path(sys.executable).with_name("bm"))


def summary(v: list[float]) -> dict[str, Any]:
    if not v:
        return {"n": 0, "p50": None, "p95": None, "min": None, "max": None}
    s = sorted(v)
    return {"n": len(s), "p50": statistics.median(s), "p95": s[max(1, math.ceil(0.95 * len(s))) - 1],
            "min": s[0], "max": s[-1]}


def bm(*args: str, timeout: float = 600) -> tuple[float, subprocess.CompletedProcess[str]]:
    t0 = time.perf_counter()
    p = subprocess.run([BM, *args], capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    return time.perf_counter() - t0, p


def key_of(result: dict[str, Any]) -> str | None:
    fp = result.get("file_path") or result.get("permalink") or ""
    stem = Path(fp).stem
    # ids: tldr_<lang>_<name>[_<copy>] ; keys: <lang>:<name> (any copy counts as the page)
    if not stem.startswith("tldr_"):
        return None
    return stem


async def in_process(job: dict[str, Any], out: dict[str, Any]) -> None:
    from basic_memory.mcp.tools import search_notes, write_note
    project = job["project"]
    page_key = job["page_key"]  # note id -> page key

    async def search(q: str) -> list[Any]:
        r = await search_notes(query=q, project=project, search_type="text", output_format="json", page_size=10)
        if isinstance(r, str):
            raise RuntimeError(r[:300])
        return list(r.get("results", []))

    # Warm-up (first search may wait for the background scan).
    t0 = time.perf_counter()
    await search("file")
    out["first_search_s"] = time.perf_counter() - t0
    box = float(job["time_box"])
    kinds = job["queries"]
    times: dict[str, list[float]] = {k: [] for k in kinds}
    t_start = time.perf_counter()
    for i in range(max(len(v) for v in kinds.values())):
        for k, qs in kinds.items():
            if i < len(qs):
                t0 = time.perf_counter()
                await search(qs[i])
                times[k].append((time.perf_counter() - t0) * 1000)
        if time.perf_counter() - t_start > box:
            break
    every = [x for v in times.values() for x in v]
    out["search"] = {k: summary(v) for k, v in times.items()} | {"all": summary(every)}
    out["quality"] = {}
    for lang, qs in job["quality"].items():
        top10 = top1 = asked = 0
        t_start = time.perf_counter()
        for q, key in qs:
            res = await search(q)
            keys = []
            for r in res:
                nid = key_of(r)
                k = page_key.get(nid) if nid else None
                if k not in keys:
                    keys.append(k)
            top10 += key in keys[:10]
            top1 += bool(keys) and keys[0] == key
            asked += 1
            if time.perf_counter() - t_start > box / 2:
                break
        out["quality"][lang] = {"queries": asked, "top10": top10 / asked if asked else None,
                                "top1": top1 / asked if asked else None}
    # Writes in process (write_note = create; overwrite=True of the same note = update).
    ctimes, utimes = [], []
    t_start = time.perf_counter()
    for i in range(job["writes"]):
        t0 = time.perf_counter()
        r = await write_note(title=f"bench write {i}", content=f"Benchmark note {i}: 基准测试 {i}.",
                             directory="bench", project=project, tags=["bench"], output_format="json")
        ctimes.append((time.perf_counter() - t0) * 1000)
        if isinstance(r, str) and "error" in r.lower()[:200]:
            out["notes"].append(f"write_note said: {r[:200]}")
            break
        if time.perf_counter() - t_start > box / 2:
            break
    t_start = time.perf_counter()
    for i in range(len(ctimes)):
        t0 = time.perf_counter()
        await write_note(title=f"bench write {i}", content=f"Updated benchmark note {i}.", directory="bench",
                         project=project, tags=["bench"], overwrite=True, output_format="json")
        utimes.append((time.perf_counter() - t0) * 1000)
        if time.perf_counter() - t_start > box / 2:
            break
    out["writes"] = {"create_ms": summary(ctimes), "create_per_s": 1000 / statistics.mean(ctimes) if ctimes else None,
                     "update_ms": summary(utimes), "update_per_s": 1000 / statistics.mean(utimes) if utimes else None}
    from basic_memory.index.local_schedulers import drain_background_tasks
    from basic_memory.index.note_content_materialization import drain_pending_materializations
    await drain_pending_materializations()
    await drain_background_tasks()
    from basic_memory import db
    shutdown = getattr(db, "shutdown_db", None)
    if shutdown:
        await shutdown()


def main() -> None:
    job = json.loads(sys.stdin.read())
    out: dict[str, Any] = {"notes": []}
    project, pdir = job["project"], Path(job["project_dir"])
    shutil.rmtree(pdir, ignore_errors=True)
    shutil.copytree(job["corpus_dir"], pdir)  # its sync rewrites the files: always a fresh copy
    n = len(list(pdir.glob("*.md")))
    s, p = bm("--version", timeout=120)
    out["cli_start_s"] = s
    s, p = bm("project", "add", "--no-wait", project, str(pdir), timeout=300)
    if p.returncode != 0:
        out["error"] = f"'bm project add' failed ({p.returncode}): {(p.stderr or p.stdout)[-400:]}"
        print(json.dumps(out))
        return
    try:
        s, p = bm("project", "index", project, timeout=float(job["index_timeout"]))
    except subprocess.TimeoutExpired:
        out["error"] = f"'bm project index' did not finish {n} notes within {job['index_timeout']:.0f} s"
        print(json.dumps(out))
        return
    if p.returncode != 0:
        out["error"] = f"'bm project index' failed ({p.returncode}): {(p.stderr or p.stdout)[-400:]}"
        print(json.dumps(out))
        return
    out["corpus_notes"] = n
    out["cold_index"] = {"seconds": {"p50": s}, "notes_per_s": {"p50": n / s}}
    out["index_output"] = (p.stdout + p.stderr)[-600:]
    re_times = []
    for _ in range(2):
        s, p = bm("project", "index", project, timeout=600)
        re_times.append(s)
    out["reopen"] = {"seconds": summary(re_times)}
    out["notes"].append(f"cold index = 'bm project index' on {n} fresh notes, one run; reopen = the same command "
                        f"with no changes (both include its CLI start, 'bm --version' takes {out['cli_start_s']:.1f} s)")
    out["notes"].append("in process = its MCP tool functions (search_notes with search_type='text', write_note; "
                        "overwrite=True as update) awaited in one event loop, as its CLI does")
    asyncio.run(in_process(job, out))
    print(json.dumps(out, default=str))


if __name__ == "__main__":
    main()
