"""A quality floor for build_context (deterministic, a few minutes): what the selection reaches on
the dev sets today, so a change that loses evidence turns fails here, not in a benchmark run later.

Figures (``python -m bench.quality``, dev seeds, 1k / 2k): conv-26 0.890 / 0.927 (0.889 / 0.927 before irregular verb forms, 0.881 / 0.917 before attribute cues, 0.852 / 0.912 before the storyline hop); against plain BM25
packed greedily into the same budget 1.11 / 1.15 on conv-26 interleaved, 1.31 / 1.23 on the
generated dialogues, 1.12 / 1.02 and 1.21 / 1.08 on the Chinese and English statement logs (BM25 is
0.96 at 2k on the Chinese ones: 1.05x is out of reach there), 1.22 / 1.13 and 1.13 / 1.04 on the
memory logs, 1.29 / 1.29 and 1.27 / 1.08 on the hard memory logs, 1.14 / 1.07 and 1.16 / 1.13 on the
daily logs (written apart from the selection; 1.02 / 1.02 and 1.11 / 1.07 before question bigram runs,
CJK characters and asides after a "?"; 1.12 / 1.06 and 1.13 / 1.10 before pronoun turns inherited their
antecedent's relevance and English comparatives found their base). Where the selection leads by 6% or more it
must keep a 5% lead (the issue's target); everywhere it must not fall below BM25; and per question,
the turns plain BM25 over the question's asking part packs first are all in the context. The conv-26 sets need ../shared/data/locomo
and are skipped without it; the generated sets (bench/devsets) always run.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

# bench/ is not an installed package; `python -m pytest` finds it from the repo root, plain `pytest` not.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.devsets import (  # noqa: E402
    DEFAULT_LOCOMO, DEV_SEEDS, Conversation, DevSet, Question, daily_log_set, dialogue_set, hard_memlog_set,
    interleave_sessions, life_log_set, load_locomo, long_chat_set, memlog_set, reunion_chat_set, statement_log_set, strip_session,
    written_late_set, written_log_set, written_set)
from context.select.query import understand  # noqa: E402
from bench.devsets.memlogs import HARD, generate_memlog  # noqa: E402
from bench.quality import bm25_order, evaluate  # noqa: E402
from context import TokenCounter, build_context  # noqa: E402
from context.select.relevance import LexicalScorer, terms_of  # noqa: E402

BUDGETS = (1000, 2000)
# conv-26 today (0.890 / 0.927 since irregular verb forms; 0.889 / 0.927 since attributes asked in other words; 0.881 / 0.917 since the storyline
# hop; 0.852 / 0.912 since speaker weighting and full-strength reply links), less about one question's
# evidence (1/150): the figures of this selection, not of an older one (0.824 / 0.889 before).
CONV26_FLOOR = {1000: 0.882, 2000: 0.920}
# Where the selection leads plain BM25 by 6% or more today, it must keep a 5% lead (the target).
LEAD = 1.05

needs_locomo = pytest.mark.skipif(not DEFAULT_LOCOMO.is_file(), reason=f"no LoCoMo data at {DEFAULT_LOCOMO}")


def _means(ds: DevSet, budgets: tuple[int, ...] = BUDGETS) -> dict[str, dict[int, float]]:
    res = evaluate(ds, budgets, methods=("build_context", "bm25"))
    assert res["over_budget"] == 0
    means: dict[str, dict[int, float]] = res["means"]
    return means


def _assert_lead(ds: DevSet, lead: float = LEAD) -> None:
    """build_context at least ``lead`` times plain BM25 on ``ds`` at every budget of BUDGETS."""
    m = _means(ds)
    for b in BUDGETS:
        assert m["build_context"][b] >= lead * m["bm25"][b], (b, m)


@needs_locomo
def test_conv26_recall_holds_todays_figures():
    means = evaluate(DevSet("conv26", "dev", [strip_session(load_locomo(DEFAULT_LOCOMO))]), BUDGETS,
                     methods=("build_context",))["means"]
    for b in BUDGETS:
        assert means["build_context"][b] >= CONV26_FLOOR[b], (b, means)


@needs_locomo
def test_conv26_interleaved_keeps_its_lead_over_plain_bm25():
    _assert_lead(DevSet("conv26-interleaved", "dev", [interleave_sessions(load_locomo(DEFAULT_LOCOMO), seed=1)]))


def test_english_statement_logs_keep_their_lead_over_plain_bm25():
    _assert_lead(statement_log_set("en", DEV_SEEDS, "dev"))


def test_chinese_statement_logs_lead_at_1k_and_are_not_below_plain_bm25_at_2k():
    # BM25 reaches 0.96 at 2k: a 5% lead is arithmetically out of reach there, level is the floor.
    m = _means(statement_log_set("zh", DEV_SEEDS, "dev"))
    assert m["build_context"][1000] >= LEAD * m["bm25"][1000], m
    assert m["build_context"][2000] >= m["bm25"][2000], m


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_memory_logs_lead_plain_bm25_at_1k(lang):
    # The harder logs (repeated relations, updates, near misses): both dev seeds (one alone is
    # ~100 questions, where a tie decided the other way is a percent), at 1k to stay quick.
    m = _means(memlog_set(lang, DEV_SEEDS, "dev"), (1000,))
    assert m["build_context"][1000] >= LEAD * m["bm25"][1000], m


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_hard_memory_logs_lead_plain_bm25(lang):
    # One dev seed (3 histories of ~1,100 turns, ~100 questions), to stay quick: a 5% lead at 1k;
    # at 2k the lead is 1.08 over both dev seeds but 1.04 on this one in English, so level is the floor.
    m = _means(hard_memlog_set(lang, DEV_SEEDS[:1], "dev"))
    assert m["build_context"][1000] >= LEAD * m["bm25"][1000], m
    assert m["build_context"][2000] >= m["bm25"][2000], m


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_daily_logs_lead_plain_bm25(lang):
    # Written apart from the selection (MemDaily-shaped: many threads about the same kinds of people):
    # never below plain BM25, and the 5% lead it has today at 1k and 2k on both dev seeds.
    m = _means(daily_log_set(lang, DEV_SEEDS, "dev"))
    for b in BUDGETS:
        assert m["build_context"][b] >= m["bm25"][b], (b, m)
        assert m["build_context"][b] >= LEAD * m["bm25"][b], (b, m)


def test_logs_stamped_other_ways_lead_plain_bm25():
    # zh-daily's logs with their stamps written in five other formats (bench/devsets/restamped.py): stamps
    # are read from the text, and a format they were not written against keeps the lead (1.22 / 1.13 today).
    from bench.devsets.restamped import restamped_set
    _assert_lead(restamped_set(DEV_SEEDS, "dev"))


def _assert_bm25_first_turns_kept(conv: Conversation, questions: list[Question]) -> None:
    """Per question and budget: every turn plain BM25 over the question's asking part (the query without its
    small talk: "今天在超市排队的时候想到，姐夫是哪个省的人？" asks only its second clause) greedy packs into the first
    tenth of the budget is in build_context's output."""
    counter = TokenCounter("cl100k_base")
    contents = [t["content"] for t in conv.history]
    scorer = LexicalScorer([terms_of(c) for c in contents])
    for q in questions:
        order = bm25_order(scorer, understand(q["question"]).focused)
        for b in BUDGETS:
            res = build_context(q["question"], history=conv.history, max_tokens=b, reserve_ratio=0,
                                include_notes=False, include_memory=False)
            used = 0
            for i in order:
                used += counter.count(contents[i]) + 1
                if used > b // 10:
                    break
                assert contents[i] in (res.context or ""), (q["question"], b, contents[i])


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_daily_log_turns_plain_bm25_packs_first_are_never_pushed_out(lang):
    """The per-question reserve check of the next test, on a daily log (seed 1, all questions)."""
    conv = daily_log_set(lang, DEV_SEEDS[:1], "dev").conversations[0]
    _assert_bm25_first_turns_kept(conv, conv.questions)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_turns_plain_bm25_packs_first_are_never_pushed_out(lang):
    """Per question, not on average: the turns plain BM25 greedy packs into the first tenth of the
    budget are all in build_context's output, whatever recency, neighbours, proximity or
    specificity say (the reserve takes a fifth of the room; a tenth leaves margin for day headers)."""
    conv = generate_memlog(lang, 101, difficulty=HARD, with_timestamps=True)
    _assert_bm25_first_turns_kept(conv, conv.questions[:25])


