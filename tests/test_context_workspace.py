"""build_context over a real workspace: notes and memories become tagged evidence."""

from __future__ import annotations

from context import build_context
from context.gather.workspace import WorkspaceEvidence


def test_workspace_notes_and_memories_appear_as_evidence(ws):
    blocker = ws.notes.create("Backfill blocked", "The backfill hits the API rate limit at 2k rows/minute.",
                              note_type="blocker")
    ws.notes.create("Lunch", "Pizza on Friday.")
    memory = ws.memory.add("The infra team raises API rate limit quotas within a day", memory_type="semantic",
                           importance=0.9)
    result = build_context("why is the backfill hitting the rate limit?", max_tokens=800,
                           evidence=WorkspaceEvidence(ws)).to_dict()
    text = result["context"]
    assert f"[note {blocker.id} | blocker | relevance" in text
    assert memory.id in text and "quotas within a day" in text
    assert "Pizza" not in text
    selected = {(s["source"], s["id"]) for s in result["selected"]}
    assert ("note", blocker.id) in selected and ("memory", memory.id) in selected
    assert result["tokens"] <= int(800 * 0.8)
    # building a context is not a recall: the memory's access count is unchanged
    assert ws.memory.read(memory.id).access_count == 0


def test_relevant_notes_that_do_not_fit_are_listed_with_their_uri(ws):
    ids = [ws.notes.create(f"Rate limit finding {i}", "rate limit details " + "word " * 300).id for i in range(6)]
    result = build_context("rate limit", max_tokens=400, reserve_ratio=0.0, evidence=WorkspaceEvidence(ws)).to_dict()
    dropped = {d["id"]: d for d in result["dropped"] if d["source"] == "note"}
    assert dropped, "six long notes cannot all fit in 400 tokens"
    for note_id, item in dropped.items():
        assert note_id in ids and item["uri"] == f"note://{note_id}"
