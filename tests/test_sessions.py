"""Sessions on disk: durable appends, torn lines, bounded and unsafe reads, two writers, SIGKILL, prune, Git policy."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from notes_store.errors import InvalidInput, NotFound, StorageError
from notes_store.sessions import (MAX_TURNS_PER_APPEND, ROLES, SessionStore, apply_git_policy, parse_duration,
                                  session_history)

ROOT = Path(__file__).resolve().parent.parent


def turns(n: int, start: int = 0, **extra: object) -> list[dict]:
    return [{"role": "user" if i % 2 == 0 else "assistant", "content": f"turn number {i}", **extra}
            for i in range(start, start + n)]


def test_append_and_read_back(tmp_path):
    store = SessionStore(tmp_path)
    r = store.append("chat-1", turns(3) + [{"role": "tool", "content": "42", "tool_call_id": "c1", "name": "calc",
                                            "timestamp": "2026-11-30T10:00:00Z", "id": "mine"}])
    assert (r.appended, r.total_turns, r.ids) == (4, 4, ["turn-0", "turn-1", "turn-2", "mine"])
    page = store.turns("chat-1")
    assert [t["content"] for t in page.turns] == ["turn number 0", "turn number 1", "turn number 2", "42"]
    last = page.turns[-1]
    assert (last["tool_call_id"], last["name"], last["timestamp"], last["role"]) == ("c1", "calc",
                                                                                   "2026-11-30T10:00:00Z", "tool")
    assert all("received_at" in t for t in page.turns)
    # One JSON object per line, append-only: the file is exactly the lines in order.
    lines = (tmp_path / "sessions" / "chat-1.jsonl").read_text().splitlines()
    assert [json.loads(line)["id"] for line in lines] == ["turn-0", "turn-1", "turn-2", "mine"]
    # The history shape build_context takes: role, content, id, and timestamp/tool_call_id/name only when given.
    hist = session_history(tmp_path, "chat-1")
    assert hist[0] == {"role": "user", "content": "turn number 0", "id": "turn-0"}
    assert hist[-1] == {"role": "tool", "content": "42", "id": "mine", "timestamp": "2026-11-30T10:00:00Z",
                        "tool_call_id": "c1", "name": "calc"}
    # So a tool turn packs the same from the session as from the passed turns (its label, its call id).
    from context import build_context
    passed = turns(3) + [{"role": "tool", "content": "42", "tool_call_id": "c1", "name": "calc",
                          "timestamp": "2026-11-30T10:00:00Z", "id": "mine"}]
    for fmt in ("text", "messages"):
        assert build_context("what did calc return?", history=hist, format=fmt).to_dict() == \
            build_context("what did calc return?", history=passed, format=fmt).to_dict()
    messages = build_context("what did calc return?", history=hist, format="messages").messages or []
    assert any("[tool result calc]\n42" in m["content"] for m in messages)  # the name labels the folded tool turn


def test_retried_append_is_idempotent_by_id_and_conflicts_are_refused(tmp_path):
    store = SessionStore(tmp_path)
    batch = [{"role": "user", "content": "hello", "id": "u1"}, {"role": "assistant", "content": "hi", "id": "a1"}]
    store.append("s", batch)
    again = store.append("s", batch + [{"role": "user", "content": "next", "id": "u2"}])
    assert again.duplicates == ["u1", "a1"] and again.ids == ["u2"] and again.total_turns == 3
    with pytest.raises(InvalidInput, match="already used .* by a different turn"):
        store.append("s", [{"role": "user", "content": "changed", "id": "u1"}])
    with pytest.raises(InvalidInput, match="repeats"):
        store.append("s", [{"role": "user", "content": "a", "id": "x"}, {"role": "user", "content": "b", "id": "x"}])
    assert store.turns("s").total == 3


@pytest.mark.parametrize("bad, message", [
    ({"role": "robot", "content": "x"}, "role 'robot' is not allowed"),
    ({"role": "user", "content": "   "}, "content is empty"),
    ({"role": "user", "content": 5}, "content must be a string"),
    ({"role": "user", "content": "a\x00b"}, "NUL"),
    ({"role": "user", "content": "x", "timestamp": "yesterday"}, "not ISO 8601"),
    ({"role": "user", "content": "x", "mood": "happy"}, "unknown key"),
    ({"role": "user", "content": "x", "id": "a\nb"}, "one line"),
    ("just text", "must be an object"),
])
def test_bad_turns_are_refused_with_a_clear_message_and_nothing_is_written(tmp_path, bad, message):
    store = SessionStore(tmp_path)
    with pytest.raises(InvalidInput, match=message):
        store.append("s", [{"role": "user", "content": "fine"}, bad])
    assert not (tmp_path / "sessions" / "s.jsonl").exists() or store.turns("s").total == 0


@pytest.mark.parametrize("sid", ["../etc", "a/b", "", "..", ".hidden", "x" * 200, "a\x00"])
def test_session_ids_are_validated_like_note_ids(tmp_path, sid):
    with pytest.raises(InvalidInput, match="session_id"):
        SessionStore(tmp_path).append(sid, turns(1))
    assert not (tmp_path / "etc.jsonl").exists()


def test_sizes_are_bounded(tmp_path):
    store = SessionStore(tmp_path, max_turn_bytes=2000, max_session_bytes=5000)
    with pytest.raises(InvalidInput, match="at most 500 per call"):
        store.append("s", turns(MAX_TURNS_PER_APPEND + 1))
    with pytest.raises(InvalidInput, match="over the limit of 2000 bytes"):
        store.append("s", [{"role": "user", "content": "x" * 3000}])
    with pytest.raises(InvalidInput, match="turns is empty"):
        store.append("s", [])
    store.append("s", [{"role": "user", "content": "y" * 1500}] * 1 + [{"role": "user", "content": "z" * 1500}])
    with pytest.raises(InvalidInput, match="would grow to .* over the limit of 5000"):
        store.append("s", [{"role": "user", "content": "w" * 1800}, {"role": "user", "content": "v" * 1800}])
    assert store.turns("s").total == 2
    # A file grown past the limit behind our back (an editor, a bad merge) is refused, not read whole.
    with open(tmp_path / "sessions" / "s.jsonl", "ab") as fh:
        fh.write(b"x" * 6000 + b"\n")
    with pytest.raises(StorageError, match="over the limit of 5000 bytes"):
        store.turns("s")
    with pytest.raises(InvalidInput, match="limit must be"):
        SessionStore(tmp_path).turns("s", limit=10_000)


def test_paging_and_negative_offsets_and_char_bounds(tmp_path):
    store = SessionStore(tmp_path)
    store.append("s", turns(120))
    p = store.turns("s", offset=0, limit=50)
    assert (p.total, p.offset, len(p.turns), p.next_offset) == (120, 0, 50, 50)
    last = store.turns("s", offset=-10, limit=50)
    assert last.offset == 110 and last.next_offset is None and last.turns[-1]["content"] == "turn number 119"
    small = store.turns("s", offset=0, limit=50, max_chars=400)
    assert 1 <= len(small.turns) < 5 and small.next_offset == len(small.turns)
    assert len(json.dumps(small.turns)) <= 400 + 200
    with pytest.raises(NotFound, match="no session 'nope'"):
        store.turns("nope")


def test_torn_last_line_is_ignored_reported_and_repaired_by_the_next_append(tmp_path):
    store = SessionStore(tmp_path)
    store.append("s", turns(3))
    path = tmp_path / "sessions" / "s.jsonl"
    with open(path, "ab") as fh:  # what a writer killed mid-write leaves: half a line, no newline
        fh.write(b'{"id":"turn-3","role":"user","content":"half a tu')
    page = SessionStore(tmp_path).turns("s")
    assert page.total == 3 and page.incomplete_tail_bytes > 0
    assert any("incomplete last line" in w for w in page.warnings)
    r = store.append("s", [{"role": "user", "content": "after the crash"}])
    assert r.repaired_tail_bytes > 0 and any("incomplete last line" in w for w in r.warnings)
    again = SessionStore(tmp_path).turns("s")
    assert [t["content"] for t in again.turns][-2:] == ["turn number 2", "after the crash"]
    assert again.incomplete_tail_bytes == 0 and not again.bad_lines
    assert path.read_bytes().endswith(b"\n") and len(path.read_bytes().splitlines()) == 4


def test_a_damaged_line_in_the_middle_is_skipped_and_reported(tmp_path):
    store = SessionStore(tmp_path)
    store.append("s", turns(2))
    path = tmp_path / "sessions" / "s.jsonl"
    with open(path, "ab") as fh:
        fh.write(b"<<<<<<< HEAD\n")
    store.append("s", turns(1, start=2))
    page = store.turns("s")
    assert page.total == 3 and page.bad_lines == [3] and any("line 3" in w for w in page.warnings)


def test_links_and_fifos_are_refused_without_blocking(tmp_path):
    store = SessionStore(tmp_path)
    store.append("real", turns(1))
    folder = tmp_path / "sessions"
    os.symlink("/etc/passwd", folder / "link.jsonl")
    with pytest.raises(StorageError, match="symbolic link"):
        store.turns("link")
    with pytest.raises(StorageError, match="symbolic link"):
        store.append("link", turns(1))
    assert Path("/etc/passwd").read_text()  # untouched
    os.mkfifo(folder / "pipe.jsonl")
    outcome: list[object] = []

    def read_pipe() -> None:
        try:
            store.turns("pipe")
        except Exception as exc:  # the expected path
            outcome.append(exc)

    t = threading.Thread(target=read_pipe, daemon=True)
    t.start()
    t.join(10)
    assert not t.is_alive(), "reading a FIFO named like a session blocked"
    assert isinstance(outcome[0], StorageError) and "not a regular file" in str(outcome[0])
    total, infos = store.list()
    problems = {i.id: i.problem for i in infos}
    assert total == 3 and problems["real"] is None and "symbolic link" in problems["link"]
    assert "not a regular file" in problems["pipe"]
    assert store.delete("link") and store.delete("pipe") and not (folder / "pipe.jsonl").exists()


def test_growing_session_reparses_only_the_tail(tmp_path):
    store = SessionStore(tmp_path)
    store.append("s", turns(5))
    assert store.version("s") == (5, "turn-4")
    path = tmp_path / "sessions" / "s.jsonl"
    # Change an old line in place (same length) behind the cache's back: a reader that re-parsed the whole
    # file would see it; ours reads only what was appended since its last read.
    data = path.read_bytes()
    path.write_bytes(data.replace(b"turn number 1", b"TURN NUMBER 1"))
    store.append("s", turns(1, start=5))
    assert [t["content"] for t in store.turns("s").turns][1] == "turn number 1"
    assert store.version("s") == (6, "turn-5")
    # A deleted and recreated session is noticed (new file), even on a reused inode.
    store.delete("s")
    store.append("s", [{"role": "user", "content": "fresh start"}])
    assert [t["content"] for t in store.turns("s").turns] == ["fresh start"]


def test_list_delete_and_prune(tmp_path):
    now = [2_000_000_000.0]
    store = SessionStore(tmp_path, clock=lambda: now[0])
    for sid in ("old", "recent", "other"):
        store.append(sid, turns(2))
    os.utime(tmp_path / "sessions" / "old.jsonl", (now[0] - 40 * 86400, now[0] - 40 * 86400))
    os.utime(tmp_path / "sessions" / "other.jsonl", (now[0] - 10, now[0] - 10))
    os.utime(tmp_path / "sessions" / "recent.jsonl", (now[0] - 5, now[0] - 5))
    total, infos = store.list()
    assert total == 3 and [i.id for i in infos] == ["recent", "other", "old"] and infos[0].turns == 2
    assert store.prune(parse_duration("30d"), dry_run=True) == ["old"]
    assert (tmp_path / "sessions" / "old.jsonl").exists()
    assert store.prune(parse_duration("30d")) == ["old"]
    assert not (tmp_path / "sessions" / "old.jsonl").exists()
    assert store.delete("other") is True and store.delete("other") is False
    assert store.list()[0] == 1
    with pytest.raises(InvalidInput, match="positive"):
        store.prune(0)
    for text, seconds in (("30d", 30 * 86400), ("12h", 43200), ("15m", 900), ("90", 90), ("2w", 1209600)):
        assert parse_duration(text) == seconds
    with pytest.raises(InvalidInput, match="not valid"):
        parse_duration("soon")


def test_git_policy_from_ctxnotes_yaml(tmp_path):
    (tmp_path / ".gitignore").write_text(".index/\n.tmp-*\n")
    SessionStore(tmp_path).append("s", turns(1))
    assert "sessions/" in (tmp_path / ".gitignore").read_text().splitlines()
    assert ".index/" in (tmp_path / ".gitignore").read_text()
    (tmp_path / ".ctxnotes.yaml").write_text("sessions_git: commit\n")
    assert apply_git_policy(tmp_path) is True
    assert "sessions/" not in (tmp_path / ".gitignore").read_text().splitlines()
    assert (tmp_path / ".gitignore").read_text().splitlines() == [".index/", ".tmp-*"]
    assert apply_git_policy(tmp_path) is False
    (tmp_path / ".ctxnotes.yaml").write_text("sessions_git: sometimes\n")
    with pytest.raises(InvalidInput, match="sessions_git"):
        apply_git_policy(tmp_path)


def test_a_fresh_folder_gets_the_workspace_gitignore_too(tmp_path):
    SessionStore(tmp_path / "ws").append("s", turns(1))
    lines = (tmp_path / "ws" / ".gitignore").read_text().splitlines()
    assert ".index/" in lines and "sessions/" in lines


def test_roles_match_what_build_context_accepts():
    from context.gather.inputs import HISTORY_ROLES
    from server.cli.sessions import ROLES as CLI_ROLES
    assert tuple(ROLES) == tuple(HISTORY_ROLES) == tuple(CLI_ROLES)


# -- real processes ---------------------------------------------------------------------------------------

WRITER = r"""
import sys
from notes_store.sessions import SessionStore
import time
root, sid, tag, count, size = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
pause = float(sys.argv[6])
store = SessionStore(root)
for i in range(count):
    r = store.append(sid, [{"role": "user", "content": f"{tag} {i} " + "x" * size, "id": f"{tag}-{i}"}])
    print(r.ids[0], time.monotonic(), flush=True)  # the acknowledgement: only after append returned (fsync done)
    if pause:
        time.sleep(pause)
