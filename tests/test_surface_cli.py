"""The CLI side of the surface, through real subprocesses: --expect REV and a bad tool group at start."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def cli(ws: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "server.cli", "--workspace", str(ws), *args], cwd=REPO,
                          capture_output=True, text=True, timeout=120, env={**os.environ, **(env or {})},
                          stdin=subprocess.DEVNULL)


def test_expect_revision_on_note_update_and_delete(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    note = json.loads(cli(ws, "--json", "note", "create", "Shared", "-c", "v1").stdout)
    rev = note["revision"]
    assert cli(ws, "note", "update", note["id"], "-c", "v2", "--expect", rev).returncode == 0
    stale = cli(ws, "note", "update", note["id"], "-c", "v3", "--expect", rev)
    assert stale.returncode == 2 and stale.stderr.count("\n") == 1 and "Traceback" not in stale.stderr
    current = json.loads(cli(ws, "--json", "note", "read", note["id"]).stdout)
    assert current["content"] == "v2" and current["revision"] in stale.stderr
    assert cli(ws, "note", "delete", note["id"], "--expect", rev).returncode == 2
    assert cli(ws, "note", "delete", note["id"], "--expect", current["revision"]).returncode == 0


def test_expect_revision_on_memory_update_and_forget(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    mem = json.loads(cli(ws, "--json", "memory", "add", "a fact").stdout)
    assert cli(ws, "memory", "update", mem["id"], "-i", "0.9", "--expect", "000000000000").returncode == 2
    assert cli(ws, "memory", "forget", mem["id"], "--expect", "000000000000").returncode == 2
    assert cli(ws, "memory", "forget", mem["id"], "--expect", mem["revision"]).returncode == 0


def test_unknown_tool_group_stops_serve_with_one_line(tmp_path: Path) -> None:
    r = cli(tmp_path / "ws", "serve", env={"CTXNOTES_TOOLS": "notes,bogus"})
    assert r.returncode == 2 and "unknown tool group(s) 'bogus'" in r.stderr and "Traceback" not in r.stderr