def test_generated_dialogues_keep_their_lead_over_plain_bm25():
    m = _means(dialogue_set(DEV_SEEDS[:1], "dev"), (1000,))
    assert m["build_context"][1000] >= LEAD * m["bm25"][1000], m
    # Speaker weighting and reply links took this seed from 1.19x to ~1.3x (both seeds 1.31x): keep 1.2x.
    assert m["build_context"][1000] >= 1.2 * m["bm25"][1000], m


# en-longchat dev (tuned on from the storyline hop on): 0.779 / 0.816 today, less a few questions' evidence.
LONGCHAT_FLOOR = {1000: 0.772, 2000: 0.808}


def test_longchat_dev_holds_todays_figures_and_its_lead_over_plain_bm25():
    m = _means(long_chat_set(DEV_SEEDS, "dev"))
    for b in BUDGETS:
        assert m["build_context"][b] >= LONGCHAT_FLOOR[b], (b, m)
        assert m["build_context"][b] >= LEAD * m["bm25"][b], (b, m)


def test_life_logs_lead_plain_bm25_and_keep_its_first_turns():
    """zh-lifelog (a fifth author's MemDaily-shaped logs; four stamp styles, the writer staying in one
    place for several turns): it sat at plain BM25 (dev 0.616 / 0.700 against 0.600 / 0.734) until the
    stamp's place stopped linking neighbours (context.select.signals.stamps). One dev seed, 1k and 2k: the 5% lead, and
    per question the turns plain BM25 packs first."""
    ds = life_log_set(DEV_SEEDS[:1], "dev")
    _assert_lead(ds)
    conv = ds.conversations[0]
    _assert_bm25_first_turns_kept(conv, conv.questions[:15])


