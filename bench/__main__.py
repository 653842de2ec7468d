"""ctxnotes benchmark suite: ``python -m bench`` (see ``python -m bench --help``).

Builds workspaces of tldr pages (1,000 and 10,000 notes by default), measures
ctxnotes in process and over MCP stdio, runs the peers (hello-agents' NoteTool,
basic-memory) in their own virtual environments, and prints a Markdown table;
the raw figures go to ``bench/results/bench-<time>.json`` (and ``.md``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

from . import corpus as C
from . import report

RESULTS = Path(__file__).resolve().parent / "results"
DEFAULT_SCRATCH = Path(os.environ.get("CTXNOTES_BENCH_SCRATCH", "/tmp/ctxnotes-bench"))
PEERS = ("hello-agents", "basic-memory")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    ap.add_argument("--data", help=f"shared data folder (default {C.DEFAULT_DATA})")
    ap.add_argument("--sizes", default="1000,10000", help="workspace sizes, comma-separated (default 1000,10000)")
    ap.add_argument("--notes", type=int, help="one workspace size (overrides --sizes)")
    ap.add_argument("--repeat", type=int, default=3,
                    help="repetition scale: 3 = default counts; higher = more samples, slower")
    ap.add_argument("--quick", action="store_true", help="a few hundred notes, no peers, a few seconds")
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
    if args.quick:
        sizes = [args.notes or 300]
    elif args.notes:
        sizes = [args.notes]
    else:
        sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    run_peers = not (args.quick or args.skip_peers)
    scratch = args.scratch.resolve()
    scratch.mkdir(parents=True, exist_ok=True)
    started = time.time()

    def progress(msg: str) -> None:
        print(f"[{time.time() - started:6.1f}s] {msg}", file=sys.stderr, flush=True)

    from . import mcp_stdio, ours
    en, zh = C.load_pages(data)
    results: dict = {"started": time.strftime("%Y-%m-%dT%H:%M:%S"), "data": str(data),
                     "machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                                 "platform": platform.platform()},
                     "pages": {"en": len(en), "zh": len(zh)}, "sizes": {}, "args": vars(args) | {
                         "scratch": str(scratch), "out": str(args.out), "md_out": str(args.md_out)}}
    results["load_average"] = {"start": os.getloadavg()[0]}
    for n in sizes:
        notes = C.corpus(en, zh, n)
        ws_dir = scratch / f"ws-{n}"
        res = ours.run_inprocess(ws_dir, notes, data, repeat=args.repeat, quick=args.quick,
                                 quality_per_lang=min(args.quality_queries, 100) if args.quick
                                 else args.quality_queries, progress=progress)
        if not args.skip_mcp:
            res["mcp"] = mcp_stdio.run(ws_dir, notes, quick=args.quick, repeat=args.repeat, progress=progress)
        results["sizes"][n] = {"ours": res, "peers": {}}
        results["load_average"][f"after {n}"] = os.getloadavg()[0]
    if run_peers:
        from . import peers as P
        wanted = [p.strip() for p in args.peers.split(",") if p.strip()]
        big = max(sizes)
        notes = C.corpus(en, zh, big)
        for name in wanted:
            progress(f"peer {name}")
            results["sizes"][big]["peers"][name] = P.run_peer(name, scratch, notes, data, args, progress)
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


def render(results: dict, sizes: list[int]) -> str:
    load = ", ".join(f"{k} {v:.1f}" for k, v in results.get("load_average", {}).items())
    parts = [f"# ctxnotes benchmark ({results['started']}, {results['machine']['cpus']} cores, "
             f"Python {results['machine']['python']}, {results['seconds']:.0f} s)",
             "",
             f"1-minute load average: {load} (other work on this machine inflates every figure; "
             "compare runs at similar load).",
             "",
             f"Corpus: tldr pages ({results['pages']['en']} English, {results['pages']['zh']} Chinese), "
             "one note per page, the first `>` description removed from the note and used as a query; "
             "pages reused with a `(copy k)` suffix beyond one of each. Latency: p50/p95 over all calls "
             "(queries: 25 each of English/Chinese descriptions and single words). Ratios: how many times "
             "better ctxnotes is (their time / ours, or our rate / theirs)."]
    big = max(sizes)
    for n in sizes:
        entry = results["sizes"][n]
        with_targets = n == big and n >= 10000
        parts += ["", f"## {n:,} notes", "", report.table(n, entry["ours"], entry["peers"], with_targets)]
        lines = report.notes_lines(entry["ours"], entry["peers"])
        if lines:
            parts += [""] + lines
    # A peer that ran on a smaller corpus (basic-memory is slow to index) is also compared with our
    # figures at that same size: like for like, not our 10k against their 1k.
    for name, peer in results["sizes"][big]["peers"].items():
        n = peer.get("corpus_notes")
        if not peer.get("error") and n in results["sizes"] and n != big:
            parts += ["", f"## Like for like: {name} and ctxnotes at {n:,} notes", "",
                      report.table(n, results["sizes"][n]["ours"], {name: peer}, False)]
    if big < 10000:
        parts += ["", f"Targets are defined at 10,000 notes; this run's largest size is {big:,}: not checked."]
    else:
        ours = results["sizes"][big]["ours"]
        missed = [label for key, label, *_r in report.ROWS
                  if key in report.TARGETS and "MISS" in report.check(key, _rows(ours).get(key))]
        parts += ["", "Targets missed at 10k: " + (", ".join(missed) if missed else "none")]
    return "\n".join(parts)


def _rows(res: dict) -> dict:
    return {key: get(res) for key, _l, _u, _b, get in report.ROWS}


if __name__ == "__main__":
    sys.exit(main())
