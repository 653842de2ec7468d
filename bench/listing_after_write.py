"""The first note listing after a note write, at 30k and 100k notes (catalogue rows in memory, as a server has them).

A write changes one row; the listing's cached order is stepped (the old row found and the new one placed by
binary search). The baseline in the same run sorts every row again (``STEP_AT_MOST = 0``), as before. Each
figure: one row rewritten with a new ``updated_at``, then ``note_list``'s sorted rows (updated_desc), 40 times.

Run: python -m bench.listing_after_write [--notes 30000 100000] [--runs 40]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from bench.stats import summary
from notes_store.index import catalogue
from notes_store.index.catalogue import Catalogue, Entry
from notes_store.notes import _sort_key


def _row(root: Path, i: int, updated: str) -> Entry:
    return Entry(f"notes/n{i}.md", "note", root, i, i,
                 {"id": f"n{i}", "title": f"t{i}", "updated_at": updated, "created_at": "2026-01-01T00:00:00"})


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--notes", type=int, nargs="+", default=[30000, 100000])
    ap.add_argument("--runs", type=int, default=40)
    args = ap.parse_args(argv)
    root = Path(tempfile.mkdtemp(prefix="ctxnotes-listing-"))
    key = _sort_key("updated_desc")
    step_at_most = catalogue.STEP_AT_MOST
    for n in args.notes:
        cat = Catalogue()
        for i in range(n):
            cat[f"notes/n{i}.md"] = _row(root, i, f"2026-01-01T{i // 3600 % 24:02d}:{i // 60 % 60:02d}:{i % 60:02d}")
        for label, limit in (("baseline: sort every row", 0), ("stepped from the cached order", step_at_most)):
            catalogue.STEP_AT_MOST = limit
            cat.sorted_entries("note", key, "updated", True)
            times = []
            for j in range(args.runs):
                cat[f"notes/n{j * 7919 % n}.md"] = _row(root, j * 7919 % n, f"2026-02-01T00:00:{j % 60:02d}.{j:03d}")
                t0 = time.perf_counter()
                rows = cat.sorted_entries("note", key, "updated", True)
                times.append((time.perf_counter() - t0) * 1000)
            assert rows == sorted(cat.entries("note"), key=key, reverse=True)
            s = summary(times)
            print(f"{n:>7} notes, listing after a write, {label}: p50 {s['p50']:.2f} ms, p95 {s['p95']:.2f} ms, "
                  f"p99 {s['p99']:.2f} ms", flush=True)
    catalogue.STEP_AT_MOST = step_at_most
    return 0


if __name__ == "__main__":
    sys.exit(main())
