"""Changes reported while a full scan runs stay pending after it (issue 16 side fix).

A full scan (events were lost, or the safety rescan) settles what was reported before it started; a file
that changed while it ran (inotify reported it, another thread's look drained the report) may have been
stat'ed before the change, and must be looked at again, not forgotten until the next safety rescan
five minutes later. Real files, real inotify, real index.
"""

from __future__ import annotations

import os
import sys
import time

import pytest
from notes_store import open_workspace

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="inotify")


def test_an_edit_reported_during_a_full_scan_is_applied_after_it(tmp_path):
    ws = open_workspace(tmp_path / "w")
    try:
        assert ws.watching_with_inotify
        note = ws.notes.create("scan race", "the first version")
        path = ws.notes.files.path(note.id)
        key = ws.key_for("note", note.id)
        ws.refresh()
        edited = []

        def edit_during_the_scan() -> None:  # the scan has stat'ed the file already: it sees the old stamp
            if edited:
                return
            text = path.read_text(encoding="utf-8").replace("the first version", "zebraword edited outside")
            path.write_text(text, encoding="utf-8")
            os.utime(path, ns=(1, 1))  # a stamp the scan cannot have seen
            edited.append(True)
            for _ in range(500):  # another thread's look (a search's refresh) drains the report
                ws._sync.poll()
                if key in ws._sync._pending:
                    return
                time.sleep(0.01)
            raise AssertionError("inotify did not report the edit")

        ws._sync.recheck(set())  # the state after lost events: the next look is a full scan
        ws._sync._lost = True
        ws._yield_to_reads = edit_during_the_scan  # type: ignore[method-assign]
        ws._full_refresh(wait=True, polite=True)
        assert edited
        ws.refresh()  # the ordinary look of the next search
        assert [h.note.id for h in ws.notes.search("zebraword").hits] == [note.id]
    finally:
        ws.close()
