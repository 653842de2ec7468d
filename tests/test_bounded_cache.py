"""Caches keyed by what a client sends stay within a size bound, not only an entry count."""

from __future__ import annotations

import gc
import random
import tracemalloc

import pytest

from context import build_context
from notes_store.analysis.analyzer import CACHED_WORD_CHARS, _stem_cached, stem_word
from notes_store.bounded_cache import ALL_CACHES, BoundedCache, cached_by_size


def test_the_oldest_entries_go_when_the_size_bound_is_reached() -> None:
    cache: BoundedCache[str, int] = BoundedCache(max_size=100, max_entries=1000)
    for i in range(10):
        cache.put(f"{i}" * 20, i)          # 20 characters each: five fit
    assert cache.size <= 100 and len(cache) == 5
    assert cache.get("9" * 20) == 9 and cache.get("0" * 20) is None
    assert "5" * 20 in cache and "4" * 20 not in cache


def test_the_entry_bound_holds_too_and_a_put_replaces() -> None:
    cache: BoundedCache[str, int] = BoundedCache(max_size=10_000, max_entries=3)
    for word in ("a", "b", "c", "d"):
        cache.put(word, 1)
    cache.put("d", 2)
    assert len(cache) == 3 and cache.get("a") is None and cache.get("d") == 2 and cache.size == 3


def test_an_entry_bigger_than_a_quarter_of_the_bound_is_computed_but_not_kept() -> None:
    calls: list[str] = []

    @cached_by_size(max_size=400, max_entries=100)
    def shout(text: str) -> str:
        calls.append(text)
        return text.upper()

    assert shout("x" * 101) == "X" * 101 and shout("x" * 101) == "X" * 101
    assert len(calls) == 2                                   # recomputed: too big to keep
    assert shout("hi") == "HI" and shout("hi") == "HI" and calls[-1] == "hi" and len(calls) == 3
    assert shout.cache.size == 2                             # type: ignore[attr-defined]


def test_a_long_run_of_letters_is_analysed_but_kept_by_no_per_word_cache() -> None:
    """The per-word caches bound entries only; a word longer than CACHED_WORD_CHARS (a run of letters
    a client sent, not a word of a language) never reaches them: it is worked out each time."""
    from context.select.relevance import _specific_kind_cached, specificity
    from notes_store.analysis.analyzer import _is_content_cached, is_content_term
    from notes_store.index.snippets import _stem, find_matches
    base = "walk" * 11
    assert len(base) > CACHED_WORD_CHARS
    caches = (_stem_cached, _is_content_cached, _specific_kind_cached, _stem)
    before = [c.cache_info() for c in caches]
    for _ in range(2):
        assert stem_word(base + "ing") == base
        assert is_content_term(base)
        specificity(f"{base}ing", [f"{base}ing"] * 3, [0, 1])   # kinds every term of the texts
        assert find_matches(f"{base}ing", {base}) == [(0, len(base) + 3)]
    after = [c.cache_info() for c in caches]
    assert [(a.hits, a.misses) for a in after] == [(b.hits, b.misses) for b in before]
    assert stem_word("running") == "run" and _stem_cached.cache_info().misses + _stem_cached.cache_info().hits > sum(
        before[0][:2])   # a short word does use the cache


def test_build_context_keeps_only_bounded_memory_across_fresh_histories(monkeypatch: pytest.MonkeyPatch) -> None:
    """A client sending new text on every call: what the caches keep stops growing once they are
    full. The bounds are shrunk so that they fill in a few calls; before, every call's text stayed
    (~0.3 GB per 10 MB call)."""
    rnd = random.Random(7)
    vocabulary = [f"word{i}x" for i in range(400)] + [f"词语{chr(0x4E00 + i)}" for i in range(200)]

    def call() -> None:
        history = [{"role": "user" if k % 2 else "assistant",
                    "content": " ".join(rnd.choice(vocabulary) for _ in range(200))} for k in range(20)]
        build_context("what about word7x and 词语丁?", history=history, max_tokens=1000)

    call()  # every cache exists (some are made on first use)
    for cache in list(ALL_CACHES):
        monkeypatch.setattr(cache, "max_size", min(cache.max_size, 40_000))
        cache.clear()   # what earlier tests left may exceed the shrunk bound until the next put
    tracemalloc.start()
    try:
        for _ in range(9):   # fills the caches, and the 8 histories / 4 corpora kept for agent loops
            call()
        gc.collect()
        full = tracemalloc.get_traced_memory()[0]
        for _ in range(6):
            call()
        gc.collect()
        later = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    for cache in ALL_CACHES:
        assert cache.size <= cache.max_size and len(cache) <= cache.max_entries
    # Six more calls of ~40,000 new characters each: what is kept may shift, not grow by their size.
    assert later - full < 1_000_000, f"kept {later - full:,} more bytes after six more calls"


