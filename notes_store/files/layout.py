"""A workspace's folders on disk: the index folder, the lock file, and the Git ignore rules for them.

A fresh folder gets a ``.gitignore``; a folder already inside a Git repository without one (someone's
vault or docs folder) gets the rules in the repository's ``info/exclude`` instead, so opening, reading
and searching it leave ``git status`` clean.

Kept apart from ``workspace`` so Git and sessions can name these paths without the workspace's machinery.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from ..errors import StorageError
from .front_matter import BadFile
from .safe_read import read_regular_file

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
            exclude = _repository_exclude(root)
            if exclude is None:
                gitignore.write_text(GITIGNORE, encoding="utf-8")
            else:
                _add_to_exclude(exclude)
        else:  # a workspace from before the lock moved out of .index/: ignore the lock file too
            text = gitignore.read_text(encoding="utf-8", errors="replace")
            if text.startswith("# ctxnotes:") and LOCK_FILE not in text.splitlines():
                gitignore.write_text(text + ("" if text.endswith("\n") else "\n") + LOCK_FILE + "\n",
                                     encoding="utf-8")
    except OSError as exc:
        raise StorageError(f"cannot create workspace at {root}: {exc.strerror or exc}") from exc


MAX_GIT_LEVELS = 64  # folders walked up from the workspace to find its repository
MAX_EXCLUDE_BYTES = 1 << 20


def _repository_exclude(root: Path) -> Path | None:
    """The ``info/exclude`` file of the Git repository ``root`` is in (worktrees: the common one), or None."""
    folder = root
    for _ in range(MAX_GIT_LEVELS):
        dot_git = folder / ".git"
        if dot_git.is_dir():
            git_dir = dot_git
            break
        if dot_git.is_file():  # a worktree or submodule: "gitdir: PATH"
            try:
                text = read_regular_file(dot_git, 4096)[0].decode("utf-8", "replace")
            except (OSError, BadFile):
                return None
            if not text.startswith("gitdir:"):
                return None
            git_dir = (folder / text[len("gitdir:"):].strip()).resolve()
            break
        if folder.parent == folder:
            return None
        folder = folder.parent
    else:
        return None
    try:
        common = read_regular_file(git_dir / "commondir", 4096)[0].decode("utf-8", "replace").strip()
        git_dir = (git_dir / common).resolve()
    except (OSError, BadFile):
        pass
    return git_dir / "info" / "exclude" if git_dir.is_dir() else None


def _add_to_exclude(exclude: Path) -> None:
    """Append the workspace's ignore rules to a repository's ``info/exclude`` unless they are there."""
    try:
        text = read_regular_file(exclude, MAX_EXCLUDE_BYTES)[0].decode("utf-8", "replace")
    except FileNotFoundError:
        text = ""
    except (OSError, BadFile):
        return  # not a regular file, or too large: leave it; the derived files then show as untracked
    present = {line.strip() for line in text.splitlines()}
    if all(line in present for line in GITIGNORE.splitlines()[1:]):
        return
    exclude.parent.mkdir(parents=True, exist_ok=True)
    sep = "" if not text or text.endswith("\n") else "\n"
    with open(exclude, "a", encoding="utf-8") as f:
        f.write(sep + GITIGNORE)
