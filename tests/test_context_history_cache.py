"""The history cache (context/turn_cache.py) never changes a build: every cached build equals the uncached one.

"Uncached" = the cache emptied first, and the turns passed as fresh dict copies. Covered: a session that grows
turn by turn, one edited or truncated behind the cache's back (same length and last turn too), a different
query, budget or format over the same cached history, a turn dict changed in place, values the cache refuses.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from context import build_context
from context.select.turn_cache import HISTORY_CACHE, HistoryCache
from notes_store.sessions import SessionStore, session_history

TOPICS = ("the rate limit", "the quota", "the backfill", "a sunset painting", "the migration", "token refresh")


def turns(n: int, start: int = 0) -> list[dict[str, Any]]:
    out = []
    for i in range(start, start + n):
        t: dict[str, Any] = {"role": ("user", "assistant")[i % 2],
                             "content": f"Turn {i}: about {TOPICS[(i * 5) % len(TOPICS)]}, step {i % 7}. "
                                        + ("More detail here. " * (i % 3))}
        if i % 3:
            t["timestamp"] = f"2026-{1 + (i // 300) % 12:02d}-{1 + (i // 30) % 10:02d}T{8 + i % 10:02d}:00:00Z"
        if i % 17 == 5:
            t.update(role="tool", tool_call_id=f"call-{i}", name="lookup")
        out.append(t)
    return out


def uncached(query: str, history: list[dict[str, Any]], **kw: Any) -> dict[str, Any]:
    """The reference build: fresh dict copies, the history cache neither read nor filled."""
    with HISTORY_CACHE.bypassed():
        return build_context(query, history=copy.deepcopy(history), **kw).to_dict()


def rewrite(store: SessionStore, sid: str, new_turns: list[dict[str, Any]]) -> None:
    """Replace the session file by hand (an editor, a git checkout): the cache is not told."""
    path = store.path(sid)
    lines = [json.dumps(dict(t, id=t.get("id") or f"turn-{i}"), ensure_ascii=False) for i, t in enumerate(new_turns)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture(autouse=True)
def empty_cache() -> None:
    HISTORY_CACHE.clear()


def test_a_growing_session_builds_exactly_what_the_uncached_history_builds(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    all_turns = turns(160)
    store.append("s", all_turns[:120])
    query = "what did we decide about the quota and the rate limit?"
    n = 120
    while n < 160:  # single turns and several per step
        got = build_context(query, history=session_history(tmp_path, "s"), max_tokens=900).to_dict()
        assert got == uncached(query, all_turns[:n], max_tokens=900), f"differs at {n} turns"
        step = 1 if n % 3 else 5
        store.append("s", all_turns[n:n + step])
        n += step
    # The cache really served the grown history (each build reused the previous one's turns).
    assert HISTORY_CACHE.hits >= 8 and HISTORY_CACHE.reused_turns >= 8 * 120


@pytest.mark.parametrize("fmt", ["text", "messages"])
def test_a_session_edited_or_truncated_behind_the_cache_builds_like_uncached(tmp_path: Path, fmt: str) -> None:
    store = SessionStore(tmp_path)
    original = turns(90)
    store.append("s", original)
    query = "what happened with the backfill?"
    assert build_context(query, history=session_history(tmp_path, "s"), format=fmt).to_dict() == \
        uncached(query, original, format=fmt)
    # A middle turn edited; same length, same last turn: the key matches, the values do not.
    edited = copy.deepcopy(original)
    edited[40]["content"] = "Turn 40: the backfill was cancelled for good, decided by the whole team."
    rewrite(store, "s", edited)
    got = build_context(query, history=session_history(tmp_path, "s"), format=fmt)
    assert got.to_dict() == uncached(query, edited, format=fmt)
    assert "cancelled for good" in json.dumps(got.to_dict())
    # Truncated: a prefix of what the cache holds.
    rewrite(store, "s", edited[:50])
    assert build_context(query, history=session_history(tmp_path, "s"), format=fmt).to_dict() == \
        uncached(query, edited[:50], format=fmt)
    # Grown again from the truncated state, with different turns than before.
    store.append("s", turns(10, 500))
    again = edited[:50] + [dict(t, id=f"turn-{50 + i}") for i, t in enumerate(turns(10, 500))]
    assert build_context(query, history=session_history(tmp_path, "s"), format=fmt).to_dict() == \
        uncached(query, again, format=fmt)


def test_other_queries_budgets_and_formats_over_one_cached_history(tmp_path: Path) -> None:
    history = turns(200)
    for query in ("what about the sunset painting?", "token refresh", "continue the migration"):
        for max_tokens in (200, 700, 3000):
            for fmt in ("text", "messages"):
                got = build_context(query, history=history, max_tokens=max_tokens, format=fmt).to_dict()
                assert got == uncached(query, history, max_tokens=max_tokens, format=fmt), (query, max_tokens, fmt)
                build_context(query, history=history, max_tokens=max_tokens, format=fmt)  # warm for the next


def test_a_turn_changed_in_place_and_one_speaker_histories() -> None:
    history = turns(60)
    query = "what about the quota?"
    build_context(query, history=history)
    history[10]["content"] = "Turn 10: the quota doubled overnight."   # same dict object, new value
    history[11]["role"] = "system"
    got = build_context(query, history=history).to_dict()
    assert got == uncached(query, history)
    assert "quota doubled overnight" in got["context"]
    # Every turn by one speaker: no role labels; then a second speaker appears in a new turn.
    log = [{"role": "user", "content": f"Log line {i} about the quota"} for i in range(30)]
    assert build_context(query, history=log).to_dict() == uncached(query, log)
    grown = log + [{"role": "assistant", "content": "Noted, the quota again."}]
    assert build_context(query, history=grown).to_dict() == uncached(query, grown)


def test_values_the_cache_refuses_still_build_exactly() -> None:
    history = turns(40)
    odd = copy.deepcopy(history)
    odd[5]["timestamp"] = 1_790_000_000        # epoch seconds: equal numbers of other types must not collide
    odd[6]["id"] = 7
    odd[7]["content"] = {"structured": ["tool", "output"]}
    query = "what about the migration?"
    build_context(query, history=history)
    assert build_context(query, history=odd).to_dict() == uncached(query, odd)
    odd[6]["id"] = 7.0                          # 7 == 7.0, but the turn's id reads "7.0" now
    got = build_context(query, history=odd).to_dict()
    assert got == uncached(query, odd)
    # Bad turns are refused the same way, cached prefix or not.
    bad = history + [{"role": "robot", "content": "beep"}]
    with pytest.raises(ValueError, match=r"history\[40\] has role 'robot'"):
        build_context(query, history=bad)


def test_the_cache_is_bounded() -> None:
    cache = HistoryCache(max_histories=3, max_turns=100)
    from context.gather.inputs import _turn_packet
    for k in range(6):
        cache.gather(turns(20, start=100 * k), _turn_packet)
    assert len(cache._items) == 3
    cache.gather(turns(90, start=1000), _turn_packet)
    assert sum(n for n, _ in cache._items) <= 100
    cache.gather(turns(150, start=2000), _turn_packet)   # larger than the whole cache: not kept
    assert all(n != 150 for n, _ in cache._items)


def test_the_input_size_limit_counts_cached_history_too() -> None:
    from context.errors import ContextError
    from context.gather.inputs import MAX_INPUT_BYTES
    half = "z" * (MAX_INPUT_BYTES // 2)
    history = [{"role": "user", "content": half}]
    build_context("q", history=history, max_tokens=200)          # under the limit: cached
    with pytest.raises(ContextError, match="more than 16 MiB"):  # the cached turn's bytes still count
        build_context("q", history=history + [{"role": "user", "content": half + "z"}], max_tokens=200)
    with pytest.raises(ContextError, match="more than 16 MiB"):  # history and documents together
        build_context("q", history=history, documents=[{"content": half + "z"}], max_tokens=200)


def _lines(history: list[dict[str, Any]], cached: bool) -> list[str]:
    def build() -> list[str]:
        r = build_context("pottery", history=history, max_tokens=2000, reserve_ratio=0, include_notes=False,
                          include_memory=False)
        return [line for line in (r.context or "").splitlines() if "pottery day" in line]
    if cached:
        return build()
    with HISTORY_CACHE.bypassed():
        return build()


@pytest.mark.parametrize("cached", [True, False])
def test_a_transcript_whose_turns_name_their_speakers_spends_no_tokens_on_roles(cached: bool) -> None:
    transcript = [{"role": "user" if k % 2 == 0 else "assistant",
                   "content": f"{'Mel' if k % 2 == 0 else 'Caro'}: pottery day {k}"} for k in range(6)]
    assert _lines(transcript, cached) == [t["content"] for t in transcript]
    # A name in both roles, or a turn that does not name its speaker: the role is the only sure guide.
    swapped = copy.deepcopy(transcript)
    swapped[2]["role"] = "assistant"
    unnamed = copy.deepcopy(transcript)
    unnamed[3]["content"] = "pottery day 3, no name"
    # Openers that are no one's name, a name said in too few turns, a tool turn: roles stay.
    openers = [{"role": r, "content": c} for r, c in (("user", "Note: pottery day 0"), ("assistant", "Sure: pottery day 1"),
                                                      ("user", "Note: pottery day 2"), ("assistant", "Sure: pottery day 3"),
                                                      ("user", "Note: pottery day 4"), ("assistant", "Sure: pottery day 5"))]
    short = transcript[:4]
    with_tool = transcript + [{"role": "tool", "content": "Kiln: pottery day 6"}] * 3
    for history in (swapped, unnamed, openers, short, with_tool):
        lines = _lines(history, cached)
        assert len(lines) == len(history) and all(line.startswith(("user: ", "assistant: ", "tool: ")) for line in lines)
    # A turn the caller named keeps its role and name as before.
    named = copy.deepcopy(transcript)
    named[1] = {"role": "assistant", "name": "bot", "content": "pottery day 1"}
    assert _lines(named, cached)[1] == "assistant (bot): pottery day 1"


def test_a_sliding_window_of_turns_builds_exactly_what_the_uncached_history_builds() -> None:
    """An agent that keeps the last N turns sends histories no earlier one is a prefix of: their turns'
    packets are reused by value (gather._TURN_TEMPLATES), with the position and id-less turns' ids of
    where each turn now stands."""
    from context.gather import inputs as gather
    gather._TURN_TEMPLATES.clear()
    every = turns(260)
    for k in (0, 1, 2, 7, 40):
        window = every[k:k + 200]
        for fmt in ("text", "messages"):
            got = build_context("what about the backfill and the quota?", history=window, max_tokens=1500,
                                format=fmt).to_dict()
            assert got == uncached("what about the backfill and the quota?", window, max_tokens=1500, format=fmt)
    assert len(gather._TURN_TEMPLATES) >= 240   # the turns were kept by value, not per history
