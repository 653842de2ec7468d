"""Bring your own Markdown: a vault of nested pages without our front matter, on a real store and index."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from notes_store import InvalidInput, NotFound, open_workspace
from notes_store.vault import foreign_update

PAGES = {
    "index.md": "# Welcome\n\nStart at [[Getting Started]] or [[guides/Setup|setup]]; see ![[diagram]].\n"
                "Also [the FAQ](faq/Frequently%20asked.md) and [[missing page]].\n",
    "Getting Started.md": "---\naliases: [Quick start, 入门]\ndescription: How to install the tool and write a first note.\n"
                          "permalink: /start/\ntags: [guide, '#intro']\n---\n# Getting Started\n\n"
                          "Install it. Back to [[index]]. Next: [[Setup]].\n",
    "guides/Setup.md": "Setup without a heading or front matter.\n\nLinks back to [[Getting Started#Install]].\n",
    "guides/deep/nested/diagram.md": "# Diagram\n\n```\n[[not a link]]\n```\nA cycle: [[index]].\n",
    "faq/Frequently asked.md": "---\r\ntitle: FAQ\r\ntype: reference\r\n---\r\nQuestions, CRLF lines.\r\n"
                               "Duplicate name: [[Notes]].\r\n",
    "a/Notes.md": "# Notes in a\n\nFrom folder a. [[Notes]]\n",
    "b/Notes.md": "# Notes in b\n\nFrom folder b.\n",
    "用户指南/快速开始.md": "# 快速开始\n\n这是中文页面，链接到 [[入门]] 和 [[Getting Started]]。\n",
    "only-aliases.md": "---\naliases: Alias One, Alias Two\n---\nJust text about zebras.\n",
    ".obsidian/workspace.md": "# Not a note\n",
    ".trash/old.md": "# Deleted\n",
    "drafts/wip.md": "# Work in progress\n",
}


@pytest.fixture
def vault(tmp_path):
    root = tmp_path / "ws"
    notes = root / "notes"
    for rel, text in PAGES.items():
        path = notes / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode())
    (notes / ".gitignore").write_text("drafts/\n")
    return root


def git(root, *args):
    return subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", *args],
                          capture_output=True, text=True, check=True).stdout


EXPECTED_IDS = ["Getting Started", "a/Notes", "b/Notes", "faq/Frequently asked", "guides/Setup",
                "guides/deep/nested/diagram", "index", "only-aliases", "用户指南/快速开始"]


def test_every_page_is_listed_read_and_searched_without_writes(vault):
    git(vault, "init", "-q")
    git(vault, "add", "notes")
    git(vault, "commit", "-qm", "vault")
    ws = open_workspace(vault, git_autocommit=False)
    try:
        listed = ws.notes.list(limit=100)
        assert sorted(n.id for n in listed.notes) == EXPECTED_IDS
        assert ws.notes.summary().unreadable == []
        titles = {n.id: n.title for n in listed.notes}
        assert titles["guides/Setup"] == "Setup"                     # the file name
        assert titles["faq/Frequently asked"] == "FAQ"               # front matter
        assert titles["a/Notes"] == "Notes in a"                     # the first heading
        for note_id in EXPECTED_IDS:
            note = ws.notes.read(note_id)
            assert note.id == note_id and note.revision
        start = ws.notes.read("Getting Started")
        assert start.tags == ["guide", "intro"] and start.extra["permalink"] == "/start/"
        assert "Install it." in (start.content or "")
        assert ws.notes.read("faq/Frequently asked").type == "reference"
        for query, expected in [("zebras", "only-aliases"), ("快速开始", "用户指南/快速开始"),
                                ("Quick start", "Getting Started"), ("入门", "Getting Started"),
                                ("install the tool first note", "Getting Started"),
                                ("Frequently asked", "faq/Frequently asked"),
                                ("Alias Two", "only-aliases"), ("nested diagram", "guides/deep/nested/diagram")]:
            hits = [h.note.id for h in ws.notes.search(query).hits]
            assert expected in hits[:3], (query, hits)
        assert not ws.notes.search("Work in progress").hits    # an ignored folder
        assert not ws.notes.search("Deleted").hits
    finally:
        ws.close()
    assert git(vault, "status", "--porcelain", "--", "notes") == ""


def test_links_and_backlinks(vault):
    ws = open_workspace(vault)
    try:
        links = ws.notes.links("index")
        assert links["links_to"] == ["Getting Started", "guides/Setup", "guides/deep/nested/diagram",
                                     "faq/Frequently asked"]
        assert sorted(links["linked_from"]) == ["Getting Started", "guides/deep/nested/diagram"]   # a cycle
        assert ws.notes.links("Getting Started")["linked_from"] == ["guides/Setup", "index", "用户指南/快速开始"]
        assert ws.notes.links("a/Notes")["linked_from"] == ["a/Notes"]            # the same folder wins
        unresolved = {(u["source"], u["target"]) for u in ws.notes.summary().to_dict()["unresolved_links"]}
        assert ("index", "missing page") in unresolved
        assert ("faq/Frequently asked", "Notes") in unresolved                  # two files of that name
        # incremental: a new page resolves a missing link, a deleted one unresolves
        ws.notes.create("missing page", "now here", folder="", name_from_title=True)
        assert "missing page" in ws.notes.links("index")["links_to"]
        ws.notes.delete("guides/Setup")
        assert "guides/Setup" not in ws.notes.links("index")["links_to"]
        hits = ws.notes.search("Back", links_to="index").hits
        assert [h.note.id for h in hits] == ["Getting Started"]
        with pytest.raises(InvalidInput, match="links_to"):
            ws.notes.search("x", links_to="no such page")
    finally:
        ws.close()


def test_updates_change_only_what_was_changed(vault):
    ws = open_workspace(vault)
    try:
        path = vault / "notes" / "faq" / "Frequently asked.md"
        before = path.read_bytes()
        note = ws.notes.update("faq/Frequently asked", tags=["x"])
        after = path.read_bytes()
        assert after == before.replace(b"type: reference\r\n", b"type: reference\r\ntags: [x]\r\n")
        assert note.id == "faq/Frequently asked" and note.tags == ["x"]
        ws.notes.update("faq/Frequently asked", content="New body\nline two\n")
        assert path.read_bytes().endswith(b"---\r\nNew body\r\nline two\r\n")
        setup = vault / "notes" / "guides" / "Setup.md"
        ws.notes.update("guides/Setup", title="Setup guide")
        assert setup.read_bytes() == b"---\ntitle: Setup guide\n---\n" + PAGES["guides/Setup.md"].encode()
        diagram = vault / "notes" / "guides" / "deep" / "nested" / "diagram.md"
        ws.notes.update("guides/deep/nested/diagram", title="Diagram 2")
        assert diagram.read_bytes() == PAGES["guides/deep/nested/diagram.md"].replace("# Diagram", "# Diagram 2").encode()
        assert sorted(p.name for p in (vault / "notes" / "guides").iterdir()) == ["Setup.md", "deep"]
    finally:
        ws.close()


def test_create_in_a_folder_named_from_the_title(vault):
    ws = open_workspace(vault)
    try:
        note = ws.notes.create("Plan: Q1 / Q2?", "content", folder="projects/2026", name_from_title=True)
        assert note.id == "projects/2026/Plan Q1 Q2"
        assert (vault / "notes" / "projects" / "2026" / "Plan Q1 Q2.md").is_file()
        again = ws.notes.create("Plan: Q1 / Q2?", "content", folder="projects/2026", name_from_title=True)
        assert again.id == "projects/2026/Plan Q1 Q2 1"
        generated = ws.notes.create("Generated", "x", folder="inbox")
        assert generated.id.startswith("inbox/note_")
        assert ws.notes.read(generated.id).title == "Generated"
        for folder in ("../outside", "/abs", "a/../../b", "a\\b", "\uff0e\uff0e", "x/\u2215etc", ".git"):
            with pytest.raises(InvalidInput):
                ws.notes.create("t", "c", folder=folder)
        evil = ws.notes.create("../../../etc/passwd", "c", name_from_title=True)
        assert evil.id == "etc passwd"
        assert not (vault.parent / "etc").exists()
    finally:
        ws.close()


@pytest.mark.parametrize("bad", ["../ws/notes/index", "/etc/passwd", "a\\b", "a\x00b", "%2e%2e/index",
                                 "a\u2215b", "\uff0e\uff0e/index", "linked/secret", "guides/../index",
                                 ".obsidian/workspace"])
def test_ids_that_leave_notes_are_refused_everywhere(vault, bad):
    outside = vault.parent / "outside"
    outside.mkdir(exist_ok=True)
    (outside / "secret.md").write_text("---\nid: secret\ntitle: s\n---\n# secret\n")
    if not (vault / "notes" / "linked").exists():
        os.symlink(outside, vault / "notes" / "linked")
    ws = open_workspace(vault)
    try:
        for call in (lambda: ws.notes.read(bad), lambda: ws.notes.update(bad, content="x"),
                     lambda: ws.notes.delete(bad), lambda: ws.notes.links(bad)):
            with pytest.raises((InvalidInput, NotFound)) as err:
                call()
            assert "secret" not in str(err.value) or "not a valid id" in str(err.value) or "link" in str(err.value)
        assert (outside / "secret.md").read_text().startswith("---\nid: secret")
        assert "linked/secret" not in [n.id for n in ws.notes.list(limit=100).notes]
    finally:
        ws.close()


def test_hostile_files_stay_bounded(vault):
    notes = vault / "notes"
    os.mkfifo(notes / "guides" / "fifo.md")
    (notes / "big").mkdir()
    (notes / "big" / "huge.md").write_bytes(b"x" * (3 << 20))
    (notes / "bad\\name.md").write_text("x")
    ws = open_workspace(vault)
    try:
        unreadable = {u["path"]: u["reason"] for u in ws.notes.summary().unreadable}
        assert "notes/guides/fifo.md" in unreadable and "notes/big/huge.md" in unreadable
        assert "backslash" in unreadable["notes/bad\\name.md"]
        assert len(ws.notes.list(limit=100).notes) == len(EXPECTED_IDS)
    finally:
        ws.close()


def test_outside_changes_in_nested_folders_are_picked_up(vault):
    ws = open_workspace(vault)
    try:
        ws.notes.list()
        new = vault / "notes" / "new folder" / "deeper"
        new.mkdir(parents=True)
        (new / "Fresh page.md").write_text("# Fresh\n\nunusualword [[index]]\n")
        ws.refresh(force=True)
        assert [h.note.id for h in ws.notes.search("unusualword").hits] == ["new folder/deeper/Fresh page"]
        assert "new folder/deeper/Fresh page" in ws.notes.links("index")["linked_from"]
        shutil.rmtree(vault / "notes" / "new folder")
        ws.refresh(force=True)
        assert not ws.notes.search("unusualword").hits
    finally:
        ws.close()


def test_restart_keeps_ids_and_links(vault):
    ws = open_workspace(vault)
    ws.notes.list()
    ws.close()
    ws = open_workspace(vault)
    try:
        assert sorted(n.id for n in ws.notes.list(limit=100).notes) == EXPECTED_IDS
        assert "index" in ws.notes.links("guides/deep/nested/diagram")["links_to"]
    finally:
        ws.close()


def test_foreign_update_unit():
    raw = b"---\ntags: a, b\n---\n# T\nbody\n"
    assert foreign_update(raw, "heading", title=None, content=None, note_type=None, tags=[]) == b"---\n---\n# T\nbody\n"
    assert foreign_update(raw, "heading", title="U", content=None, note_type="blocker", tags=None) == \
        b"---\ntags: a, b\ntype: blocker\n---\n# U\nbody\n"
    assert foreign_update(b"text\n", "file name", title=None, content=None, note_type=None, tags=[]) == b"text\n"


def test_inotify_sees_nested_folders(vault):
    ws = open_workspace(vault)
    try:
        if not ws.watching_with_inotify:
            pytest.skip("inotify is not available here")
        ws.notes.list()
        (vault / "notes" / "guides" / "deep" / "Edited.md").write_text("# Edited\n\nquasarword\n")
        ws.refresh()   # no forced scan: inotify names the file in a sub-folder
        assert [h.note.id for h in ws.notes.search("quasarword").hits] == ["guides/deep/Edited"]
        brand_new = vault / "notes" / "brand" / "new"
        brand_new.mkdir(parents=True)
        (brand_new / "Page.md").write_text("pulsarword\n")
        ws.refresh()   # a new folder: events lost for its files until watched, so everything is scanned
        assert [h.note.id for h in ws.notes.search("pulsarword").hits] == ["brand/new/Page"]
        (brand_new / "Second.md").write_text("magnetarword\n")
        ws.refresh()   # and now it is watched
        assert [h.note.id for h in ws.notes.search("magnetarword").hits] == ["brand/new/Second"]
        (vault / "notes" / "drafts" / "ignored.md").write_text("blazarword\n")
        ws.refresh()
        assert not ws.notes.search("blazarword").hits
    finally:
        ws.close()


def test_build_context_follows_one_hop_of_links(vault):
    from context import build_context
    from context.gather.workspace import WorkspaceEvidence
    notes = vault / "notes"
    (notes / "Incident.md").write_text("# Incident\n\nThe reactor alarm fired; see [[Runbook]] for what to do.\n")
    (notes / "ops" / "Runbook.md").parent.mkdir(parents=True, exist_ok=True)
    (notes / "ops" / "Runbook.md").write_text("# Runbook\n\nRestart the coolant pump, then page the on-call lead.\n")
    ws = open_workspace(vault)
    try:
        result = build_context("reactor alarm", max_tokens=2000, evidence=WorkspaceEvidence(ws)).to_dict()
        selected = {s["id"] for s in result["selected"] if s["source"] == "note"}
        assert {"Incident", "ops/Runbook"} <= selected           # the runbook has none of the query's words
        assert any("one hop of links" in w and "Incident -> ops/Runbook" in w for w in result["warnings"])
        assert "coolant pump" in result["context"]
    finally:
        ws.close()


def test_temp_files_of_dead_writers_are_swept_in_sub_folders(vault):
    deep = vault / "notes" / "guides" / "deep"
    (deep / ".tmp-Orphan.md.999999999.1.1").write_text("half a write")
    ws = open_workspace(vault)
    try:
        ws.refresh(force=True)
        from notes_store.sync.saved_catalogue import sweep_temp_files
        with ws._mutex, ws.lock.hold():
            sweep_temp_files(ws)
        assert not (deep / ".tmp-Orphan.md.999999999.1.1").exists()
    finally:
        ws.close()


def test_restart_with_nothing_changed_trusts_the_saved_catalogue(vault):
    ws = open_workspace(vault)
    ws.notes.list()
    ws.close()
    ws = open_workspace(vault)
    try:
        assert ws._scan_before_reading   # the saved stamps of every sub-folder matched: no scan at open
    finally:
        ws.close()
    (vault / "notes" / "guides" / "deep" / "new.md").write_text("# New\n")   # a sub-folder's mtime changes
    ws = open_workspace(vault)
    try:
        assert not ws._scan_before_reading
        assert "guides/deep/new" in [n.id for n in ws.notes.list(limit=100).notes]
    finally:
        ws.close()


def test_opening_a_vault_inside_a_git_repository_leaves_git_status_clean(tmp_path):
    """A folder already in a repository (someone's vault) gets its ignore rules in info/exclude, not a new
    .gitignore: opening, listing, reading and searching it change nothing git status shows."""
    import subprocess

    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(tmp_path), *args], check=True, capture_output=True,
                              text=True).stdout

    git("init", "-q")
    (tmp_path / "notes" / "guides").mkdir(parents=True)
    (tmp_path / "notes" / "guides" / "Setup.md").write_text("---\ntags: [a]\n---\n# Setup\n\nSee [[Home]].\n")
    (tmp_path / "notes" / "Home.md").write_text("# Home\n\nStart at [[guides/Setup]].\n")
    git("add", "-A")
    git("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "vault")
    ws = open_workspace(tmp_path)
    try:
        assert {n.id for n in ws.notes.list().notes} == {"Home", "guides/Setup"}
        assert ws.notes.read("guides/Setup").title == "Setup"
        assert ws.notes.search("setup").hits
    finally:
        ws.close()
    assert git("status", "--porcelain", "--untracked-files=all") == ""
    assert not (tmp_path / ".gitignore").exists()
    exclude = (tmp_path / ".git" / "info" / "exclude").read_text()
    assert ".index/" in exclude and ".ctxnotes.lock" in exclude
    ws = open_workspace(tmp_path)  # a second open adds nothing
    ws.close()
    assert (tmp_path / ".git" / "info" / "exclude").read_text() == exclude


def test_a_fresh_folder_outside_any_repository_still_gets_a_gitignore(tmp_path):
    ws = open_workspace(tmp_path / "ws")
    ws.close()
    assert ".index/" in (tmp_path / "ws" / ".gitignore").read_text().splitlines()
