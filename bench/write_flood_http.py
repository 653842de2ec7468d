"""A write flood over streamable HTTP: what the server's memory and its other clients see.

``ctxnotes serve --http`` on loopback with a fresh workspace of 200 small notes. For ``--seconds``, ``--writers``
SDK clients (one process each) add memories of 1 MiB of never-seen words back to back (the engine's slowest
commit, the overlay's largest analysis), and one reader client searches notes and memories every 50 ms. Printed
per server: its peak RSS (VmHWM, once it is idle again: the commits of what the flood left pending included), the reader's latency (p50 / p95 / p99 / max), the writers' acknowledged adds,
"retry" errors (the index too far behind) and add latency, and whether every acknowledged memory is on disk.

``--base DIR`` runs the same flood against a server from another checkout (a ``git worktree`` of an older
revision, given to the server as ``PYTHONPATH``), before ours, on a fresh workspace each.

Run: python -m bench.write_flood_http [--writers 3] [--seconds 60] [--base DIR]
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.concurrency import _server_cmd, _wait_quiet, _wait_ready, free_port
from bench.stats import summary

READ_EVERY = 0.05
CALL_TIMEOUT = 120.0
_TO_LETTER = bytes(97 + i % 26 for i in range(256))  # a random byte -> a letter (close enough to uniform)


def new_words(kib: int) -> str:
    """About ``kib`` KiB (within the 1 MiB content limit) of 8-letter random words: none seen before, with
    overwhelming odds, so each is a new term for the index."""
    letters = os.urandom(kib * 1024 - 64).translate(_TO_LETTER).decode("ascii")
    return " ".join(letters[i:i + 8] for i in range(0, len(letters) - 8, 9))


def _peak_rss_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


async def _writer(url: str, idx: int, seconds: float) -> dict[str, Any]:
    import anyio
    from mcp import Client

    acked: list[float] = []
    busy = other = 0
    ids: list[str] = []
    async with Client(url) as c:
        end = time.monotonic() + seconds
        k = 0
        while time.monotonic() < end:
            t0 = time.monotonic()
            try:
                with anyio.fail_after(CALL_TIMEOUT):
                    r = await c.call_tool("memory_add", {"content": f"w{idx}n{k} " + new_words(1024),
                                                         "memory_type": "semantic"})
                if r.is_error:
                    text = str(getattr(r.content[0], "text", "")) if r.content else ""
                    busy += "retry" in text
                    other += "retry" not in text
                else:
                    acked.append((time.monotonic() - t0) * 1000)
                    sc = r.structured_content or {}
                    mid = sc.get("id") or (sc.get("memory") or {}).get("id")
                    if mid:
                        ids.append(str(mid))
            except Exception:
                other += 1
            k += 1
    return {"acked": acked, "busy": busy, "other": other, "ids": ids}


async def _reader(url: str, seconds: float) -> list[float]:
    import anyio
    from mcp import Client

    times: list[float] = []
    async with Client(url) as c:
        end = time.monotonic() + seconds
        k = 0
        while time.monotonic() < end:
            t0 = time.monotonic()
            tool, args = (("note_search", {"query": f"seed note {k % 200}", "limit": 5}) if k % 2 == 0
                          else ("memory_search", {"query": "w0n1", "limit": 5}))
            with anyio.fail_after(CALL_TIMEOUT):
                await c.call_tool(tool, args)
            times.append((time.monotonic() - t0) * 1000)
            k += 1
            await anyio.sleep(READ_EVERY)
    return times


def _run_writer(url: str, idx: int, seconds: float, out: Any) -> None:
    import anyio
    out.put(("writer", anyio.run(_writer, url, idx, seconds)))


def _run_reader(url: str, seconds: float, out: Any) -> None:
    import anyio
    out.put(("reader", anyio.run(_reader, url, seconds)))


def _seed(ws_dir: Path) -> None:
    from notes_store import open_workspace
    ws = open_workspace(ws_dir)
    try:
        for k in range(200):
            ws.notes.create(f"seed note {k}", f"a small seed note number {k} about nothing in particular")
    finally:
        ws.close()


def flood(label: str, writers: int, seconds: float, pythonpath: str | None) -> None:
    with tempfile.TemporaryDirectory(prefix="ctxnotes-flood-") as tmp:
        ws_dir = Path(tmp) / "w"
        _seed(ws_dir)
        port = free_port()
        env = dict(os.environ)
        if pythonpath:
            env["PYTHONPATH"] = pythonpath
        proc = subprocess.Popen(_server_cmd(ws_dir, port), env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        try:
            _wait_ready(proc, port)
            url = f"http://127.0.0.1:{port}/mcp"
            ctx = mp.get_context("spawn")
            out = ctx.Queue()
            procs = [ctx.Process(target=_run_writer, args=(url, i, seconds, out)) for i in range(writers)]
            procs.append(ctx.Process(target=_run_reader, args=(url, seconds, out)))
            for p in procs:
                p.start()
            results = [out.get(timeout=seconds + CALL_TIMEOUT + 60) for _ in procs]
            for p in procs:
                p.join(30)
            # The peak includes the commits of what the flood left pending: wait until the server is idle.
            settled = _wait_quiet(proc.pid, quiet=3.0, timeout=600.0)
            rss = _peak_rss_mb(proc.pid)
        finally:
            proc.terminate()
            try:
                proc.wait(120)  # it commits what is pending on the way out
            except subprocess.TimeoutExpired:
                proc.kill()
        written = {p.stem for p in (ws_dir / "memory").glob("*.md")}
    reads = next(r for kind, r in results if kind == "reader")
    ws = [r for kind, r in results if kind == "writer"]
    acked = [t for w in ws for t in w["acked"]]
    ids = [i for w in ws for i in w["ids"]]
    lost = sum(1 for i in ids if i not in written)
    r, a = summary(reads), summary(acked)
    print(f"{label}: peak RSS {rss:.0f} MB (idle {settled:.0f} s after the flood); reader p50 {r['p50']:.0f} / p95 {r['p95']:.0f} / p99 {r['p99']:.0f} / "
          f"max {r['max']:.0f} ms (n={r['n']}); adds acknowledged {len(acked)} "
          f"(p50 {a['p50'] or 0:.0f} / p95 {a['p95'] or 0:.0f} ms), 'retry' errors {sum(w['busy'] for w in ws)}, "
          f"other errors {sum(w['other'] for w in ws)}; acknowledged but not on disk: {lost}", flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--writers", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--base", type=Path, help="another checkout: the baseline server runs its code")
    args = ap.parse_args(argv)
    print(f"{args.writers} writer clients adding 1 MiB memories of new words for {args.seconds:.0f} s, "
          f"1 reader client searching every {READ_EVERY * 1000:.0f} ms", flush=True)
    if args.base is not None:
        flood(f"baseline ({args.base})", args.writers, args.seconds, str(args.base.resolve()))
    flood("ctxnotes", args.writers, args.seconds, None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
