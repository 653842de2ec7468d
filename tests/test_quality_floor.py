"""A quality floor for build_context (deterministic, under a minute): what the selection reaches on
the dev sets today, so a change that loses evidence turns fails here, not in a benchmark run later.

Figures (``python -m bench.quality``, dev seeds): conv-26 0.823 / 0.886 at 1k / 2k; against plain
BM25 packed greedily into the same budget, 1.09 / 1.09 on conv-26 interleaved and 1.09 / 1.06 on
the English statement logs, level or better on the Chinese logs (0.864 vs 0.836 at 1k since the
text template leaves empty sections out), the memory logs and the generated dialogues. The conv-26 sets need ../shared/data/locomo
and are skipped without it; the generated sets (bench/devsets) always run.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

# bench/ is not an installed package; `python -m pytest` finds it from the repo root, plain `pytest` not.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.devsets import (  # noqa: E402
    DEFAULT_LOCOMO, DEV_SEEDS, DevSet, dialogue_set, interleave_sessions, load_locomo, memlog_set,
    statement_log_set)
from bench.quality import evaluate  # noqa: E402

BUDGETS = (1000, 2000)
# conv-26 today, less half a question (1/150): the figures of this selection, not of an older one.
# (The pre-v2 README had 0.808 / 0.894: 2k is one question lower since knowledge queries dropped
# recency, which lost to plain BM25 on every generated log.)
CONV26_FLOOR = {1000: 0.82, 2000: 0.88}
# Where the selection leads plain BM25 by 6% or more today, it must keep a 5% lead (the target).
LEAD = 1.05

needs_locomo = pytest.mark.skipif(not DEFAULT_LOCOMO.is_file(), reason=f"no LoCoMo data at {DEFAULT_LOCOMO}")


def _means(ds: DevSet, budgets: tuple[int, ...] = BUDGETS) -> dict[str, dict[int, float]]:
    res = evaluate(ds, budgets, methods=("build_context", "bm25"))
    assert res["over_budget"] == 0
    means: dict[str, dict[int, float]] = res["means"]
    return means


@needs_locomo
def test_conv26_recall_holds_todays_figures():
    means = evaluate(DevSet("conv26", "dev", [load_locomo(DEFAULT_LOCOMO)]), BUDGETS,
                     methods=("build_context",))["means"]
    for b in BUDGETS:
        assert means["build_context"][b] >= CONV26_FLOOR[b], (b, means)


@needs_locomo
def test_conv26_interleaved_keeps_its_lead_over_plain_bm25():
    m = _means(DevSet("conv26-interleaved", "dev", [interleave_sessions(load_locomo(DEFAULT_LOCOMO), seed=1)]))
    for b in BUDGETS:
        assert m["build_context"][b] >= LEAD * m["bm25"][b], (b, m)


def test_english_statement_logs_keep_their_lead_over_plain_bm25():
    m = _means(statement_log_set("en", DEV_SEEDS, "dev"))
    for b in BUDGETS:
        assert m["build_context"][b] >= LEAD * m["bm25"][b], (b, m)


def test_chinese_statement_logs_are_not_below_plain_bm25():
    # Ties among turns about the same relation: level with BM25 at 2k, ahead at 1k.
    m = _means(statement_log_set("zh", DEV_SEEDS, "dev"))
    for b in BUDGETS:
        assert m["build_context"][b] >= m["bm25"][b], (b, m)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_memory_logs_are_not_below_plain_bm25(lang):
    # The harder logs (repeated relations, updates, near misses): both dev seeds (one alone is
    # ~100 questions, where a tie decided the other way is a percent), at 1k to stay quick.
    m = _means(memlog_set(lang, DEV_SEEDS, "dev"), (1000,))
    assert m["build_context"][1000] >= m["bm25"][1000], m


def test_generated_dialogues_keep_their_lead_over_plain_bm25():
    m = _means(dialogue_set(DEV_SEEDS[:1], "dev"), (1000,))
    assert m["build_context"][1000] >= LEAD * m["bm25"][1000], m
