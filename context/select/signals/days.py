"""A day's turns read as one document, in conversations of several speakers.

The answer often shares no word with the question ("What name did the garden group choose?" / "we voted
to call ourselves the Kelso Patch") but sits in the day's talk that does (the garden meeting). BM25 over
each day's turns taken together scores the days; every turn of a day gains up to SESSION_WEIGHT times the
best turn's relevance, by its day's share of a full score, so among the turns the question's words do not
reach, those of the days that speak of it come first. Kept small: a whole day must not outweigh a turn
that holds the question's words, and at 1k a day's ~20 turns would cost the budget twice over.

A day is the date its header shows (the turns' timestamps), so sessions interleaved by time are read
apart again. Not in logs of one voice: there a day holds forty unrelated threads.
"""

from __future__ import annotations

from collections.abc import Sequence

from notes_store.analysis.bm25 import idf as bm25_idf, tf_part

from ..relevance import scorer_for, weighted_query_terms

# Dev 1k / 2k / 4k against no day lift: conv26 0.882 / 0.917 / 0.946 -> 0.886 / 0.921 / 0.944,
# conv26-interleaved 0.771 / 0.829 / 0.907 -> 0.774 / 0.841 / 0.921, en-longchat 0.788 / 0.818 / 0.870 ->
# 0.788 / 0.819 / 0.872, en-reunion 0.759 / 0.828 / 0.875 -> 0.759 / 0.828 / 0.877, en-written level
# (0.832 / 0.883 / 0.922). 0.1 the same on the mean but en-written 1k 0.822; a share of the best day's
# score instead of a full one (0.025) the same on the mean, and it lifted days that held only words every
# day holds.
SESSION_WEIGHT = 0.05
MIN_SESSIONS = 3      # fewer days than this tell nothing apart
# A query term held by more than this share of the days tells them no more apart than "today" does
# (0.75 and 1.0: conv26-interleaved 2k 0.834 instead of 0.841; without it, en-reunion 1k 0.755, and a
# question every day speaks of reordered all the days' turns by the lengths of the days).
MAX_DAY_SHARE = 0.5


def lift_by_session(query: str, rels: list[float], texts: Sequence[str], groups: Sequence[str],
                    history: int) -> None:
    """In place: each of the first ``history`` turns (``groups[i]``: the day turn i belongs to, '' for
    none) gains SESSION_WEIGHT times the best turn's relevance times its day's BM25 score over a full one
    (at most 1): what a day of average length holding each of the question's day-telling terms once
    would score were it the only day holding them."""
    if not SESSION_WEIGHT or history < 20:
        return
    day_of: dict[str, int] = {}
    ids = [day_of.setdefault(g, len(day_of)) if g else -1 for g in groups[:history]]
    n_days = len(day_of)
    best_turn = max(rels[:history], default=0.0)
    if n_days < MIN_SESSIONS or best_turn <= 0:
        return
    scorer = scorer_for(texts, history)
    lengths = [0] * n_days
    for d, n in zip(ids, scorer.lengths):
        if d >= 0:
            lengths[d] += n
    avg = sum(lengths) / n_days
    scores = [0.0] * n_days
    telling = 0.0   # the weight of the query's terms that tell days apart
    for term, weight in weighted_query_terms(query).items():
        tf = [0] * n_days
        for i, count in scorer.postings(term):
            if i < history and ids[i] >= 0:
                tf[ids[i]] += count
        held = sum(1 for x in tf if x)
        if not held or held > MAX_DAY_SHARE * n_days:
            continue   # a term most days hold tells them no more apart than "today" does
        telling += weight
        idf = weight * bm25_idf(n_days, held)
        for d, x in enumerate(tf):
            if x:
                scores[d] += idf * tf_part(x, lengths[d], avg)
    if not telling:
        return
    full = telling * bm25_idf(n_days, 1) * tf_part(1, avg, avg)
    most = SESSION_WEIGHT * best_turn
    for i, d in enumerate(ids):
        if d >= 0 and scores[d]:
            rels[i] += most * min(1.0, scores[d] / full)
