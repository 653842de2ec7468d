"""CPU of one build_context call over a long history of words seen nowhere before (a hostile client).

Random lower-case "words" defeat every cache: each must be stemmed and analysed, and the history is more
than the text caches hold (4M characters), so the figure is the work one call can cost the server. It is
bounded by the input limits (16 MiB, 20,000 turns); this prints what the limits cost. The baseline, in the
same run: a child process with the two remedies undone (Whoosh's pure-Python Porter2 stemmer instead of
Snowball's C one, and no per-call memo, so each stage re-analyses the turns the caches evicted).

Run: python -m bench.hostile_history [--turns 100] [--words 5000] [--calls 2] [--no-baseline]
"""

from __future__ import annotations

import argparse
import random
import string
import subprocess
import sys
import time
from contextlib import contextmanager
from typing import Any

from context import build_context


def history(turns: int, words: int, seed: int = 5) -> list[dict[str, Any]]:
    rnd = random.Random(seed)
    letters = string.ascii_lowercase
    return [{"role": "user" if i % 2 else "assistant", "timestamp": "2026-01-01T00:00:00Z",
             "content": " ".join("".join(rnd.choice(letters) for _ in range(rnd.randint(3, 12)))
                                 for _ in range(words))} for i in range(turns)]


def undo_remedies() -> None:
    """The baseline: Porter2 in pure Python, and a call memo that keeps nothing."""
    from whoosh.lang.porter2 import stem

    import notes_store.analysis.analyzer as analysis
    import notes_store.bounded_cache as bounded_cache
    analysis._snowball_stem = stem

    @contextmanager
    def no_memo() -> Any:
        yield
    bounded_cache.call_memo = no_memo


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--turns", type=int, default=100)
    ap.add_argument("--words", type=int, default=5000, help="words per turn (each 3-12 letters)")
    ap.add_argument("--calls", type=int, default=2, help="calls over the same history")
    ap.add_argument("--no-baseline", action="store_true")
    ap.add_argument("--baseline", action="store_true", help="run as the baseline (remedies undone)")
    args = ap.parse_args()
    label = "baseline: Porter2 in Python, no call memo" if args.baseline else "ctxnotes"
    if args.baseline:
        undo_remedies()
    turns = history(args.turns, args.words)
    chars = sum(len(t["content"]) for t in turns)
    for call in range(args.calls):
        t0 = time.process_time()
        build_context("what did we decide about the kayak club deploy plan", history=turns, max_tokens=2000)
        print(f"{label}: {args.turns} turns, {chars / 1e6:.2f} M characters of new words, call {call + 1}: "
              f"{time.process_time() - t0:.1f} s CPU", flush=True)
    if not args.baseline and not args.no_baseline:
        subprocess.run([sys.executable, "-m", "bench.hostile_history", "--baseline", "--turns", str(args.turns),
                        "--words", str(args.words), "--calls", str(args.calls)], check=True)


if __name__ == "__main__":
    main()
