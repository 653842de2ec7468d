"""Git integration: ``init --git``, optional auto-commit of tool writes, note history, conflict report.

Git carries the notes between machines; each machine keeps its own derived
index (``.index/``, ignored). Everything here drives the ``git`` command line
through ``subprocess`` with a timeout (no Python dependency), and never
touches files other than the one a write event names.

Auto-commit is off by default. Turn it on for a workspace with
``enable_autocommit(ws)``, or let ``configure_autocommit(ws, flag)`` decide
from (first match wins) the explicit flag, ``$CTXNOTES_GIT_AUTOCOMMIT``
(``1``/``true``/``yes``/``on`` or ``0``/``false``/``no``/``off``), and
``git_autocommit: true`` in ``<workspace>/.ctxnotes.yaml``. Each tool write
then becomes one commit of exactly that file (``git commit --only -- <path>``:
changes a person staged elsewhere stay staged and uncommitted), with a message
such as ``note_update: Auth refactor (note_20260101_120000_1a2b3c4d)``. A
commit that fails (no user.name/email, not a repository, a hook refused, a
merge in progress, timeout) becomes a warning returned to the workspace, which
hands it to the caller via ``ws.take_warnings()``; the note is saved anyway.
"""

from __future__ import annotations

import logging
import os
import subprocess
from pathlib import Path
from typing import Any

import yaml

from ..files.front_matter import BadFile, parse_document
from ..errors import InvalidInput, NotFound, StoreError
from .git_conflicts import CONFLICT_REASON, has_conflict_markers
from ..files.safe_read import read_regular_file
from ..settings import CONFIG_FILE, load_settings, max_file_bytes, read_config
from ..validation import check_id
from ..files.note_paths import check_note_id, safe_note_path
from ..files.layout import GITIGNORE, INDEX_DIR
from ..listeners import WriteEvent

log = logging.getLogger("ctxnotes.git")

GIT_TIMEOUT = 20.0
ENV_AUTOCOMMIT = "CTXNOTES_GIT_AUTOCOMMIT"
FALLBACK_NAME = "ctxnotes"
FALLBACK_EMAIL = "ctxnotes@localhost"
GITIGNORE_LINES = (".index/", ".tmp-*", ".ctxnotes.lock")
# What a tool write is called in a commit message, by (kind, action).
TOOL_NAMES = {
    ("note", "create"): "note_create", ("note", "update"): "note_update", ("note", "delete"): "note_delete",
    ("memory", "create"): "memory_add", ("memory", "update"): "memory_update",
    ("memory", "delete"): "memory_forget",
}

README_TEXT = """\
# ctxnotes workspace

Persistent notes and memories for AI agents, served over MCP by `ctxnotes serve`.

- `notes/<id>.md` — one note per file: YAML front matter (id, title, type, tags, created_at,
  updated_at, plus any keys you add) and a Markdown body. Edit them by hand if you like.
- `memory/<id>.md` — memories, same format.
- `.index/` — the search index, locks and caches: derived from the files, rebuilt when missing,
  and ignored by Git (see `.gitignore`). Never commit it.
- `.ctxnotes.yaml` (optional) — workspace settings, e.g. `git_autocommit: true`.

Keep this folder in Git to carry the notes between machines: commit, push, and `git pull` on the
other machine; a running server picks the pulled notes up without a restart.
`ctxnotes doctor` lists notes left with merge-conflict markers after a pull.
"""


class GitError(StoreError):
    """Git is missing, timed out, or refused an operation we needed."""


# -- running git ----------------------------------------------------------------------

def _git_env() -> dict[str, str]:
    env = dict(os.environ)
    env["GIT_TERMINAL_PROMPT"] = "0"   # never wait for credentials on a terminal
    env.setdefault("GIT_EDITOR", "true")
    return env


