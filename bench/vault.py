"""A bench row for a vault: nested folders of plain Markdown (no ids), against today's flat notes in the same run.

    python -m bench.vault --notes 10000            # both layouts at 10k: cold index, restart, search per MCP call
    python -m bench.vault --notes 100000 --rounds 1
    python -m bench.vault --check-vault /work/shared/data/foam-docs   # files listed, links resolved, git clean
    python -m bench.vault --descriptions bench/vaults/handbook        # description as query: top-10 recall

The same tldr pages (``bench.corpus``) are laid out twice:

* **flat** (the baseline): ``notes/<id>.md`` with our front matter, as ``python -m bench`` writes them;
* **nested** (a vault): ``notes/<lang>/<letter>/<bucket>/<title>.md``, file names with spaces and
  CJK-free command names, no ``id``; a third of the pages have front matter with ``aliases`` and ``tags``,
  the rest none; every page links to two others (``[[name]]``, ``[[folder/name|label]]`` or a relative
  Markdown link), so the link index has real work.

Figures per layout: cold index in process (``open_workspace`` without ``.index/``, notes/s), reopen with
nothing changed, restart of a real ``ctxnotes serve`` until its first search answers (3 times, the
median), and ``note_search`` per MCP call over the latency query classes (p50/p95/p99). Targets (issue):
cold index >= 500 notes/s, search p95 per call <= 30 ms, restart <= 2 s.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench import corpus as C
from bench import mcp_stdio as M
from bench.stats import summary


def write_nested(root: Path, notes: list[C.CorpusNote], seed: int = 5) -> None:
    """The notes as a vault: nested folders, names from titles, no ids, front matter on a third."""
    folder = root / "notes"
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    from notes_store.files.note_paths import filename_from_title
    paths: list[str] = []
    taken: set[str] = set()
    for n in notes:
        name = filename_from_title(n.page.name, fallback="page")
        letter = name[:1].lower() if name[:1].isalnum() else "_"
        bucket = f"set {n.copy // 4}"
        stem = name if n.copy == 0 else f"{name} (copy {n.copy})"
        path = f"{n.page.lang}/{letter}/{bucket}/{stem}"
        k = 1
        while path.lower() in taken:   # "[" and "[[" both lose their brackets
            k += 1
            path = f"{n.page.lang}/{letter}/{bucket}/{stem} {k}"
        taken.add(path.lower())
        paths.append(path)
    made: set[str] = set()
    for i, n in enumerate(notes):
        rel = paths[i]
        links = []
        for _ in range(2):
            j = rng.randrange(len(notes))
            target = paths[j]
            form = rng.randrange(3)
            if form == 0:
                links.append(f"[[{target.rsplit('/', 1)[1]}]]")
            elif form == 1:
                links.append(f"[[{target}|{notes[j].title}]]")
            else:
                rel_target = os.path.relpath(target + ".md", os.path.dirname(rel)).replace(" ", "%20")
                links.append(f"[{notes[j].title}]({rel_target})")
        head = ""
        if i % 3 == 0:
            head = f"---\naliases: [{n.page.name} page {n.copy}]\ntags: [tldr, {n.page.lang}]\n---\n"
        text = f"{head}# {n.title}\n\n{n.content}\n\nSee also {' and '.join(links)}.\n"
        parent = folder / os.path.dirname(rel)
        if str(parent) not in made:
            parent.mkdir(parents=True, exist_ok=True)
            made.add(str(parent))
        with open(folder / f"{rel}.md", "w", encoding="utf-8") as fh:
            fh.write(text)


def _open_timed(ws_dir: Path) -> float:
    from notes_store import open_workspace
    t0 = time.perf_counter()
    ws = open_workspace(ws_dir)
    ws.flush()
    elapsed = time.perf_counter() - t0
    ws.close()
    return elapsed


def _count(ws_dir: Path) -> int:
    from notes_store import open_workspace
    ws = open_workspace(ws_dir)
    try:
        return int(ws.notes.summary().total)
    finally:
        ws.close()


async def _mcp(ws_dir: Path, queries: dict[str, list[str]], restarts: int, rounds: int) -> dict[str, Any]:
    from mcp import Client
    out: dict[str, Any] = {}
    params = M._params(ws_dir)
    restart_s: list[float] = []
    for _ in range(restarts):
        t0 = time.perf_counter()
        async with Client(params) as c:
            await c.call_tool("note_search", {"query": "file", "limit": 10})
            restart_s.append(time.perf_counter() - t0)
    out["restart_s"] = restart_s
    async with Client(params) as c:
        for qs in queries.values():
            for q in qs[:3]:
                await c.call_tool("note_search", {"query": q, "limit": 10})
        times: list[float] = []
        for _ in range(rounds):
            for qs in queries.values():
                for q in qs:
                    t0 = time.perf_counter()
                    r = await c.call_tool("note_search", {"query": q, "limit": 10})
                    times.append((time.perf_counter() - t0) * 1000)
                    if r.is_error:
                        raise RuntimeError(f"note_search failed: {getattr(r.content[0], 'text', '?') if r.content else '?'}")
        out["search_ms"] = summary(times)
    return out


def measure(layout: str, ws_dir: Path, notes: list[C.CorpusNote], restarts: int, rounds: int) -> dict[str, Any]:
    shutil.rmtree(ws_dir, ignore_errors=True)
    ws_dir.mkdir(parents=True)
    t0 = time.perf_counter()
    (C.write_workspace if layout == "flat" else write_nested)(ws_dir, notes)
    written = time.perf_counter() - t0
    os.sync()
    cold = _open_timed(ws_dir)
    reopen = _open_timed(ws_dir)
    listed = _count(ws_dir)
    queries = C.latency_queries(notes, per_kind=25)
    mcp = asyncio.run(_mcp(ws_dir, queries, restarts, rounds))
    return {"layout": layout, "notes": len(notes), "listed": listed, "write_s": written, "cold_s": cold,
            "cold_rate": len(notes) / cold, "reopen_s": reopen, **mcp}


def report(rows: list[dict[str, Any]]) -> None:
    print()
    print("| layout | notes | listed | cold index | notes/s | reopen | restart (median of 3) | "
          "search p50 / p95 / p99 per MCP call |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for r in rows:
        s = r["search_ms"]
        print(f"| {r['layout']} | {r['notes']:,} | {r['listed']:,} | {r['cold_s']:.1f} s | {r['cold_rate']:,.0f} | "
              f"{r['reopen_s']:.2f} s | {statistics.median(r['restart_s']):.2f} s | "
              f"{s['p50']:.1f} / {s['p95']:.1f} / {s['p99']:.1f} ms ({s['n']} searches) |")
    print("\nTargets: cold index >= 500 notes/s, search p95 per call <= 30 ms, restart <= 2 s "
          f"(load {os.getloadavg()[0]:.1f}).")


# -- a real vault: listed, links resolved, nothing rewritten -------------------------------------------
def check_vault(vault: Path, scratch: Path) -> dict[str, Any]:
    """Copy ``vault`` under ``notes/`` of a Git repository, open it, read and search every page, and report
    the files listed, links resolved and whether ``git status`` is clean afterwards."""
    from notes_store import open_workspace
    ws_dir = scratch / "vault-check"
    shutil.rmtree(ws_dir, ignore_errors=True)
    shutil.copytree(vault, ws_dir / "notes", ignore=shutil.ignore_patterns(".git"))
    for path in ws_dir.rglob("*"):
        if path.is_dir():
            path.chmod(0o755)
        else:
            path.chmod(0o644)
    git = ["git", "-C", str(ws_dir), "-c", "user.name=bench", "-c", "user.email=bench@localhost"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "notes"], check=True)
    subprocess.run([*git, "commit", "-qm", "vault"], check=True)
    md_files = sorted(str(p.relative_to(ws_dir / "notes"))[:-3] for p in (ws_dir / "notes").rglob("*.md"))
    ws = open_workspace(ws_dir, git_autocommit=False)
    try:
        listed = ws.notes.list(limit=1000).to_dict()["notes"]
        ids = sorted(n["id"] for n in listed)
        for note_id in ids:
            ws.notes.read(note_id)
        for n in listed:
            ws.notes.search(n["title"], limit=10)
        stats = ws.notes.link_stats() if hasattr(ws.notes, "link_stats") else {}
    finally:
        ws.close()
    status = subprocess.run([*git, "status", "--porcelain", "--", "notes"], capture_output=True, text=True,
                            check=True).stdout
    return {"md_files": len(md_files), "listed": len(ids), "missing": sorted(set(md_files) - set(ids))[:10],
            "links": stats, "git_status_notes": status.strip().splitlines()}


def description_recall(vault: Path, scratch: Path, top: int = 10) -> dict[str, Any]:
    """Each page's ``description`` as a query against the vault with every description removed: how often the
    page is in the top ``top``, per language (Chinese when the description holds CJK characters)."""
    from notes_store import open_workspace
    from notes_store.files.foreign import DELETE, edit_front_matter, read_page
    ws_dir = scratch / "vault-descriptions"
    shutil.rmtree(ws_dir, ignore_errors=True)
    shutil.copytree(vault, ws_dir / "notes", ignore=shutil.ignore_patterns(".git"))
    queries: list[tuple[str, str]] = []
    for path in sorted((ws_dir / "notes").rglob("*.md")):
        path.chmod(0o644)
        raw = path.read_bytes()
        note_id = str(path.relative_to(ws_dir / "notes"))[:-3]
        page = read_page(raw, note_id.rsplit("/", 1)[-1])
        if page.description:
            queries.append((page.description, note_id))
            path.write_bytes(edit_front_matter(raw, {"description": DELETE}))
    ws = open_workspace(ws_dir, git_autocommit=False)
    found: dict[str, list[bool]] = {"en": [], "zh": []}
    misses: list[str] = []
    try:
        for query, note_id in queries:
            ids = [h.note.id for h in ws.notes.search(query, limit=top).hits]
            lang = "zh" if any("\u4e00" <= ch <= "\u9fff" for ch in query) else "en"
            found[lang].append(note_id in ids)
            if note_id not in ids:
                misses.append(f"{note_id}: {query[:60]}")
    finally:
        ws.close()
    return {lang: (sum(v), len(v)) for lang, v in found.items()} | {"misses": misses}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--notes", type=int, default=10000)
    ap.add_argument("--data", default=None, help="shared data folder (tldr, locomo); default ../shared/data")
    ap.add_argument("--scratch", type=Path, default=Path(os.environ.get("CTXNOTES_BENCH_SCRATCH", "/tmp/ctxnotes-bench")))
    ap.add_argument("--rounds", type=int, default=1, help="rounds of the latency queries per layout")
    ap.add_argument("--restarts", type=int, default=3)
    ap.add_argument("--layouts", default="flat,nested")
    ap.add_argument("--check-vault", type=Path, default=None, help="a real vault to check (no timing)")
    ap.add_argument("--descriptions", type=Path, default=None,
                    help="a vault whose pages have descriptions: top-10 recall of description queries")
    args = ap.parse_args(argv)
    if args.descriptions is not None:
        recall = description_recall(args.descriptions, args.scratch)
        for lang in ("en", "zh"):
            hit, n = recall[lang]
            print(f"{lang}: {hit}/{n} pages in the top 10 ({100 * hit / max(n, 1):.0f}%)")
        for miss in recall["misses"]:
            print(f"  missed {miss}")
        return 0
    if args.check_vault is not None:
        result = check_vault(args.check_vault, args.scratch)
        for key, value in result.items():
            print(f"{key}: {value}")
        return 0 if result["listed"] == result["md_files"] and not result["git_status_notes"] else 1
    data = C.data_dir(args.data)
    if data is None:
        print("no tldr data found (--data)", file=sys.stderr)
        return 2
    en, zh = C.load_pages(data)
    notes = C.corpus(en, zh, args.notes)
    rows = []
    for layout in args.layouts.split(","):
        print(f"[{layout}] {args.notes:,} notes ...", flush=True)
        row = measure(layout, args.scratch / f"vault-{layout}-{args.notes}", notes, args.restarts, args.rounds)
        print(f"  listed {row['listed']:,}, cold {row['cold_s']:.1f} s ({row['cold_rate']:,.0f}/s), "
              f"reopen {row['reopen_s']:.2f} s, restart {row['restart_s']}, search {row['search_ms']}", flush=True)
        rows.append(row)
    report(rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
