"""A workspace's folders on disk: the index folder, the lock file, the ``.gitignore`` it starts with.

Kept apart from ``workspace`` so Git and sessions can name these paths without the workspace's machinery.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from ..errors import StorageError

__all__ = ["INDEX_DIR", "LOCK_FILE", "GITIGNORE", "ensure_layout"]

INDEX_DIR = ".index"
LOCK_FILE = ".ctxnotes.lock"
GITIGNORE = ("# ctxnotes: the index and locks are derived from the notes; never commit them\n"
             f".index/\n.tmp-*\n{LOCK_FILE}\n")


def ensure_layout(root: Path, folder_names: Iterable[str]) -> None:
    """Create the workspace folder, its index folder, one folder per collection and the ``.gitignore``."""
    try:
        root.mkdir(parents=True, exist_ok=True)
        (root / INDEX_DIR).mkdir(exist_ok=True)
        for name in folder_names:
            (root / name).mkdir(exist_ok=True)
        gitignore = root / ".gitignore"
        if not gitignore.exists():
            gitignore.write_text(GITIGNORE, encoding="utf-8")
        else:  # a workspace from before the lock moved out of .index/: ignore the lock file too
            text = gitignore.read_text(encoding="utf-8", errors="replace")
            if text.startswith("# ctxnotes:") and LOCK_FILE not in text.splitlines():
                gitignore.write_text(text + ("" if text.endswith("\n") else "\n") + LOCK_FILE + "\n",
                                     encoding="utf-8")
    except OSError as exc:
        raise StorageError(f"cannot create workspace at {root}: {exc.strerror or exc}") from exc
