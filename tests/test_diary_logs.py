"""The zh-diary logs (bench/devsets/diary_logs.py): deterministic by seed (also across hash seeds),
evidence ids exact, answers in the evidence statements, every turn a user turn with a time-and-place
prefix, sizes in range. Quick: a few histories, no build_context calls."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.devsets.diary_logs import (  # noqa: E402
    CATEGORIES,
    HISTORIES_PER_SEED,
    MAX_TURNS,
    MIN_TURNS,
    diary_log_set,
    generate_diary_log,
    statement_of,
)
from bench.devsets.model import Conversation  # noqa: E402

SEEDS = (7, 1203, 4404)
PREFIX = re.compile(r"^【\d{4}年\d{1,2}月\d{1,2}日 周[一二三四五六日] \d{2}:\d{2} · [^·】]+区 · [^·】]+】\S")
_cache: dict[int, Conversation] = {}


def _log(seed: int) -> Conversation:
    if seed not in _cache:
        _cache[seed] = generate_diary_log(seed)
    return _cache[seed]


def _digest(conv: Conversation) -> str:
    blob = json.dumps([conv.history, conv.questions], ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


@pytest.mark.parametrize("seed", SEEDS)
def test_same_seed_same_log(seed: int) -> None:
    assert _digest(generate_diary_log(seed)) == _digest(_log(seed))


def test_different_seeds_differ() -> None:
    assert _digest(_log(SEEDS[0])) != _digest(_log(SEEDS[1]))


def test_independent_of_hash_seed() -> None:
    code = ("import hashlib, json; from bench.devsets.diary_logs import generate_diary_log as g; c = g(7); "
            "print(hashlib.sha256(json.dumps([c.history, c.questions], ensure_ascii=False, sort_keys=True)"
            ".encode()).hexdigest())")
    env = dict(os.environ, PYTHONHASHSEED="12345", PYTHONPATH=str(REPO))
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == _digest(_log(7))


@pytest.mark.parametrize("seed", SEEDS)
def test_turns_are_user_statements_with_time_and_place(seed: int) -> None:
    conv = _log(seed)
    assert MIN_TURNS <= len(conv.history) <= MAX_TURNS
    ids = [t["id"] for t in conv.history]
    assert len(set(ids)) == len(ids)
    for t in conv.history:
        assert t["role"] == "user"
        assert PREFIX.match(t["content"]), t["content"]
        assert conv.by_id[t["id"]] == t["content"]


@pytest.mark.parametrize("seed", SEEDS)
def test_evidence_exists_and_holds_the_answer(seed: int) -> None:
    conv = _log(seed)
    ids = {t["id"] for t in conv.history}
    order = {t["id"]: i for i, t in enumerate(conv.history)}
    assert 30 <= len(conv.questions) <= 90
    for q in conv.questions:
        assert q["category"] in CATEGORIES
        assert q["evidence"] and set(q["evidence"]) <= ids
        assert len(set(q["evidence"])) == len(q["evidence"])
        statements = [statement_of(conv.by_id[e]) for e in q["evidence"]]
        for part in q["answer"].split("；"):
            assert any(part in s for s in statements), (q, statements)
        if q["category"] in ("pair", "restated", "alias"):
            assert len(q["evidence"]) == 2
        if q["category"] == "update":
            (new,) = q["evidence"]
            assert q.get("superseded") and all(order[old] < order[new] for old in q["superseded"])
        # the question is worded by the user, not copied from the statement
        assert q["question"] not in statements


def test_every_category_occurs() -> None:
    seen = {q["category"] for s in SEEDS for q in _log(s).questions}
    assert seen == set(CATEGORIES)


def test_set_shape() -> None:
    ds = diary_log_set([7], "held-out")
    assert ds.name == "zh-diary" and ds.split == "held-out"
    assert len(ds.conversations) == HISTORIES_PER_SEED
    assert len({_digest(c) for c in ds.conversations}) == HISTORIES_PER_SEED
