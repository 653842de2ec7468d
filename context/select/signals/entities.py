"""The two entities a comparison names, each with its own fact turn lifted to the top.

"我大学同学陈静和我表哥谁岁数大？" / "Who is older, my friend Ben or my friend Marcus?": one person's long
phrase ("我大学同学陈静" is a run of the question's words) lifts that person's chatty turns above the
other person's fact, and within one person the fact turn ("陈静今年38岁了。", "Ben is 41 years old.")
names them by the short form only and loses to the turns that repeat the whole phrase.

From the text alone:
- a stretch is a part of the question the history holds word for word: it grows while the last three
  tokens (words, or CJK characters) occur at least MIN_HOLDERS times in the turns, and stops at
  punctuation and at stop words ("and", "or"); function words at its ends are cut ("我", "my");
- the entities are the question's first two stretches when only function words stand between them
  ("X和我Y", "X or my Y"); a question of one entity, or of words in a row, is left alone;
- an entity's turns hold its shortest tail that is a name, or that is not much more common than the
  whole stretch ("陈静", "嫂子的男朋友", "Ben");
- the question's words outside both entities are what is asked ("个子高", "older" with its base
  "old"): each entity's turn holding most of them, for its length, is lifted to the top relevance.
Only in a log of one voice (see select.ENTITY_FACTS_ONE_VOICE): in a dialogue the stretches are as
often a speaker's own words, and the lift cost conv-26 a question at 2k.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from notes_store.analysis.analyzer import _CJK_FUNCTION_CHARS, STOP_WORDS, is_cjk

from .hop import _CAPITALISED
from ..relevance import CJK_EDGE_WEIGHT, COMPARATIVE_WEIGHT, comparative_bases, scorer_for, terms_of, weighted_query_terms
from .stamps import body_of
from ...stopping import checked

# How many turns of each named entity are lifted (its best by the question's other words).
LIFT_PER_ENTITY = 1
# A tail names the entity when at most this many times as many turns hold it as hold the whole stretch,
TAIL_RATIO = 2.0
# ... or when at most this share of the turns hold it (a name said alone in many turns).
TAIL_SHARE = 0.03
# A stretch grows by a token only where the last three occur at least this many times in the history.
MIN_HOLDERS = 3

_TOKEN = re.compile(r"[a-z0-9]+(?:['’-][a-z0-9]+)*|[\u3400-\u9fff]|[^\sa-z0-9\u3400-\u9fff]")


# The question's words these signals read: each span costs a pass over the history, so a long query
# (a pasted page) must not cost a pass per word. A question names its people within its first words.
MAX_QUESTION_TOKENS = 40


def _tokens(text: str) -> list[str]:
    """The question's first MAX_QUESTION_TOKENS tokens (words, CJK characters, punctuation)."""
    out: list[str] = []
    for m in _TOKEN.finditer(text.lower()):
        if len(out) >= MAX_QUESTION_TOKENS:
            break
        out.append(m.group(0))
    return out


def _join(tokens: Sequence[str]) -> str:
    out = ""
    for t in tokens:
        if out and not (is_cjk(t[0]) and is_cjk(out[-1])):
            out += " "
        out += t
    return out


def _holds(body: str, phrase: str) -> bool:
    if phrase in body:
        if phrase[0].isascii() or phrase[-1].isascii():
            return re.search(rf"(?<![a-z0-9]){re.escape(phrase)}(?![a-z0-9])", body) is not None
        return True
    return False


def entity_spans(query: str, bodies: Sequence[str]) -> list[tuple[int, int]]:
    """Token spans [a, b) of the question that the history holds word for word (see the module)."""
    toks = _tokens(query)
    names = _names(query)
    joined = "\n".join(bodies)
    spans: list[tuple[int, int]] = []
    k = 0
    while k < len(toks):
        end = k + 1
        while end < len(toks) and not _breaks(toks[end - 1]):
            lo = max(k, end - 2)
            if _breaks(toks[end]) or joined.count(_join(toks[lo:end + 1])) < MIN_HOLDERS:
                break
            end += 1
        a, b = k, end
        while a < b and _function(toks[a]):
            a += 1
        while b > a and _function(toks[b - 1]):
            b -= 1
        single = b - a == 1 and (toks[a] in names or (a > 0 and toks[a - 1] in _POSSESSIVES))
        if b - a >= 2 or single:
            spans.append((a, b))
        k = end
    return spans


