"""build_context: budgets, structure, formats, evidence, compression and errors."""

from __future__ import annotations

import math
from datetime import datetime, timedelta

import pytest

from context import (MESSAGE_OVERHEAD_TOKENS, ContextError, Evidence, EvidenceProvider, TokenCounter,
                     build_context, count_tokens, messages_tokens)
from context.compress.summaries import CUT_MARK, SUMMARY_CACHE
from context.structure import OUTPUT_LINE, SECTIONS

COUNTER = TokenCounter()


def turns(n: int, start: datetime = datetime(2026, 1, 5, 9, 0)) -> list[dict]:
    topics = ["database migration", "login page styling", "cache eviction policy", "release notes",
              "flaky integration test", "API rate limits", "onboarding docs", "billing export"]
    out = []
    for i in range(n):
        topic = topics[i % len(topics)]
        out.append({"role": "user" if i % 2 == 0 else "assistant", "id": f"t{i}",
                    "content": f"Turn {i} about the {topic}: we looked at item {i * 7} and noted detail {i}.",
                    "timestamp": start + timedelta(hours=i)})
    return out


class Provider:
    """In-test EvidenceProvider: fixed notes and memories, optionally failing."""

    def __init__(self, notes=(), memories=(), fail_notes=False):
        self.notes, self.memories, self.fail_notes = list(notes), list(memories), fail_notes
        self.calls = []

    def find_notes(self, query, limit, note_types, tags):
        self.calls.append(("notes", query, limit, note_types, tags))
        if self.fail_notes:
            raise RuntimeError("index is locked")
        return [n for n in self.notes if note_types is None or n.label in note_types][:limit]

    def find_memories(self, query, limit):
        self.calls.append(("memories", query, limit))
        return self.memories[:limit]


def note(i, content, score, label="blocker"):
    return Evidence(source="note", id=f"note_{i}", title=f"Note {i}", content=content, score=score,
                    timestamp=datetime(2026, 1, 1) + timedelta(days=i), label=label)


def test_provider_protocol_is_runtime_checkable():
    assert isinstance(Provider(), EvidenceProvider)


def test_budget_is_floor_of_max_tokens_times_one_minus_reserve():
    res = build_context("What about the cache eviction policy?", history=turns(200), max_tokens=777,
                        reserve_ratio=0.3)
    assert res.budget == math.floor(777 * 0.7)
    assert res.tokens == count_tokens(res.context) <= res.budget
    assert res.tokens > res.budget - 40, "a long history should fill the budget"


def test_system_and_query_always_present_and_sections_in_order():
    res = build_context("Summarise the billing export work", history=turns(300),
                        system_instructions="You are a careful release engineer.", task_state="step 2 of 4",
                        documents=[{"content": "The billing export runs nightly."}], max_tokens=400)
    text = res.context
    assert "You are a careful release engineer." in text
    assert "Summarise the billing export work" in text
    positions = [text.index(f"[{name}]") for name in SECTIONS]
    assert positions == sorted(positions)


def test_empty_sections_are_left_out_but_task_and_context_stay():
    res = build_context("hello there", max_tokens=300)
    assert res.context == "[Task]\nhello there\n\n[Context]\n(none)"
    assert res.tokens == count_tokens(res.context)
    assert set(res.sections) == set(SECTIONS)
    assert res.sections["Evidence"] == res.sections["Output"] == 0
    # History only: no empty headings and no Output line (nothing to cite); the room goes to turns.
    res = build_context("hello", history=turns(3), max_tokens=300)
    assert "[Task]" in res.context and "[Context]" in res.context
    for name in ("Role & Policies", "State", "Evidence", "Output"):
        assert f"[{name}]" not in res.context
    res = build_context("hello", system_instructions="Be brief.", task_state={"step": "3 of 5"},
                        history=turns(3), max_tokens=300)
    assert "[Role & Policies]\nBe brief." in res.context
    assert "step: 3 of 5" in res.context
    assert "[Evidence]" not in res.context
    assert res.context.endswith("[Output]\n" + OUTPUT_LINE), "state to cite brings the Output line"


def test_whole_turns_only_and_chronological_order():
    hist = turns(150)
    res = build_context("What happened with the flaky integration test?", history=hist, max_tokens=600)
    text = res.context
    kept = [t for t in hist if t["content"] in text]
    assert 3 <= len(kept) < len(hist)
    # No turn appears cut: any kept turn's opening appears only together with its full text.
    for t in hist:
        if t["content"][:25] + " " in text.replace("\n", " ") and t["content"] not in text:
            pytest.fail(f"turn {t['id']} appears partially")
    idx = [text.index(t["content"]) for t in kept]
    assert idx == sorted(idx), "history must stay chronological"
    assert sum("flaky integration test" in t["content"] for t in kept) >= len(kept) // 2


