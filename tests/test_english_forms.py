"""Irregular English verb forms meet their base form: in the index, in notes search and in build_context."""

from __future__ import annotations

from context import build_context
from notes_store.analysis.analyzer import query_terms, stem_word
from notes_store.analysis.english_forms import BASE_FORM


def test_irregular_forms_stem_as_their_base():
    for form, base in (("gave", "give"), ("given", "give"), ("went", "go"), ("gone", "go"), ("bought", "buy"),
                       ("wrote", "write"), ("written", "writing"), ("met", "meeting"), ("took", "take")):
        assert stem_word(form) == stem_word(base), (form, base)
    # Left out on purpose: as often another word.
    for other in ("left", "found", "saw", "rose", "felt"):
        assert other not in BASE_FORM
    assert stem_word("left") != stem_word("leave")


def test_every_form_is_lower_case_and_not_its_own_base():
    assert all(f.islower() and b.islower() and f != b for f, b in BASE_FORM.items())
    assert not set(BASE_FORM) & set(BASE_FORM.values())  # no chains: one lookup reaches the base


def test_notes_search_finds_the_past_tense(ws):
    ws.notes.create("Trip", "Yesterday she bought a kayak and went to the lake.")
    ws.notes.create("Other", "A note about buyers and going concerns.")
    hits = ws.notes.search("buy kayak")
    assert hits.total_all_words == 1 and hits.hits[0].note.title == "Trip"


def test_build_context_finds_the_turn_in_the_past_tense():
    history = [{"role": "user" if i % 2 else "assistant", "content": f"{'Tom' if i % 2 else 'Priya'}: "
                f"Chatting about the garden, day {i}, grandmother said hello."} for i in range(60)]
    history[30] = {"role": "assistant", "content": "Priya: On my last day she gave me two gold bangles."}
    assert query_terms("give")[0] in query_terms("she gave")
    res = build_context("What did Priya's grandmother give her?", history=history, max_tokens=200,
                        reserve_ratio=0, include_notes=False, include_memory=False)
    assert "gold bangles" in (res.context or "")
