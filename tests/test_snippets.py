"""Snippet spans: the lower-cased prefix search finds exactly the words the analyzer would match."""

from __future__ import annotations

import random

from notes_store.analysis.analyzer import TOKEN_RE, is_cjk, query_terms, stem_word
from notes_store.index.snippets import SnippetQuery, find_matches, make_snippet

WORDS = ["Running", "RUNS", "run", "prerun", "x_running", "Deploy", "deployment", "DEPLOYED", "İstanbul",
         "ſtop", "stop", "Stopped", "K\u212aelvin", "kelvin", "naïve", "NAÏVE", "Straße", "STRASSE", "ẞig",
         "数据模型", "已完成", "重构", "🚀", "go", "Go-live", "3.14", "σοφία", "ΣΟΦΊΑ", "ΑΣ", "über", "ÜBER"]
QUERIES = ["run", "deploy stop", "istanbul kelvin", "naïve straße", "数据模型 run", "go 🚀", "σοφία", "über alles",
           "stopped deployment running", "ας"]


def reference(text: str, terms: set[str]) -> list[tuple[int, int]]:
    """Every word token whose lower case (or its stem) is a Latin term and whose first three lower-case
    characters are a term's first three, and every occurrence of a CJK term: what ``find_matches`` promises."""
    latin = {t for t in terms if not is_cjk(t)}
    prefixes = {t[:3] for t in latin}
    spans = []
    for m in TOKEN_RE.finditer(text):
        if m.lastgroup == "cjk":
            continue
        before = TOKEN_RE.fullmatch(text[m.start() - 1]) if m.start() else None
        if before is not None and before.group("word") is not None:
            continue  # an emoji right after a letter is not where a word starts
        word = m.group(0).lower()
        if not any(word.startswith(p) for p in prefixes):
            continue
        if word in latin or stem_word(word) in latin:
            spans.append((m.start(), m.end()))
    for term in terms - latin:
        pos = text.find(term)
        while pos != -1:
            spans.append((pos, pos + len(term)))
            pos = text.find(term, pos + 1)
    return sorted(spans)


def test_spans_match_the_word_by_word_reference_on_mixed_case_and_scripts():
    rng = random.Random(16)
    for _ in range(400):
        text = "".join(rng.choice(WORDS) + rng.choice([" ", ", ", "\n", "", "-", "_"]) for _ in range(rng.randrange(1, 40)))
        for q in QUERIES:
            terms = set(query_terms(q))
            assert find_matches(text, terms) == reference(text, terms), (text, q)
            assert find_matches(text, SnippetQuery(terms)) == find_matches(text, terms)
            ignoring_case = SnippetQuery(terms)
            ignoring_case._lowered = False  # the re.IGNORECASE search over the text itself (the former way)
            assert find_matches(text, ignoring_case) == find_matches(text, terms)
            assert make_snippet(text, ignoring_case, width=60) == make_snippet(text, terms, width=60)


def test_text_whose_lower_case_is_longer_is_searched_ignoring_case():
    terms = set(query_terms("stanbul run"))
    text = "İ İstanbul then Running and stanbul"  # "İ".lower() is two characters: offsets would shift
    assert len(text.lower()) != len(text)
    spans = find_matches(text, terms)
    assert [text[s:e] for s, e in spans] == ["Running", "stanbul"]
    assert "**Running**" in make_snippet(text, terms)
