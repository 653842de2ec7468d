"""Note id completion per keystroke (MCP ``completion/complete`` on ``note://{note_id}``), against the
plain scan it replaced, in the same run.

    python -m bench.completion                    # 30,000 notes
    python -m bench.completion --notes 100000 --baseline-runs 1

A workspace of ``--notes`` notes is written once under ``--scratch`` (``completion-<N>``) and reused:
ids in the store's form (``note_<created>_<8 hex>``: every id starts with "note_2025"), titles from
the tldr pages (``bench.corpus``; generated words without ``--data``), updated over a year. Values
typed: id prefixes of 0, 1, 2, 3, 6, 11 and 16 characters, and title-word prefixes of 1, 2, 3 and 6.

- **index**: ``server.completions.complete_note_ids`` (what the server answers with), its memo of
  answers cleared before every call: each figure is the first time that value is asked in a generation;
- **scan**: ``_answer(match_notes(notes.headers(), value))``, the code before the index, timed on the
  same values in turn with the index (``--baseline-runs`` times; an id prefix every id starts with
  costs it seconds at 30k, its ``not in by_id`` being quadratic); every answer of both is checked equal;
- **mcp**: the index through an in-memory SDK session (``Client(create_server(...))``, the workspace
  opened and watched as ``ctxnotes serve`` does);
- after a ``note_update`` (of a note a third of the way down the list, its index commit flushed): one
  keystroke, which makes the next generation of the index (stepped from the previous one) after the
  catalogue's own re-sort; the first keystroke after opening (the whole index, every row's front matter
  parsed) and the index's memory (tracemalloc) are printed once.

Prints one Markdown table (ms) and the 1-minute load average: the machine may be shared.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import os
import random
import sys
import time
import tracemalloc
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from bench.stats import summary

ID_LENGTHS = (0, 1, 2, 3, 6, 11, 16)
WORD_LENGTHS = (1, 2, 3, 6)
FILLER = ("backup", "config", "deploy", "network", "archive", "convert", "monitor", "process", "install", "remote")


def write_workspace(root: Path, notes: int, data: str | None) -> None:
    """``notes`` note files (as the store writes them), without an index; ids in the store's form."""
    from notes_store.files.front_matter import dump_document, titled_body

    from . import corpus as C

    rng = random.Random(5)
    folder = root / "notes"
    folder.mkdir(parents=True, exist_ok=True)
    pages = C.data_dir(data)
    items: list[tuple[str, str, list[str]]]
    if pages is not None:
        en, zh = C.load_pages(pages)
        items = [(c.title, c.content, [*c.tags, c.page.name[:3]]) for c in C.corpus(en, zh, notes)]
    else:
        items = [(" ".join(rng.sample(FILLER, 3)) + f" {i}", "generated", ["gen"]) for i in range(notes)]
    start = datetime(2025, 1, 1, tzinfo=timezone.utc)
    for title, content, tags in items:
        created = start + timedelta(seconds=rng.randrange(365 * 86400))
        updated = created + timedelta(seconds=rng.randrange(30 * 86400))
        note_id = f"note_{created:%Y%m%d_%H%M%S}_{rng.getrandbits(32):08x}"
        meta = {"id": note_id, "title": title, "type": "reference", "tags": tags,
                "created_at": created.isoformat(), "updated_at": updated.isoformat()}
        (folder / f"{note_id}.md").write_bytes(dump_document(meta, titled_body(title, content)))


def values_to_type(ws: Any, seed: int = 3) -> dict[tuple[str, int], list[str]]:
    """Distinct values per (kind, length): prefixes of 12 ids and of 12 title words (6+ letters)."""
    rng = random.Random(seed)
    rows = sorted(ws.catalogue.entries("note"), key=lambda r: r.key)
    ids = sorted(r.id for r in rows)
    titles = [r.fields()["title"] for r in rng.sample(rows, min(400, len(rows)))]
    words = sorted({w for t in titles for w in t.lower().split() if w.isalpha() and len(w) >= 6})
    words = rng.sample(words, min(12, len(words)))
    out: dict[tuple[str, int], list[str]] = {}
    for length in ID_LENGTHS:
        out[("id", length)] = sorted({i[:length] for i in rng.sample(ids, min(12, len(ids)))})
    for length in WORD_LENGTHS:
        out[("title", length)] = sorted({w[:length] for w in words})
    return out


def _timed(fn: Callable[[], Any]) -> float:
    started = time.perf_counter()
    fn()
    return (time.perf_counter() - started) * 1000


def measure_library(ws: Any, cases: dict[tuple[str, int], list[str]], runs: int,
                    baseline_runs: int) -> dict[tuple[str, int], dict[str, list[float]]]:
    """Index and scan on the same values, alternating; answers checked equal once per value."""
    import server.completions as comp

    answers: dict[str, list[Any]] = {}

    def index(value: str) -> None:
        answers.setdefault(value, []).append(comp.complete_note_ids(ws.notes, value))

    def scan(value: str) -> None:
        answers.setdefault(value, []).append(comp._answer(comp.match_notes(ws.notes.headers(), value)))

    out: dict[tuple[str, int], dict[str, list[float]]] = {}
    for case, values in cases.items():
        times: dict[str, list[float]] = {"index": [], "scan": []}
        for run in range(max(runs, baseline_runs)):
            for value in values:
                if run < runs:
                    ws.notes.completions()._answers.clear()
                    times["index"].append(_timed(functools.partial(index, value)))
                if run < baseline_runs:
                    times["scan"].append(_timed(functools.partial(scan, value)))
        out[case] = times
    for value, got in answers.items():  # every answer, index's and scan's, the same
        assert len({(a.total, a.has_more, tuple(a.values)) for a in got}) == 1, value
    return out


