"""Which adjacent history turns belong together, read from the text of the history itself.

Relevance spreads from a turn to its neighbours only along these links. In a dialogue the
answer sits next to the turn that repeats the question's words ("What did you paint?" / "A
sunset!"); in a log of unrelated statements the next turn is about something else. A pair of
adjacent turns is linked when

- they share a rare content term (the same person, thing or id);
- one asks (ends in "?") and the next, by another speaker, answers;
- the second is a reply by another speaker too short to stand alone;

and otherwise with the history's own prior: how much more often adjacent turns share rare
terms than turns far apart. A dialogue scores high, shuffled sessions lower, a statement log
near zero, so the same code spreads in the first and not in the last, with no flag to set.
"""

from __future__ import annotations

import math
from collections import Counter, OrderedDict
from collections.abc import Sequence
from functools import lru_cache
from itertools import chain

from notes_store.analysis import is_content_term

from .relevance import terms_of

# A term in more than this share of the turns (speaker names, dates, "today") links nothing.
RARE_SHARE = 0.05
# Shared rare terms carrying at least this share of the smaller turn's IDF mass make a link.
LEXICAL_LINK = 0.08
SHORT_REPLY_TERMS = 4        # a reply with at most this many content terms leans on its neighbour
PRIOR_SCALE = 0.45           # excess adjacent linking (dialogue: ~0.4) that counts as fully linked
FAR_OFFSET = 17              # "far apart" when sampling the history's background linking rate

_cache: OrderedDict[tuple[object, ...], tuple[list[float], float]] = OrderedDict()


def adjacent_links(texts: Sequence[str], roles: Sequence[str | None],
                   segments: Sequence[str] | None = None) -> list[float]:
    """links[i] in 0..1: how strongly turn i and turn i+1 belong together (len(texts) - 1 values)."""
    return link_structure(texts, roles, segments)[0]


def link_structure(texts: Sequence[str], roles: Sequence[str | None],
                   segments: Sequence[str] | None = None) -> tuple[list[float], float]:
    """The adjacent links and the history's prior (0..1: how much more alike neighbours are than
    turns far apart; a dialogue is near 1, a log of unrelated statements near 0)."""
    key = (tuple(texts), tuple(roles), tuple(segments) if segments is not None else None)
    found = _cache.get(key)
    if found is not None:
        _cache.move_to_end(key)
        return found
    result = _compute(texts, roles, segments)
    _cache[key] = result
    while len(_cache) > 4:
        _cache.popitem(last=False)
    return result


def _compute(texts: Sequence[str], roles: Sequence[str | None],
             segments: Sequence[str] | None) -> tuple[list[float], float]:
    n = len(texts)
    if n < 2:
        return [], 0.0
    terms = [_content_terms(x) for x in texts]
    df = Counter(chain.from_iterable(terms))
    limit = max(2, RARE_SHARE * n)
    idf = {t: math.log(1.0 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items()}
    mass = [sum(idf[t] for t in s) or 1.0 for s in terms]

    def lexical(a: int, b: int) -> float:
        shared = sum(idf[t] for t in terms[a] & terms[b] if df[t] <= limit)
        return min(1.0, shared / min(mass[a], mass[b]) / LEXICAL_LINK)

    lex = [lexical(i, i + 1) for i in range(n - 1)]
    prior = _prior(lex, [lexical(i, (i + FAR_OFFSET) % n) for i in range(n - 1)] if n > 2 * FAR_OFFSET else lex)
    links = []
    for i in range(n - 1):
        link = max(lex[i], prior)
        other_speaker = roles[i] != roles[i + 1] or _speaker(texts[i]) != _speaker(texts[i + 1])
        if other_speaker:
            if texts[i].rstrip().endswith(("?", "？")):
                link = max(link, 0.5 + 0.5 * prior)
            if len(terms[i + 1]) <= SHORT_REPLY_TERMS:
                link = max(link, 0.5 + 0.5 * prior)
        if segments is not None and segments[i] != segments[i + 1]:
            link = 0.0  # a new day is a new session
        links.append(link)
    return links, prior


@lru_cache(maxsize=65536)
def _content_terms(text: str) -> frozenset[str]:
    # Cached by text: a growing history repeats all but its newest turn. One- and two-digit
    # numbers are left out: in a log they are the hours, minutes and days of each turn's time
    # prefix, which neighbours share because time runs forward, not because they are related.
    return frozenset(t for t in terms_of(text) if is_content_term(t) and not _is_small_number(t))


def _is_small_number(term: str) -> bool:
    return len(term) <= 2 and term.isdigit()


def _prior(adjacent: list[float], far: list[float]) -> float:
    """Share of adjacent pairs linked beyond what chance gives pairs far apart, scaled to 0..1."""
    a = sum(1 for x in adjacent if x >= 1.0) / len(adjacent)
    f = sum(1 for x in far if x >= 1.0) / len(far)
    excess = (a - f) / (1.0 - f) if f < 1.0 else 0.0
    return max(0.0, min(1.0, excess / PRIOR_SCALE))


def _speaker(text: str) -> str:
    """"Name: ..." prefixes name the speaker in many logs; '' when there is none."""
    head, sep, _ = text[:40].partition(":")
    return head if sep and 0 < len(head) <= 24 and " " not in head.strip() else ""


def spread_along_links(scores: Sequence[float], links: Sequence[float], weight: float,
                       window: int = 3, decay: float = 0.6, reinforce: float = 1.0) -> list[float]:
    """Each turn gains ``weight * decay**(d-1) * strength`` times the better neighbour's score at
    distance d <= ``window``, where strength is the product of the links between them.

    With ``reinforce`` < 1 a turn inherits only what its neighbour has beyond
    ``(1 - reinforce)`` of its own score: two matching turns side by side lift each other only
    as much as adjacency means something in this history (pass its prior). In a dialogue a run
    of on-topic turns is a discussion of the topic; in a log it is a coincidence.
    """
    n = len(scores)
    out = list(scores)
    for i in range(n):
        left_chain = right_chain = 1.0
        gain = 0.0
        for d in range(1, window + 1):
            left_chain = left_chain * links[i - d] if i - d >= 0 else 0.0
            right_chain = right_chain * links[i + d - 1] if i + d < n else 0.0
            if left_chain <= 0.0 and right_chain <= 0.0:
                break
            own = (1.0 - reinforce) * scores[i]
            left = left_chain * max(0.0, scores[i - d] - own) if left_chain > 0.0 else 0.0
            right = right_chain * max(0.0, scores[i + d] - own) if right_chain > 0.0 else 0.0
            gain += decay ** (d - 1) * (left if left > right else right)
        out[i] += weight * gain
    return out
