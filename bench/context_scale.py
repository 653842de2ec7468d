"""build_context on very long histories: time per call must grow about linearly (issue 17).

Short distinct turns (a generated statement log, repeated with distinct suffixes) at a large
budget, so thousands of turns are selected and checked for near-duplicates.

Run: python -m bench.context_scale [--turns 8000 20000] [--max-tokens 128000] [--runs 3]
     python -m bench.context_scale --workspace-notes 10000   # p50/p95/p99 with 10k notes + 600 turns
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from bench.devsets.model import Turn
from bench.devsets.statement_logs import generate_log
from context import build_context


def history_of(turns: int) -> list[Turn]:
    out: list[Turn] = []
    seed = 0
    while len(out) < turns:
        seed += 1
        for t in generate_log("en", seed).history:
            # Distinct numbers keep same-template turns apart (not near-duplicates of each other).
            out.append({"role": "user" if len(out) % 2 else "assistant",
                        "content": f"{t['content']} ref {len(out) * 7919 % 100003} batch {seed}",
                        "id": f"{t['id']}-{seed}"})
    return out[:turns]


def workspace_latency(notes: int, runs: int, scratch: Path) -> int:
    """build_context with a workspace of ``notes`` tldr notes as evidence and conv-26's first 600 turns."""
    from bench import corpus as C
    from bench.ours import prepare
    from context.gather.workspace import WorkspaceEvidence
    from notes_store import open_workspace
    data = C.data_dir(None)
    if data is None:
        print("shared data not found: nothing measured")
        return 0
    en, zh = C.load_pages(data)
    ws_dir = scratch / f"ws-{notes}"
    if not (ws_dir / "notes").is_dir():
        prepare(ws_dir, C.corpus(en, zh, notes))
    ws = open_workspace(ws_dir)
    try:
        ws.notes.search("warm up the index", limit=5)
        history, questions = C.locomo_history(data, 600)
        evidence = WorkspaceEvidence(ws)
        # Python datetimes (the turn cache takes str/None values only, so every call gathers every turn),
        # then the same turns as an MCP client sends them: ISO strings, which the turn cache keeps.
        for label, hist in (("datetime timestamps", history), ("ISO-string timestamps, as JSON sends them",
                                                               [C.as_sent(t) for t in history])):
            times = []
            for q in (questions * (runs // len(questions) + 2))[:runs + 1]:
                t0 = time.perf_counter()
                build_context(q, history=hist, max_tokens=2000, evidence=evidence)
                times.append((time.perf_counter() - t0) * 1000)
            first, times = times[0], sorted(times[1:])
            p50, p95, p99 = (times[min(len(times) - 1, int(p * (len(times) - 1) + 0.5))] for p in (0.5, 0.95, 0.99))
            print(f"build_context, {notes:,} notes + {len(hist)} turns ({label}), max_tokens 2,000, "
                  f"{len(times)} runs: first {first:.1f} ms; p50 {p50:.1f} ms, p95 {p95:.1f} ms, p99 {p99:.1f} ms")
    finally:
        ws.close()
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--workspace-notes", type=int, help="measure with a workspace of this many notes instead")
    ap.add_argument("--scratch", type=Path, default=Path("/tmp/ctxnotes-bench"))
    ap.add_argument("--turns", type=int, nargs="+", default=[2000, 8000, 20000])
    ap.add_argument("--max-tokens", type=int, default=128_000)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args(argv)
    if args.workspace_notes:
        return workspace_latency(args.workspace_notes, max(args.runs, 40), args.scratch)
    print(f"build_context, max_tokens {args.max_tokens:,}, {args.runs} runs each (wall time, ms)")
    base = None
    for n in args.turns:
        hist = history_of(n)
        times = []
        for _ in range(args.runs):
            t0 = time.perf_counter()
            res = build_context("What does my uncle do for a living?", history=hist,
                                max_tokens=args.max_tokens, include_notes=False, include_memory=False)
            times.append((time.perf_counter() - t0) * 1000)
        med = statistics.median(times)
        base = base or (n, med)
        print(f"  {n:>6,} turns: median {med:8.0f}  max {max(times):8.0f}   "
              f"{len(res.selected):,} selected, {res.tokens:,} tokens; "
              f"per turn {med / n:.3f} ms ({med / base[1] / (n / base[0]):.2f}x the first size's per-turn cost)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