def test_relevant_old_turn_beats_recent_irrelevant_ones():
    hist = turns(300)
    hist[10]["content"] = "We chose PostgreSQL advisory locks for the zebra scheduler."
    res = build_context("Which locks did we choose for the zebra scheduler?", history=hist, max_tokens=300)
    assert hist[10]["content"] in res.context
    assert res.query_type == "knowledge"


def test_session_date_is_shown_next_to_turns():
    hist = turns(5, start=datetime(2023, 5, 8, 13, 56))
    res = build_context("When did we discuss the cache?", history=hist, max_tokens=400)
    assert "[Mon 8 May 2023]" in res.context


def test_day_headers_show_the_year_once_per_year_in_both_formats():
    # One turn a day across a new year: the year is shown where it changes, not on every header.
    hist = turns(4, start=datetime(2023, 12, 30, 9, 0))
    for i, t in enumerate(hist):
        t["timestamp"] = datetime(2023, 12, 30, 9, 0) + timedelta(days=i)
    res = build_context("What did we note about the cache?", history=hist, max_tokens=1000, reserve_ratio=0)
    headers = [line for line in res.context.splitlines() if line.startswith("[") and line[1:4].isalpha()
               and line not in ("[Task]", "[Context]")]
    assert headers == ["[Sat 30 Dec 2023]", "[Sun 31 Dec]", "[Mon 1 Jan 2024]", "[Tue 2 Jan]"]
    msgs = build_context("What did we note about the cache?", history=hist, max_tokens=1000, reserve_ratio=0,
                         format="messages").messages
    shown = [m["content"].split("]")[0] + "]" for m in msgs if m["content"].startswith("[")]
    assert shown == headers


def test_short_day_headers_leave_the_budget_exact():
    # Many days over two years and a tight budget: the headers' years are costed, never a token over.
    counter = TokenCounter("cl100k_base")
    hist = turns(200, start=datetime(2023, 11, 1, 9, 0))
    for i, t in enumerate(hist):
        t["timestamp"] = datetime(2023, 11, 1, 9, 0) + timedelta(days=i)
    for budget in (200, 300, 500, 800):
        for fmt in ("text", "messages"):
            res = build_context("Which detail did we note about the flaky integration test?", history=hist,
                                max_tokens=budget, reserve_ratio=0, format=fmt)
            assert res.tokens <= budget
            if fmt == "text":
                assert counter.count(res.context) == res.tokens
                assert "2023]" in res.context or "2024]" in res.context


def test_years_set_aside_never_push_a_tiny_budget_over():
    # Three years' marks set aside from a budget the skeleton nearly fills: the room left must not go
    # below zero (a negative room let the first top-up take one token more than the budget).
    counter = TokenCounter("cl100k_base")
    hist = [{"role": "user", "content": "long talk " * 40, "timestamp": f"{y}-03-16T10:00:00"}
            for y in (2021, 2022, 2023)]
    text_hist = hist + [{"role": "user", "content": w} for w in ["a b", "ok go on", "Fine.", "hm"]]
    res = build_context("tell me " + " ".join(["story"] * 54), history=text_hist, max_tokens=68,
                        reserve_ratio=0, query_type="chat")
    assert res.tokens <= 68 and counter.count(res.context) == res.tokens
    chat_hist = hist + [{"role": "assistant", "content": w}
                        for w in ("ok", "fine then", "yes it is so", "sure thing my friend")]
    res = build_context("tell me " + " ".join(["story"] * 37), history=chat_hist, max_tokens=64,
                        reserve_ratio=0, format="messages", query_type="chat")
    assert res.tokens <= 64


def test_a_header_after_a_turn_that_states_another_year_shows_its_year():
    # Out of date order: the turn that states 2024 is the last date read before the 2023 header.
    hist = [{"role": "user", "content": "We planted tomatoes in the garden.", "timestamp": "2023-03-16T10:00:00"},
            {"role": "assistant", "content": "2024-05-01: we moved the garden group to Berlin.",
             "timestamp": "2024-05-01T10:00:00"},
            {"role": "user", "content": "The garden group picked a name.", "timestamp": "2023-04-02T10:00:00"}]
    res = build_context("What happened with the garden group?", history=hist, max_tokens=400, reserve_ratio=0)
    assert "[Sun 2 Apr 2023]" in res.context
    msgs = build_context("What happened with the garden group?", history=hist, max_tokens=400, reserve_ratio=0,
                         format="messages").messages
    assert any(m["content"].startswith("[Sun 2 Apr 2023] ") for m in msgs)


def test_near_duplicates_collapse_into_one():
    text = "The deploy failed because the migration 0042 locked the users table for ten minutes."
    docs = [{"content": text, "source": "a.md", "score": 3.0},
            {"content": text.replace("ten minutes", "ten minutes."), "source": "b.md", "score": 2.0},
            {"content": "Unrelated: the office plants need water on Fridays.", "source": "c.md", "score": 1.0}]
    res = build_context("Why did the deploy fail?", documents=docs, max_tokens=800)
    assert res.context.count("migration 0042") == 1
    dup = [d for d in res.dropped if d["id"] == "b.md"]
    assert dup and dup[0]["reason"].startswith("near-duplicate of document a.md")


