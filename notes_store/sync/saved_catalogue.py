"""Opening a workspace's index and the catalogue saved in ``.index/catalogue`` with what it was checked against
(folder stamps, change token, index version), so a restart with nothing changed reads no file; and the sweep
of writes' left-over temp files.

Kept apart from ``workspace``, whose state it loads and saves under its locks.
"""

from __future__ import annotations


from ..files.durable import remove_temp_files
from ..index.backend import IndexCorrupt
from ..index.catalogue import Catalogue
from .folders import Problem
from ..workspace_state import WorkspaceState


__all__ = ["CATALOGUE_FILE", "open_index", "load", "save", "sweep_temp_files"]

CATALOGUE_FILE = "catalogue"


def open_index(ws: WorkspaceState) -> bool:
    """Open the index, or rebuild it from the files when there is none; then ``load`` the saved catalogue.
    True when catalogue and index are known to match the files. Caller holds ``_mutex`` and ``lock``."""
    if not ws._index.open():
        sweep_temp_files(ws)
        folder = ws.index_dir / "whoosh"
        empty = not folder.exists() or not any(folder.iterdir())
        ws._refresh.rebuild_locked("no index yet" if empty else "no usable index found", quiet=empty)
        return True
    return load(ws)


def load(ws: WorkspaceState) -> bool:
    """Load the saved catalogue; True when it is known to match the files and the index as they are.

    Then nothing else is read before the first answer (a watching server rescans in the
    background to catch in-place edits made while it was down). Otherwise the saved rows are
    the starting point of a full scan, and index entries no row explains are deleted.
    """
    kinds = set(ws.collections)
    loaded = Catalogue.load(ws.index_dir / CATALOGUE_FILE, ws.root, kinds)
    if loaded is None:
        sweep_temp_files(ws)
        ws._refresh.rebuild_locked("no saved catalogue", quiet=True)
        return True
    rows, record = loaded
    ws.catalogue.replace_all(rows)
    ws._saved_version = ws.catalogue.version
    ws.problems = {p[0]: Problem(p[0], p[1], p[2], p[3], bool(p[4]))
                     for p in record.get("problems", []) if isinstance(p, list) and len(p) == 5}
    token = ws._sync.read_token()
    saved_stamps = record.get("stamps")
    if isinstance(saved_stamps, dict):  # a vault's sub-folders as saved: their stamps are compared too
        ws._sync.remember_subfolders(saved_stamps)
    stamps = ws._sync.stamps()
    if (record.get("index") == ws._index.version and record.get("stamps") == stamps
            and record.get("token") == (token or b"").decode("ascii", "replace")):
        ws._stamps = stamps or {}
        ws._seen_changes = token
        ws._scan_before_reading = True  # unless a watching thread does it in the background
        # The folders are as saved: a temp file (a dot name, never a note) can only be one a writer in
        # another process left while this catalogue was saved. Listing 100k names for it is ~0.1-0.3 s
        # of the start-up: the background thread (or the next write) sweeps instead.
        ws._temp_sweep_due = True
        return True
    sweep_temp_files(ws)  # before the scan that follows: removing one changes the folder's mtime
    try:
        indexed = set(ws._index.keys())
    except IndexCorrupt as exc:
        ws._refresh.rebuild_locked(f"index unreadable ({exc})")
        return True
    for key in indexed.difference(rows):
        ws._batch.delete(key)
    for key in set(rows).difference(indexed):  # not in the index: the scan reads the file again
        rows[key].mtime_ns = -3
    return False


def sweep_temp_files(ws: WorkspaceState) -> None:
    """Delete the temp files of writes that died mid-write. Caller holds ``_mutex`` and ``lock``."""
    ws._temp_sweep_due = False
    for coll in ws.collections.values():
        removed = remove_temp_files(ws.root / coll.folder_name)
        for sub in ws._sync.subfolders(coll.folder_name):  # a vault's folders, as the last scan found them
            top = ws.root / coll.folder_name
            parts = sub.split("/")
            # never through a link swapped in since the scan (it could point anywhere)
            if not any(top.joinpath(*parts[:i + 1]).is_symlink() for i in range(len(parts))):
                removed += remove_temp_files(top.joinpath(*parts))
        if removed:
            ws._event(f"removed {len(removed)} temp file(s) left by an interrupted write in "
                        f"{coll.folder_name}/")


def save(ws: WorkspaceState) -> None:
    """Write the catalogue and what it was checked against, so a restart with nothing changed reads no file.

    Commits pending index work first: the record names the index state the rows match. That
    commit runs before taking the writers' mutex (its searcher swap may wait for a running
    search, and a writer must never wait for a search); the one under the mutex then only
    commits what arrived in between, usually nothing.
    """
    ws.flush()
    with ws._mutex:
        stamps = ws._sync.stamps()
        token = ws._sync.read_token()
        if ws._sync.watcher is not None:
            ws.refresh()  # apply whatever inotify queued before ``stamps`` were read
            clean = not ws._sync.has_pending
        else:
            clean = stamps == ws._stamps and token == ws._seen_changes
        ws.flush()
        if not clean or stamps is None:
            stamps = {}  # not known to match: the next start scans
        version = ws.catalogue.version
        rows = ws.catalogue.values()
        record = {"index": ws._index.version, "stamps": stamps,
                  "token": (token or b"").decode("ascii", "replace"),
                  "problems": [[p.path, p.reason, p.mtime_ns, p.size, p.transient]
                               for p in ws.problems.values()]}
    ws.catalogue.save(ws.index_dir / CATALOGUE_FILE, record, rows)  # the slow part, unlocked
    ws._saved_version = version
