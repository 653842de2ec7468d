"""A restart with nothing changed lists no folder before its first answer: temp files of a write that died
while the catalogue was being saved are swept in the background (or at close), never kept. Real files."""

from __future__ import annotations

import os
import time
from pathlib import Path

from notes_store import OpenWorkspace, open_workspace
from notes_store.files.durable import TEMP_PREFIX


def _leave_temp_file(root: Path) -> Path:
    """A temp file in notes/ with the folder's mtime put back, as if it had been there at the save."""
    folder = root / "notes"
    st = folder.stat()
    tmp = folder / f"{TEMP_PREFIX}died-mid-write"
    tmp.write_text("partial", encoding="utf-8")
    os.utime(folder, ns=(st.st_atime_ns, st.st_mtime_ns))
    return tmp


def _wait_for(predicate, timeout: float = 10.0) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not predicate():
        time.sleep(0.05)
    return bool(predicate())


def _reopen_with_a_stray_temp_file(root: Path) -> tuple[OpenWorkspace, Path]:
    """A workspace with one saved note, closed cleanly, a dead writer's temp file left, then reopened."""
    ws = open_workspace(root)
    ws.notes.create("kept", "saved words")
    ws.close()
    tmp = _leave_temp_file(root)
    return open_workspace(root), tmp


def test_a_matched_restart_sweeps_temp_files_in_the_background(tmp_path: Path) -> None:
    root = tmp_path / "w"
    ws, tmp = _reopen_with_a_stray_temp_file(root)
    try:
        assert ws._scan_before_reading  # the saved catalogue matched: no scan, no listing before answering
        assert tmp.exists()
        ws.start_watching(0.1)
        assert ws.notes.search("saved").total == 1
        assert _wait_for(lambda: not tmp.exists())
    finally:
        ws.close()
    ws = open_workspace(root)  # the sweep left the folder consistent with the catalogue
    assert ws.notes.search("saved").total == 1
    ws.close()


def test_without_a_background_thread_close_sweeps(tmp_path: Path) -> None:
    root = tmp_path / "w"
    ws, tmp = _reopen_with_a_stray_temp_file(root)
    assert tmp.exists()
    ws.close()
    assert not tmp.exists()


def test_a_changed_folder_sweeps_at_open(tmp_path: Path) -> None:
    root = tmp_path / "w"
    ws = open_workspace(root)
    ws.notes.create("kept", "saved words")
    ws.close()
    tmp = root / "notes" / f"{TEMP_PREFIX}died-mid-write"
    tmp.write_text("partial", encoding="utf-8")  # the folder's mtime moves: the catalogue no longer matches
    ws = open_workspace(root)
    try:
        assert not tmp.exists()
        assert ws.notes.search("saved").total == 1
    finally:
        ws.close()
