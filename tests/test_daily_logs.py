"""The daily statement logs (bench/devsets/daily_logs.py): deterministic by seed, evidence ids exact,
answers in the evidence statements, every turn a user turn with its time and place, sizes in range.

Quick: four histories per language, no build_context calls.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

# bench/ is not an installed package; `python -m pytest` finds it from the repo root, plain `pytest` not.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.devsets.model import Conversation  # noqa: E402
from bench.devsets.daily_logs import (  # noqa: E402
    HISTORIES_PER_SEED,
    answer_facts,
    daily_log_set,
    generate_daily_log,
    statement_of,
)

SEEDS = (101, 1102)
CATEGORIES = {"single", "noisy", "conditional", "comparison", "count", "update"}
PREFIX = {
    "zh": re.compile(r"^\d{4}年\d{1,2}月\d{1,2}日 \d{2}:\d{2}，[^，：]+[市][^，：]+，[^，：]+：\S"),
    "en": re.compile(r"^[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2} [AP]M, [^,:]+, [^,:]+, [^,:]+: \S"),
}
_cache: dict[tuple[str, int], Conversation] = {}


def _log(lang: str, seed: int) -> Conversation:
    if (lang, seed) not in _cache:
        _cache[(lang, seed)] = generate_daily_log(lang, seed)
    return _cache[(lang, seed)]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_same_seed_same_history(lang: str) -> None:
    a, b = _log(lang, SEEDS[0]), generate_daily_log(lang, SEEDS[0])
    assert a.history == b.history and a.questions == b.questions and a.by_id == b.by_id
    c = generate_daily_log(lang, SEEDS[0] + 1)
    assert [t["content"] for t in c.history] != [t["content"] for t in a.history]


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("seed", SEEDS)
def test_turns_are_user_statements_with_time_and_place(lang: str, seed: int) -> None:
    conv = _log(lang, seed)
    assert 500 <= len(conv.history) <= 900
    ids = [t["id"] for t in conv.history]
    assert len(set(ids)) == len(ids)
    stamps = [t["timestamp"] for t in conv.history]
    assert stamps == sorted(stamps) and (stamps[-1] - stamps[0]).days <= 7
    for t in conv.history:
        assert t["role"] == "user"
        assert PREFIX[lang].match(t["content"]), t["content"]
        assert conv.by_id[t["id"]] == t["content"]
    assert len({t["content"] for t in conv.history}) == len(conv.history)


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("seed", SEEDS)
def test_evidence_ids_exist_and_hold_the_answer(lang: str, seed: int) -> None:
    conv = _log(lang, seed)
    assert 20 <= len(conv.questions) <= 40
    assert {q["category"] for q in conv.questions} <= CATEGORIES
    assert {"single", "conditional", "comparison", "update"} <= {q["category"] for q in conv.questions}
    ids = {t["id"] for t in conv.history}
    order = {t["id"]: k for k, t in enumerate(conv.history)}
    for q in conv.questions:
        assert q["evidence"] and set(q["evidence"]) <= ids, q
        assert len(set(q["evidence"])) == len(q["evidence"])
        for fact in answer_facts(q):
            # In the statement itself, not only in the time-and-place prefix.
            assert any(fact in statement_of(conv.by_id[e]) for e in q["evidence"]), (fact, q)
        if q["category"] in ("conditional", "comparison"):
            assert len(q["evidence"]) == 2
        if q["category"] == "count":
            number = re.match(r"\d+", q["answer"])
            assert number is not None and int(number.group()) == len(q["evidence"]), q
        if q["category"] == "update":
            old = q.get("superseded", [])
            assert old and set(old) <= ids and not set(old) & set(q["evidence"])
            assert max(order[o] for o in old) < order[q["evidence"][0]]
            assert all(q["answer"] not in statement_of(conv.by_id[o]) for o in old), q
        else:
            assert "superseded" not in q


def test_set_shape() -> None:
    ds = daily_log_set("en", [3], "dev")
    assert ds.name == "en-daily" and ds.split == "dev" and len(ds.conversations) == HISTORIES_PER_SEED
    assert 3 <= HISTORIES_PER_SEED <= 4