def run_git(args: list[str], cwd: str | os.PathLike[str], *, timeout: float = GIT_TIMEOUT,
            identity: tuple[str, str] | None = None,
            input_text: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``git <args>`` in ``cwd``; returns the completed process (check ``returncode`` yourself).

    ``identity`` (name, email) is passed with ``-c`` for this one command only (never written to a config).
    Raises ``GitError`` when git is not installed or does not answer within ``timeout`` seconds.
    """
    cmd = ["git", "-c", "core.quotepath=off"]
    if identity is not None:
        cmd += ["-c", f"user.name={identity[0]}", "-c", f"user.email={identity[1]}"]
    cmd += args
    try:
        return subprocess.run(cmd, cwd=str(cwd), env=_git_env(), capture_output=True, text=True,
                              encoding="utf-8", errors="replace", timeout=timeout,
                              stdin=None if input_text is not None else subprocess.DEVNULL, input=input_text)
    except FileNotFoundError:
        raise GitError("the 'git' command was not found; install Git (https://git-scm.com) and retry") from None
    except subprocess.TimeoutExpired:
        raise GitError(f"'git {args[0]}' did not finish within {timeout:g} s (a hook or a lock waiting?)") from None


def _failure(proc: subprocess.CompletedProcess[str]) -> str:
    """The useful line of a failed git command's output."""
    lines = [ln.strip() for ln in (proc.stderr + "\n" + proc.stdout).splitlines() if ln.strip()]
    fatal = [ln for ln in lines if ln.startswith(("fatal:", "error:"))]
    return (fatal[-1] if fatal else lines[-1] if lines else f"exit status {proc.returncode}")


def repo_root(path: str | os.PathLike[str], timeout: float = GIT_TIMEOUT) -> Path | None:
    """The top folder of the Git work tree holding ``path``, or None when it is not in one."""
    path = Path(path)
    if not path.is_dir():
        return None
    proc = run_git(["rev-parse", "--show-toplevel"], path, timeout=timeout)
    if proc.returncode != 0 or not proc.stdout.strip():
        return None
    return Path(proc.stdout.strip()).resolve()


def has_identity(cwd: str | os.PathLike[str]) -> bool:
    """Whether git can name the author and committer of a commit made in ``cwd``."""
    return all(run_git(["var", var], cwd).returncode == 0 for var in ("GIT_AUTHOR_IDENT", "GIT_COMMITTER_IDENT"))


# -- settings -----------------------------------------------------------------------

def autocommit_wanted(root: str | os.PathLike[str], flag: bool | None = None) -> bool:
    """Explicit flag, else ``$CTXNOTES_GIT_AUTOCOMMIT``, else ``git_autocommit`` in ``.ctxnotes.yaml``, else off."""
    return bool(load_settings(root, git_autocommit=flag).git_autocommit)


# -- auto-commit ----------------------------------------------------------------------

def _one_line(text: str, limit: int = 72) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[:limit - 1].rstrip() + "…"


def commit_message(event: WriteEvent, title: str | None = None) -> str:
    """``note_update: <title> (<id>)``; the title is put on one line and shortened to 72 characters."""
    tool = TOOL_NAMES.get((event.kind, event.action), f"{event.kind}_{event.action}")
    title = _one_line(event.title if title is None else title)
    return f"{tool}: {title} ({event.id})" if title else f"{tool}: {event.id}"


class GitAutoCommit:
    """A workspace write listener that commits each written or deleted file on its own."""

    def __init__(self, root: str | os.PathLike[str], timeout: float = GIT_TIMEOUT) -> None:
        self.root = Path(root)
        self.timeout = timeout
        self.commits = 0  # made by this listener (for tests and doctor)

    def __call__(self, event: WriteEvent) -> str | None:
        try:
            return self._commit(event)
        except GitError as exc:
            return f"{event.kind} {event.id} saved but not committed: {exc}"

    def _git(self, *args: str) -> subprocess.CompletedProcess[str]:
        return run_git(list(args), self.root, timeout=self.timeout)

    def _commit(self, event: WriteEvent) -> str | None:
        saved = f"{event.kind} {event.id} saved but not committed to Git"
        if repo_root(self.root, self.timeout) is None:
            return (f"{saved}: {self.root} is not in a Git repository (run 'git init' there, "
                    "or 'ctxnotes init --git', or turn git_autocommit off)")
        rel = os.path.relpath(event.path, self.root).replace(os.sep, "/")
        if event.action == "delete":
            tracked = self._git("ls-files", "--", rel)
            if tracked.returncode == 0 and not tracked.stdout.strip():
                return None  # never tracked: the deletion has nothing to record
        added = self._git("add", "-A", "--", rel)
        if added.returncode != 0:
            return f"{saved}: git add failed: {_failure(added)}"
        staged = self._git("diff", "--cached", "--quiet", "--", rel)
        if staged.returncode == 0:
            return None  # identical to the committed version
        message = commit_message(event, self._title(event))
        proc = self._git("commit", "--quiet", "--no-edit", "-m", message, "--only", "--", rel)
        if proc.returncode != 0:
            reason = _failure(proc)
            if not has_identity(self.root):
                reason = ("Git does not know who you are: set it with git config user.name \"Your Name\" "
                          "and git config user.email you@example.com")
            return f"{saved}: {reason}"
        self.commits += 1
        log.info("committed %s: %s", rel, message)
        return None

    @staticmethod
    def _title(event: WriteEvent) -> str:
        """The event's title; for a memory (which has none) the first line of its content."""
        if event.title or event.action == "delete":
            return event.title
        try:
            raw, _st = read_regular_file(event.path, 1 << 22)  # a title needs no more than a large note
            body = parse_document(raw).body
        except (OSError, BadFile):
            return ""
        return next((line.strip() for line in body.splitlines() if line.strip()), "")


def enable_autocommit(ws: Any, timeout: float = GIT_TIMEOUT) -> GitAutoCommit:
    """Commit every store write of ``ws`` from now on (idempotent); returns the listener."""
    for listener in ws.write_listeners:
        if isinstance(listener, GitAutoCommit):
            return listener
    listener = GitAutoCommit(ws.root, timeout)
    ws.write_listeners.append(listener)
    return listener


def disable_autocommit(ws: Any) -> bool:
    """Stop auto-committing; returns whether it was on."""
    before = len(ws.write_listeners)
    ws.write_listeners[:] = [fn for fn in ws.write_listeners if not isinstance(fn, GitAutoCommit)]
    return len(ws.write_listeners) != before


def autocommit_enabled(ws: Any) -> bool:
    return any(isinstance(fn, GitAutoCommit) for fn in ws.write_listeners)


def configure_autocommit(ws: Any, flag: bool | None = None) -> bool:
    """Turn auto-commit on when ``autocommit_wanted(ws.root, flag)``; returns whether it is on.

    Called by ``open_workspace(root, git_autocommit=...)``, the CLI (``--git-autocommit``) and ``serve``.
    """
    if autocommit_wanted(ws.root, flag):
        enable_autocommit(ws)
        return True
    if flag is False:
        disable_autocommit(ws)
    return autocommit_enabled(ws)


# -- ctxnotes init ----------------------------------------------------------------------

def _ensure_gitignore(root: Path) -> bool:
    """Make sure ``.gitignore`` ignores the index and temp files; returns whether it was changed."""
    path = root / ".gitignore"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        path.write_text(GITIGNORE, encoding="utf-8")
        return True
    present = {line.strip() for line in text.splitlines()}
    missing = [line for line in GITIGNORE_LINES if line not in present and line.rstrip("/") not in present]
    if not missing:
        return False
    sep = "" if text.endswith("\n") or not text else "\n"
    path.write_text(text + sep + "# ctxnotes: derived files, never commit them\n" + "\n".join(missing) + "\n",
                    encoding="utf-8")
    return True


def init_workspace(directory: str | os.PathLike[str], *, git: bool = False, autocommit: bool = False) -> dict[str, Any]:
    """Create a workspace (folders, ``.gitignore``, README.md, index) and optionally put it under Git.

    With ``git=True``: when the folder is not inside a Git work tree, ``git init`` it; then commit the
    workspace's own files (``.gitignore``, ``README.md``, ``.ctxnotes.yaml``, ``notes/``, ``memory/``)
    and nothing else, so ``init --git`` inside a larger repository never sweeps up other changes. If Git
    has no user.name/user.email, that first commit is made as ``ctxnotes <ctxnotes@localhost>`` (for
    this commit only; nothing is written to the Git config) and a warning says how to set your identity.
    ``autocommit=True`` writes ``git_autocommit: true`` to ``.ctxnotes.yaml``.
    """
    from .. import open_workspace  # late: notes_store/__init__ imports the stores

    root = Path(directory).expanduser().resolve()
    existed = (root / INDEX_DIR).is_dir()
    created: list[str] = [] if (root / ".gitignore").exists() else [".gitignore"]
    warnings: list[str] = []
    ws = open_workspace(root)  # creates notes/, memory/, .index/ and .gitignore
    try:
        counts = {"notes": len(ws.entries("note")), "memories": len(ws.entries("memory"))}
    finally:
        ws.close()
    if _ensure_gitignore(root) and ".gitignore" not in created:
        created.append(".gitignore")
    readme = root / "README.md"
    if not readme.exists():
        readme.write_text(README_TEXT, encoding="utf-8")
        created.append("README.md")
    if autocommit:
        config = read_config(root)
        if config.get("git_autocommit") is not True:
            config["git_autocommit"] = True
            (root / CONFIG_FILE).write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
            created.append(CONFIG_FILE)
    result: dict[str, Any] = {"workspace": str(root), "existed": existed, "created": created, **counts,
                              "git": None, "warnings": warnings}
    if not git:
        return result

    top = repo_root(root)
    initialised = False
    if top is None:
        proc = run_git(["init", "--quiet"], root)
        if proc.returncode != 0:
            raise GitError(f"git init failed in {root}: {_failure(proc)}")
        initialised = True
        top = repo_root(root) or root
    paths = [p for p in (".gitignore", "README.md", CONFIG_FILE, "notes", "memory") if (root / p).exists()]
    proc = run_git(["add", "-A", "--", *paths], root)
    if proc.returncode != 0:
        raise GitError(f"git add failed: {_failure(proc)}")
    identity = None
    if not has_identity(root):
        identity = (FALLBACK_NAME, FALLBACK_EMAIL)
        warnings.append(f"Git has no user.name/user.email here: the first commit was made as "
                        f"'{FALLBACK_NAME} <{FALLBACK_EMAIL}>'. Set your identity (git config user.name "
                        "\"Your Name\"; git config user.email you@example.com) before using auto-commit.")
    commit = None
    staged = run_git(["diff", "--cached", "--name-only", "--relative", "-z", "--", *paths], root)
    if staged.returncode != 0:
        raise GitError(f"git diff failed: {_failure(staged)}")
    files = [f for f in staged.stdout.split("\0") if f]
    if files:
        rel = os.path.relpath(root, top).replace(os.sep, "/")
        message = "ctxnotes: create workspace" + ("" if rel == "." else f" {rel}")
        proc = run_git(["commit", "--quiet", "-m", message, "--only", "--", *files], root, identity=identity)
        if proc.returncode != 0:
            raise GitError(f"git commit failed: {_failure(proc)}")
        commit = run_git(["rev-parse", "--short", "HEAD"], root).stdout.strip() or None
    else:
        warnings.append("nothing new to commit: the workspace files are already committed")
    result["git"] = {"repository": str(top), "initialised": initialised, "commit": commit,
                     "identity": "fallback" if identity else "configured"}
    return result


# -- history ------------------------------------------------------------------------

_FIELD = "\x1f"
_RECORD = "\x1e"


MAX_NAME_COLUMNS = 100      # an author's name or e-mail in note_history, cut by git with ".."
MAX_SUBJECT_COLUMNS = 300   # a commit's subject line


def note_history(ws: Any, note_id: str, limit: int = 20, kind: str = "note") -> dict[str, Any]:
    """The commits that touched a note's file, newest first (renames are not followed).

    Returns ``{"id", "path", "in_git", "repository", "commits": [{"hash", "short_hash", "date", "author",
    "email", "message"}], "message"}``; ``in_git`` is False (with a message saying so) when the workspace
    is not in a Git repository. Raises ``NotFound`` when the note neither exists nor has any history.
    """
    note_id = check_note_id(note_id) if kind == "note" else check_id(note_id)
    if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= 1000:
        raise InvalidInput("limit must be a whole number from 1 to 1000")
    key = ws.key_for(kind, note_id)
    path = safe_note_path(ws.root / "notes", note_id) if kind == "note" else ws.root / key  # no folder links
    exists = os.path.lexists(path)
    out: dict[str, Any] = {"id": note_id, "path": key, "in_git": False, "repository": None, "commits": []}
    top = repo_root(ws.root)
    if top is None:
        if not exists:
            raise NotFound(f"no {kind} with id {note_id!r}")
        out["message"] = (f"no history: the workspace {ws.root} is not in a Git repository "
                          "(put it under Git with 'ctxnotes init --git' or 'git init')")
        return out
    out.update(in_git=True, repository=str(top))
    # Names and subjects come from whoever made the commits (a cloned repository): git cuts them, so a 5 MB
    # subject is never read in whole ("%<(N,trunc)" pads shorter ones with spaces, stripped below).
    fmt = _FIELD.join(("%H", "%h", "%aI", f"%<({MAX_NAME_COLUMNS},trunc)%an", f"%<({MAX_NAME_COLUMNS},trunc)%ae",
                       f"%<({MAX_SUBJECT_COLUMNS},trunc)%s")) + _RECORD
    proc = run_git(["log", "--no-color", f"-n{limit}", f"--format={fmt}", "--", key], ws.root)
    if proc.returncode != 0:
        failure = _failure(proc)
        if "does not have any commits" in failure:
            proc.stdout = ""
        else:
            raise GitError(f"git log failed: {failure}")
    for record in proc.stdout.split(_RECORD):
        fields = record.strip("\n").split(_FIELD)
        if len(fields) == 6:
            full, short, date, author, email, subject = fields
            out["commits"].append({"hash": full, "short_hash": short, "date": date, "author": author.rstrip(),
                                   "email": email.rstrip(), "message": subject.rstrip()})
    if not out["commits"]:
        if not exists:
            raise NotFound(f"no {kind} with id {note_id!r}, and no commit ever touched {key}")
        out["message"] = f"{key} has not been committed yet"
    else:
        out["message"] = f"{len(out['commits'])} commit(s) touched {key}" + (
            "" if exists else " (the note is deleted now)")
    return out


# -- conflicts ------------------------------------------------------------------------

def find_conflicts(ws: Any) -> list[dict[str, Any]]:
    """Notes and memories holding merge-conflict markers: [{"id", "kind", "path", "readable"}].

    Reads every indexed file (for ``doctor``; ``note_summary`` uses the catalogue's flag instead),
    plus the unreadable files whose reason is the markers.
    """
    ws.prepare_read()
    found: dict[str, dict[str, Any]] = {}
    for entry in list(ws.catalogue.values()):
        flagged = bool(entry.meta.get("conflict"))
        if not flagged:
            raw = _bounded_bytes(entry.path, ws)
            if raw is None:
                continue
            flagged = has_conflict_markers(raw)
        if flagged:
            found[entry.key] = {"id": entry.id, "kind": entry.kind, "path": entry.key, "readable": True}
    for problem in list(ws.problems.values()):
        markers = CONFLICT_REASON in problem.reason
        if not markers:
            raw = _bounded_bytes(ws.root / problem.path, ws)
            if raw is None:
                continue
            markers = has_conflict_markers(raw)
        if markers:
            kind = next((k for k, c in ws.collections.items() if problem.path.startswith(c.folder_name + "/")), "")
            found[problem.path] = {"id": problem.path.split("/", 1)[-1].removesuffix(".md"), "kind": kind,
                                   "path": problem.path,
                                   "readable": False}
    return [found[k] for k in sorted(found)]


def _bounded_bytes(path: Path, ws: Any) -> bytes | None:
    """A workspace file's bytes for a marker check: regular files within the size limit only (a FIFO
    would block a plain read), else None."""
    try:
        raw, _st = read_regular_file(path, max_file_bytes(int(ws.max_content_bytes)))
    except (OSError, BadFile):
        return None
    return raw


def git_status(ws: Any) -> dict[str, Any]:
    """For ``doctor``: the repository, whether auto-commit is on, and uncommitted workspace files."""
    top = repo_root(ws.root)
    info: dict[str, Any] = {"repository": str(top) if top else None, "autocommit": autocommit_enabled(ws),
                            "uncommitted": []}
    if top is None:
        return info
    folders = [c.folder_name for c in ws.collections.values()]
    proc = run_git(["status", "--porcelain=v1", "-z", "--untracked-files=all", "--", *folders], ws.root)
    if proc.returncode == 0:
        for item in proc.stdout.split("\0"):
            if len(item) > 3:
                info["uncommitted"].append({"status": item[:2].strip(), "path": item[3:]})
    return info