"""


def _writer(tmp_path: Path, sid: str, tag: str, count: int, size: int, pause: float = 0.0) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path), sid, tag, str(count), str(size), str(pause)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_every_acknowledged_turn_survives_sigkill(tmp_path):
    acked: list[str] = []
    for round_no in range(3):
        proc = _writer(tmp_path, "s", f"r{round_no}", 100_000, 20_000 * (round_no + 1))
        try:
            deadline = time.monotonic() + 60
            got = 0
            assert proc.stdout is not None
            while got < 25 + 10 * round_no and time.monotonic() < deadline:
                line = proc.stdout.readline()
                if not line:
                    break
                acked.append(line.split()[0])
                got += 1
            proc.send_signal(signal.SIGKILL)
            rest, _ = proc.communicate(timeout=30)
            acked += [x.split()[0] for x in rest.splitlines() if x.strip()]  # acknowledged before the kill landed
        finally:
            if proc.poll() is None:
                proc.kill()
        assert got > 0, proc.stderr.read() if proc.stderr else ""
        page = SessionStore(tmp_path).history("s")
        stored = {t["id"] for t in page}
        assert set(acked) <= stored, f"acknowledged but lost: {sorted(set(acked) - stored)[:5]}"
    # The session is still appendable, and a torn tail (if the kill left one) is gone after that append.
    r = SessionStore(tmp_path).append("s", [{"role": "user", "content": "still works"}])
    assert r.appended == 1
    page = SessionStore(tmp_path).turns("s", offset=-1)
    assert page.turns[-1]["content"] == "still works" and page.incomplete_tail_bytes == 0 and not page.bad_lines


def test_two_processes_append_to_one_session(tmp_path):
    procs = [_writer(tmp_path, "shared", tag, 150, 300) for tag in ("a", "b")]
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    page = SessionStore(tmp_path).turns("shared", limit=500)
    assert page.total == 300 and not page.bad_lines and page.incomplete_tail_bytes == 0
    ids = [t["id"] for t in page.turns]
    assert len(set(ids)) == 300
    for tag in ("a", "b"):  # each writer's turns keep their order
        mine = [int(i.split("-")[1]) for i in ids if i.startswith(tag + "-")]
        assert mine == list(range(150))


def test_delete_while_another_process_appends_never_loses_an_acknowledged_turn(tmp_path):
    proc = _writer(tmp_path, "s", "w", 300, 100, pause=0.003)
    store = SessionStore(tmp_path)
    deleted_at: list[float] = []

    def deleter() -> None:
        while proc.poll() is None:
            if store.exists("s") and store.delete("s"):
                deleted_at.append(time.monotonic())
            time.sleep(0.05)

    t = threading.Thread(target=deleter, daemon=True)
    t.start()
    out, err = proc.communicate(timeout=120)
    t.join(30)
    assert proc.returncode == 0, err
    acks = [(line.split()[0], float(line.split()[1])) for line in out.splitlines()]
    assert len(acks) == 300 and deleted_at
    stored = {t["id"] for t in store.history("s")} if store.exists("s") else set()
    # A turn acknowledged after the last delete finished must be in the file: no append landed in an
    # unlinked file while the delete held the lock.
    after = [i for i, when in acks if when > deleted_at[-1]]
    assert set(after) <= stored
