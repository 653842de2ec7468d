"""``diagnose(ws)``: the workspace health report behind ``ctxnotes doctor`` (files per kind, index in step
with the files, unreadable files, what recovery did, Git merge conflicts and Git state).

A library function so that the CLI and the MCP server report the same thing from one place.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .sync import git as git_sync

MAX_UNRESOLVED_SHOWN = 20   # unresolved links doctor lists (the count says how many in all)


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
    links: dict[str, int] = field(default_factory=dict)                  # notes, links, resolved, unresolved
    unresolved_links: list[dict[str, Any]] = field(default_factory=list)  # the first MAX_UNRESOLVED_SHOWN
    front_matter_problems: list[dict[str, Any]] = field(default_factory=list)

    @property
    def index_ok(self) -> bool:
        return self.indexed == sum(self.files.values())

    def to_dict(self) -> dict[str, Any]:
        return {"workspace": self.workspace, "files": dict(self.files), "indexed": self.indexed,
                "index_ok": self.index_ok, "unreadable": list(self.unreadable), "events": list(self.events),
                "conflicts": list(self.conflicts), "git": dict(self.git), "links": dict(self.links),
                "unresolved_links": list(self.unresolved_links),
                "front_matter_problems": list(self.front_matter_problems)}

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
        if self.front_matter_problems:
            out.append(f"pages read without their front matter ({len(self.front_matter_problems)}): fix the YAML "
                       "to have their title, tags and aliases used")
            out += [f"  {p['path']}: {p['reason']}" for p in self.front_matter_problems]
        if self.links.get("links"):
            share = 100 * self.links["resolved"] / self.links["links"]
            out.append(f"links: {self.links['links']} in {self.links['notes']} note(s), {self.links['resolved']} "
                       f"resolved ({share:.0f}%), {self.links['unresolved']} unresolved"
                       + (":" if self.unresolved_links else ""))
            out += [f"  {u['source']}: {u['link']} ({u['reason']})" for u in self.unresolved_links]
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
    links: dict[str, int] = {}
    unresolved: list[dict[str, Any]] = []
    problems: list[dict[str, Any]] = []
    notes = getattr(ws, "notes", None)
    if notes is not None:
        summary = notes.summary()
        links, problems = dict(summary.links), list(summary.front_matter_problems)
        unresolved = list(summary.unresolved_links)[:MAX_UNRESOLVED_SHOWN]
    return Diagnosis(workspace=str(ws.root), files=files, indexed=ws.index_count(), unreadable=unreadable,
                     events=list(ws.events), conflicts=list(git_sync.find_conflicts(ws)),
                     git=dict(git_sync.git_status(ws)), links=links, unresolved_links=unresolved,
                     front_matter_problems=problems)
