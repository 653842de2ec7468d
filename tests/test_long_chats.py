"""The en-longchat dev set (bench/devsets/long_chats.py): deterministic, fed as conv-26 is, evidence exact.

Quick: two conversations generated, no build_context calls.
"""

from __future__ import annotations

import re
import sys
from datetime import datetime
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.devsets.long_chats import (  # noqa: E402
    CONVERSATIONS_PER_SEED, generate_long_chat, long_chat_set, validate)
from bench.devsets.model import Conversation  # noqa: E402

SEEDS = (100, 1201)
RELATIVE = ("yesterday", "last ", "two days ago")
_ID = re.compile(r"D(\d+):(\d+)")


@pytest.fixture(scope="module", params=SEEDS)
def conv(request: pytest.FixtureRequest) -> Conversation:
    return generate_long_chat(request.param)


def _text(conv: Conversation, tid: str) -> str:
    return conv.by_id[tid].split(": ", 1)[1].lower()


def test_deterministic() -> None:
    a, b = generate_long_chat(7), generate_long_chat(7)
    assert a.history == b.history and a.questions == b.questions
    assert generate_long_chat(8).history != a.history


def test_shape_as_conv26_is_fed(conv: Conversation) -> None:
    ids = [t["id"] for t in conv.history]
    assert len(ids) == len(set(ids)) and set(ids) == set(conv.by_id)
    speakers = {t["content"].split(": ", 1)[0]: t["role"] for t in conv.history}
    assert sorted(speakers.values()) == ["assistant", "user"]       # two speakers, one role each
    prev: tuple[int, int] = (0, 0)
    prev_ts: datetime | None = None
    for t in conv.history:
        m = _ID.fullmatch(t["id"])
        assert m, t["id"]
        s, n = int(m.group(1)), int(m.group(2))
        assert (s == prev[0] and n == prev[1] + 1) or (s == prev[0] + 1 and n == 1), (prev, t["id"])
        assert conv.by_id[t["id"]] == t["content"]
        assert isinstance(t["timestamp"], datetime)
        if s == prev[0]:
            assert t["timestamp"] == prev_ts
        else:
            assert prev_ts is None or t["timestamp"] > prev_ts
        assert "session" not in t
        prev, prev_ts = (s, n), t["timestamp"]
    # Speakers alternate within a session.
    for x, y in zip(conv.history, conv.history[1:]):
        if x["id"].split(":")[0] == y["id"].split(":")[0]:
            assert x["role"] != y["role"], (x["id"], y["id"])


def test_sizes(conv: Conversation) -> None:
    sessions: dict[str, int] = {}
    for t in conv.history:
        sessions[t["id"].split(":")[0]] = sessions.get(t["id"].split(":")[0], 0) + 1
    assert 20 <= len(sessions) <= 30
    assert all(15 <= n <= 35 for n in sessions.values()), sessions
    assert 400 <= len(conv.history) <= 650
    words = sum(len(t["content"].split()) for t in conv.history)
    assert 8_000 <= words <= 16_000              # about 12-20k cl100k tokens
    assert 50 <= len(conv.questions) <= 120


def test_evidence_exact(conv: Conversation) -> None:
    validate(conv)
    cats = {q["category"] for q in conv.questions}
    assert cats == {1, 2, 3, 4}
    for q in conv.questions:
        ev = q["evidence"]
        assert ev and len(set(ev)) == len(ev) and all(e in conv.by_id for e in ev), q
        text = " ".join(_text(conv, e) for e in ev)
        if q["category"] == 4:
            assert q["answer"].lower() in text, (q, text)
        elif q["category"] == 1:
            sessions = {e.split(":")[0] for e in ev}
            assert len(ev) >= 2 and len(sessions) >= 2, q
        elif q["category"] == 2:
            assert q["question"].startswith("When") and any(r in text for r in RELATIVE), (q, text)
        else:
            assert q["answer"].startswith("Likely"), q


def test_set() -> None:
    ds = long_chat_set([3], "dev")
    assert ds.name == "en-longchat" and ds.split == "dev"
    assert len(ds.conversations) == CONVERSATIONS_PER_SEED
    assert len({c.history[0]["content"] for c in ds.conversations}) == CONVERSATIONS_PER_SEED
