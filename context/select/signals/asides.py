"""Words of a question that only set the scene around it.

"我在地铁上刷短视频，看到一个挺有意思的，想起来建国哪天过生日？这个我之前肯定说过。" / "My partner just asked,
which phone does my coworker Andre use? I can't quite remember.": what is asked is the clause that ends
with the question mark; what comes after the mark, and the clauses before it, are the asker's aside.
Their words ("地铁", "短视频", "partner") match the history's own chatter as well as any fact, and in a
question of many words they outvote the two that matter. They count ASIDE_WEIGHT as much.

From the text alone: the asking clause runs from the last clause mark before a "?" / "？" to it (of
several, the one with most content words); the words after it are an aside; the clauses before it are
one only when the asking clause has two content words of its own, does not refer back to the lead with
a pronoun ("As for Andre, which phone does he use?"), and the lead neither asks (a question word: "Who went to Japan, and what stood
out?") nor joins two things ("Between my barber and Felix, who is taller?", "我邻居吕薇和我同事姚远，哪个
年纪小一些？" name their people before the clause that asks).
"""

from __future__ import annotations

import re

from notes_store.analysis.analyzer import index_terms, is_cjk, query_terms

from .cues import ASKS
from .stretches import JOINING_WORDS
from .links import REFERS_BACK
from ..relevance import terms_of_query

ASIDE_WEIGHT = 0.4

_MARK = re.compile(r"[?？]")
# "." is left out: "St. Louis", "Dr. Chen" (an English aside ends with a comma or another "?").
_CLAUSE_MARK = re.compile(r"[,，;；:：。!！]")
# The words that join a comparison's two people (context.select.signals.stretches), and "between" / "vs" that open one.
_JOINS = re.compile("|".join(sorted(re.escape(w) if is_cjk(w) else rf"\b{w}\b"
                                    for w in (*JOINING_WORDS, "between", "vs", "versus"))), re.IGNORECASE)

def aside_terms(query: str) -> dict[str, float]:
    """Query terms found only in the question's aside, each with ASIDE_WEIGHT ({} when it has none)."""
    clauses = _asking_clauses(query)
    if not clauses:
        return {}
    # Of several questions ("Quick question? Which phone does Andre use?", "…哪款车？对吧？") the one that
    # says most is the one asked.
    start, end = max(clauses, key=lambda c: (len(terms_of_query(query[c[0]:c[1]])), -c[0]))
    asking, lead, tail = query[start:end], query[:start], query[end + 1:]
    aside = tail
    # A lead that asks too ("How did the training go, from the injury to race day?", "Who went, and what
    # stood out?") is part of the question, not an aside.
    if (lead and len(terms_of_query(asking)) >= 2 and not _JOINS.search(lead) and not ASKS.search(lead)
            and not REFERS_BACK.search(asking)):  # "As for my coworker Andre, which phone does he use?"
        aside = lead + "\n" + tail
    if not aside.strip():
        return {}
    kept = set(query_terms(asking)) | set(index_terms(asking))
    return {t: ASIDE_WEIGHT for t in set(query_terms(aside)) | set(index_terms(aside)) if t not in kept}


def _asking_clauses(query: str) -> list[tuple[int, int]]:
    """(start, end) of each clause that a question mark ends: from the last clause mark before the mark."""
    out: list[tuple[int, int]] = []
    begin = 0
    for mark in _MARK.finditer(query):
        cuts = [m.end() for m in _CLAUSE_MARK.finditer(query, begin, mark.start())]
        out.append((cuts[-1] if cuts else begin, mark.start()))
        begin = mark.end()
    return out
