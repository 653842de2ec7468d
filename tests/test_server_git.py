"""The Git pieces through MCP: note_history, auto-commit warnings, conflicts in note_summary."""

from __future__ import annotations

import subprocess

import pytest
from mcp import Client

from notes_store import open_workspace
from server.app import create_server
from server.state import WorkspaceHandle

IDENTITY = {"GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "ada@example.com",
            "GIT_COMMITTER_NAME": "Ada", "GIT_COMMITTER_EMAIL": "ada@example.com"}


def _server(root):
    return create_server(root, handle=WorkspaceHandle(root, opener=lambda p: open_workspace(p, git_autocommit=True)))


@pytest.fixture
def no_identity(monkeypatch, tmp_path):
    for key in IDENTITY:
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")


@pytest.mark.anyio
async def test_history_lists_autocommits(tmp_path, monkeypatch, no_identity):
    for key, value in IDENTITY.items():
        monkeypatch.setenv(key, value)
    root = tmp_path / "ws"
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    async with Client(_server(root)) as client:
        created = await client.call_tool("note_create", {"title": "Plan", "content": "v1"})
        note_id = created.structured_content["id"]
        assert "Warning" not in created.content[0].text
        await client.call_tool("note_update", {"note_id": note_id, "content": "v2"})
        history = await client.call_tool("note_history", {"note_id": note_id})
        assert not history.is_error
        commits = history.structured_content["commits"]
        assert [c["message"] for c in commits] == [f"note_update: Plan ({note_id})", f"note_create: Plan ({note_id})"]
        assert commits[0]["author"] == "Ada" and history.structured_content["in_git"] is True
        missing = await client.call_tool("note_history", {"note_id": "../etc"})
        assert missing.is_error


@pytest.mark.anyio
async def test_failed_commit_is_a_warning_and_the_note_is_saved(tmp_path, no_identity):
    root = tmp_path / "ws"
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    async with Client(_server(root)) as client:
        created = await client.call_tool("note_create", {"title": "Unsigned", "content": "kept"})
        assert not created.is_error
        assert "Warning:" in created.content[0].text and "not committed" in created.content[0].text
        note_id = created.structured_content["id"]
        read = await client.call_tool("note_read", {"note_id": note_id})
        assert read.structured_content["content"] == "kept"
        # the warning belonged to that call only
        listed = await client.call_tool("note_list", {})
        assert "Warning" not in listed.content[0].text


@pytest.mark.anyio
async def test_conflicts_reported_by_note_summary(tmp_path):
    root = tmp_path / "ws"
    open_workspace(root).close()
    (root / "notes" / "clash.md").write_text(
        "---\nid: clash\ntitle: Clash\n---\n# Clash\n\n<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> branch\n",
        encoding="utf-8")
    async with Client(create_server(root)) as client:
        summary = await client.call_tool("note_summary", {})
        assert [c["id"] for c in summary.structured_content["conflicts"]] == ["clash"]
        assert "merge-conflict" in summary.content[0].text
        read = await client.call_tool("note_read", {"note_id": "clash"})
        assert not read.is_error and "theirs" in read.structured_content["content"]
