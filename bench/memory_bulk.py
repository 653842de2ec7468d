"""Latency of memory_add and memory_search while a burst of memories at the content limit waits to be committed.

A hostile (or careless) client adds ``--memories`` memories of ``--kib`` KiB each, back to back; the index
commits them in the background. Measured in process, through the library (``ws.memory``):

* each add (the call's wall time);
* the first search after the burst, and ``--searches`` more, while the writes may still be uncommitted;
* another client (a thread) that searches and adds a small memory every 50 ms from the first add until the
  index has committed everything: what it sees meanwhile (a big add holds the workspace's write lock while
  it analyses its text);
* closing the workspace (it commits whatever is still pending), and the process's peak RSS.

The baseline, in the same run: a child process with the remedy undone (each write is analysed by the first
search that meets it, in that search's call, and again by the commit), as before the write batch kept one
analysis per write, and ASCII text took the general path of the analysis. ``--kind words`` draws from a 5,000-word vocabulary (prose-like: few distinct terms per
memory); ``--kind unique`` writes never-seen words (every word a new term: the engine's commit is the cost).

Run: python -m bench.memory_bulk [--memories 40] [--kib 1024] [--kind words|unique] [--alone] [--no-baseline]
"""

from __future__ import annotations

import argparse
import random
import resource
import string
import subprocess
import sys
import tempfile
import threading
import time

from bench.stats import summary


def contents(n: int, kib: int, kind: str, seed: int = 7) -> list[str]:
    rnd = random.Random(seed)
    letters = string.ascii_lowercase
    vocab = ["".join(rnd.choice(letters) for _ in range(rnd.randint(3, 9))) for _ in range(5000)]
    limit = kib * 1024 - 32
    out = []
    for i in range(n):
        words: list[str] = []
        size = 0
        while size < limit:
            word = rnd.choice(vocab) if kind == "words" else "".join(rnd.choice(letters) for _ in range(8))
            words.append(word)
            size += len(word) + 1
        out.append(f"bulkneedle{i} " + " ".join(words)[:limit])
    return out


def undo_remedy() -> None:
    """The baseline: no analysis when a write is registered; the first search that meets it analyses it, and the
    commit analyses it again (the analysis is not registered for it); ASCII text takes the general path."""
    import notes_store.analysis.analyzer as analysis
    import notes_store.memory.store as memory
    import notes_store.index.write_batch as wb

    analysis._ascii_positions = analysis._any_positions

    class LazyPending(wb.Pending):
        @property
        def terms(self) -> dict[str, list[int]]:
            if self.analysis is None and self.entry is not None:
                self.analysis = wb.Analysis(self.entry)
            return self.analysis.terms if self.analysis is not None else {}

        @property
        def length(self) -> int:
            return sum(len(p) for p in self.terms.values())

    wb.Pending = LazyPending  # type: ignore[misc]
    wb.analyse = lambda entry: None  # type: ignore[assignment,return-value]
    memory.analyse = wb.analyse  # type: ignore[attr-defined]


def ms(values: list[float]) -> str:
    s = summary([v * 1000 for v in values])
    if not s["n"]:
        return "n=0"
    return f"p50 {s['p50']:.0f} ms, p95 {s['p95']:.0f} ms, max {s['max']:.0f} ms (n={s['n']})"


def run(label: str, texts: list[str], searches: int, other_client: bool = True) -> None:
    from notes_store import open_workspace

    with tempfile.TemporaryDirectory(prefix="ctxnotes-bulk-") as tmp:
        ws = open_workspace(tmp)
        reader_times: list[float] = []
        small_adds: list[float] = []
        stop = threading.Event()

        def reader() -> None:
            while not stop.is_set():
                t0 = time.perf_counter()
                ws.memory.search("bulkneedle3 deploy", touch=False)
                t1 = time.perf_counter()
                ws.memory.add("a small fact from another client", memory_type="episodic")
                reader_times.append(t1 - t0)
                small_adds.append(time.perf_counter() - t1)
                stop.wait(0.05)

        thread = threading.Thread(target=reader, daemon=True)
        adds = []
        start = time.perf_counter()
        if other_client:
            thread.start()
        for text in texts:
            t0 = time.perf_counter()
            ws.memory.add(text, memory_type="semantic")
            adds.append(time.perf_counter() - t0)
        pending_after_adds = ws.uncommitted
        t0 = time.perf_counter()
        first = ws.memory.search("bulkneedle5", touch=False)
        first_s = time.perf_counter() - t0
        assert [(h.memory.content or "")[:12] for h in first.hits] == ["bulkneedle5 "], "the burst's memory is found"
        later = []
        for i in range(searches):
            t0 = time.perf_counter()
            ws.memory.search(f"bulkneedle{i % len(texts)}", touch=False)
            later.append(time.perf_counter() - t0)
        while ws.uncommitted and time.perf_counter() - start < 600:
            time.sleep(0.05)
        committed_s = time.perf_counter() - start
        stop.set()
        if other_client:
            thread.join()
        t0 = time.perf_counter()
        ws.close()
        close_s = time.perf_counter() - t0
    mb = len(texts[0].encode()) / 2**20
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{label}: {len(texts)} memories of {mb:.2f} MiB, {pending_after_adds} uncommitted after the adds", flush=True)
    print(f"  add: {ms(adds)}, {sum(adds):.1f} s in all")
    print(f"  first search after the adds: {first_s * 1000:.0f} ms; then {ms(later)}")
    print(f"  another client meanwhile: search {ms(reader_times)}; small add {ms(small_adds)}")
    print(f"  all committed {committed_s:.1f} s after the first add; close {close_s * 1000:.0f} ms; "
          f"peak RSS {rss:.0f} MB", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--memories", type=int, default=40)
    ap.add_argument("--kib", type=int, default=1024, help="size of each memory (1024: the default content limit)")
    ap.add_argument("--kind", choices=("words", "unique"), default="words")
    ap.add_argument("--searches", type=int, default=5)
    ap.add_argument("--alone", action="store_true", help="no other client during the burst: the first search "
                    "after it meets every uncommitted write")
    ap.add_argument("--no-baseline", action="store_true")
    ap.add_argument("--baseline", action="store_true", help="run as the baseline (remedy undone)")
    args = ap.parse_args()
    if args.baseline:
        undo_remedy()
    texts = contents(args.memories, args.kib, args.kind)
    run("baseline: analysed by the first search and again by the commit" if args.baseline
        else "ctxnotes: analysed once, by the add", texts, args.searches, not args.alone)
    if not args.baseline and not args.no_baseline:
        subprocess.run([sys.executable, "-m", "bench.memory_bulk", "--baseline", "--memories", str(args.memories),
                        "--kib", str(args.kib), "--kind", args.kind, "--searches", str(args.searches),
                        *(["--alone"] if args.alone else [])], check=True)


if __name__ == "__main__":
    main()
