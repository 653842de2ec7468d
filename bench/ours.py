"""ctxnotes measured in process: cold index, reopen, search, quality, create/update, build_context."""

from __future__ import annotations

import gc
import os
import logging
import random
import shutil
from pathlib import Path
from typing import Any
from collections.abc import Callable

from . import corpus as C
from .stats import Timer, class_summaries, summary

log = logging.getLogger("bench")


def _rm_index(ws_dir: Path) -> None:
    shutil.rmtree(ws_dir / ".index", ignore_errors=True)


def prepare(ws_dir: Path, notes: list[C.CorpusNote]) -> None:
    """A fresh workspace folder with the notes' files and no index."""
    shutil.rmtree(ws_dir, ignore_errors=True)
    C.write_workspace(ws_dir, notes)


def cold_index(ws_dir: Path, n: int, reps: int) -> dict[str, Any]:
    from notes_store import open_workspace
    times = []
    for _ in range(reps):
        _rm_index(ws_dir)
        gc.collect()
        with Timer() as t:
            ws = open_workspace(ws_dir)
        count = ws.notes.list(limit=1).total  # public API: the catalogue's shape is the store's business
        ws.close()
        if count != n:
            raise RuntimeError(f"cold index found {count} notes, expected {n}")
        times.append(t.s)
    s = summary(times)
    return {"reps": reps, "seconds": s, "notes_per_s": {"p50": n / s["p50"], "worst": n / s["max"]}}


def reopen(ws_dir: Path, reps: int) -> dict[str, Any]:
    from notes_store import open_workspace
    times = []
    for _ in range(reps):
        gc.collect()
        with Timer() as t:
            ws = open_workspace(ws_dir)
        ws.close()
        times.append(t.s)
    return {"reps": reps, "seconds": summary(times)}


# Single queries worth watching by name (issue 13's worst case: 782 hits on the "some words" path).
PROBES = ("此命令为 `nm` 的别名。", "This command is an alias of `ls`.")


def probe_queries(ws: Any, rounds: int = 5) -> list[dict[str, Any]]:
    """Each probe's median ms, total, matched path and whether the total is a lower bound."""
    out = []
    for q in PROBES:
        times = []
        r = None
        for _ in range(rounds):
            with Timer() as t:
                r = ws.notes.search(q, limit=10)
            times.append(t.ms)
        assert r is not None
        out.append({"query": q, "ms": summary(times), "total": r.total, "hits": len(r.hits),
                    "matched": getattr(r, "matched", None),
                    "total_is_lower_bound": getattr(r, "total_is_lower_bound", None)})
    return out


def search_latency(ws: Any, queries: dict[str, list[str]], rounds: int) -> dict[str, Any]:
    """Per query class and overall: ms per ``ws.notes.search(q, limit=10)`` call."""
    for qs in queries.values():  # warm-up: one pass, not timed
        for q in qs[:5]:
            ws.notes.search(q, limit=10)
    samples: dict[str, list[float]] = {}
    for kind, qs in queries.items():
        times = samples[kind] = []
        for _ in range(rounds):
            for q in qs:
                with Timer() as t:
                    ws.notes.search(q, limit=10)
                times.append(t.ms)
    return class_summaries(samples)


def quality(ws: Any, notes: list[C.CorpusNote], per_lang: int) -> dict[str, Any]:
    """Share of description queries whose page (any copy) is in the top 10 / at rank 1."""
    page_of = {n.id: n.page.key for n in notes}
    out = {}
    for lang in ("en", "zh"):
        qs = C.description_queries(notes, lang, per_lang)
        top10 = top1 = 0
        for q, key in qs:
            hits = ws.notes.search(q, limit=10).hits
            keys = [page_of.get(h.note.id) for h in hits]
            top10 += key in keys
            top1 += bool(keys) and keys[0] == key
        out[lang] = {"queries": len(qs), "top10": top10 / len(qs) if qs else None,
                     "top1": top1 / len(qs) if qs else None}
    return out