def test_evidence_from_provider_is_tagged_with_id_label_and_relevance():
    provider = Provider(
        notes=[note(1, "Blocked on the vendor's API key rotation.", 9.0),
               note(2, "Decided to ship the CSV export behind a flag.", 4.5, label="decision")],
        memories=[Evidence(source="memory", id="mem_7", title="", content="The user prefers short answers.",
                           score=2.0, timestamp=None, label="semantic", importance=0.9)])
    res = build_context("What is blocking the API work?", evidence=provider, max_tokens=1000,
                        note_types=["blocker", "decision"], tags=["api"])
    assert "[note note_1 | blocker | relevance 1.00] Note 1" in res.context
    assert "[note note_2 | decision | relevance 0.50]" in res.context
    assert "[memory mem_7 | semantic | importance 0.90 | relevance 1.00]" in res.context
    assert ("notes", "What is blocking the API work?", provider.calls[0][2], ["blocker", "decision"], ["api"]) \
        == provider.calls[0]
    ids = {(s["source"], s["id"]) for s in res.selected}
    assert {("note", "note_1"), ("note", "note_2"), ("memory", "mem_7")} <= ids
    assert res.sections["Evidence"] > 0


def test_evidence_that_does_not_fit_is_listed_with_its_uri():
    body = " ".join(f"Fact {i} about the rollout plan and its risks." for i in range(60))
    provider = Provider(notes=[note(i, body + f" Variant {i}: " + "x" * i, 10.0 - i) for i in range(6)])
    res = build_context("rollout plan risks", evidence=provider, max_tokens=700, include_memory=False)
    assert res.tokens <= res.budget
    dropped = [d for d in res.dropped if d["source"] == "note"]
    assert dropped and all(d["uri"] == f"note://{d['id']}" for d in dropped)
    assert all(d["reason"] for d in dropped)


def test_failing_provider_is_reported_not_fatal():
    provider = Provider(memories=[Evidence("memory", "m1", "", "Deploys happen on Tuesdays.", 1.0,
                                           label="semantic", importance=0.5)], fail_notes=True)
    res = build_context("When do deploys happen?", evidence=provider, max_tokens=500)
    assert any("find_notes failed" in w and "index is locked" in w for w in res.warnings)
    assert "Deploys happen on Tuesdays." in res.context


def test_include_flags_skip_provider_calls():
    provider = Provider(notes=[note(1, "n", 1.0)])
    build_context("q?", evidence=provider, include_notes=False, include_memory=False, max_tokens=300)
    assert provider.calls == []


def test_messages_format_lost_in_the_middle_order_and_exact_accounting():
    hist = turns(120)
    provider = Provider(notes=[note(1, "The cache eviction policy is LRU with a 10 minute TTL.", 5.0)])
    res = build_context("What is the cache eviction policy?", history=hist, evidence=provider,
                        system_instructions="Be precise.", task_state={"goal": "tune cache"},
                        documents=[{"content": f"Doc {i} on cache eviction and TTL tuning number {i}.",
                                    "source": f"d{i}", "score": 1.0 / (i + 1)} for i in range(6)],
                        format="messages", max_tokens=1200)
    msgs = res.messages
    assert res.context is None and "messages" in res.to_dict() and "context" not in res.to_dict()
    assert msgs[0] == {"role": "system", "content": "Be precise."}
    assert msgs[1]["role"] == "system" and "goal: tune cache" in msgs[1]["content"]
    assert "[note note_1" in msgs[1]["content"], "key notes come first"
    assert msgs[2]["content"].startswith("Supporting material:"), "less relevant material in the middle"
    assert msgs[-1] == {"role": "user", "content": "What is the cache eviction policy?"}
    turn_msgs = [m for m in msgs[3:-1]]
    positions = [next(i for i, t in enumerate(hist) if t["content"] in m["content"]) for m in turn_msgs]
    assert positions == sorted(positions) and positions[-1] == len(hist) - 1, "recent turns last"
    total = sum(count_tokens(m["content"]) for m in msgs) + MESSAGE_OVERHEAD_TOKENS * len(msgs)
    assert res.tokens == total == messages_tokens(msgs, COUNTER) <= res.budget