def _named_pair(toks: Sequence[str], spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The question's first two stretches when only function words stand between them ("X和我Y", "X or
    my Y"): the two entities compared; any stretch after them is what is asked ("个子")."""
    if len(spans) < 2:
        return []
    (a1, b1), (a2, b2) = spans[:2]
    gap = toks[b1:a2]
    # A joining word between them: "堂弟有什么爱好" is one person and what is asked, not two people.
    joined = gap and all(_function(t) for t in gap) and JOINING_WORDS.intersection(gap)
    return [(a1, b1), (a2, b2)] if joined else []


# Words that join the two people of a comparison ("X和我Y", "X or my Y").
JOINING_WORDS = frozenset(("和", "与", "跟", "及", "and", "or"))


# Possessives join a relation word to the speaker (like 我 among the CJK function characters).
_POSSESSIVES = frozenset(("my", "our", "his", "her", "their", "its"))


def _names(query: str) -> set[str]:
    """Capitalised words inside the question's sentences, lowercased: names."""
    return {w.lower() for w in _CAPITALISED.findall(query)}


def _breaks(token: str) -> bool:
    """Punctuation, and an English word of the stop list other than a possessive ("and", "or"): two
    entities meet there."""
    return not (token[0].isalnum() or is_cjk(token[0])) or token in STOP_WORDS


# 跟 joins two people as 和 and 与 do (the analyzer's function characters lack it).
_CONNECTORS = frozenset("跟")


def _function(token: str) -> bool:
    return token in _CJK_FUNCTION_CHARS or token in STOP_WORDS or token in _POSSESSIVES or token in _CONNECTORS


def name_tail(toks: Sequence[str], a: int, b: int, bodies: Sequence[str], names: set[str]) -> int | None:
    """Where the shortest tail of the stretch toks[a:b] that names its entity starts: a name, or a tail
    held by at most TAIL_RATIO times as many turns as the whole stretch (or by TAIL_SHARE of the turns);
    ``a`` when no shorter tail does; None when no turn holds the stretch."""
    whole = _join(toks[a:b])
    n_whole = sum(1 for x in checked(bodies) if _holds(x, whole))
    if not n_whole:
        return None
    for start in range(b - 1, a, -1):
        tail = _join(toks[start:b])
        if len(tail) < 2:
            continue
        if tail in names or \
                sum(1 for x in bodies if _holds(x, tail)) <= max(TAIL_RATIO * n_whole, TAIL_SHARE * len(bodies)):
            return start
    return a


def lift_entity_facts(query: str, rels: list[float], texts: Sequence[str], history: int) -> list[int]:
    """Raise each named entity's best turn by the question's other words to the top relevance (in
    place over the first ``history`` texts); return the lifted turns."""
    if history < 20 or not LIFT_PER_ENTITY:
        return []
    bodies = [body_of(t).lower() for t in texts[:history]]
    toks = _tokens(query)
    spans = entity_spans(query, bodies)
    names = _names(query)
    spans = _named_pair(toks, spans)
    if not spans:
        return []
    members: list[list[int]] = []
    for a, b in spans:
        start = name_tail(toks, a, b, bodies, names)
        if start is None:
            return []
        chosen = _join(toks[start:b])
        members.append([i for i, x in enumerate(bodies) if _holds(x, chosen)])
    # The question's other words, outside every entity: what is asked of them (edge bigrams left out).
    covered = {k for a, b in spans for k in range(a, b)}
    runs: list[list[str]] = [[]]
    for k, t in enumerate(toks):
        if k in covered:
            runs.append([])
        else:
            runs[-1].append(t)
    rest = "\n".join(_join(r) for r in runs if r)
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
