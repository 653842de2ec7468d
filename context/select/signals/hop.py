"""A second hop from a clear anchor turn to the same entity's other turns, in logs of one voice.

"What car does my friend who keeps a corgi drive?": one turn holds the question's words ("My
friend Lola has a corgi.") and names the person; the answer ("Lola drives a Polo.") shares no word
with the question, only the name. When the question's terms point at one turn clearly, the names
that turn holds beyond the question's words (a capitalised word inside an English sentence; a CJK
bigram that touches none of the question's characters) and that recur in a few other turns lend
those turns a share of the anchor's relevance.

Only in a log of one voice: in a dialogue a turn's capitalised words are as often the other
speaker's name, a place of a story or a title, and the hop picked the wrong link there (dev sets).
"""

from __future__ import annotations

from collections.abc import Sequence

from notes_store.analysis.analyzer import index_terms, is_cjk, query_terms, stem_word

from ..relevance import scorer_for
from .stamps import body_of
from .stretches import CAPITALISED

# The share of the anchor's relevance a turn holding one of its names gains.
HOP_WEIGHT = 0.2
# A clear anchor: the next best turn has at most this share of the anchor's relevance. 0.8: level or
# better than no hop on every dev log at 1k/2k/4k; 1.0 (any anchor) and 0.7 each lost a question or two.
ANCHOR_MARGIN = 0.8
# A linking name is held by the anchor and at least one other turn, and by at most this share of the turns.
MAX_LINK_SHARE = 0.05


def link_terms(anchor_text: str, query: str) -> list[str]:
    """Terms of the anchor that may name an entity the question does not: stems of capitalised words
    that do not open a sentence, and CJK bigrams sharing no character with the question."""
    body = body_of(anchor_text).strip()
    qterms = set(query_terms(query)) | set(index_terms(query))
    qchars = {c for c in query if is_cjk(c)}
    out: list[str] = []
    for w in CAPITALISED.findall(body):
        st = stem_word(w.lower())
        if st not in qterms:
            out.append(st)
    for t in index_terms(body):
        if len(t) == 2 and is_cjk(t[0]) and is_cjk(t[1]) and t not in qterms and qchars.isdisjoint(t):
            out.append(t)
    return list(dict.fromkeys(out))


def second_hop(query: str, rels: list[float], texts: Sequence[str], history: int) -> None:
    """Add HOP_WEIGHT times the anchor's relevance to the other history turns (the first ``history``
    of ``texts``) holding one of its names (in place; see the module's docstring)."""
    if history < 20 or not HOP_WEIGHT:
        return
    head = rels[:history]
    anchor = max(range(history), key=head.__getitem__)
    top = head[anchor]
    if top <= 0:
        return
    if ANCHOR_MARGIN < 1.0 and sorted(head)[-2] > ANCHOR_MARGIN * top:
        return
    scorer = scorer_for(texts, history)
    most = max(2, int(MAX_LINK_SHARE * scorer.n))
    gain = HOP_WEIGHT * top
    boosted: set[int] = set()
    for t in link_terms(texts[anchor], query):
        df = scorer.df(t)
        if not 2 <= df <= most:
            continue
        for d, _tf in scorer.postings(t):
            if d < history and d != anchor and d not in boosted:
                boosted.add(d)
                rels[d] += gain
