"""A second hop along a storyline, in conversations of several speakers.

"What do we know about Mateo's kitty?": the question's words find the turn that starts the story
("We named her Rocket. She's a little tabby"); its later beats ("I spent all weekend teaching Rocket
to play dead") share no word with the question, only the story's own rare words. The turns the
question's terms rank first are anchors; the rare content words an anchor holds beyond the question
(held by a few turns of the history, not a speaker's name) lend the same speaker's other turns that
hold them a share of the anchor's relevance, the rarer the word the larger the share.

Logs of one voice have their own hop (context.select.signals.hop): there a turn names a person, not a story.
"""

from __future__ import annotations

from collections.abc import Sequence

from notes_store.analysis.analyzer import index_terms, is_content_term, query_terms
from notes_store.analysis.bm25 import idf as bm25_idf

from ..relevance import scorer_for, terms_of

# The share of an anchor's relevance that a turn holding one of its rarest words (held by 2 turns)
# gains; a commoner word lends in proportion to its IDF. Dev sets, 1k / 2k: conv26 0.852 / 0.912 ->
# 0.881 / 0.917, conv26-interleaved 0.734 / 0.804 -> 0.764 / 0.839, en-longchat 0.773 / 0.807 ->
# 0.779 / 0.816, en-dialogue 0.852 / 0.895 -> 0.844 / 0.889. 0.2 and 0.5 lower on the mean.
STORY_WEIGHT = 0.3
ANCHORS = 3             # the top turns that act as anchors (1: conv26 2k 0.897; 5: level with 3)
ANCHOR_SHARE = 0.5      # an anchor has at least this share of the top turn's relevance
MAX_LINK_SHARE = 0.02   # a story's word is held by at most this share of the turns (0.04 lost on 3 of 4 sets)


def storyline_hop(query: str, rels: list[float], texts: Sequence[str], history: int,
                  speakers: Sequence[str], names: Sequence[str] = ()) -> None:
    """In place: each of the first ``history`` turns (``speakers[i]`` said turn i: any key that tells
    speakers apart) that shares a rare word with an anchor by the same speaker gains up to
    STORY_WEIGHT times the anchor's relevance. ``names``: the speakers' names, which link nothing."""
    if history < 20 or not STORY_WEIGHT:
        return
    head = rels[:history]
    top = max(head, default=0.0)
    if top <= 0:
        return
    anchors = [a for a in sorted(range(history), key=head.__getitem__, reverse=True)[:ANCHORS]
               if head[a] >= ANCHOR_SHARE * top]
    scorer = scorer_for(texts, history)
    most = max(2, int(MAX_LINK_SHARE * scorer.n))
    rarest = bm25_idf(scorer.n, 2)
    qterms = set(query_terms(query)) | set(index_terms(query))
    name_terms = {t for s in set(names) if s for t in terms_of(s)}
    gains: dict[int, float] = {}
    for a in anchors:
        for t in set(terms_of(texts[a])):
            if t in qterms or t in name_terms or t.isdigit() or not is_content_term(t):
                continue
            if not 2 <= scorer.df(t) <= most:
                continue
            gain = STORY_WEIGHT * head[a] * scorer.idf(t) / rarest
            for d, _tf in scorer.postings(t):
                if d < history and d != a and speakers[d] == speakers[a] and gain > gains.get(d, 0.0):
                    gains[d] = gain
    for d, g in gains.items():
        rels[d] += g
