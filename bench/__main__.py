"""ctxnotes benchmark suite: ``python -m bench`` (see ``python -m bench --help``).

Builds workspaces of tldr pages (1,000, 10,000 and 100,000 notes by default),
measures ctxnotes in process and over MCP stdio, several clients at once over
streamable HTTP (``--concurrency``), runs the peers (hello-agents' NoteTool,
basic-memory) in their own virtual environments at 10,000 notes at most, and
prints Markdown tables; the raw figures go to ``bench/results/bench-<time>.json``
(and ``.md``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

import anyio

from . import corpus as C
from . import report

RESULTS = Path(__file__).resolve().parent / "results"
DEFAULT_SCRATCH = Path(os.environ.get("CTXNOTES_BENCH_SCRATCH", "/tmp/ctxnotes-bench"))
PEERS = ("hello-agents", "basic-memory")
PEER_MAX_NOTES = 10000  # the peers index a few notes per second: they run at the largest size up to this


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    ap.add_argument("--data", help=f"shared data folder (default {C.DEFAULT_DATA})")
    ap.add_argument("--sizes", default="1000,10000,100000",
                    help="workspace sizes, comma-separated (default 1000,10000,100000)")
    ap.add_argument("--notes", type=int, help="one workspace size (overrides --sizes)")
    ap.add_argument("--repeat", type=int, default=3,
                    help="repetition scale: 3 = default counts; higher = more samples, slower")
    ap.add_argument("--quick", action="store_true",
                    help="a few hundred notes, no peers, no concurrency section; ~15 s")
    ap.add_argument("--concurrency", action="store_true",
                    help="only the concurrency section: 8 HTTP clients, three loads (issue 16)")
    ap.add_argument("--skip-concurrency", action="store_true", help="leave the concurrency section out")
    ap.add_argument("--skip-peers", action="store_true", help="measure ctxnotes only")
    ap.add_argument("--peers", default=",".join(PEERS), help=f"peers to run (default {','.join(PEERS)})")
    ap.add_argument("--skip-mcp", action="store_true", help="in-process figures only")
    ap.add_argument("--quality-queries", type=int, default=600,
                    help="description queries per language for search quality (default 600)")
    ap.add_argument("--peer-time", type=float, default=90.0,
                    help="time box in seconds for each slow peer phase (default 90)")
    ap.add_argument("--bm-notes", type=int, default=1000,
                    help="notes for basic-memory (it indexes ~6 notes/s; default 1000, the first of the same corpus)")
    ap.add_argument("--scratch", type=Path, default=DEFAULT_SCRATCH,
                    help=f"scratch folder for workspaces and peer venvs (default {DEFAULT_SCRATCH}; "
                         "or $CTXNOTES_BENCH_SCRATCH)")
    ap.add_argument("--out", type=Path, help="JSON result file (default bench/results/bench-<time>.json)")
    ap.add_argument("--md-out", type=Path, help="also write the Markdown report here")
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    data = C.data_dir(args.data)
    if data is None:
        print(f"not available: tldr pages not found under {args.data or C.DEFAULT_DATA} "
              f"(pass --data PATH to the shared data folder). Nothing measured.")
        return 0
    if args.concurrency:
        sizes = []
    elif args.quick:
        sizes = [args.notes or 300]
    elif args.notes:
        sizes = [args.notes]
    else:
        sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    run_peers = bool(sizes) and not (args.quick or args.skip_peers)
    scratch = args.scratch.resolve()
    scratch.mkdir(parents=True, exist_ok=True)
    started = time.time()

    def progress(msg: str) -> None:
        print(f"[{time.time() - started:6.1f}s] {msg}", file=sys.stderr, flush=True)

    from . import mcp_stdio, ours
    en, zh = C.load_pages(data)
    results: dict[str, Any] = {"started": time.strftime("%Y-%m-%dT%H:%M:%S"), "data": str(data),
                     "machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                                 "platform": platform.platform()},
                     "pages": {"en": len(en), "zh": len(zh)}, "sizes": {}, "part_seconds": {}, "args": vars(args) | {
                         "scratch": str(scratch), "out": str(args.out), "md_out": str(args.md_out)}}
    results["load_average"] = {"start": os.getloadavg()[0]}
    for n in sizes:
        t0 = time.time()
        notes = C.corpus(en, zh, n)
        ws_dir = scratch / f"ws-{n}"
        res = ours.run_inprocess(ws_dir, notes, data, repeat=args.repeat, quick=args.quick,
                                 quality_per_lang=min(args.quality_queries, 100) if args.quick
                                 else args.quality_queries, progress=progress)
        results["part_seconds"][f"{n} in process"] = time.time() - t0
        if not args.skip_mcp:
            t1 = time.time()
            res["mcp"] = mcp_stdio.run(ws_dir, notes, quick=args.quick, repeat=args.repeat, data=data,
                                       progress=progress)
            results["part_seconds"][f"{n} MCP stdio"] = time.time() - t1
        results["sizes"][n] = {"ours": res, "peers": {}}
        results["load_average"][f"after {n}"] = os.getloadavg()[0]
    floor_sizes = [n for n in sizes if n <= PEER_MAX_NOTES]
    if floor_sizes and not (args.quick or args.skip_mcp):
        from . import call_layers
        t0 = time.time()
        progress(f"[{max(floor_sizes)}] per-call floor breakdown")
        try:
            results["call_floor"] = anyio.run(call_layers.measure, scratch / f"ws-{max(floor_sizes)}", 200)
            results["call_floor"]["notes"] = max(floor_sizes)
        except Exception as exc:  # the server is being rewritten: report, don't crash the suite
            results["call_floor"] = {"error": f"{type(exc).__name__}: {exc}"}
        results["part_seconds"]["call floor"] = time.time() - t0
    if run_peers:
        from . import peers as P
        wanted = [p.strip() for p in args.peers.split(",") if p.strip()]
        peer_size = max([n for n in sizes if n <= PEER_MAX_NOTES] or [min(sizes)])
        notes = C.corpus(en, zh, peer_size)
        for name in wanted:
            t0 = time.time()
            progress(f"peer {name} at {peer_size} notes")
            results["sizes"][peer_size]["peers"][name] = P.run_peer(name, scratch, notes, data, args, progress)
            results["part_seconds"][f"peer {name}"] = time.time() - t0
    if args.concurrency or not (args.quick or args.skip_concurrency or args.skip_mcp):
        from . import concurrency as K
        t0 = time.time()
        results["concurrency"] = K.run(scratch, data, progress=progress)
        results["part_seconds"]["concurrency"] = time.time() - t0
    results["seconds"] = time.time() - started
    results["load_average"]["end"] = os.getloadavg()[0]

    md = render(results, sizes)
    print(md)
    RESULTS.mkdir(exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    out = args.out or RESULTS / f"bench-{'quick-' if args.quick else ''}{stamp}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=1, default=str, ensure_ascii=False), encoding="utf-8")
    out.with_suffix(".md").write_text(md + "\n", encoding="utf-8")
    if args.md_out:
        args.md_out.parent.mkdir(parents=True, exist_ok=True)
        args.md_out.write_text(md + "\n", encoding="utf-8")
    print(f"\nJSON: {out}")
    return 0


def render(results: dict[str, Any], sizes: list[int]) -> str:
    from . import concurrency as K
    load = ", ".join(f"{k} {v:.1f}" for k, v in results.get("load_average", {}).items())
    parts = [f"# ctxnotes benchmark ({results['started']}, {results['machine']['cpus']} cores, "
             f"Python {results['machine']['python']}, {results['seconds']:.0f} s)",
             "",
             f"1-minute load average: {load} (other work on this machine inflates every figure; "
             "compare runs at similar load).",
             "",
             "Time per part: " + ", ".join(f"{k} {v:.0f} s" for k, v in results.get("part_seconds", {}).items()),
             ""]
    if sizes:
        parts.append(
            f"Corpus: tldr pages ({results['pages']['en']} English, {results['pages']['zh']} Chinese), one note "
            "per page; half of the pages keep their first `>` description in the note (the \"kept\" query "
            "class), the other half lose it and it becomes a query whose right answer is that page (the "
            "\"removed\" class and the quality figure); pages reused with a `(copy k)` suffix beyond one of "
            "each. Query classes: descriptions removed / kept (en, zh), single words (en, zh), common words "
            "(alias pages' descriptions), long queries (description + 3 examples). Ratios: how many times "
            "better ctxnotes is (their time / ours, or our rate / theirs).")
    for n in sizes:
        entry = results["sizes"][n]
        with_targets = n in report.TARGETS
        parts += ["", f"## {n:,} notes", "", report.table(n, entry["ours"], entry["peers"], with_targets),
                  "", f"Search latency by query class at {n:,} notes:", "", report.latency_table(entry["ours"])]
        lines = report.notes_lines(entry["ours"], entry["peers"])
        if lines:
            parts += [""] + lines
    # A peer that ran on a smaller corpus (basic-memory is slow to index) is also compared with our
    # figures at that same size: like for like, not our 10k against their 1k.
    for size in sizes:
        for name, peer in results["sizes"][size]["peers"].items():
            n = peer.get("corpus_notes")
            if not peer.get("error") and n in results["sizes"] and n != size:
                parts += ["", f"## Like for like: {name} and ctxnotes at {n:,} notes", "",
                          report.table(n, results["sizes"][n]["ours"], {name: peer}, False)]
    if sizes:
        parts += ["", "## Summary for the README (issue 13 figures; ✓/✗ = target met/missed at that size)", "",
                  report.readme_table({n: results["sizes"][n]["ours"] for n in sizes})]
        checked = [n for n in sizes if n in report.TARGETS]
        if not checked:
            parts += ["", "Targets are defined at 10,000 and 100,000 notes; not checked in this run."]
        for n in checked:
            missed = report.missed(n, results["sizes"][n]["ours"])
            parts += ["", f"Targets missed at {n // 1000}k: " + (", ".join(missed) if missed else "none")]
    floor = results.get("call_floor")
    if floor:
        from . import call_layers
        parts += ["", f"## Per-call floor at {floor.get('notes', 0):,} notes (issue 13)", "",
                  f"not available: {floor['error']}" if floor.get("error") else call_layers.render(floor)]
    if results.get("concurrency"):
        parts += ["", "## Many clients, one server (streamable HTTP; issue 16)", "", K.render(results["concurrency"])]
    return "\n".join(parts)


if __name__ == "__main__":
    sys.exit(main())