def measure_after_write(ws: Any, rounds: int) -> dict[str, list[float]]:
    """A note updated, then one keystroke ("gi"): the index steps to the next generation; the scan as ever."""
    import server.completions as comp

    note = ws.notes.list(limit=1, offset=len(ws.catalogue) // 3).notes[0]
    out: dict[str, list[float]] = {"index": [], "scan": []}
    for i in range(rounds):
        ws.notes.update(note.id, title=f"{note.title} {i}")
        ws.flush()  # the write's index commit now, not in the background while the keystroke is timed
        out["index"].append(_timed(lambda: comp.complete_note_ids(ws.notes, "gi")))
        ws.notes.update(note.id, title=f"{note.title} {i}b")
        ws.flush()
        out["scan"].append(_timed(lambda: comp._answer(comp.match_notes(ws.notes.headers(), "gi"))))
    ws.notes.update(note.id, title=note.title)
    return out


async def measure_mcp(root: Path, cases: dict[tuple[str, int], list[str]], runs: int) -> dict[tuple[str, int], list[float]]:
    from mcp import Client
    from mcp_types import ResourceTemplateReference

    from notes_store import open_workspace
    from server.app import create_server
    from server.state import WorkspaceHandle

    def opener(path: Path) -> Any:
        ws = open_workspace(path)
        ws.start_watching()
        return ws

    handle = WorkspaceHandle(root, opener=opener)
    ref = ResourceTemplateReference(type="ref/resource", uri="note://{note_id}")
    out: dict[tuple[str, int], list[float]] = {}
    try:
        async with Client(create_server(root, handle=handle), mode="legacy") as c:
            await c.complete(ref, {"name": "note_id", "value": ""})
            for case, values in cases.items():
                times: list[float] = []
                for _ in range(runs):
                    for value in values:
                        handle.get().notes.completions()._answers.clear()
                        started = time.perf_counter()
                        await c.complete(ref, {"name": "note_id", "value": value})
                        times.append((time.perf_counter() - started) * 1000)
                out[case] = times
    finally:
        handle.close()
    return out


def _cell(times: list[float]) -> str:
    s = summary(times)
    if not s["n"]:
        return "-"
    return f"{s['p50']:.2f} / {s['p95']:.2f} / {s['p99']:.2f}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--notes", type=int, default=30000)
    ap.add_argument("--scratch", type=Path, default=Path(os.environ.get("CTXNOTES_BENCH_SCRATCH", "/tmp/ctxnotes-bench")))
    ap.add_argument("--data", default=None, help="the shared data folder (tldr pages); default ../shared/data")
    ap.add_argument("--runs", type=int, default=10, help="timed asks of each value by the index")
    ap.add_argument("--baseline-runs", type=int, default=2,
                    help="timed asks of each value by the old scan, whose answers are checked against the index's "
                         "(0: no scan; at 100k an id prefix every id starts with costs the scan minutes)")
    ap.add_argument("--write-rounds", type=int, default=10)
    args = ap.parse_args(argv)

    from notes_store import open_workspace
    from notes_store.index.completion import NoteCompletions
    from notes_store.notes import _sort_key

    root = args.scratch / f"completion-{args.notes}"
    if not (root / "notes").is_dir() or sum(1 for _ in os.scandir(root / "notes")) < args.notes:
        started = time.perf_counter()
        write_workspace(root, args.notes, args.data)
        print(f"wrote {args.notes} notes to {root} in {time.perf_counter() - started:.1f} s")
    started = time.perf_counter()
    ws = open_workspace(root)
    print(f"opened {root} ({len(ws.catalogue)} files) in {time.perf_counter() - started:.1f} s; "
          f"load {os.getloadavg()[0]:.1f}, python {sys.version.split()[0]}")
    try:
        first = _timed(lambda: ws.notes.completions())
        rows = ws.sorted_entries("note", _sort_key("updated_desc"), "updated", True)
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        index = NoteCompletions.make(0, rows)
        held = tracemalloc.get_traced_memory()[0] - before
        tracemalloc.stop()
        print(f"first keystroke after opening (whole index): {first:.0f} ms; the index holds {held / 1e6:.1f} MB "
              f"({held / max(1, len(rows)):.0f} B/note, {sum(map(len, index.grams.values()))} title positions in {len(index.grams)} gram lists)")
        del index
        cases = values_to_type(ws)
        lib = measure_library(ws, cases, args.runs, args.baseline_runs)
        after = measure_after_write(ws, args.write_rounds)
    finally:
        ws.close()
    mcp = asyncio.run(measure_mcp(root, cases, args.runs))

    print(f"\n{args.notes} notes, ms p50 / p95 / p99 per keystroke (index: memo cleared, each ask a first one)\n")
    print("| value | length | values | index | scan (before) | index over MCP |")
    print("|---|---:|---:|---:|---:|---:|")
    for (kind, length), values in cases.items():
        t = lib[(kind, length)]
        print(f"| {'id prefix' if kind == 'id' else 'title word'} | {length} | {len(values)} | {_cell(t['index'])} "
              f"| {_cell(t['scan'])} | {_cell(mcp[(kind, length)])} |")
    print(f"| after a note_update | 2 | 1 | {_cell(after['index'])} | {_cell(after['scan'])} | |")
    print(f"\nload {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
