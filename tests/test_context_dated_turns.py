"""A turn that states its own date needs no date header above it: the header would repeat it."""

from __future__ import annotations

from datetime import datetime

from context import TokenCounter, build_context
from context.gather.inputs import states_day


def test_states_day_reads_the_turns_own_date():
    ts = datetime(2024, 11, 15, 13, 55)
    assert states_day("2024年11月15日 13:55，上海市闵行区，图书馆：我同事马超夸我做的菜好吃。", ts)
    assert states_day("Nov 15, 2024, 1:55 PM, Pearl District, Portland: Dana got a new job.", ts)
    assert states_day("2024-11-15 13:55 at home: done.", ts)
    assert not states_day("Caroline: I went to the LGBTQ support group yesterday.", ts)
    assert not states_day("2024年11月14日 13:55，上海市：前一天的事。", ts)
    assert not states_day("Nov 15 was fun, see you in 2025.", ts)
    assert states_day("Fri 15 Nov 2024, home: done.", ts) and states_day("November 15, 2024: done.", ts)
    # The three parts must stand together: numbers scattered through a sentence state no day.
    assert not states_day("2024 goals: run 11 km, 15 times a month", ts)
    assert not states_day("Paid 12 dollars for 12 eggs in 2024 prices", datetime(2024, 12, 12))


def _log(stated: bool) -> list[dict[str, object]]:
    turns = []
    for k in range(60):
        ts = datetime(2024, 11, 1 + k // 6, 8 + k % 6, 5)
        head = f"2024年11月{ts.day}日 {ts:%H:%M}，上海市徐汇区，家里：" if stated else "上海市徐汇区，家里："
        turns.append({"role": "user", "timestamp": ts,
                      "content": f"{head}我同事{'马超' if k % 2 else '徐浩'}第{k}次说周末想去爬山。"})
    return turns


def test_no_header_above_a_turn_that_states_its_date():
    res = build_context("马超说周末想去哪里？", history=_log(True), max_tokens=600, reserve_ratio=0,
                        include_notes=False, include_memory=False)
    assert res.context and "马超" in res.context
    assert "[" + "Fri 1 Nov 2024" + "]" not in res.context and "Nov 2024]" not in res.context
    assert res.tokens <= 600 and TokenCounter("cl100k_base").count(res.context) <= 600


def test_a_turn_without_its_date_keeps_the_header():
    res = build_context("马超说周末想去哪里？", history=_log(False), max_tokens=600, reserve_ratio=0,
                        include_notes=False, include_memory=False)
    assert res.context and "Nov 2024]" in res.context
