"""build_context on very long histories: time per call must grow about linearly (issue 17).

Short distinct turns (a generated statement log, repeated with distinct suffixes) at a large
budget, so thousands of turns are selected and checked for near-duplicates.

Run: python -m bench.context_scale [--turns 8000 20000] [--max-tokens 128000] [--runs 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from bench.devsets.statement_logs import generate_log
from context import build_context


def history_of(turns: int) -> list[dict]:
    out: list[dict] = []
    seed = 0
    while len(out) < turns:
        seed += 1
        for t in generate_log("en", seed).history:
            # Distinct numbers keep same-template turns apart (not near-duplicates of each other).
            out.append({"role": "user" if len(out) % 2 else "assistant",
                        "content": f"{t['content']} ref {len(out) * 7919 % 100003} batch {seed}",
                        "id": f"{t['id']}-{seed}"})
    return out[:turns]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--turns", type=int, nargs="+", default=[2000, 8000, 20000])
    ap.add_argument("--max-tokens", type=int, default=128_000)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args(argv)
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
