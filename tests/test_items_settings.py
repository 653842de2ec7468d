"""Settings (flag > environment > .ctxnotes.yaml > default), time parsing, and the shared item layer."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from notes_store import InvalidInput, open_workspace
from notes_store.files.items import Page
from notes_store.memory.model import MemoryList
from notes_store.notes import NoteList
from notes_store.settings import load_settings
from notes_store.timestamps import NotATime, iso_utc, to_epoch, to_naive_utc, to_utc, try_to_utc

CLEAN: dict[str, str] = {}


def test_precedence_flag_environment_file_default(tmp_path):
    (tmp_path / ".ctxnotes.yaml").write_text("git_autocommit: true\nmax_content_bytes: 5000\nrescan_interval: 7\n")
    s = load_settings(tmp_path, environ=CLEAN)
    assert (s.git_autocommit, s.max_content_bytes, s.rescan_interval) == (True, 5000, 7.0)
    assert s.sources["max_content_bytes"] == ".ctxnotes.yaml" and s.sources["inotify"] == "default"
    s = load_settings(tmp_path, environ={"CTXNOTES_GIT_AUTOCOMMIT": "off", "CTXNOTES_MAX_CONTENT_BYTES": "700"})
    assert (s.git_autocommit, s.max_content_bytes) == (False, 700)
    assert s.sources["git_autocommit"] == "environment"
    s = load_settings(tmp_path, environ={"CTXNOTES_MAX_CONTENT_BYTES": "700"}, max_content_bytes=900,
                      git_autocommit=False)
    assert (s.git_autocommit, s.max_content_bytes, s.sources["max_content_bytes"]) == (False, 900, "flag")
    assert load_settings(tmp_path / "missing", environ=CLEAN).max_content_bytes == 1 << 20
    assert s.max_file_bytes == 1800


def test_secrets_and_the_workspace_never_come_from_the_workspace_file(tmp_path):
    (tmp_path / ".ctxnotes.yaml").write_text("token: leaked\nworkspace: /etc\n")
    s = load_settings(tmp_path, environ=CLEAN)
    assert s.token is None and s.workspace is None
    s = load_settings(tmp_path, environ={"CTXNOTES_TOKEN": "s3cret", "CTXNOTES_WORKSPACE": "/w"})
    assert (s.token, s.workspace) == ("s3cret", "/w")
    assert "s3cret" not in repr(s) and s.to_dict()["token_set"] is True


def test_inotify_switch_from_the_environment(tmp_path):
    assert load_settings(None, environ={"CTXNOTES_NO_INOTIFY": "1"}).inotify is False
    assert load_settings(None, environ={"CTXNOTES_NO_INOTIFY": "0"}).inotify is True
    assert load_settings(None, environ=CLEAN).inotify is True


@pytest.mark.parametrize("environ, flags, named", [
    ({"CTXNOTES_MAX_CONTENT_BYTES": "lots"}, {}, "CTXNOTES_MAX_CONTENT_BYTES"),
    ({"CTXNOTES_GIT_AUTOCOMMIT": "maybe"}, {}, "CTXNOTES_GIT_AUTOCOMMIT"),
    ({}, {"rescan_interval": -1}, "rescan_interval"),
    ({}, {"colour": "blue"}, "unknown setting"),
])
def test_bad_values_name_their_source(environ, flags, named):
    with pytest.raises(InvalidInput, match=named):
        load_settings(None, environ=environ, **flags)


def test_a_bad_value_in_the_workspace_file_names_the_key(tmp_path):
    (tmp_path / ".ctxnotes.yaml").write_text("max_content_bytes: -3\n")
    with pytest.raises(InvalidInput, match=".ctxnotes.yaml key max_content_bytes"):
        load_settings(tmp_path, environ=CLEAN)


def test_a_hostile_workspace_file_is_ignored(tmp_path, caplog):
    (tmp_path / ".ctxnotes.yaml").write_text("a: &a [1, 2]\nb: [*a, *a]\ngit_autocommit: true\n")
    assert load_settings(tmp_path, environ=CLEAN).git_autocommit is False
    assert "anchor" in caplog.text


def test_open_workspace_uses_the_settings(tmp_path, monkeypatch):
    monkeypatch.delenv("CTXNOTES_MAX_CONTENT_BYTES", raising=False)
    root = tmp_path / "ws"
    root.mkdir()
    (root / ".ctxnotes.yaml").write_text("max_content_bytes: 100\n")
    ws = open_workspace(root)
    try:
        with pytest.raises(InvalidInput, match="limit of 100 bytes"):
            ws.notes.create("too big", "x" * 101)
    finally:
        ws.close()
    ws = open_workspace(root, max_content_bytes=1000)  # the flag wins
    try:
        assert ws.notes.create("fits", "x" * 101).title == "fits"
    finally:
        ws.close()


# -- time ------------------------------------------------------------------------------------

def test_time_parsing_has_one_meaning():
    utc = datetime(2026, 11, 29, 15, 30, tzinfo=timezone.utc)
    for text in ("2026-11-29T15:30:00Z", "2026-11-29T15:30:00+00:00", "2026-11-29T15:30:00",
                 "2026-11-29T16:30:00+01:00", " 2026-11-29T15:30:00z "):
        assert to_utc(text) == utc
    assert to_utc("2026-11-29") == datetime(2026, 11, 29, tzinfo=timezone.utc)
    assert to_naive_utc("2026-11-29T16:30:00+01:00") == datetime(2026, 11, 29, 15, 30)
    assert to_epoch(utc.timestamp(), numbers=True) == utc.timestamp()
    assert iso_utc(utc.timestamp()) == "2026-11-29T15:30:00+00:00"
    assert try_to_utc("yesterday") is None and try_to_utc(None) is None
    for bad in ("yesterday", "", 5, None, True):
        with pytest.raises(NotATime):
            to_utc(bad)
    with pytest.raises(NotATime, match="out of range"):
        to_utc(1e20, numbers=True)


# -- one list shape ----------------------------------------------------------------------------

def test_note_and_memory_lists_share_one_shape(tmp_path):
    ws = open_workspace(tmp_path / "ws")
    try:
        ws.notes.create("A", "a")
        ws.memory.add("m", memory_type="semantic")
        notes, memories = ws.notes.list(), ws.memory.list()
        assert isinstance(notes, Page) and isinstance(memories, Page)
        assert isinstance(notes, NoteList) and isinstance(memories, MemoryList)
        assert notes.notes is notes.items and memories.memories is memories.items
        nd, md = notes.to_dict(), memories.to_dict()
        assert set(nd) == {"total", "limit", "offset", "notes"} and set(md) == {"total", "limit", "offset", "memories"}
        assert "content" not in nd["notes"][0] and md["memories"][0]["content"] == "m"
    finally:
        ws.close()
