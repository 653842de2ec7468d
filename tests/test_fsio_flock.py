"""fsio.flock_with_deadline: the one flock retry loop the workspace lock and session files share."""

from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path

import pytest

from notes_store import sessions
from notes_store.errors import StorageError
from notes_store.files.durable import flock_with_deadline
from notes_store.sessions import SessionStore


def test_takes_a_free_lock_and_times_out_on_a_held_one(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"")
    holder = os.open(path, os.O_RDWR)
    waiter = os.open(path, os.O_RDWR)
    try:
        flock_with_deadline(holder, time.monotonic() + 1, "unused")
        started = time.monotonic()
        with pytest.raises(StorageError, match="^held elsewhere$"):
            flock_with_deadline(waiter, time.monotonic() + 0.2, "held elsewhere")
        assert 0.15 <= time.monotonic() - started < 5
        # A callable message is built only at the timeout (the workspace lock names the holder then).
        calls: list[int] = []
        with pytest.raises(StorageError, match="^built late$"):
            flock_with_deadline(waiter, time.monotonic() + 0.05, lambda: calls.append(1) or "built late")
        assert calls == [1]
        fcntl.flock(holder, fcntl.LOCK_UN)
        flock_with_deadline(waiter, time.monotonic() + 1, "unused")  # free again: taken at once
    finally:
        os.close(holder)
        os.close(waiter)


def test_session_append_times_out_with_the_sessions_message(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    store = SessionStore(tmp_path)
    store.append("s1", [{"role": "user", "content": "hello"}])
    monkeypatch.setattr(sessions, "LOCK_TIMEOUT_S", 0.2)
    fd = os.open(store.path("s1"), os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        with pytest.raises(StorageError, match="session s1 is locked by another writer"):
            store.append("s1", [{"role": "user", "content": "again"}])
    finally:
        os.close(fd)
    assert store.append("s1", [{"role": "user", "content": "again"}]).appended == 1