def test_reunion_chats_keep_their_lead_over_plain_bm25():
    """en-reunion (a fourth author's LoCoMo-shaped conversations, never tuned on): one dev seed leads plain
    BM25 by 1.20 / 1.12 at 1k / 2k today (0.731 / 0.805 against 0.611 / 0.718); keep the 5% lead."""
    _assert_lead(reunion_chat_set(DEV_SEEDS[:1], "dev"))


def test_written_conversations_keep_their_lead_over_plain_bm25():
    """en-written (free prose in LoCoMo's format, four authors who read neither the selection nor the
    generators): the dev conversations lead plain BM25 by 1.26 / 1.17 at 1k / 2k today (0.822 / 0.882
    against 0.655 / 0.756); keep the 5% lead, and per question the turns plain BM25 packs first."""
    ds = written_set("dev")
    _assert_lead(ds)
    # Per question, in a conversation too: the turns plain BM25 packs first are all in the context.
    conv = ds.conversations[0]
    _assert_bm25_first_turns_kept(conv, conv.questions)


def test_the_later_written_conversations_keep_their_lead_over_plain_bm25():
    """en-written-2 (held out: two more authors, written after the last tuning round; nobody reads its misses):
    1.33 / 1.23 over plain BM25 at 1k / 2k today (0.781 / 0.878 against 0.586 / 0.715). A regression guard,
    not a target to tune on: keep the 5% lead, and per question the turns plain BM25 packs first."""
    ds = written_late_set()
    _assert_lead(ds)
    conv = ds.conversations[1]
    _assert_bm25_first_turns_kept(conv, conv.questions)


def test_written_logs_are_not_below_plain_bm25_and_keep_its_first_turns():
    """zh-written (free-prose Chinese logs): plain BM25 is 0.86 / 0.87 at 1k / 2k on the dev log (its writer's
    questions share most words with their answers), build_context 0.90 / 0.97. Not below BM25, and per
    question the turns plain BM25 packs first."""
    ds = written_log_set("dev")
    _assert_lead(ds, 1.0)
    conv = ds.conversations[0]
    _assert_bm25_first_turns_kept(conv, conv.questions)
