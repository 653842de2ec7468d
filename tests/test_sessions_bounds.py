"""Bounded reads of session files from an untrusted workspace: lines, line length, keys, bad-line lists, cache."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from notes_store import sessions
from notes_store.errors import InvalidInput, StorageError
from notes_store.sessions import DEFAULT_MAX_SESSION_TURNS, SessionStore


@pytest.fixture(autouse=True)
def _fresh_cache():
    sessions._cache.clear()  # the parse cache is per process: start each test without other tests' parses
    yield
    sessions._cache.clear()


def _write(root: Path, sid: str, lines: list[str] | bytes) -> Path:
    folder = root / "sessions"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{sid}.jsonl"
    path.write_bytes(lines if isinstance(lines, bytes) else "".join(line + "\n" for line in lines).encode())
    return path


def _turn(i: int, **extra: object) -> str:
    return json.dumps({"id": f"t{i}", "role": "user", "content": f"turn {i}", **extra})


def test_session_turn_limit_matches_what_build_context_takes():
    from context.gather.inputs import MAX_HISTORY_TURNS
    assert DEFAULT_MAX_SESSION_TURNS == MAX_HISTORY_TURNS


def test_a_file_with_too_many_lines_is_refused_before_it_is_parsed(tmp_path):
    # 3 million one-byte junk lines: parsing them one by one took ~90 s of CPU per 60 MiB file and kept
    # every bad line number; the line count is checked first now.
    _write(tmp_path, "junk", b"x\n" * 3_000_000)
    store = SessionStore(tmp_path)
    with pytest.raises(StorageError, match=r"3,000,000 lines, over the limit of 20,000 turns.*CTXNOTES_MAX_SESSION_TURNS"):
        store.turns("junk")
    assert not sessions._cache  # nothing kept
    total, listed = store.list()
    assert total == 1 and "over the limit" in (listed[0].problem or "")


def test_a_growing_file_is_refused_once_it_passes_the_limit(tmp_path):
    path = _write(tmp_path, "s", [_turn(i) for i in range(8)])
    store = SessionStore(tmp_path, max_session_turns=10)
    assert store.turns("s").total == 8
    with path.open("a") as f:  # an editor or another tool adds lines behind our back
        f.write("".join(_turn(i) + "\n" for i in range(8, 11)))
    with pytest.raises(StorageError, match="11 lines"):
        store.turns("s")


def test_append_stops_at_the_turn_limit(tmp_path, monkeypatch):
    store = SessionStore(tmp_path, max_session_turns=5)
    store.append("s", [{"role": "user", "content": f"x{i}"} for i in range(5)])
    with pytest.raises(InvalidInput, match=r"would grow to 6 turns, over the limit of 5 .*new session"):
        store.append("s", [{"role": "user", "content": "one more"}])
    assert store.turns("s").total == 5  # nothing half-written
    monkeypatch.setenv("CTXNOTES_MAX_SESSION_TURNS", "7")
    assert SessionStore(tmp_path).append("s", [{"role": "user", "content": "six"}]).total_turns == 6


def test_bad_lines_are_counted_and_only_the_first_ones_kept(tmp_path):
    _write(tmp_path, "s", [_turn(0)] + ["not json"] * 500 + [_turn(1)])
    page = SessionStore(tmp_path).turns("s")
    assert page.total == 2
    assert page.bad_lines == list(range(2, 2 + sessions.SHOWN_BAD_LINES))
    assert any("skipped 500 line(s)" in w for w in page.warnings)
    entry = next(iter(sessions._cache.values()))
    assert entry.bad_count == 500 and len(entry.bad_lines) == sessions.SHOWN_BAD_LINES


def test_an_over_long_line_is_skipped_unparsed_and_unknown_keys_are_dropped(tmp_path):
    long_turn = json.dumps({"id": "big", "role": "user", "content": "y" * (300 * 1024)})
    padded = _turn(2, pad=[{}] * 1000, timestamp="2026-12-01T10:00:00Z", received_at="2026-12-01T10:00:01Z")
    _write(tmp_path, "s", [_turn(0), long_turn, padded])
    page = SessionStore(tmp_path).turns("s")
    assert [t["id"] for t in page.turns] == ["t0", "t2"] and page.bad_lines == [2]
    assert set(page.turns[1]) == {"id", "role", "content", "timestamp", "received_at"}
    # A store allowed to write longer turns reads them back.
    sessions._cache.clear()
    assert SessionStore(tmp_path, max_turn_bytes=400 * 1024).turns("s").total == 3


def test_the_parse_cache_is_bounded_by_memory_not_only_file_bytes(tmp_path, monkeypatch):
    # Minimal turns take ~20 times their bytes once parsed: a bound on bytes read alone kept 2.3 GB for
    # two 60 MiB files. Here each session is ~30 KB of file but ~1 MB by the per-line estimate.
    monkeypatch.setattr(sessions, "CACHED_BYTES", 2_500_000)
    store = SessionStore(tmp_path)
    for n in range(5):
        _write(tmp_path, f"s{n}", [_turn(i) for i in range(1000)])
        assert store.turns(f"s{n}").total == 1000
    kept = list(sessions._cache.values())
    assert len(kept) == 2 and sum(e.cost for e in kept) <= 2_500_000
    assert all(e.cost >= e.consumed + 1000 * sessions.LINE_COST for e in kept)


def test_a_listing_parses_a_bounded_number_of_bytes_and_counts_the_rest_later(tmp_path, monkeypatch):
    # 1,000 sessions of 64 MiB would be 64 GB read by one listing; each call parses at most LIST_PARSE_BYTES.
    paths = [_write(tmp_path, f"s{n}", [_turn(i) for i in range(100)]) for n in range(3)]
    for n, path in enumerate(paths):  # s0 newest: listed first
        os.utime(path, ns=(10**18 - n * 10**9, 10**18 - n * 10**9))
    size = paths[0].stat().st_size
    monkeypatch.setattr(sessions, "LIST_PARSE_BYTES", size * 3 // 2)
    store = SessionStore(tmp_path)
    total, infos = store.list()
    assert total == 3 and [i.turns for i in infos] == [100, None, None]
    assert "turns not counted" in (infos[1].problem or "") and "session://s1" in (infos[1].problem or "")
    assert "turns" not in infos[1].to_dict() and "turns not counted" in infos[1].line()
    _, infos = store.list()  # s0's parse is kept: this call counts s1
    assert [i.turns for i in infos] == [100, 100, None]
    _, infos = store.list()
    assert [i.turns for i in infos] == [100, 100, 100] and all(i.problem is None for i in infos)