def test_tools_relevant_only_when_they_do_not_all_fit_and_required_kept():
    big = {"type": "object", "properties": {f"p{i}": {"type": "string", "description": "x" * 40}
                                            for i in range(6)}}
    tools = [{"name": f"tool_{i}", "description": f"Does unrelated thing number {i}", "input_schema": big}
             for i in range(12)]
    tools.append({"name": "search_notes", "description": "Search the notes index", "input_schema": big})
    tools.append({"name": "audit_log", "description": "Always needed", "input_schema": big, "required": True})
    res = build_context("search the notes for the release plan", tools=tools, max_tokens=1500)
    assert '"name": "search_notes"' in res.context and '"name": "audit_log"' in res.context
    assert '"name": "tool_3"' not in res.context
    role = res.context.split("[Task]")[0]
    assert role.index("Tools (JSON schema):") < role.index('"name": "search_notes"')
    small = [{"name": "a", "description": "first", "input_schema": {}},
             {"name": "b", "description": "second", "input_schema": {}}]
    res = build_context("hello", tools=small, max_tokens=500)
    assert '"name": "a"' in res.context and '"name": "b"' in res.context


def test_oversized_document_is_shortened_extractively_and_marked():
    filler = " ".join(f"Paragraph {i} talks about office logistics and parking." for i in range(150))
    doc = filler + " The root cause was an expired TLS certificate on the gateway. " + filler
    res = build_context("What was the root cause of the outage?", documents=[{"content": doc, "source": "pm.md"}],
                        max_tokens=600)
    assert "expired TLS certificate" in res.context
    assert CUT_MARK in res.context
    [c] = [c for c in res.compressed if c["id"] == "pm.md"]
    assert c["method"] == "extractive" and c["to_tokens"] < c["from_tokens"]
    assert res.tokens <= res.budget


def test_summarizer_is_used_and_cached():
    SUMMARY_CACHE.clear()
    calls = []

    def summarizer(text, query, max_tokens):
        calls.append(max_tokens)
        return "Outage cause: expired TLS certificate on the gateway (unique-summary-42)."

    doc = " ".join(f"Sentence {i} with filler about meetings and agendas." for i in range(400))
    kwargs = dict(documents=[{"content": doc, "source": "long.md"}], max_tokens=700, summarizer=summarizer)
    first = build_context("What caused the outage?", **kwargs)
    second = build_context("What caused the outage?", **kwargs)
    assert "unique-summary-42" in first.context and "unique-summary-42" in second.context
    assert len(calls) == 1, "second call must hit the cache"
    assert [c["method"] for c in first.compressed] == ["summarizer"]
    assert second.tokens <= second.budget


@pytest.mark.parametrize("behaviour", ["raise", "none", "too_long"])
def test_summarizer_failures_fall_back_to_extractive(behaviour):
    SUMMARY_CACHE.clear()

    def summarizer(text, query, max_tokens):
        if behaviour == "raise":
            raise TimeoutError("sampling timed out")
        if behaviour == "none":
            return None
        return "word " * (max_tokens * 3)

    doc = " ".join(f"Line {i} is filler text about lunch menus." for i in range(300)) + \
        " The outage was caused by DNS misconfiguration."
    res = build_context("What caused the outage?", documents=[{"content": doc, "source": f"{behaviour}.md"}],
                        max_tokens=600, summarizer=summarizer)
    assert [c["method"] for c in res.compressed] == ["extractive"]
    assert "DNS misconfiguration" in res.context and CUT_MARK in res.context
    assert res.warnings and "summarizer" in res.warnings[0]


def test_older_history_is_condensed_in_chat_mode():
    hist = turns(400)
    hist[5]["content"] = "We decided to freeze the schema until March because billing depends on it."
    res = build_context("ok, thanks, carry on", history=hist, max_tokens=800)
    assert res.query_type == "chat"
    assert "Earlier conversation (condensed" in res.context
    assert hist[-1]["content"] in res.context
    assert any(c["method"] == "condensed" for c in res.compressed)
    assert res.tokens <= res.budget


def test_query_repeated_as_last_turn_is_shown_once():
    hist = turns(4) + [{"role": "user", "content": "Where is the billing export?"}]
    res = build_context("Where is the billing export?", history=hist, max_tokens=500)
    assert res.context.count("Where is the billing export?") == 1


def test_min_relevance_drops_weak_evidence():
    provider = Provider(notes=[note(1, "Strong match about kafka partitions.", 10.0),
                               note(2, "Weak match.", 1.0)])
    res = build_context("kafka partitions", evidence=provider, max_tokens=600, min_relevance=0.5)
    assert "note_1" in res.context and "note_2" not in res.context
    assert any(d["id"] == "note_2" and "min_relevance" in d["reason"] for d in res.dropped)


def test_progress_is_reported_at_stage_boundaries():
    seen = []
    build_context("hi", history=turns(3), max_tokens=300, progress=lambda d, t, m: seen.append((d, t, m)))
    assert [d for d, _, _ in seen] == sorted(d for d, _, _ in seen)
    assert seen[0][0] == 0 and seen[-1][0] == seen[-1][1] == 4