def test_the_analyses_kept_of_whole_histories_are_bounded_in_characters(monkeypatch: pytest.MonkeyPatch) -> None:
    """Turn packets, BM25 corpora and link statistics are kept per history for agent loops: bounded by the
    characters of their turns too, not only by how many histories (8 of 16 MiB each were ~5 GB)."""
    from context.select.signals import links
    from context.select import relevance
    from context.select import turn_cache
    for module in (links, relevance, turn_cache):
        monkeypatch.setattr(module, "HISTORY_STATE_CHARS", 100_000)
    for kept in (relevance._corpora, links._states, turn_cache.HISTORY_CACHE._items):
        kept.clear()
    small = [{"role": "user", "content": f"small turn {i} about kayaks"} for i in range(60)]
    build_context("kayaks?", history=small, max_tokens=500)
    for k in range(3):    # three long histories of ~60,000 characters each
        history = [{"role": "user" if i % 2 else "assistant", "content": f"history {k} turn {i} " + "paddle " * 140}
                   for i in range(60)]
        build_context("paddle?", history=history, max_tokens=500)
    # The newest long history stays (a kept analysis is what makes the next call of a loop cheap); the
    # small one and the older long ones went.
    for kept in (relevance._corpora, links._states, turn_cache.HISTORY_CACHE._items):
        assert len(kept) == 1, kept
    assert all(t.startswith("history 2 ") for c in relevance._corpora.values() for t in c.texts)


def test_within_a_call_nothing_computed_is_computed_again() -> None:
    """A call's own texts may be more than a cache holds: inside ``call_memo`` an evicted value is
    recalled, not computed again; outside it, the cache alone decides."""
    from notes_store.bounded_cache import call_memo
    cache: BoundedCache[str, int] = BoundedCache(max_size=60, max_entries=100)
    computed: list[str] = []

    def value(key: str) -> int:
        return cache.get_or_compute(key, lambda: computed.append(key) or len(key))

    keys = [f"text number {i:02d}" for i in range(6)]   # 14 characters each: the cache keeps four
    with call_memo():
        for _ in range(3):
            assert [value(k) for k in keys] == [14] * 6
        assert cache.recall(keys[0]) == 14 and keys[0] not in cache
        cache.clear()   # state the values depend on was reset: the memo forgets them too
        assert cache.recall(keys[0]) is None
    assert computed == keys
    assert cache.recall(keys[0]) is None     # no memo outside a call
    for _ in range(2):
        [value(k) for k in keys]
    assert len(computed) == 6 + 12


def test_build_context_analyses_each_turn_once_even_when_the_history_outgrows_the_caches(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A history bigger than the text caches (16 MiB may be sent, they hold 4M characters): each stage used
    to find every turn evicted by the stage before and analysed it again, ~5 times in all."""
    from context.select import relevance
    for cache in list(ALL_CACHES):
        cache.clear()
    monkeypatch.setattr(relevance._terms_cache, "max_size", 20_000)
    calls: list[str] = []
    original = relevance.index_terms

    def counting(text: str) -> list[str]:
        calls.append(text)
        return original(text)

    monkeypatch.setattr(relevance, "index_terms", counting)
    rnd = random.Random(11)
    history = [{"role": "user" if k % 2 else "assistant",
                "content": " ".join(f"w{rnd.randrange(10**6)}" for _ in range(300))} for k in range(40)]
    build_context("what about w12 and w99?", history=history, max_tokens=1000)
    turns = [t["content"] for t in history]
    assert sum(1 for c in calls if c in turns) == len(turns)


def test_a_calls_memo_keeps_a_bounded_size_per_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keys a call builds itself (growing joins of a document's sentences) could add up to the square of
    its input: the memo stops keeping them past CALL_MEMO_SIZE (a 150 KB document kept 620 MB before)."""
    from notes_store import bounded_cache
    from notes_store.bounded_cache import call_memo
    monkeypatch.setattr(bounded_cache, "CALL_MEMO_SIZE", 100)
    cache: BoundedCache[str, int] = BoundedCache(max_size=40, max_entries=100)
    with call_memo():
        for i in range(10):
            cache.put(f"key number {i:03d}", i)        # 14 characters each: 7 fit the memo's 100
        kept = [i for i in range(10) if cache.recall(f"key number {i:03d}") is not None]
    assert kept == list(range(7))


def test_shortening_one_long_document_counts_each_sentence_once() -> None:
    """Shortening joined the kept sentences and counted them again for every sentence tried: 20,000
    sentences under a 40,000-token budget took 94 s of CPU. Now the counts are added up and checked once."""
    from context.compress import summaries as compress
    from context.tokens import TokenCounter
    counted: list[str] = []
    counter = TokenCounter()
    real = counter.count

    def count(text: str) -> int:
        counted.append(text)
        return real(text)

    counter.count = count  # type: ignore[method-assign]
    sentences = [f"Deploy item {i} is ready." for i in range(3000)]
    text = " ".join(sentences)
    out = compress.extractive_shorten(text, ["deploy", "item"], 4000, counter)
    assert out is not None and real(out) <= 4000 and "[…]" in out
    assert sum(len(t) for t in counted) < 4 * len(text)   # about the text once, not once per sentence tried
    for budget in (5, 40, 333):                            # exact at every budget, never over
        got = compress.extractive_shorten(text, ["item"], budget, counter)
        assert got is None or real(got) <= budget