def writes(ws: Any, notes: list[C.CorpusNote], creates: int, updates: int, seed: int = 5) -> dict[str, Any]:
    """Durable creates (fsync'd files) and updates of existing notes; notes/s includes the final index commit."""
    rng = random.Random(seed)
    sample = [notes[rng.randrange(len(notes))] for _ in range(creates)]
    os.sync()  # flush the corpus' dirty pages first: otherwise the fsyncs below pay for them
    ctimes = []
    created = []
    with Timer() as total:
        for i, n in enumerate(sample):
            with Timer() as t:
                note = ws.notes.create(f"{n.title} (bench new {i})", n.content, note_type="reference",
                                       tags=["bench", n.page.lang])
            ctimes.append(t.ms)
            created.append(note.id)
        ws.flush()
    c_rate = creates / total.s
    targets = [notes[rng.randrange(len(notes))].id for _ in range(updates)]
    utimes = []
    texts = C.iter_update_texts(updates)
    with Timer() as total_u:
        for nid in targets:
            text = next(texts)
            with Timer() as t:
                ws.notes.update(nid, content=text)
            utimes.append(t.ms)
        ws.flush()
    # Leave the workspace as it was for later figures: remove what we created.
    for nid in created:
        ws.notes.delete(nid)
    ws.flush()
    return {"create_ms": summary(ctimes), "create_per_s": c_rate,
            "update_ms": summary(utimes), "update_per_s": updates / total_u.s}


def _evidence_provider(ws: Any) -> tuple[Any, str]:
    try:
        from context.gather.workspace import WorkspaceEvidence  # the lead's adapter
    except ImportError as exc:
        return None, f"context.gather.workspace.WorkspaceEvidence not available ({exc})"
    return WorkspaceEvidence(ws), "WorkspaceEvidence(ws)"


def build_context_latency(ws: Any, data: Path, runs: int, turns: int = 600, budget: int = 2000) -> dict[str, Any]:
    try:
        from context import build_context
    except ImportError as exc:
        return {"error": f"not available: context.build_context ({exc})"}
    history, questions = C.locomo_history(data, turns)
    evidence, how = _evidence_provider(ws)
    out: dict[str, Any] = {"turns": len(history), "budget": budget, "evidence": how}

    def timed(fn: Callable[[str], object]) -> dict[str, Any]:
        with Timer() as t:
            fn(questions[0])
        cold = t.ms
        times = []
        for q in (questions * (runs // len(questions) + 1))[1:runs + 1]:
            with Timer() as t:
                fn(q)
            times.append(t.ms)
        return {"cold_ms": cold, "ms": summary(times)}

    out["history_only"] = timed(lambda q: build_context(q, history=history, max_tokens=budget))
    if evidence is None:
        out["error"] = f"not available: {how}"
    else:
        out["with_workspace"] = timed(lambda q: build_context(q, history=history, max_tokens=budget,
                                                              evidence=evidence))
    return out


def run_inprocess(ws_dir: Path, notes: list[C.CorpusNote], data: Path, *, repeat: int, quick: bool,
                  quality_per_lang: int, progress: Callable[[str], None]) -> dict[str, Any]:
    from notes_store import open_workspace
    n = len(notes)
    res: dict[str, Any] = {"notes": n}
    progress(f"[{n}] writing {n} note files")
    prepare(ws_dir, notes)
    # One cold build at 50k+ (minutes each); the MCP section measures a second one through the server.
    cold_reps = 1 if quick or n >= 50000 else max(1, (3 if n <= 2000 else 2) * repeat // 3)
    progress(f"[{n}] cold index x{cold_reps}")
    res["cold_index"] = cold_index(ws_dir, n, cold_reps)
    progress(f"[{n}] reopen with no changes")
    res["reopen"] = reopen(ws_dir, max(3, 5 * repeat // 3) if not quick else 2)
    ws = open_workspace(ws_dir)
    try:
        queries = C.latency_queries(notes, per_kind=10 if quick else 25)
        progress(f"[{n}] search latency")
        res["search"] = search_latency(ws, queries, rounds=1 if quick else max(1, 4 * repeat // 3))
        res["probes"] = probe_queries(ws, rounds=2 if quick else 5)
        times = []
        for _ in range(20):
            with Timer() as t:
                ws.notes.list(limit=10)
            times.append(t.ms)
        res["list_ms"] = summary(times)
        progress(f"[{n}] search quality")
        res["quality"] = quality(ws, notes, quality_per_lang)
        progress(f"[{n}] durable create/update")
        k = 20 if quick else max(50, 200 * repeat // 3)
        res["writes"] = writes(ws, notes, creates=k, updates=k)
        if (data / "locomo" / "conv-26.json").is_file():
            progress(f"[{n}] build_context")
            res["build_context"] = build_context_latency(ws, data, runs=5 if quick else max(20, 40 * repeat // 3))
        else:
            res["build_context"] = {"error": "not available: locomo/conv-26.json missing"}
    finally:
        ws.close()
    return res
