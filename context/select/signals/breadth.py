"""Breadth for counting questions: every turn that states the asked attribute, not the best few.

"有几个活动是在浙江杭州举办的？" / "How many events are held in San Diego?" is answered by counting the turns that
state an event's place; they state it in a few ways ("They picked Nashville for the trade show.", "The class
reunion is happening in Chicago.", "同学聚会最后选在了四川成都。"), and the question's words find the ones that
name its place, or say it its way, only.

From the text alone: the clause's best turns (at most ANCHORS, each within ANCHOR_SHARE of the best) state
the attribute; the words two or more of them share beyond the question's ("picked", "happening", "选在", "地点")
are how the log states it: each turn holding such a word (held by at most FRAME_SHARE of the turns) is lent
BREADTH_WEIGHT of the anchors' relevance times the share of those words it holds, combined as a noisy-or.
Only for a clause that counts (query.Clause.counting).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from notes_store.analysis.analyzer import index_terms, is_cjk, is_content_term, query_terms

from ..query import Clause
from ..relevance import scorer_for

ANCHORS = 6
ANCHOR_SHARE = 0.5
FRAME_SHARE = 0.1
BREADTH_WEIGHT = 0.6
MAX_FRAME_TERMS = 8
MIN_HISTORY = 20


def breadth(clause: Clause, rels: list[float], texts: Sequence[str], history: int) -> None:
    """Lend the turns that state what the clause counts, the way its best turns state it (in place)."""
    if not clause.counting or history < MIN_HISTORY:
        return
    head = rels[:history]
    top = max(head, default=0.0)
    if top <= 0:
        return
    anchors = sorted((i for i in range(history) if head[i] >= ANCHOR_SHARE * top), key=lambda i: -head[i])[:ANCHORS]
    if len(anchors) < 2:
        return
    scorer = scorer_for(texts, history)
    qterms = set(query_terms(clause.text)) | set(index_terms(clause.text))
    qchars = {c for c in clause.text if is_cjk(c)}
    shared: Counter[str] = Counter()
    for a in anchors:
        shared.update(t for t in scorer._tf(a) if t not in qterms and is_content_term(t)
                      and not (is_cjk(t) and (len(t) < 2 or not qchars.isdisjoint(t))))
    most = max(3, int(FRAME_SHARE * scorer.n))
    frame = [t for t, c in shared.most_common() if c >= 2 and 2 <= scorer.df(t) <= most][:MAX_FRAME_TERMS]
    if not frame:
        return
    weight = {t: shared[t] / len(anchors) for t in frame}
    total = sum(weight.values())
    lent: dict[int, float] = {}
    for t, w in weight.items():
        for d, _tf in scorer.postings(t):
            if d < history:
                lent[d] = lent.get(d, 0.0) + w / total
    anchor_rel = sum(head[a] for a in anchors) / len(anchors)
    for d, share in lent.items():
        gain = BREADTH_WEIGHT * anchor_rel * min(1.0, share * 2)
        rels[d] = 1.0 - (1.0 - min(1.0, rels[d])) * (1.0 - gain)
