"""History tiers (context/tiers.py): recent turns verbatim, the middle condensed, the oldest as a short extract;
only where history does not fit, never a sentence cut, never a token over budget."""

from __future__ import annotations

from typing import Any

import pytest

from context import TokenCounter, build_context
from context.compress.summaries import split_sentences
from context.compress.tiers import EXTRACT_HEADING, MIDDLE_TURNS
from context.select.relevance import terms_of, terms_of_query

COUNTER = TokenCounter()
SUBJECTS = ("the garden shed", "the violin lessons", "the tax forms", "the bike repair", "grandma's recipe",
            "the roof leak", "the chess club", "the camping trip")


def session(n: int) -> list[dict[str, Any]]:
    """A long chat: each turn two or three sentences about one of a few subjects."""
    out = []
    for i in range(n):
        subject = SUBJECTS[(i * 3) % len(SUBJECTS)]
        # Two numbers unique to the turn keep near-duplicate detection out of the way (Jaccard < 0.8).
        text = (f"Turn {i} was about {subject}, code {i * 37 % 1009} room {i * 53 % 997}. "
                f"We decided to look at {subject} again on day {i % 9}. "
                + ("Should we ask Sam about it? " if i % 4 == 0 else "It can wait a little. "))
        out.append({"role": ("user", "assistant")[i % 2], "content": text,
                    "timestamp": f"2026-{1 + (i // 280) % 12:02d}-{1 + (i // 10) % 28:02d}T{8 + i % 10:02d}:00:00Z"})
    return out


def tier_lines(res: Any, pid: str) -> list[str]:
    texts = [c for c in (res.context or "").split("\n\n") if c.startswith("[Context]")]
    assert texts
    rows = [c for c in res.compressed if c["id"] == pid]
    if not rows:
        return []
    block = texts[0].split("\n")
    start = next(i for i, line in enumerate(block) if line.startswith(("Earliest", "Earlier"))
                 and (pid == "earliest-conversation") == line.startswith("Earliest"))
    lines = []
    for line in block[start + 1:]:
        if not line.startswith("- "):
            break
        lines.append(line)
    return lines


def test_a_long_session_has_recent_turns_verbatim_the_middle_condensed_and_the_oldest_extracted() -> None:
    history = session(600)
    query = "Let us talk about the violin lessons and the roof leak"
    res = build_context(query, history=history, max_tokens=2500, query_type="chat")
    assert res.tokens <= res.budget and COUNTER.count(res.context or "") == res.tokens
    # Recent: the newest turns are there whole.
    for turn in history[-4:]:
        assert turn["content"] in (res.context or "")
    tiers = {c["tier"]: c for c in res.compressed if c["source"] == "summary"}
    assert set(tiers) == {"oldest", "middle"}, res.compressed
    assert tiers["oldest"]["method"] == "extract" and tiers["middle"]["method"] == "condensed"
    # The oldest tier comes first (chronological) and says how many turns it stands for.
    context = res.context or ""
    assert context.index("Earliest conversation") < context.index("Earlier conversation")
    qterms = set(terms_of_query(query))
    by_role_sentence = {(t["role"], s) for t in history for s in split_sentences(t["content"])}
    newest_kept = max(int(s["id"].split("-")[1]) for s in res.selected if s["source"] == "history")
    for pid in ("earliest-conversation", "earlier-conversation"):
        lines = tier_lines(res, pid)
        assert lines, pid
        assert len(lines) == len(set(lines)), "a tier repeats a line"
        for line in lines:
            role, sentence = line[2:].split(": ", 1)
            # A whole sentence of some turn, never a piece of one.
            assert (role, sentence) in by_role_sentence, line
            if pid == "earliest-conversation":
                assert qterms & set(terms_of(sentence)), f"extract line without a query term: {line}"
    # Oldest lines come from turns before the middle window only.
    oldest_heading = next(line for line in context.split("\n") if line.startswith("Earliest"))
    assert oldest_heading == EXTRACT_HEADING.format(n=tiers["oldest"]["from_tokens"] and
                                                    int(oldest_heading.split("; ")[1].split(" ")[0]))
    assert int(oldest_heading.split("; ")[1].split(" ")[0]) <= newest_kept - MIDDLE_TURNS


def test_no_tiers_where_the_history_fits() -> None:
    history = session(12)
    res = build_context("the violin lessons", history=history, max_tokens=4000, query_type="chat")
    assert not res.compressed
    dropped = {d["id"] for d in res.dropped}
    assert all(d["reason"].startswith("near-duplicate") for d in res.dropped)
    assert all(t["content"] in (res.context or "") for i, t in enumerate(history) if f"turn-{i}" not in dropped)


@pytest.mark.parametrize("fmt", ["text", "messages"])
@pytest.mark.parametrize("max_tokens", [200, 420, 900, 1600, 3200])
def test_tiers_never_go_over_budget(fmt: str, max_tokens: int) -> None:
    history = session(450)
    for query_type in ("chat", "task", "knowledge"):
        res = build_context("What about the bike repair and grandma's recipe?", history=history,
                            max_tokens=max_tokens, format=fmt, query_type=query_type)
        assert res.tokens <= res.budget
        if fmt == "text":
            assert COUNTER.count(res.context or "") == res.tokens
        for c in res.compressed:
            assert c["to_tokens"] <= res.budget


def _verbatim(res: Any) -> dict[str, int]:
    return {s["id"]: s["tokens"] for s in res.selected if s["source"] == "history"}


@pytest.mark.parametrize("max_tokens", [700, 1800, 3000])
def test_tiers_take_no_room_from_whole_turns(max_tokens: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a reserve (knowledge queries) tiers only use the room whole turns leave: the verbatim turns
    are the same with tiers or without. Chat and task reserve a share for them when history does not fit:
    the whole turns given up fit in that share."""
    import context.builder as builder
    from context.select.profiles import PROFILES
    history = session(500)
    query = "the camping trip and the chess club"
    runs = {}
    for tiers_on in (True, False):
        if not tiers_on:
            monkeypatch.setattr(builder, "history_tiers", lambda *a, **k: [])
        runs[tiers_on] = {qt: build_context(query, history=history, max_tokens=max_tokens, query_type=qt)
                          for qt in ("knowledge", "chat")}
    assert _verbatim(runs[True]["knowledge"]).keys() >= _verbatim(runs[False]["knowledge"]).keys()
    with_tiers, without = _verbatim(runs[True]["chat"]), _verbatim(runs[False]["chat"])
    given_up = sum(t for i, t in without.items() if i not in with_tiers)
    assert given_up <= PROFILES["chat"].condensed_share * runs[True]["chat"].budget
    assert any(c["source"] == "summary" for c in runs[True]["chat"].compressed)
