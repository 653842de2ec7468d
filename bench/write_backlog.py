"""Peak memory while a client writes faster than the index commits: ``--memories`` memory_add calls of 1 MiB
of never-seen words (each word a new term: the engine's slowest commit, the overlay's largest analysis).

Each run is a child process (its own peak RSS): the workspace as it is (commits of at most ``chunk_bytes``,
writers waiting past ``max_backlog``), and the baseline in the same run with both bounds lifted, as before
they existed. Prints per run: peak RSS, time until everything is committed, add latency and the overlay's
largest size.

Run: python -m bench.write_backlog [--memories 30] [--kib 1024] [--kind unique|words] [--no-baseline]
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time

from bench.memory_bulk import contents, ms


def run(n: int, kib: int, kind: str, unbounded: bool) -> None:
    from notes_store import open_workspace

    texts = contents(n, kib, kind)
    with tempfile.TemporaryDirectory(prefix="ctxnotes-backlog-") as tmp:
        ws = open_workspace(tmp)
        if unbounded:
            ws._batch.chunk_bytes = ws._batch.max_backlog = 1 << 40
        adds: list[float] = []
        most = 0
        start = time.perf_counter()
        for text in texts:
            t0 = time.perf_counter()
            ws.memory.add(text, memory_type="semantic")
            adds.append(time.perf_counter() - t0)
            most = max(most, ws.backlog[0])
        while ws.uncommitted:
            time.sleep(0.1)
        committed = time.perf_counter() - start
        ws.close()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    label = "baseline (no chunk, no backlog bound)" if unbounded else "ctxnotes"
    print(f"{label}: {n} memories of {kib} KiB ({kind}): peak RSS {rss:.0f} MB; all committed {committed:.1f} s "
          f"after the first add; overlay at most {most / 2**20:.1f} MiB; add {ms(adds)}", flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--memories", type=int, default=30)
    ap.add_argument("--kib", type=int, default=1024)
    ap.add_argument("--kind", choices=("unique", "words"), default="unique")
    ap.add_argument("--no-baseline", action="store_true")
    ap.add_argument("--child", choices=("ours", "baseline"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        run(args.memories, args.kib, args.kind, unbounded=args.child == "baseline")
        return 0
    common = ["--memories", str(args.memories), "--kib", str(args.kib), "--kind", args.kind]
    for child in ("ours",) + (() if args.no_baseline else ("baseline",)):
        subprocess.run([sys.executable, "-m", "bench.write_backlog", *common, "--child", child], check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
