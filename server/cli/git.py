"""``ctxnotes init [DIR] [--git]``, ``ctxnotes history ID`` and the Git part of ``ctxnotes doctor``."""

from __future__ import annotations

import argparse
from typing import Any

from notes_store.sync import git as git_sync


def cmd_init(args: argparse.Namespace, _ws: Any) -> tuple[Any, str]:
    from . import workspace_path
    directory = args.directory or workspace_path(getattr(args, "workspace", None))
    data = git_sync.init_workspace(directory, git=args.git, autocommit=args.autocommit)
    verb = "workspace already existed at" if data["existed"] else "created workspace at"
    lines = [f"{verb} {data['workspace']}"]
    if data["created"]:
        lines.append("wrote: " + ", ".join(data["created"]))
    g = data["git"]
    if g:
        where = ("new Git repository" if g["initialised"] else "Git repository") + f" {g['repository']}"
        lines.append(f"{where}: " + (f"committed the workspace files as {g['commit']}" if g["commit"]
                                     else "nothing to commit"))
    else:
        lines.append("not under Git (use --git to create a repository with a first commit)")
    lines += [f"warning: {w}" for w in data["warnings"]]
    return data, "\n".join(lines)


def cmd_history(args: argparse.Namespace, ws: Any) -> tuple[Any, str]:
    data = git_sync.note_history(ws, args.note_id, limit=args.limit, kind="memory" if args.memory else "note")
    if not data["commits"]:
        return data, data["message"]
    lines = [data["message"]]
    for c in data["commits"]:
        lines.append(f"{c['short_hash']}  {c['date']}  {c['author']}  {c['message']}")
    return data, "\n".join(lines)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("init", help="create a workspace (folders, .gitignore, README), optionally under Git",
                       description="Create a workspace: notes/ and memory/ folders, a .gitignore that keeps the "
                                   "index, locks and temp files out of Git, and a README.md. With --git, also "
                                   "a Git repository (unless the folder is already inside one) and a first "
                                   "commit of the workspace files only.")
    p.add_argument("directory", nargs="?", metavar="DIR",
                   help="where (default: --workspace, $CTXNOTES_WORKSPACE, else ./workspace)")
    p.add_argument("--git", action="store_true", help="put the workspace under Git with a first commit")
    p.add_argument("--autocommit", action="store_true",
                   help="write 'git_autocommit: true' to DIR/.ctxnotes.yaml: every tool write becomes a commit")
    p.set_defaults(handler=cmd_init, no_workspace=True)

    p = sub.add_parser("history", help="the Git commits that touched a note (date, author, message, hash)")
    p.add_argument("note_id")
    p.add_argument("--limit", type=int, default=20, help="how many commits, newest first (default 20)")
    p.add_argument("--memory", action="store_true", help="the id is a memory's, not a note's")
    p.set_defaults(handler=cmd_history)
