"""The background safety scan steps aside for running searches (issue 13: at 100k files it is ~1 s of CPU
that the first searches after a restart shared) and still finds what changed while the server was down.
Real files, real index."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from notes_store import open_workspace
from notes_store.sync import folders as folder_sync
from notes_store.sync import refresh as workspace_module


def _edit_in_place(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    with open(path, "r+", encoding="utf-8") as fh:  # same size, in place: the folder's mtime stays
        fh.write(text.replace(old, new, 1))


def test_a_polite_scan_waits_while_a_search_runs_then_applies_the_edit(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    ws = open_workspace(tmp_path / "w")
    notes = [ws.notes.create(f"n{i}", f"saved words {i}") for i in range(6)]
    ws.flush()
    _edit_in_place(tmp_path / "w" / "notes" / f"{notes[0].id}.md", "saved words", "fresh words")
    monkeypatch.setattr(folder_sync, "PAUSE_EVERY", 1)
    monkeypatch.setattr(workspace_module, "PAUSE_EVERY", 1)
    monkeypatch.setattr(workspace_module, "PAUSE_AT_MOST", 0.1)
    try:
        # A search in progress (held open here): each pause waits its full 0.1 s.
        with ws._reading():
            started = time.monotonic()
            ws.refresh(force=True, polite=True)
            polite = time.monotonic() - started
        assert polite >= 0.6  # 6 files scanned and 6 compared, a pause before each
        assert ws.notes.search("fresh").total == 1  # and the in-place edit was applied
        _edit_in_place(tmp_path / "w" / "notes" / f"{notes[1].id}.md", "saved words", "fresh words")
        started = time.monotonic()
        ws.refresh(force=True, polite=True)  # no search running: no waiting
        assert time.monotonic() - started < polite / 2
        assert ws.notes.search("fresh").total == 2
    finally:
        ws.close()


def test_a_search_during_a_polite_scan_does_not_wait_for_it(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """A search never waits for a background scan: the scan holds no lock while it looks at the files."""
    ws = open_workspace(tmp_path / "w")
    for i in range(30):
        ws.notes.create(f"n{i}", f"saved words {i}")
    ws.flush()
    ws.start_watching(60.0)  # as a server: a search's own refresh reads inotify, never scans
    ws.refresh()  # the creates' own events, applied before the file looks are slowed down
    monkeypatch.setattr(folder_sync, "PAUSE_EVERY", 1)
    monkeypatch.setattr(workspace_module, "PAUSE_AT_MOST", 0.05)
    slow_stat = folder_sync._row

    def row(kind: str, st: object) -> tuple[str, int, int]:
        time.sleep(0.01)  # a scan of 30 files that takes ~0.3 s
        return slow_stat(kind, st)  # type: ignore[arg-type]

    monkeypatch.setattr(folder_sync, "_row", row)
    scan = threading.Thread(target=ws.refresh, kwargs={"force": True, "polite": True})
    try:
        scan.start()
        time.sleep(0.05)
        started = time.monotonic()
        assert ws.notes.search("saved").total == 30
        assert time.monotonic() - started < 0.2
        scan.join(10)
        assert not scan.is_alive()
    finally:
        ws.close()
