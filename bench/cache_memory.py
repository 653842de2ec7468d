"""Memory of build_context under a client that sends new text on every call.

Every call passes a fresh history of random words (nothing repeats, so every cache misses and every
analysed text is new). The caches are bounded in characters (notes_store/bounded_cache.py), so the
process's resident memory levels off; the figure to watch is the growth over the second half of the
calls. The baseline, in the same run: a child process doing the same with the caches' character bounds
lifted (entry bounds only, as functools.lru_cache had them). The default sends ~2.2 MB per call.

Run: python -m bench.cache_memory [--calls 14] [--turns 20] [--words 11000] [--no-baseline]
"""

from __future__ import annotations

import argparse
import gc
import random
import subprocess
import sys
import time

from bench.stats import vm_rss_mb
from context import build_context
from notes_store.bounded_cache import ALL_CACHES

VOCABULARY = ("alpha", "beta", "gamma", "delta", "pasta", "hiking", "uncle", "boss", "travel", "garden")


def resident_mb() -> float:
    """Resident set size now, in MB (0 where /proc is missing)."""
    return vm_rss_mb() or 0.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=14)
    ap.add_argument("--turns", type=int, default=20)
    ap.add_argument("--words", type=int, default=11000, help="words per turn (each ~12 characters)")
    ap.add_argument("--no-baseline", action="store_true", help="skip the run with unbounded caches")
    ap.add_argument("--unbounded", action="store_true", help=argparse.SUPPRESS)  # the baseline's child
    args = ap.parse_args()
    label = "caches bounded by entries only (baseline)" if args.unbounded else "caches bounded in characters"
    print(label, flush=True)
    if args.unbounded:
        build_context("warm up", history=[{"role": "user", "content": "every cache made"}], max_tokens=200)
        for cache in list(ALL_CACHES):
            cache.max_size = 10**15
    rnd = random.Random(1)
    start = resident_mb()
    after: list[float] = []
    for call in range(args.calls):
        history = [{"role": "user", "content": " ".join(rnd.choice(VOCABULARY) + str(rnd.randrange(10**6))
                                                       for _ in range(args.words))} for _ in range(args.turns)]
        sent = sum(len(t["content"]) for t in history)
        t0 = time.perf_counter()
        build_context("what about pasta and my uncle?", history=history, max_tokens=2000)
        elapsed = time.perf_counter() - t0
        del history
        gc.collect()
        after.append(resident_mb())
        print(f"call {call + 1:3}: {sent / 1e6:.1f} MB sent, {elapsed:5.1f} s, resident {after[-1]:7.0f} MB", flush=True)
    half = len(after) // 2
    first = after[0] - start
    late = after[-1] - after[half - 1] if half else 0.0
    print(f"{label}: first call kept {first:.0f} MB; calls {half + 1}-{len(after)} kept {late:+.0f} MB more "
          f"({late / max(1, len(after) - half):+.1f} MB per call), resident at the end {after[-1]:.0f} MB\n", flush=True)
    if not args.unbounded and not args.no_baseline:
        subprocess.run([sys.executable, "-m", "bench.cache_memory", "--unbounded", "--calls", str(args.calls),
                        "--turns", str(args.turns), "--words", str(args.words)], check=True)


if __name__ == "__main__":
    main()
