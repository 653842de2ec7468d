"""Possessives and contractions in a search: "Alice's plan" asks for alice and plan, not for an "s" in every
note. Before, tokens split at the apostrophe made "s" a word the all-words match required, so a note "Plan for
Alice" was found only by the any-word fallback, after the notes with every word. Real files, a real Whoosh index."""

from __future__ import annotations

from pathlib import Path

import pytest

from notes_store import open_workspace
from notes_store.analysis.analyzer import without_clitics


@pytest.mark.parametrize(("query", "expected"), [
    ("Alice's plan", "Alice plan"),
    ("what's Bob\u2019s PR", "what Bob PR"),
    ("don't deploy, we'll wait", "don deploy, we wait"),
    ('"Alice\'s plan" budget', '"Alice\'s plan" budget'),  # a quoted phrase is kept word for word
    ("O'Brien's notes", "O'Brien notes"),
    ("'s", "'s"),  # nothing else to search for: left as it is
])
def test_clitics_leave_the_query_outside_quoted_phrases(query: str, expected: str) -> None:
    assert without_clitics(query) == expected


def test_a_possessive_finds_every_word_match(tmp_path: Path) -> None:
    ws = open_workspace(tmp_path / "w")
    try:
        plan = ws.notes.create("Plan for Alice", "the migration plan we agreed on").id
        ws.notes.create("Other", "Bob's unrelated musings about a plan")
        quoted = ws.notes.create("Quoted", "Alice's plan, word for word").id
        found = ws.notes.search("Alice's plan")
        assert found.total_all_words == 2
        assert {h.note.id for h in found.hits[:2]} == {plan, quoted}
        phrase = ws.notes.search('"Alice\'s plan"')
        assert phrase.total_all_words == 1 and phrase.hits[0].note.id == quoted
        ws.flush()  # the committed index answers the same
        found = ws.notes.search("Alice\u2019s plan")
        assert found.total_all_words == 2 and {h.note.id for h in found.hits[:2]} == {plan, quoted}
        fact = ws.memory.add("Alice prefers the blue plan", memory_type="semantic").id
        ws.memory.add("Bob's plan is another", memory_type="semantic")
        mem = ws.memory.search("Alice's plan", touch=False)
        assert mem.matched == "all" and [h.memory.id for h in mem.hits] == [fact]
    finally:
        ws.close()
