"""The workspace lock, under real contention between processes.

Two processes start together (a barrier file) and each does N read-modify-write increments of one
counter note through the store API, with ``expected_revision`` and a retry on ``Conflict``. The final
counter must be 2N: compare-and-swap is only atomic because the check and the write happen under the
inter-process lock. Without the lock both processes pass the check on the same revision and one
increment is silently lost (verified by neutering ``WorkspaceLock`` in a copy of the repository).
A second test has two processes create notes at once and checks files, list and search agree.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

from helpers import REPO, clean_env

from notes_store import open_workspace

PER_PROCESS = 40
WORKER_TIMEOUT = 180

# A worker that opens the workspace, reads the counter note and waits at the barrier (shared by the
# counter workers here and in test_write_group.py).
COUNTER_START = r"""
import json, os, sys, time
from pathlib import Path
from notes_store import open_workspace
from notes_store.errors import Conflict
root, note_id, n, barrier = sys.argv[1], sys.argv[2], int(sys.argv[3]), Path(sys.argv[4])
ws = open_workspace(root)
ws.notes.read(note_id)
Path(f"{barrier}.ready-{os.getpid()}").touch()
deadline = time.monotonic() + 60
while not barrier.exists() and time.monotonic() < deadline:
    time.sleep(0.001)
def increment():
    conflicts = 0
    while True:  # compare and swap: read, write with the revision read, again on a conflict
        note = ws.notes.read(note_id)
        try:
            ws.notes.update(note_id, content=str(int(note.content) + 1), expected_revision=note.revision)
            return conflicts
        except Conflict:
            conflicts += 1
"""

COUNTER_WORKER = COUNTER_START + r"""
conflicts = 0
for _ in range(n):
    conflicts += increment()
ws.close()
print(json.dumps({"conflicts": conflicts}))
"""

CREATE_WORKER = r"""
import json, os, sys, time
from pathlib import Path
from notes_store import open_workspace
root, tag, n, barrier = sys.argv[1], sys.argv[2], int(sys.argv[3]), Path(sys.argv[4])
ws = open_workspace(root)
ws.notes.list()
Path(f"{barrier}.ready-{os.getpid()}").touch()
deadline = time.monotonic() + 60
while not barrier.exists() and time.monotonic() < deadline:
    time.sleep(0.001)
ids = [ws.notes.create(f"{tag} {i}", f"contended body {tag}", tags=[tag]).id for i in range(n)]
ws.close()
print(json.dumps({"ids": ids}))
"""


def _run_together(script: str, args_per_worker: list[list[str]], barrier) -> list[dict]:
    procs = [subprocess.Popen([sys.executable, "-c", script, *args, str(barrier)], cwd=REPO, env=clean_env(),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for args in args_per_worker]
    # Release them at once, only when every worker has opened the workspace (a slow start on a loaded
    # machine would otherwise let one finish before the other begins, and nothing would be contended).
    deadline = time.monotonic() + WORKER_TIMEOUT
    while len(list(barrier.parent.glob(f"{barrier.name}.ready-*"))) < len(procs):
        if time.monotonic() > deadline or any(p.poll() is not None for p in procs):
            for p in procs:
                p.kill()
            raise AssertionError("a worker did not get ready: " + " ".join(p.stderr.read()[-500:] for p in procs
                                                                          if p.poll() is not None))
        time.sleep(0.01)
    barrier.touch()
    outputs = []
    for proc in procs:
        try:
            out, err = proc.communicate(timeout=WORKER_TIMEOUT)
        except subprocess.TimeoutExpired:
            for p in procs:
                p.kill()
            raise AssertionError("a worker hung") from None
        assert proc.returncode == 0, err[-2000:]
        outputs.append(json.loads(out.strip().splitlines()[-1]))
    return outputs


def test_contended_compare_and_swap_increments_lose_nothing(tmp_path):
    root = tmp_path / "ws"
    ws = open_workspace(root)
    note_id = ws.notes.create("counter", "0").id
    ws.close()
    results = _run_together(COUNTER_WORKER, [[str(root), note_id, str(PER_PROCESS)]] * 2, tmp_path / "go")
    ws = open_workspace(root)
    try:
        assert ws.notes.read(note_id).content == str(2 * PER_PROCESS), results
    finally:
        ws.close()
    # Contention really happened (else the test proves nothing): at least one retry on a stale revision.
    assert sum(r["conflicts"] for r in results) > 0, results


def test_contended_creates_agree_with_the_index(tmp_path):
    root = tmp_path / "ws"
    open_workspace(root).close()
    results = _run_together(CREATE_WORKER, [[str(root), tag, str(PER_PROCESS)] for tag in ("alpha", "beta")],
                            tmp_path / "go")
    ids = [i for r in results for i in r["ids"]]
    assert len(set(ids)) == 2 * PER_PROCESS
    assert sorted(p.stem for p in (root / "notes").glob("*.md")) == sorted(ids)
    ws = open_workspace(root)
    try:
        listed = ws.notes.list(limit=100)
        assert listed.total == 2 * PER_PROCESS
        assert sorted(n.id for n in listed.notes) == sorted(ids)
        assert ws.notes.search("contended", limit=100).total == 2 * PER_PROCESS
        for tag in ("alpha", "beta"):
            assert ws.notes.list(tags=[tag], limit=100).total == PER_PROCESS
    finally:
        ws.close()
