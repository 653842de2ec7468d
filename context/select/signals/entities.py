"""The two entities a comparison names, each with its own fact turn lifted to the top.

"我大学同学陈静和我表哥谁岁数大？" / "Who is older, my friend Ben or my friend Marcus?": one person's long
phrase ("我大学同学陈静" is a run of the question's words) lifts that person's chatty turns above the
other person's fact, and within one person the fact turn ("陈静今年38岁了。", "Ben is 41 years old.")
names them by the short form only and loses to the turns that repeat the whole phrase.

From the text alone: the entities are the question's first two stretches (see
context.select.signals.stretches) when only function words stand between them ("X和我Y", "X or my Y"); a
question of one entity, or of words in a row, is left alone. Each entity's turns hold its name (the shortest
tail of its stretch that names it), and the question's words outside both entities are what is asked
("个子高", "older" with its base "old"): each entity's turn holding most of them, for its length, is lifted
to the top relevance.

Only in a log of one voice (see scoring.ENTITY_FACTS_ONE_VOICE): in a dialogue the stretches are as
often a speaker's own words, and the lift cost conv-26 a question at 2k.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..relevance import CJK_EDGE_WEIGHT, COMPARATIVE_WEIGHT, comparative_bases, scorer_for, terms_of, weighted_query_terms
from .stretches import Statements, holds, join_tokens, named_pair, question_tokens, statements

# How many turns of each named entity are lifted (its best by the question's other words).
LIFT_PER_ENTITY = 1


def lift_entity_facts(query: str, rels: list[float], texts: Sequence[str], history: int, *,
                      turns: Statements | None = None) -> list[int]:
    """Raise each named entity's best turn by the question's other words to the top relevance (in
    place over the first ``history`` texts); return the lifted turns. ``turns``: the statements of
    those texts, when the caller read them already."""
    if history < 20 or not LIFT_PER_ENTITY:
        return []
    turns = statements(texts, history, turns)
    bodies = turns.bodies
    toks = question_tokens(query)
    spans = named_pair(toks, turns.spans(query))
    if not spans:
        return []
    members: list[list[int]] = []
    for a, b in spans:
        start = turns.name_tail(query, a, b)
        if start is None:
            return []
        chosen = join_tokens(toks[start:b])
        members.append([i for i, x in enumerate(bodies) if holds(x, chosen)])
    # The question's other words, outside every entity: what is asked of them (edge bigrams left out).
    covered = {k for a, b in spans for k in range(a, b)}
    runs: list[list[str]] = [[]]
    for k, t in enumerate(toks):
        if k in covered:
            runs.append([])
        else:
            runs[-1].append(t)
    rest = "\n".join(join_tokens(r) for r in runs if r)
    weights = {t: w for t, w in weighted_query_terms(rest).items() if w != CJK_EDGE_WEIGHT}
    # A fact states the base of a comparative ("41 years old" for "older"): the base counts in full.
    for base in comparative_bases(query):
        for t in list(weights):
            if t.startswith(base) and t != base:
                weights[t] = COMPARATIVE_WEIGHT
        weights[base] = 1.0
    if not weights:
        return []
    scorer = scorer_for(texts, history)
    idf = {t: w * scorer.idf(t) for t, w in weights.items()}
    # Over the turn's own statement: not its time-and-place prefix, nor the month added for dates.
    # A short statement of the asked words is the fact; a long turn holding them in passing is not.
    lengths = [len(terms_of(x)) for x in bodies]
    avg = sum(lengths) / len(lengths) or 1.0
    other = [sum(idf.get(t, 0.0) for t in set(terms_of(x))) / (0.5 + 0.5 * n / avg)
             for x, n in zip(bodies, lengths)]
    top = max(rels[:history], default=0.0)
    if top <= 0:
        return []
    lifted: list[int] = []
    for group in members:
        ranked = sorted((i for i in group if other[i] > 0), key=lambda i: (-other[i], -rels[i]))
        for k, i in enumerate(ranked[:LIFT_PER_ENTITY]):
            rels[i] = max(rels[i], top * (1.0 - 0.01 * k))
            lifted.append(i)
    return lifted
