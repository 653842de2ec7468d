"""Git: init, readable diffs, auto-commit, two clones through a bare remote, conflict markers, history.

Every test works on real repositories in temporary folders, with the Git
identity and settings given through the environment (never the global config).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from notes_store import open_workspace
from notes_store.sync.git_conflicts import has_conflict_markers, ours_side
from notes_store.sync.git import (autocommit_enabled, commit_message, configure_autocommit,
                                  enable_autocommit, find_conflicts, init_workspace, note_history)
from notes_store.workspace import WriteEvent
from server.cli import main as cli_main

REPO = Path(__file__).resolve().parents[1]
IDENTITY = {"GIT_AUTHOR_NAME": "Ada Tester", "GIT_AUTHOR_EMAIL": "ada@example.com",
            "GIT_COMMITTER_NAME": "Ada Tester", "GIT_COMMITTER_EMAIL": "ada@example.com"}
SETTINGS = {"init.defaultBranch": "main", "pull.rebase": "false", "advice.detachedHead": "false",
            "merge.conflictStyle": "merge"}


def _settings_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    items = {**SETTINGS, **(extra or {})}
    env = {"GIT_CONFIG_COUNT": str(len(items))}
    for i, (k, v) in enumerate(items.items()):
        env[f"GIT_CONFIG_KEY_{i}"] = k
        env[f"GIT_CONFIG_VALUE_{i}"] = v
    return env


@pytest.fixture(autouse=True)
def git_env(tmp_path, monkeypatch):
    """An isolated Git: no global/system config, a known identity, fixed settings."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.delenv("CTXNOTES_GIT_AUTOCOMMIT", raising=False)
    monkeypatch.delenv("CTXNOTES_WORKSPACE", raising=False)
    for k, v in {**IDENTITY, **_settings_env()}.items():
        monkeypatch.setenv(k, v)
    return monkeypatch


def no_identity(monkeypatch) -> None:
    for k in IDENTITY:
        monkeypatch.delenv(k, raising=False)
    monkeypatch.delenv("EMAIL", raising=False)
    for k, v in _settings_env({"user.useConfigOnly": "true"}).items():  # no guessing from the host name
        monkeypatch.setenv(k, v)


def git(cwd, *args, check=True) -> str:
    proc = subprocess.run(["git", *args], cwd=str(cwd), capture_output=True, text=True, timeout=30)
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {proc.stderr}")
    return proc.stdout


def log_subjects(cwd, *paths) -> list[str]:
    return git(cwd, "log", "--format=%s", "--", *paths).splitlines()


