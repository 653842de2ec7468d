"""The two unseen-check sets (bench/devsets/reunion_chats.py, bench/devsets/life_logs.py): shaped as the
issue's held-out data is fed, deterministic, evidence exact and holding the answers. Quick: no build_context."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.devsets.life_logs import generate_life_log, life_log_set  # noqa: E402
from bench.devsets.model import Conversation  # noqa: E402
from bench.devsets.reunion_chats import generate_reunion_chat, reunion_chat_set  # noqa: E402

SEEDS = (1, 102)
_ID = re.compile(r"D(\d+):(\d+)")


def _ids_exact(conv: Conversation) -> None:
    ids = [t["id"] for t in conv.history]
    assert len(ids) == len(set(ids))
    assert conv.by_id == {t["id"]: t["content"] for t in conv.history}
    for q in conv.questions:
        assert q["evidence"] and all(e in conv.by_id for e in q["evidence"]), q


@pytest.mark.parametrize("seed", SEEDS)
def test_reunion_chats_are_fed_as_conv26_is(seed: int) -> None:
    conv = generate_reunion_chat(seed)
    _ids_exact(conv)
    assert 450 <= len(conv.history) <= 650
    speakers = {t["content"].split(": ", 1)[0]: t["role"] for t in conv.history}
    assert len(speakers) == 2 and set(speakers.values()) == {"user", "assistant"}
    assert all(set(t) == {"role", "content", "timestamp", "id"} for t in conv.history)
    stamps = [t["timestamp"] for t in conv.history]
    assert stamps == sorted(stamps)
    sessions = [int(m.group(1)) for t in conv.history if (m := _ID.fullmatch(t["id"]))]
    assert len(sessions) == len(conv.history) and len(set(sessions)) >= 20
    assert {q["category"] for q in conv.questions} == {1, 2, 3, 4}
    # Single-hop answers are said in their turn (worded as LoCoMo's are: "Cleo got a job there" for "Cleo
    # got offered a job in Leeds", most of the words); temporal ones are dates the turn's session gives.
    for q in conv.questions:
        text = "\n".join(conv.by_id[e] for e in q["evidence"]).lower()
        if q["category"] == 4:
            words = [w for w in re.findall(r"[a-z0-9'$]+", q["answer"].lower()) if len(w) > 3 or w[0] in "$0123456789"]
            assert words and sum(w in text for w in words) >= len(words) / 2, q
        if q["category"] == 2:
            assert re.search(r"\d{4}", q["answer"]), q


@pytest.mark.parametrize("seed", SEEDS)
def test_life_logs_are_statement_logs_with_answers_in_their_evidence(seed: int) -> None:
    conv = generate_life_log(seed)
    _ids_exact(conv)
    assert 500 <= len(conv.history) <= 1000
    assert all(t["role"] == "user" for t in conv.history)
    assert all(re.search(r"\d{1,2}:\d\d", t["content"][:30]) for t in conv.history)
    cats = {q["category"] for q in conv.questions}
    assert {"simple", "multi_hop", "update", "comparison", "counting", "distractor"} <= cats
    for q in conv.questions:
        text = "\n".join(conv.by_id[e] for e in q["evidence"])
        if q["category"] == "counting":
            n, names = q["answer"].split("个：")
            assert int(n) == len(q["evidence"]) == len(names.split("、")), q
        else:
            assert q["answer"] in text, q
        if q["category"] == "update":
            assert q["superseded"] and all(q["answer"] not in conv.by_id[o] for o in q["superseded"]), q


def test_sets_are_three_histories_per_seed_and_deterministic() -> None:
    a, b = reunion_chat_set((3,), "dev"), life_log_set((3,), "held-out")
    assert (a.name, a.split, len(a.conversations)) == ("en-reunion", "dev", 3)
    assert (b.name, b.split, len(b.conversations)) == ("zh-lifelog", "held-out", 3)
    assert generate_life_log(300).history == b.conversations[0].history
    assert generate_reunion_chat(302).questions == a.conversations[2].questions