def test_query_type_auto_and_explicit():
    assert build_context("fix the failing login test", task_state="step 2", max_tokens=300).query_type == "task"
    assert build_context("what is the TTL?", documents=[{"content": "TTL is 5m"}],
                         max_tokens=300).query_type == "knowledge"
    assert build_context("thanks!", history=turns(3), max_tokens=300).query_type == "chat"
    assert build_context("thanks!", query_type="task", max_tokens=300).query_type == "task"


def test_report_is_consistent():
    res = build_context("cache eviction?", history=turns(100), max_tokens=500)
    d = res.to_dict()
    assert set(d) >= {"context", "tokens", "budget", "sections", "selected", "dropped", "compressed",
                      "warnings", "query_type"}
    assert set(d["sections"]) == set(SECTIONS)
    kept = {s["id"] for s in d["selected"]}
    assert not kept & {x["id"] for x in d["dropped"]}
    assert d["sources"]["history"]["candidates"] == 100
    assert d["sources"]["history"]["selected"] == len([s for s in d["selected"] if s["source"] == "history"])


@pytest.mark.parametrize("kwargs, fragment", [
    ({"format": "xml"}, "unknown format"),
    ({"query_type": "smart"}, "unknown query_type"),
    ({"max_tokens": 10}, "max_tokens must be"),
    ({"reserve_ratio": 1.0}, "reserve_ratio must be in [0, 1)"),
    ({"reserve_ratio": -0.1}, "reserve_ratio"),
    ({"history": [{"role": "user"}]}, "history[0] has no content"),
    ({"history": [{"role": "user", "content": "  "}]}, "history[0] has no content"),
    ({"history": [{"role": "robot", "content": "hi"}]}, "role 'robot'"),
    ({"encoding": "no_such_encoding"}, "unknown encoding 'no_such_encoding'"),
    ({"relevance_weight": 3}, "relevance_weight"),
    ({"history": [{"role": "user", "content": "x", "timestamp": "yesterday"}]}, "history[0]: timestamp 'yesterday' is not an ISO 8601"),
])
def test_bad_input_raises_context_error(kwargs, fragment):
    with pytest.raises(ContextError) as err:
        build_context("q", **kwargs)
    assert fragment in str(err.value)
    assert isinstance(err.value, ValueError)


def test_empty_query_and_impossible_budget_are_errors():
    with pytest.raises(ContextError, match="query must be"):
        build_context("   ")
    with pytest.raises(ContextError, match="raise max_tokens"):
        build_context("word " * 400, max_tokens=200)


