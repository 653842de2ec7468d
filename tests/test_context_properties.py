"""Property-based: whatever the input, the output never exceeds the budget."""

from __future__ import annotations

import math
from datetime import datetime, timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from context import MESSAGE_OVERHEAD_TOKENS, ContextError, Evidence, build_context, count_tokens

WORDS = ["cache", "deploy", "migration", "login", "bug", "fixed", "we", "decided", "to", "use", "the",
         "重构", "数据模型", "接口层", "已完成", "下一步", "测试", "部署", "，", "。", "?", "!", "<|endoftext|>",
         "\n", "  ", "😀", "42", "2026-01-05", "é", "naïve"]
text = st.lists(st.sampled_from(WORDS), min_size=1, max_size=60).map(" ".join).filter(lambda s: s.strip())
long_text = st.lists(st.sampled_from(WORDS), min_size=1, max_size=400).map(" ".join).filter(lambda s: s.strip())


@st.composite
def inputs(draw):
    n = draw(st.integers(0, 60))
    start = datetime(2026, 1, 1)
    history = [{"role": draw(st.sampled_from(["user", "assistant"])), "content": draw(text),
                "timestamp": start + timedelta(hours=draw(st.integers(0, 2000)))} for _ in range(n)]
    docs = [{"content": draw(long_text), "source": f"d{i}", "score": draw(st.floats(0, 10))}
            for i in range(draw(st.integers(0, 4)))]
    tools = [{"name": f"tool_{i}", "description": draw(text), "input_schema": {"type": "object"},
              "required": draw(st.booleans())} for i in range(draw(st.integers(0, 3)))]
    notes = [Evidence("note", f"n{i}", draw(text), draw(long_text), draw(st.floats(0, 20)),
                      label="decision") for i in range(draw(st.integers(0, 4)))]
    mems = [Evidence("memory", f"m{i}", "", draw(text), draw(st.floats(0, 5)), label="episodic",
                     importance=draw(st.floats(0, 1))) for i in range(draw(st.integers(0, 3)))]
    return dict(
        query=draw(text),
        history=history,
        documents=docs,
        tools=tools,
        tool_results=[{"tool": "grep", "result": draw(long_text)} for _ in range(draw(st.integers(0, 2)))],
        task_state=draw(st.one_of(st.none(), text, st.just({"step": "2/3", "blocked": True}))),
        system_instructions=draw(st.one_of(st.none(), text)),
        max_tokens=draw(st.integers(64, 2500)),
        reserve_ratio=draw(st.sampled_from([0.0, 0.1, 0.2, 0.5, 0.9])),
        format=draw(st.sampled_from(["text", "messages"])),
        query_type=draw(st.sampled_from(["auto", "knowledge", "chat", "task"])),
        evidence=_Fixed(notes, mems),
    )


class _Fixed:
    def __init__(self, notes, mems):
        self.notes, self.mems = notes, mems

    def find_notes(self, query, limit, note_types, tags):
        return self.notes[:limit]

    def find_memories(self, query, limit):
        return self.mems[:limit]


@settings(max_examples=120, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(inputs())
def test_never_over_budget_and_always_keeps_query(kw):
    budget = math.floor(kw["max_tokens"] * (1 - kw["reserve_ratio"]))
    try:
        res = build_context(**kw)
    except ContextError as exc:
        # Only allowed when the always-kept parts alone cannot fit.
        assert "raise max_tokens" in str(exc)
        required = sum(count_tokens(t["description"]) + 30 for t in kw["tools"] if t["required"])
        assert budget < count_tokens(kw["query"]) + required + 120
        return
    assert res.budget == budget
    if res.context is not None:
        assert res.tokens == count_tokens(res.context) <= budget
        out = res.context
    else:
        assert res.tokens == sum(count_tokens(m["content"]) + MESSAGE_OVERHEAD_TOKENS
                                 for m in res.messages) <= budget
        assert res.messages[-1] == {"role": "user", "content": kw["query"].strip()}
        out = "\n".join(m["content"] for m in res.messages)
    assert kw["query"].strip() in out
    system = (kw["system_instructions"] or "").strip()
    if system and not any("system instructions shortened" in w for w in res.warnings):
        assert system in out
    # Every selected history turn appears whole.
    for row in res.selected:
        if row["source"] == "history":
            turn = kw["history"][int(row["id"].split("-")[1])]
            assert turn["content"] in out