def make_repo(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q")
    return path


def cli(*argv) -> tuple[int, str]:
    """Run the CLI in-process, returning (exit code, stdout)."""
    import contextlib
    import io
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = cli_main([str(a) for a in argv])
    return code, out.getvalue()


# -- init ------------------------------------------------------------------------------------

def test_init_without_git(tmp_path):
    code, out = cli("init", tmp_path / "ws")
    assert code == 0, out
    ws = tmp_path / "ws"
    assert (ws / "notes").is_dir() and (ws / "memory").is_dir() and (ws / ".index").is_dir()
    ignore = (ws / ".gitignore").read_text().splitlines()
    assert ".index/" in ignore and ".tmp-*" in ignore
    assert "ctxnotes workspace" in (ws / "README.md").read_text()
    assert not (ws / ".git").exists()
    assert "not under Git" in out


def test_init_with_git_commits_only_workspace_files(tmp_path):
    code, out = cli("--json", "init", tmp_path / "ws", "--git")
    assert code == 0
    data = json.loads(out)
    ws = tmp_path / "ws"
    assert data["git"]["initialised"] and data["git"]["identity"] == "configured" and data["git"]["commit"]
    assert (ws / ".git").is_dir()
    assert sorted(git(ws, "ls-files").split()) == [".gitignore", "README.md"]
    assert log_subjects(ws) == ["ctxnotes: create workspace"]
    assert git(ws, "log", "--format=%an <%ae>").strip() == "Ada Tester <ada@example.com>"
    # The index, its lock and temp files are ignored: using the workspace leaves the tree clean.
    with open_workspace(ws) as w:
        w.notes.search("anything")
    (ws / "notes" / ".tmp-x.md.1.2").write_text("partial")
    assert git(ws, "status", "--porcelain") == ""
    assert git(ws, "check-ignore", ".index/lock").strip() == ".index/lock"
    # Running it again is harmless.
    code, out = cli("init", ws, "--git")
    assert code == 0 and "nothing to commit" in out
    assert len(log_subjects(ws)) == 1


def test_init_without_identity_uses_a_one_off_fallback(tmp_path, git_env):
    no_identity(git_env)
    data = init_workspace(tmp_path / "ws", git=True)
    assert data["git"]["identity"] == "fallback"
    assert any("user.name" in w for w in data["warnings"])
    ws = tmp_path / "ws"
    assert git(ws, "log", "--format=%an <%ae>").strip() == "ctxnotes <ctxnotes@localhost>"
    assert git(ws, "config", "--local", "--get", "user.name", check=False) == ""  # nothing written to config


def test_init_inside_a_larger_repo_commits_only_the_workspace(tmp_path):
    outer = make_repo(tmp_path / "project")
    (outer / "app.py").write_text("print('hi')\n")
    git(outer, "add", "app.py")  # someone's staged work: must stay staged, uncommitted
    data = init_workspace(outer / "docs" / "notes-ws", git=True, autocommit=True)
    assert not data["git"]["initialised"] and Path(data["git"]["repository"]) == outer.resolve()
    assert not (outer / "docs" / "notes-ws" / ".git").exists()
    assert log_subjects(outer) == ["ctxnotes: create workspace docs/notes-ws"]
    assert sorted(git(outer, "show", "--name-only", "--format=", "HEAD").split()) == [
        "docs/notes-ws/.ctxnotes.yaml", "docs/notes-ws/.gitignore", "docs/notes-ws/README.md"]
    assert git(outer, "diff", "--cached", "--name-only").split() == ["app.py"]


# -- readable history ----------------------------------------------------------------------------

def test_update_produces_an_exact_minimal_diff(tmp_path, clock):
    root = make_repo(tmp_path / "ws")
    with open_workspace(root, clock=clock) as ws:
        note = ws.notes.create("Auth refactor", "Step 1 done.\nStep 2 next.", note_type="task_state",
                               tags=["auth", "后端"])
        other = ws.notes.create("Unrelated", "Leave me alone")
        git(root, "add", "-A")
        git(root, "commit", "-qm", "two notes")
        clock.advance(3600)
        ws.notes.update(note.id, content="Step 1 done.\nStep 2 done.", tags=["auth", "后端", "done"])
        path = f"notes/{note.id}.md"
        old_blob = git(root, "rev-parse", "--short=7", f"HEAD:{path}").strip()
        new_blob = git(root, "hash-object", path).strip()[:7]
        assert git(root, "status", "--porcelain") == f" M {path}\n"  # one file; the other note untouched
        assert other.id not in git(root, "diff")
        diff = git(root, "diff", "--no-color", "--no-ext-diff")
    expected = (
        f"diff --git a/{path} b/{path}\n"
        f"index {old_blob}..{new_blob} 100644\n"
        f"--- a/{path}\n"
        f"+++ b/{path}\n"
        "@@ -2,11 +2,11 @@\n"
        f" id: {note.id}\n"
        " title: Auth refactor\n"
        " type: task_state\n"
        "-tags: [auth, 后端]\n"
        "+tags: [auth, 后端, done]\n"
        " created_at: '2025-11-24T16:00:00+00:00'\n"
        "-updated_at: '2025-11-24T16:00:00+00:00'\n"
        "+updated_at: '2025-11-24T17:00:00+00:00'\n"
        " ---\n"
        " # Auth refactor\n"
        " \n"
        " Step 1 done.\n"
        "-Step 2 next.\n"
        "+Step 2 done.\n"
    )
    assert diff == expected


def test_an_update_that_changes_nothing_writes_nothing(tmp_path):
    root = make_repo(tmp_path / "ws")
    with open_workspace(root) as ws:
        note = ws.notes.create("Stable", "same", tags=["a"])
        git(root, "add", "-A")
        git(root, "commit", "-qm", "one")
        ws.notes.update(note.id, title="Stable", content="same", tags=["a"])
    assert git(root, "status", "--porcelain") == ""


# -- auto-commit -------------------------------------------------------------------------------

def test_autocommit_is_off_by_default(tmp_path):
    root = tmp_path / "ws"
    init_workspace(root, git=True)
    with open_workspace(root) as ws:
        assert not configure_autocommit(ws) and not autocommit_enabled(ws)
        note = ws.notes.create("Not committed", "x")
    assert len(log_subjects(root)) == 1
    assert git(root, "status", "--porcelain", "--untracked-files=all") == f"?? notes/{note.id}.md\n"


def test_autocommit_commits_each_write_alone_with_its_message(tmp_path):
    root = tmp_path / "ws"
    init_workspace(root, git=True)
    (root / "scratch.txt").write_text("staged by a person\n")
    git(root, "add", "scratch.txt")
    with open_workspace(root) as ws:
        listener = enable_autocommit(ws)
        assert enable_autocommit(ws) is listener and ws.write_listeners.count(listener) == 1
        note = ws.notes.create("Auth refactor", "step 1", note_type="task_state")
        keep = ws.notes.create("Keeper", "stays")
        ws.notes.update(note.id, title="Auth refactor, step 2", content="step 2")
        ws.notes.update(note.id, title="Auth refactor, step 2", content="step 2")  # no change: no commit
        ws.notes.delete(note.id)
        memory = ws.memory.add("The user prefers tabs", memory_type="semantic")
        assert ws.take_warnings() == []
    assert log_subjects(root)[:5] == [
        f"memory_add: The user prefers tabs ({memory.id})",
        f"note_delete: Auth refactor, step 2 ({note.id})",
        f"note_update: Auth refactor, step 2 ({note.id})",
        f"note_create: Keeper ({keep.id})",
        f"note_create: Auth refactor ({note.id})",
    ]
    assert listener.commits == 5
    for rev in range(5):  # every commit holds exactly one file
        assert len(git(root, "show", "--name-only", "--format=", f"HEAD~{rev}").split()) == 1
    assert git(root, "show", "--name-status", "--format=", "HEAD~1").split() == ["D", f"notes/{note.id}.md"]
    # The person's staged file is still staged and was never committed.
    assert git(root, "diff", "--cached", "--name-only").split() == ["scratch.txt"]
    assert log_subjects(root, "scratch.txt") == []


def test_autocommit_in_a_subfolder_of_a_larger_repo(tmp_path):
    outer = make_repo(tmp_path / "project")
    (outer / "main.c").write_text("int main(){}\n")
    git(outer, "add", "main.c")
    git(outer, "commit", "-qm", "code")
    (outer / "main.c").write_text("int main(){return 1;}\n")
    git(outer, "add", "main.c")
    with open_workspace(outer / "team" / "notes-ws") as ws:
        assert configure_autocommit(ws, True)
        note = ws.notes.create("Design decision", "use sqlite", note_type="conclusion")
        assert ws.take_warnings() == []
    assert log_subjects(outer)[0] == f"note_create: Design decision ({note.id})"
    assert git(outer, "show", "--name-only", "--format=", "HEAD").split() == [f"team/notes-ws/notes/{note.id}.md"]
    assert git(outer, "diff", "--cached", "--name-only").split() == ["main.c"]


def test_failing_commit_is_a_warning_and_the_note_is_saved(tmp_path, git_env):
    plain = tmp_path / "plain"  # not a repository at all
    with open_workspace(plain) as ws:
        enable_autocommit(ws)
        note = ws.notes.create("Saved anyway", "content")
        warnings = ws.take_warnings()
        assert len(warnings) == 1 and "not in a Git repository" in warnings[0] and note.id in warnings[0]
        assert note.warnings == warnings and note.to_dict()["warnings"] == warnings  # on the result too
        assert ws.notes.read(note.id).content == "content"
        assert ws.take_warnings() == []  # taken once
        updated = ws.notes.update(note.id, content="more")
        assert len(updated.warnings) == 1 and "not in a Git repository" in updated.warnings[0]
        memory = ws.memory.add("saved memory", memory_type="semantic")
        assert len(memory.warnings) == 1 and memory.id in memory.warnings[0]
        gone = ws.notes.delete(updated.id)
        assert len(gone["warnings"]) == 1 and "not in a Git repository" in gone["warnings"][0]
        ws.take_warnings()

    root = tmp_path / "repo"
    init_workspace(root, git=True)
    no_identity(git_env)
    with open_workspace(root) as ws:
        enable_autocommit(ws)
        note = ws.notes.create("No identity", "still saved")
        warnings = ws.take_warnings()
        assert len(warnings) == 1 and "user.name" in warnings[0] and "saved but not committed" in warnings[0]
        assert note.warnings == warnings
        assert ws.notes.read(note.id).warnings == []  # a read raises none
        assert ws.notes.search("identity").hits[0].note.id == note.id
    assert len(log_subjects(root)) == 1


def test_autocommit_settings_flag_env_and_config_file(tmp_path, git_env):
    root = tmp_path / "ws"
    init_workspace(root, git=True)
    with open_workspace(root) as ws:
        assert configure_autocommit(ws, None) is False
        (root / ".ctxnotes.yaml").write_text("git_autocommit: true\n")
        assert configure_autocommit(ws, None) is True
        git_env.setenv("CTXNOTES_GIT_AUTOCOMMIT", "0")
        assert configure_autocommit(ws, None) is True  # already on; env says off but no explicit flag: stays
        assert configure_autocommit(ws, False) is False  # an explicit flag wins and turns it off
        git_env.setenv("CTXNOTES_GIT_AUTOCOMMIT", "yes")
        (root / ".ctxnotes.yaml").write_text("git_autocommit: false\n")
        assert configure_autocommit(ws, None) is True


def test_recall_leaves_git_status_clean_and_ranking_keeps_the_counts(tmp_path):
    root = tmp_path / "ws"
    init_workspace(root, git=True, autocommit=True)
    with open_workspace(root) as ws:
        assert autocommit_enabled(ws)
        memory = ws.memory.add("Deploys happen on Fridays", memory_type="episodic")
        other = ws.memory.add("Deploys are announced in the ops channel", memory_type="episodic")
        assert git(root, "status", "--porcelain") == ""
        commits = len(log_subjects(root))
        for _ in range(3):
            hits = ws.memory.search("fridays deploys").hits
            assert hits[0].memory.id == memory.id
        ws.memory.read(memory.id)
        ws.memory.list(sort="accessed_desc")
        ws.flush()
        assert git(root, "status", "--porcelain", "--untracked-files=all") == ""
        assert len(log_subjects(root)) == commits
        assert ws.memory.read(memory.id).access_count == 3
        # Ranking uses the counts: episodic -> semantic promotes by access count.
        moved = ws.memory.consolidate("episodic", "semantic", min_access_count=3, dry_run=True).moved
        assert [m.memory.id for m in moved] == [memory.id] and other.id not in [m.memory.id for m in moved]
        # A rebuild of the index keeps the statistics (they are not in the index).
        ws.rebuild()
        assert ws.memory.read(memory.id).access_count == 3
        # A real change is still committed, and the file still has no statistics in it.
        ws.memory.update(memory.id, importance=0.9)
        assert len(log_subjects(root)) == commits + 1
        assert "access_count" not in (root / "memory" / f"{memory.id}.md").read_text()
        assert git(root, "status", "--porcelain") == ""


def test_commit_message_is_one_short_line():
    event = WriteEvent("update", "note", "note_x", "A title\nwith a newline " + "x" * 100, Path("/w/notes/note_x.md"))
    message = commit_message(event)
    assert "\n" not in message and message.startswith("note_update: A title with a newline")
    assert message.endswith("… (note_x)") and len(message) < 100


# -- two clones through a bare remote ---------------------------------------------------------------

@pytest.fixture
def clones(tmp_path):
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    a = tmp_path / "a"
    init_workspace(a, git=True)
    git(a, "remote", "add", "origin", str(remote))
    git(a, "push", "-q", "-u", "origin", "main")
    b = tmp_path / "b"
    git(tmp_path, "clone", "-q", str(remote), str(b))
    return a, b


def test_pull_is_picked_up_by_an_open_workspace_without_restart(clones):
    a, b = clones
    with open_workspace(a) as wa, open_workspace(b) as wb:
        enable_autocommit(wa)
        assert wb.notes.search("kubernetes").total == 0
        n1 = wa.notes.create("Cluster upgrade", "kubernetes 1.31 rollout plan", note_type="action")
        n2 = wa.notes.create("Pager rota", "who is on call for kubernetes")
        git(a, "push", "-q")
        git(b, "pull", "-q")
        found = {h.note.id for h in wb.notes.search("kubernetes").hits}
        assert found == {n1.id, n2.id}
        assert wb.notes.read(n1.id).content == "kubernetes 1.31 rollout plan"

        wa.notes.delete(n2.id)
        git(a, "push", "-q")
        git(b, "pull", "-q")
        assert {h.note.id for h in wb.notes.search("kubernetes").hits} == {n1.id}
        assert wb.notes.list().total == 1
        assert wb.index_count("note") == 1


@pytest.mark.anyio
async def test_pull_is_picked_up_by_a_running_stdio_server(clones):
    from mcp import Client, StdioServerParameters
    a, b = clones
    params = StdioServerParameters(command=sys.executable, args=["-m", "server.cli", "serve", "--workspace", str(b)],
                                   cwd=str(REPO))
    async with Client(params) as client:
        async def search(q):
            r = await client.call_tool("note_search", {"query": q})
            assert not r.is_error, r.content[0].text
            return {h["id"] for h in r.structured_content["hits"]}

        assert await search("postgres") == set()
        with open_workspace(a) as wa:
            enable_autocommit(wa)
            note = wa.notes.create("Database choice", "postgres over mysql", note_type="conclusion")
            git(a, "push", "-q")
            git(b, "pull", "-q")
            assert await search("postgres") == {note.id}
            wa.notes.delete(note.id)
            git(a, "push", "-q")
            git(b, "pull", "-q")
            assert await search("postgres") == set()


# -- merge conflicts ---------------------------------------------------------------------------

def test_conflicting_pull_is_flagged_and_the_note_stays_readable(clones, clock):
    a, b = clones
    with open_workspace(a, clock=clock) as wa:
        enable_autocommit(wa)
        note = wa.notes.create("Release plan", "ship on monday", tags=["release"])
        git(a, "push", "-q")
    git(b, "pull", "-q")
    with open_workspace(a, clock=clock) as wa, open_workspace(b, clock=clock) as wb:
        enable_autocommit(wa)
        enable_autocommit(wb)
        clock.advance(60)
        wa.notes.update(note.id, title="Release plan A", content="ship on tuesday")
        git(a, "push", "-q")
        clock.advance(60)
        wb.notes.update(note.id, title="Release plan B", content="ship on friday")
        pulled = subprocess.run(["git", "pull", "-q"], cwd=b, capture_output=True, text=True, timeout=30)
        assert pulled.returncode != 0 and "CONFLICT" in pulled.stdout + pulled.stderr
        raw = (b / "notes" / f"{note.id}.md").read_text()
        assert "<<<<<<< HEAD" in raw and ">>>>>>> " in raw  # the front matter is broken by the markers

        summary = wb.notes.summary().to_dict()
        assert summary["conflicts"] == [{"id": note.id, "path": f"notes/{note.id}.md", "readable": True}]
        assert summary["unreadable"] == []
        read = wb.notes.read(note.id)
        assert read.title == "Release plan B"  # the front matter from the 'ours' side
        assert "ship on friday" in read.content and "ship on tuesday" in read.content  # body kept with markers
        assert wb.notes.search("tuesday").hits[0].note.id == note.id
        # A further write is not committed in the middle of a merge: a warning, the file is saved.
        wb.notes.update(note.id, content="ship on friday (resolved)")
        warnings = wb.take_warnings()
        assert len(warnings) == 1 and "not committed" in warnings[0]
        assert wb.notes.summary().conflicts == []

    code, out = cli("--json", "-w", b, "doctor")
    assert code == 0 and json.loads(out)["conflicts"] == []


def test_doctor_and_summary_flag_conflict_markers(tmp_path):
    root = tmp_path / "ws"
    with open_workspace(root) as ws:
        body_conflict = ws.notes.create("Body conflict", "before")
        head_conflict = ws.notes.create("Head conflict", "text")
        clean = ws.notes.create("Setext heading", "Heading\n=======\n\n> >>>>>>> quoted")
        broken = ws.notes.create("Broken", "x")
    p = root / "notes" / f"{body_conflict.id}.md"
    p.write_text(p.read_text().replace("before\n", "<<<<<<< HEAD\nours text\n=======\ntheirs text\n>>>>>>> origin/main\n"))
    p = root / "notes" / f"{head_conflict.id}.md"
    p.write_text(p.read_text().replace("title: Head conflict\n",
                                       "<<<<<<< HEAD\ntitle: Ours title\n||||||| base\ntitle: Head conflict\n"
                                       "=======\ntitle: Their title\n>>>>>>> theirs\n"))
    p = root / "notes" / f"{broken.id}.md"
    p.write_text("<<<<<<< HEAD\nno front matter\n=======\nnor here\n>>>>>>> x\n")

    with open_workspace(root) as ws:
        summary = ws.notes.summary()
        # Without front matter the third is a page like any other Markdown file: readable, indexed, flagged.
        assert [(c["id"], c["readable"]) for c in summary.conflicts] == sorted(
            [(body_conflict.id, True), (head_conflict.id, True), (broken.id, True)])
        assert summary.total == 4  # the readable conflicted notes are indexed, flagged
        assert ws.notes.read(head_conflict.id).title == "Ours title"
        assert "theirs text" in ws.notes.read(body_conflict.id).content
        assert ws.notes.search("theirs").hits[0].note.id == body_conflict.id
        assert clean.id not in {c["id"] for c in find_conflicts(ws)}

    code, out = cli("-w", root, "doctor")
    assert code == 0
    assert f"notes/{body_conflict.id}.md" in out and f"notes/{broken.id}.md" in out
    code, out = cli("--json", "-w", root, "doctor")
    assert {c["id"] for c in json.loads(out)["conflicts"]} == {body_conflict.id, head_conflict.id, broken.id}


def test_conflict_marker_detection():
    assert has_conflict_markers("a\n<<<<<<< HEAD\nx\n=======\ny\n>>>>>>> b\n")
    assert has_conflict_markers(b"<<<<<<< HEAD\r\nx\r\n=======\r\ny\r\n>>>>>>> b\r\n")
    assert not has_conflict_markers("Title\n=======\n")
    assert not has_conflict_markers("<<<<<<< HEAD\nx\n>>>>>>> b\n")  # no separator
    assert not has_conflict_markers("x <<<<<<< HEAD\n=======\n>>>>>>> b\n")  # not at a line start
    assert ours_side("a\n<<<<<<< H\no\n||||||| base\nb\n=======\nt\n>>>>>>> T\nz\n") == "a\no\nz\n"


# -- history --------------------------------------------------------------------------------------

def test_history_lists_the_commits_of_one_note(tmp_path, git_env):
    root = tmp_path / "ws"
    init_workspace(root, git=True)
    with open_workspace(root) as ws:
        enable_autocommit(ws)
        note = ws.notes.create("Tracked", "v1")
        other = ws.notes.create("Other", "x")
        git_env.setenv("GIT_AUTHOR_NAME", "Bob Second")
        ws.notes.update(note.id, content="v2")
        history = note_history(ws, note.id)
        assert history["in_git"] and Path(history["repository"]) == root.resolve()
        assert [c["message"] for c in history["commits"]] == [f"note_update: Tracked ({note.id})",
                                                              f"note_create: Tracked ({note.id})"]
        assert [c["author"] for c in history["commits"]] == ["Bob Second", "Ada Tester"]
        first = history["commits"][0]
        assert first["hash"].startswith(first["short_hash"]) and first["date"][:2] == "20"
        assert len(note_history(ws, note.id, limit=1)["commits"]) == 1
        ws.notes.delete(other.id)
        gone = note_history(ws, other.id)
        assert [c["message"].split(":")[0] for c in gone["commits"]] == ["note_delete", "note_create"]
        assert "deleted" in gone["message"]
        from notes_store.errors import NotFound
        with pytest.raises(NotFound):
            note_history(ws, "note_never_existed")

    code, out = cli("-w", root, "history", note.id)
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == f"2 commit(s) touched notes/{note.id}.md"
    assert lines[1].endswith(f"Bob Second  note_update: Tracked ({note.id})")


def test_history_outside_git_says_so(tmp_path):
    with open_workspace(tmp_path / "ws") as ws:
        note = ws.notes.create("Loose", "x")
        history = note_history(ws, note.id)
    assert history["in_git"] is False and history["commits"] == []
    assert "not in a Git repository" in history["message"]
    code, out = cli("-w", tmp_path / "ws", "history", note.id)
    assert code == 0 and "not in a Git repository" in out


def test_conflict_markers_are_found_in_one_pass(monkeypatch) -> None:
    """Many start lines and a middle line but no end line (a note anyone can write, or a file in a cloned
    repository): each start line used to rescan to the end of the text, 1.55 s for 64 KB, ~30 min for 2 MiB."""
    from notes_store.sync import git_conflicts
    searched: list[int] = []

    class Counting:
        def __init__(self, pattern):
            self.pattern = pattern

        def search(self, text, pos=0):
            searched.append(len(text) - pos)   # characters each search may scan
            return self.pattern.search(text, pos)

    for name in ("_START", "_MID", "_END"):
        monkeypatch.setattr(git_conflicts, name, Counting(getattr(git_conflicts, name)))
    hostile = "<<<<<<< ours\n" * 2_000 + "=======\n"
    assert not has_conflict_markers(hostile) and not has_conflict_markers(hostile.encode())
    assert sum(searched) <= 2 * 3 * len(hostile)   # each pattern over the text at most once per call
    # The answers are those of the every-start definition.
    assert has_conflict_markers("<<<<<<< a\nx\n<<<<<<< b\n=======\ny\n>>>>>>> c\n")
    assert has_conflict_markers("<<<<<<< a\n=======\n=======\n>>>>>>> b\n")
    assert not has_conflict_markers("=======\n>>>>>>> b\n<<<<<<< a\n")
    assert not has_conflict_markers("<<<<<<< a\n>>>>>>> b\n=======\n")


def test_history_cuts_what_a_cloned_repository_put_in_names_and_subjects(tmp_path, git_env):
    """A 5 MB commit subject (or author name) from someone else's repository: 20 of them made note_history
    14 s of CPU and 100 MB of result (the helper's attack pass). Git cuts them now."""
    from notes_store.sync.git import MAX_NAME_COLUMNS, MAX_SUBJECT_COLUMNS, run_git
    root = tmp_path / "ws"
    init_workspace(root, git=True)
    with open_workspace(root) as ws:
        note = ws.notes.create("Tracked", "v1")
        path = ws.root / "notes" / f"{note.id}.md"
        for k in range(3):
            path.write_text(path.read_text() + f"line {k}\n")
            run_git(["add", "--", str(path)], root)
            message = tmp_path / "message.txt"          # over the 128 KiB a single argument may hold
            message.write_text("S" * 200_000 + " end\n")
            run_git(["-c", f"user.name={'N' * 50_000}", "commit", "-q", "-F", str(message)], root)
        history = note_history(ws, note.id)
        assert len(history["commits"]) >= 3
        for c in history["commits"][:3]:
            assert len(c["message"]) <= MAX_SUBJECT_COLUMNS and c["message"].startswith("SSS")
            assert c["message"].endswith("..") and len(c["author"]) <= MAX_NAME_COLUMNS