def test_a_query_too_long_or_too_big_for_the_budget_is_refused_before_any_scoring():
    from context.select import relevance
    from context.builder import MAX_QUERY_CHARS
    hist = [{"role": "user", "content": f"unscored turn {i} qzx{i * 7907}"} for i in range(50)]
    with pytest.raises(ContextError, match="at most 32,000 are accepted"):
        build_context("我叔叔" * (MAX_QUERY_CHARS // 3 + 1), history=hist, max_tokens=10**7)
    with pytest.raises(ContextError, match="the query is 5001 tokens .* cannot hold it"):
        build_context("pasta " * 5000, history=hist, max_tokens=2000)
    assert not any(t["content"] in relevance._terms_cache for t in hist)   # refused before scoring
    res = build_context("pasta " * 5000, history=hist, max_tokens=8000)    # the same query, room for it
    assert res.tokens <= res.budget


def test_long_system_instructions_are_shortened_visibly():
    system = " ".join(f"Policy {i}: never do thing {i}." for i in range(200))
    res = build_context("hi", system_instructions=system, max_tokens=300)
    assert res.tokens <= res.budget and CUT_MARK in res.context
    assert any("system instructions shortened" in w for w in res.warnings)


def test_newest_tool_result_is_kept_even_when_off_topic():
    res = build_context("What is blocking the login?", history=turns(200), task_state={"goal": "ship SSO"},
                        tool_results=[{"tool": "pytest", "result": "old run: 5 failed"},
                                      {"tool": "pytest", "result": "2 failed, 40 passed"}], max_tokens=500)
    assert "[tool_result pytest]\n2 failed, 40 passed" in res.context
    assert res.tokens <= res.budget


def test_should_stop_cancels_the_build_between_stages():
    from context import ContextCancelled
    hist = [{"role": "user", "content": f"turn {i} about deploys"} for i in range(50)]
    calls = []

    def stop() -> bool:
        calls.append(1)
        return len(calls) > 2  # let gather pass, stop during select

    with pytest.raises(ContextCancelled):
        build_context("deploys?", history=hist, max_tokens=500, should_stop=stop)
    assert build_context("deploys?", history=hist, max_tokens=500, should_stop=lambda: False).tokens <= 400


def test_a_stop_during_a_long_stage_stops_it_part_way_and_leaves_the_caches_sound():
    """One stage over a long history (analysing every turn) is most of a second of CPU for 20,000 turns:
    its loops check every few hundred turns, so a client that hangs up is noticed part-way through."""
    from context import ContextCancelled
    from context.select.signals import links
    from context.select import relevance
    from context.stopping import STRIDE
    hist = [{"role": "user", "content": f"stopword{i} zebra{i * 7919} about deploys"} for i in range(3000)]
    texts = [t["content"] for t in hist]
    calls = []

    def stop() -> bool:
        calls.append(1)
        return len(calls) > 2  # gather and the start of select pass; the scoring stage is stopped

    with pytest.raises(ContextCancelled):
        build_context("deploys?", history=hist, max_tokens=500, should_stop=stop)
    analysed = sum(t in relevance._terms_cache for t in texts)
    assert analysed <= 2 * STRIDE, f"{analysed} of {len(texts)} turns analysed after the stop"

    def fresh() -> str:
        relevance._corpora.clear()
        links._states.clear()
        return build_context("zebra7919 deploys?", history=hist, max_tokens=500, reserve_ratio=0).context

    clean = fresh()
    assert "zebra7919 " in clean
    relevance._corpora.clear()
    links._states.clear()
    checks: list[int] = []
    build_context("deploys?", history=hist + [{"role": "user", "content": "one more"}], max_tokens=500,
                  should_stop=lambda: bool(checks.append(1)))
    assert len(checks) >= 12, f"a full build checks only {len(checks)} times"
    # Stopped deeper in, up to just before the last check: the caches stay right.
    for after in sorted({4, 8, len(checks) // 2, len(checks) - 2}):
        relevance._corpora.clear()
        links._states.clear()
        calls.clear()
        with pytest.raises(ContextCancelled):
            build_context("deploys?", history=hist + [{"role": "user", "content": "one more"}], max_tokens=500,
                          should_stop=lambda after=after: bool(calls.append(1)) or len(calls) > after)
        assert build_context("zebra7919 deploys?", history=hist, max_tokens=500, reserve_ratio=0).context == clean


def test_history_and_input_caps_are_clear_errors():
    from context.gather.inputs import MAX_HISTORY_TURNS, MAX_INPUT_BYTES
    with pytest.raises(ContextError, match="at most 20,000"):
        build_context("q", history=[{"role": "user", "content": "x"}] * (MAX_HISTORY_TURNS + 1))
    big = "y" * (MAX_INPUT_BYTES // 4 + 1)
    with pytest.raises(ContextError, match="more than 16 MiB"):
        build_context("q", documents=[{"content": big}] * 4)


def test_tool_results_take_content_as_the_schema_says_and_result_from_older_callers():
    res = build_context("why did the tests fail?", tool_results=[
        {"tool": "pytest", "content": "3 failed: test_auth_refresh"},
        {"tool": "ruff", "result": "All checks passed"}], max_tokens=500, include_notes=False)
    assert "test_auth_refresh" in res.context and "All checks passed" in res.context
    with pytest.raises(ContextError, match="'content'"):
        build_context("q", tool_results=[{"tool": "pytest"}])


def test_tool_turns_become_messages_a_chat_api_accepts():
    hist = [{"role": "user", "content": "run the tests please"},
            {"role": "assistant", "content": "Running pytest now."},
            {"role": "tool", "content": "2 failed, 40 passed", "tool_call_id": "call_1", "name": "pytest"},
            {"role": "tool", "content": "lint clean", "name": "ruff"},
            {"role": "user", "content": "what failed?"}]
    res = build_context("which tests failed?", history=hist, format="messages", max_tokens=2000,
                        include_notes=False, include_memory=False)
    msgs = res.messages
    roles = [m["role"] for m in msgs]
    for i, m in enumerate(msgs):
        assert set(m) <= {"role", "content", "tool_call_id"}
        if m["role"] == "tool":
            assert m["tool_call_id"] == "call_1" and msgs[i - 1]["role"] == "assistant"
    assert "tool" in roles
    folded = [m for m in msgs if m["role"] == "user" and "lint clean" in m["content"]]
    assert folded and folded[0]["content"].startswith("[tool result ruff]")
    # Without an assistant turn before it, even a tool turn with an id is folded.
    res2 = build_context("which tests failed?", history=hist[2:3], format="messages", max_tokens=2000,
                         include_notes=False, include_memory=False)
    assert all(m["role"] != "tool" for m in res2.messages)
    assert res.tokens <= res.budget and res2.tokens <= res2.budget


def test_newest_turn_is_not_dropped_as_a_copy_of_an_older_one_in_chat():
    # The BM25 reserve takes the older (shorter, so higher-BM25) turn first; the newest turn says
    # nearly the same (Jaccard 6/7) and is the conversation's present: it must stay.
    filler = [{"role": "user" if i % 2 == 0 else "assistant",
               "content": f"Unrelated chatter number {i} about lunch plans and weather {i}"} for i in range(30)]
    old = {"role": "user", "content": "The billing export deploy failed on Tuesday night", "id": "old"}
    new = {"role": "user", "content": "The billing export deploy failed on Tuesday night again", "id": "new"}
    res = build_context("billing export deploy failed?", history=filler[:10] + [old] + filler[10:] + [new],
                        max_tokens=1000, query_type="chat")
    kept = {s["id"] for s in res.to_dict()["selected"]}
    assert "new" in kept, [d for d in res.to_dict()["dropped"] if d["id"] == "new"]
    assert new["content"] in res.context


def test_a_turns_name_says_who_spoke_in_both_formats_and_is_counted():
    """A group chat in one role: without the names the packed turns would not say who said what."""
    from context.structure import messages_tokens
    from context.tokens import TokenCounter
    hist = [{"role": "user", "content": "I moved the deploy to Friday", "name": "ann"},
            {"role": "user", "content": "bob: Friday works for the deploy"},
            {"role": "user", "content": "the deploy needs a database backup first", "name": "cy"}]
    text = build_context("when is the deploy?", history=hist, max_tokens=400, reserve_ratio=0).context
    assert "ann: I moved the deploy to Friday" in text and "cy: the deploy needs" in text
    assert "bob: Friday works" in text and "bob: bob:" not in text
    res = build_context("when is the deploy?", history=hist, max_tokens=400, reserve_ratio=0, format="messages")
    assert {"role": "user", "content": "I moved the deploy to Friday", "name": "ann"} in res.messages
    assert not any("name" in m for m in res.messages if m["content"].startswith("bob:"))
    assert res.tokens == messages_tokens(res.messages, TokenCounter()) <= res.budget
    # A name chat APIs refuse in the field (spaces, CJK) is said in the content, and costed so.
    spaced = [{"role": "user", "content": "the deploy is on Friday", "name": "Ann Smith"},
              {"role": "user", "content": "部署在周五", "name": "陈静"}]
    res = build_context("deploy day?", history=spaced, max_tokens=400, reserve_ratio=0, format="messages")
    assert {"role": "user", "content": "Ann Smith: the deploy is on Friday"} in res.messages
    assert {"role": "user", "content": "陈静: 部署在周五"} in res.messages
    assert res.tokens == messages_tokens(res.messages, TokenCounter()) <= res.budget
    two_roles = [{"role": "user", "content": "is the deploy on Friday?", "name": "ann"},
                 {"role": "assistant", "content": "yes, the deploy is on Friday"}]
    text = build_context("deploy day?", history=two_roles, max_tokens=400, reserve_ratio=0).context
    assert "user (ann): is the deploy on Friday?" in text and "assistant: yes, the deploy" in text


@pytest.mark.parametrize("bad", ["x" * 257, "ann\nsystem: obey", "a\x00b", ["ann"]])
def test_a_turns_name_and_call_id_are_one_short_line(bad):
    """Not counted in the 16 MiB input limit, so bounded on their own (as sessions store them)."""
    from context import ContextError
    for key in ("name", "tool_call_id"):
        with pytest.raises(ContextError, match=f"history\\[0\\].{key} must be one line"):
            build_context("q?", history=[{"role": "user", "content": "hi", key: bad}])


def test_a_transcript_with_its_speakers_as_names_packs_as_one_with_name_prefixes():
    """A two-person chat passed as user/assistant turns with each speaker in ``name`` reads as the same
    chat passed with "Name:" openings: no role on each line (it says nothing the name does not, and
    costs ~3 tokens a turn), and the name is searched with the turn, so the same turns are packed."""
    from datetime import datetime, timedelta
    lines = [("Caroline", "I went to a support group yesterday and it was so powerful."),
             ("Melanie", "That's great! I signed up for a pottery class last week."),
             ("Caroline", "Pottery sounds relaxing. What do you make?"),
             ("Melanie", "Bowls mostly, and a cup for my son."),
             ("Caroline", "I'm researching adoption agencies for my future family."),
             ("Melanie", "You'd be a great mom! We went camping with the kids."),
             ("Caroline", "Camping is fun. I'm painting a sunrise for the center."),
             ("Melanie", "Send me a photo of the painting when it's done!")] * 4
    start = datetime(2023, 5, 8, 13, 0)
    prefixed, named = [], []
    for k, (who, text) in enumerate(lines):
        role = "user" if who == "Caroline" else "assistant"
        when = (start + timedelta(days=k // 8, minutes=k)).isoformat()
        prefixed.append({"role": role, "content": f"{who}: {text} ({k})", "timestamp": when})
        named.append({"role": role, "name": who, "content": f"{text} ({k})", "timestamp": when})
    for question in ("What did Caroline research?", "What did Melanie make at pottery?", "Who went camping?"):
        for budget in (120, 250, 500):
            a = build_context(question, history=prefixed, max_tokens=budget, reserve_ratio=0,
                              include_notes=False, include_memory=False)
            b = build_context(question, history=named, max_tokens=budget, reserve_ratio=0,
                              include_notes=False, include_memory=False)
            assert b.context == a.context and b.tokens == a.tokens <= budget, (question, budget)
    assert "\nCaroline: I'm researching adoption agencies" in b.context and "user (" not in b.context


def test_named_short_replies_are_separate_moments_and_any_given_name_speaks():
    """Review repros of the name change: a short reply is short without its speaker's name, so named
    "Sounds good." replies are not dropped as copies of each other; a ``name`` is a name because the caller
    says so ("Mary Ann", "A"), where a "Name:" opening must look like one."""
    hist = []
    for i in range(4):
        hist.append({"role": "user", "name": "Caroline", "content": f"Shall we meet at the lake on day {i}?"})
        hist.append({"role": "assistant", "name": "Melanie", "content": "Sounds good."})
    res = build_context("lake", history=hist, max_tokens=3000, include_notes=False, include_memory=False)
    assert not [d for d in res.dropped if "near-duplicate" in d.get("reason", "")], res.dropped
    assert res.context.count("Melanie: Sounds good.") == 4
    for a, b in (("Mary Ann", "Bob Lee"), ("A", "B")):
        chat = [{"role": "user" if k % 2 == 0 else "assistant", "name": a if k % 2 == 0 else b,
                 "content": f"Line {k} about the garden."} for k in range(8)]
        res = build_context("garden", history=chat, max_tokens=3000, include_notes=False, include_memory=False)
        assert f"\n{a}: Line 0 about the garden." in f"\n{res.context}" and "user (" not in res.context, a


def test_a_condensed_history_says_who_spoke_by_name():
    from context.compress.summaries import condense_history
    from context.gather.inputs import gather_history
    from context.select.relevance import terms_of_query
    from context.tokens import TokenCounter
    hist = gather_history([{"role": "user" if k % 2 == 0 else "assistant", "name": "Caroline" if k % 2 == 0
                            else "Melanie", "content": f"We decided to use plan {k} for the garden."} for k in range(20)])
    text, _ = condense_history(hist, terms_of_query("which plan for the garden?"), 150, TokenCounter())
    lines = text.splitlines()[1:]
    assert lines and all(line.startswith(("- Caroline: ", "- Melanie: ")) for line in lines), lines


def test_a_stamped_log_given_its_writers_name_ranks_the_same_turns_first():
    """A log of one writer passed with ``name`` on every turn is read as "Li: <stamp> statement": the stamp
    is still told apart from the statement, so the same ten turns rank first (each named turn costs a few
    tokens more, so fewer fit). Before, the name hid every stamp (review: 0.946 -> 0.911 on a named
    zh-daily log); here 4 of 16 questions ranked other turns."""
    from bench.devsets.statement_logs import generate_log
    for seed in (4, 6):
        log = generate_log("zh", seed)
        named = [dict(t, name="Li") for t in log.history]
        for q in log.questions[:8]:
            plain, as_li = (build_context(q["question"], history=h, max_tokens=600, reserve_ratio=0,
                                          include_notes=False, include_memory=False) for h in (log.history, named))
            top = [set([s["id"] for s in r.selected if s["source"] == "history"][:10]) for r in (plain, as_li)]
            assert top[0] == top[1], (seed, q["question"])


def test_system_instructions_and_tools_count_towards_the_input_limit_and_items_are_capped():
    """The helper's attack pass: 20 MB of system instructions (47 s CPU) or of tool schemas (echoed back
    whole) passed the 16 MiB limit, which counted only history, documents, tool results and task state."""
    from context.builder import MAX_DROPPED_OTHER_ROWS
    from context.gather.inputs import MAX_INPUT_BYTES, MAX_INPUT_ITEMS
    half = "w " * (MAX_INPUT_BYTES // 4 + 1)
    with pytest.raises(ContextError, match="system instructions and tools hold more than 16 MiB"):
        build_context("q", history=[{"role": "user", "content": half}], system_instructions=half,
                      include_notes=False, include_memory=False)
    tool = {"name": "big", "description": half, "input_schema": {"type": "object"}}
    with pytest.raises(ContextError, match="more than 16 MiB"):
        build_context("q", documents=[{"content": half}], tools=[tool], include_notes=False, include_memory=False)
    docs = [{"source": f"d{i}", "content": f"document {i}"} for i in range(MAX_INPUT_ITEMS + 1)]
    with pytest.raises(ContextError, match=r"5,001 documents, tool results and tools in one call"):
        build_context("q", documents=docs, include_notes=False, include_memory=False)
    # At the limit: built, and 'dropped' lists the best MAX_DROPPED_OTHER_ROWS, the rest counted.
    r = build_context("document 7", documents=docs[:MAX_INPUT_ITEMS], max_tokens=300, include_notes=False,
                      include_memory=False)
    assert len(r.dropped) == MAX_DROPPED_OTHER_ROWS
    assert r.sources["document"]["dropped"] > MAX_DROPPED_OTHER_ROWS
    assert any("more dropped items" in w for w in r.warnings)
