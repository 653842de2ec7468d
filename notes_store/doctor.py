"""``diagnose(ws)``: the workspace health report behind ``ctxnotes doctor`` (files per kind, index in step
with the files, unreadable files, what recovery did, Git merge conflicts and Git state).

A library function so that the CLI and the MCP server report the same thing from one place.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .sync import git as git_sync


@dataclass
class Diagnosis:
    """What ``diagnose`` found."""

    workspace: str
    files: dict[str, int]
    indexed: int
    unreadable: list[dict[str, str]]
    events: list[str]
    conflicts: list[dict[str, Any]] = field(default_factory=list)
    git: dict[str, Any] = field(default_factory=dict)

    @property
    def index_ok(self) -> bool:
        return self.indexed == sum(self.files.values())

    def to_dict(self) -> dict[str, Any]:
        return {"workspace": self.workspace, "files": dict(self.files), "indexed": self.indexed,
                "index_ok": self.index_ok, "unreadable": list(self.unreadable), "events": list(self.events),
                "conflicts": list(self.conflicts), "git": dict(self.git)}

    def lines(self) -> list[str]:
        """The report as text, one finding per line, with what to do about each problem."""
        out = [f"workspace: {self.workspace}",
               "files: " + (", ".join(f"{k} {v}" for k, v in sorted(self.files.items())) or "none"),
               f"index: {self.indexed} document(s) — " + ("in step with the files" if self.index_ok else
                                                          "OUT OF STEP: run 'ctxnotes reindex'")]
        if self.unreadable:
            out.append(f"unreadable files ({len(self.unreadable)}):")
            out += [f"  {p['path']}: {p['reason']}" for p in self.unreadable]
        else:
            out.append("unreadable files: none")
        out += [f"recovery: {event}" for event in self.events]
        if self.conflicts:
            out.append(f"merge conflicts ({len(self.conflicts)}): resolve the markers (<<<<<<< ======= >>>>>>>) "
                       "by hand, then commit")
            out += [f"  {c['path']}" + ("" if c["readable"] else " (unreadable until resolved)")
                    for c in self.conflicts]
        else:
            out.append("merge conflicts: none")
        if self.git.get("repository"):
            out.append(f"git: {self.git['repository']}, auto-commit {'on' if self.git.get('autocommit') else 'off'}, "
                       f"{len(self.git.get('uncommitted') or [])} uncommitted note/memory file(s)")
        else:
            out.append("git: not in a Git repository (see 'ctxnotes init --git')")
        return out


def diagnose(ws: Any) -> Diagnosis:
    """Check the open workspace ``ws`` (reads only: nothing is repaired here)."""
    ws.prepare_read()
    files: dict[str, int] = {}
    for entry in ws.catalogue.values():
        files[entry.kind] = files.get(entry.kind, 0) + 1
    unreadable = [{"path": p.path, "reason": p.reason} for p in sorted(ws.problems.values(), key=lambda p: p.path)]
    return Diagnosis(workspace=str(ws.root), files=files, indexed=ws.index_count(), unreadable=unreadable,
                     events=list(ws.events), conflicts=list(git_sync.find_conflicts(ws)),
                     git=dict(git_sync.git_status(ws)))
