"""Which adjacent history turns belong together, read from the text of the history itself.

Relevance spreads from a turn to its neighbours only along these links. In a dialogue the
answer sits next to the turn that repeats the question's words ("What did you paint?" / "A
sunset!"); in a log of unrelated statements the next turn is about something else. A pair of
adjacent turns is linked when

- they share a rare content term (the same person, thing or id);
- one asks (a "?" anywhere: people ask and then add an aside) and the next, by another speaker,
  answers; or the next, by another speaker, asks back ("Jealous! Solo or with friends?");
- the second is a reply by another speaker too short to stand alone;

and otherwise with the history's own prior: how much more often adjacent turns share rare
terms than turns far apart. A dialogue scores high, shuffled sessions lower, a statement log
near zero, so the same code spreads in the first and not in the last, with no flag to set.
"""

from __future__ import annotations

import math
import re
import threading
from collections import Counter, OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import chain, compress

from notes_store.analysis.analyzer import is_content_term

from notes_store.bounded_cache import HISTORY_STATE_CHARS, TEXT_CACHE_CHARS, cached_by_size, evict_oldest
from ..relevance import terms_of
from .stamps import stamped, without_stamp
from ...stopping import checked

# A term in more than this share of the turns (speaker names, dates, "today") links nothing.
RARE_SHARE = 0.05
# Shared rare terms carrying at least this share of the smaller turn's IDF mass make a link.
LEXICAL_LINK = 0.08
SHORT_REPLY_TERMS = 4        # a reply with at most this many content terms leans on its neighbour
PRIOR_SCALE = 0.45           # excess adjacent linking (dialogue: ~0.4) that counts as fully linked
FAR_OFFSET = 17              # "far apart" when sampling the history's background linking rate
REPLY_LINK = 1.0             # a question and the other speaker's reply (was 0.5 + prior / 2: lost replies
                             # on dialogues whose repeated asides pull the prior down; bench.quality dev)

REFRESH_GROWTH = 0.1         # term statistics are recomputed once the history changed by this share
SLIDE_SEARCH = 64            # how far the start of a sliding history is looked for in the kept one


@dataclass
class _State:
    """One history's link analysis, kept so a history that grows or slides is analysed in its new
    turns only. Term statistics (df, IDF) are those of the last full pass: while the history
    changes by less than REFRESH_GROWTH they move by less than that, and links are a soft signal."""

    texts: list[str]
    roles: list[str | None]
    segments: list[str] | None
    terms: list[frozenset[str]]
    df: Counter[str]
    n_stats: int
    idf: dict[str, float]
    mass: list[float]
    lex: list[float]          # lex[i]: lexical link of turns i and i+1
    far: list[float]          # far[i]: lexical link of turns i and i+FAR_OFFSET (the background rate)
    reply: list[bool]         # reply[i]: turn i+1 answers a question or is a short reply by another speaker
    last_lo: int = 0
    full_lex: list[int] = field(default_factory=lambda: [0])   # full_lex[i]: lex[:i] values >= 1
    full_far: list[int] = field(default_factory=lambda: [0])

    def count(self) -> None:
        """Extend the running counts of fully linked pairs (the prior of any window in O(1))."""
        for values, counts in ((self.lex, self.full_lex), (self.far, self.full_far)):
            for x in values[len(counts) - 1:]:
                counts.append(counts[-1] + (x >= 1.0))

    @property
    def limit(self) -> float:
        return max(2, RARE_SHARE * self.n_stats)

    def idf_of(self, term: str, keep: bool = True) -> float:
        v = self.idf.get(term)
        if v is None:
            d = self.df.get(term, 0)
            v = math.log(1.0 + (self.n_stats - d + 0.5) / (d + 0.5))
            if keep:
                self.idf[term] = v
        return v

    def lexical(self, a: int, b: int) -> float:
        return self.lexical_of(self.terms[a], self.mass[a], self.terms[b], self.mass[b])

    def lexical_of(self, ta: frozenset[str], ma: float, tb: frozenset[str], mb: float) -> float:
        """How much two turns share in rare content terms, relative to the smaller one's mass."""
        limit = self.limit
        shared = sum(self.idf_of(t, keep=False) for t in ta & tb if self.df.get(t, 0) <= limit)
        return min(1.0, shared / min(ma, mb) / LEXICAL_LINK)

    def append(self, text: str, role: str | None, segment: str | None) -> None:
        terms = _content_terms(text)
        self.df.update(terms)
        self.texts.append(text)
        self.roles.append(role)
        if self.segments is not None:
            self.segments.append(segment or "")
        self.terms.append(terms)
        self.mass.append(sum(self.idf_of(t) for t in terms) or 1.0)
        i = len(self.texts) - 1
        if i >= 1:
            self.lex.append(self.lexical(i - 1, i))
            self.reply.append(_is_reply(self.texts[i - 1], self.roles[i - 1], text, role, terms))
        if i >= FAR_OFFSET:
            self.far.append(self.lexical(i - FAR_OFFSET, i))


_states: OrderedDict[int, _State] = OrderedDict()
MAX_STATES = 4
_states_lock = threading.Lock()


def adjacent_links(texts: Sequence[str], roles: Sequence[str | None],
                   segments: Sequence[str] | None = None) -> list[float]:
    """links[i] in 0..1: how strongly turn i and turn i+1 belong together (len(texts) - 1 values)."""
    return link_structure(texts, roles, segments)[0]


def link_structure(texts: Sequence[str], roles: Sequence[str | None],
                   segments: Sequence[str] | None = None) -> tuple[list[float], float]:
    """The adjacent links and the history's prior (0..1: how much more alike neighbours are than
    turns far apart; a dialogue is near 1, a log of unrelated statements near 0)."""
    n = len(texts)
    if n < 2:
        return [], 0.0
    texts, roles = list(texts), list(roles)
    segs = list(segments) if segments is not None else None
    state, lo, k = _state_for(texts, roles, segs)
    # Turns 0..k-1 are the kept state's lo..lo+k-1; the newest n-k are analysed here, unkept.
    tail_terms = [_content_terms(x) for x in texts[k:]]
    tail_mass = [sum(state.idf_of(t, keep=False) for t in ts) or 1.0 for ts in tail_terms]

    def doc(i: int) -> tuple[frozenset[str], float]:
        return (state.terms[lo + i], state.mass[lo + i]) if i < k else (tail_terms[i - k], tail_mass[i - k])

    def pair(i: int, j: int) -> float:
        return state.lexical_of(*doc(i), *doc(j))

    kept_pairs = max(0, k - 1)
    lex = state.lex[lo:lo + kept_pairs] + [pair(i, i + 1) for i in range(kept_pairs, n - 1)]
    reply = state.reply[lo:lo + kept_pairs] + [
        _is_reply(texts[i], roles[i], texts[i + 1], roles[i + 1], doc(i + 1)[0]) for i in range(kept_pairs, n - 1)]
    linked = (state.full_lex[lo + kept_pairs] - state.full_lex[lo]) + sum(x >= 1.0 for x in lex[kept_pairs:])
    adjacent = linked / (n - 1)
    if n > 2 * FAR_OFFSET:
        kept_far = max(0, k - FAR_OFFSET)
        far_linked = (state.full_far[lo + kept_far] - state.full_far[lo]) + sum(
            pair(i, i + FAR_OFFSET) >= 1.0 for i in range(kept_far, n - FAR_OFFSET))
        far = far_linked / (n - FAR_OFFSET)
    else:
        far = adjacent
    prior = _prior(adjacent, far)
    # A question and its answer belong together whatever the rest of the history does: asides
    # repeated across a conversation can make its prior look like a log's.
    links = [REPLY_LINK if r else max(x, prior) for x, r in zip(lex, reply)]
    if segs is not None:
        for i in range(n - 1):
            if segs[i] != segs[i + 1]:
                links[i] = 0.0  # a new day is a new session
    return links, prior


# New turns are analysed per call until there are more than LAZY_TAIL of them; then all but the
# last SOFT_TAIL join the kept state. The newest turns are the ones a caller replaces (a partial
# turn, the current question passed as the last turn): kept out, they never make the state
# diverge from the history the next call sends.
LAZY_TAIL = 32
SOFT_TAIL = 4


def _state_for(texts: list[str], roles: list[str | None],
               segments: list[str] | None) -> tuple[_State, int, int]:
    """(state, lo, k): a kept analysis whose turns lo..lo+k-1 are ``texts[:k]`` (extended when
    many new turns came), or a fresh one when none matches or its statistics are too old."""
    n = len(texts)
    with _states_lock:
        for sid, state in reversed(_states.items()):
            found = _common(state, texts, roles, segments)
            if found is None:
                continue
            lo, k = found
            if abs(n - state.n_stats) > REFRESH_GROWTH * state.n_stats or lo > REFRESH_GROWTH * n:
                break  # statistics out of date: recompute
            if n - k > LAZY_TAIL:
                if lo + k != len(state.texts):
                    continue  # it went another way from here: not this history's state any more
                for i in range(k, n - SOFT_TAIL):
                    state.append(texts[i], roles[i], segments[i] if segments is not None else None)
                state.count()
                k = n - SOFT_TAIL
            state.last_lo = lo
            _states.move_to_end(sid)
            return state, lo, k
        keep = n - SOFT_TAIL if n - SOFT_TAIL > 2 * FAR_OFFSET else n
        state = _fresh(texts[:keep], roles[:keep], segments[:keep] if segments is not None else None)
        _states[id(state)] = state
        evict_oldest(_states, lambda kept: sum(map(len, kept.texts)), HISTORY_STATE_CHARS, MAX_STATES)
        return state, 0, keep


def _common(state: _State, texts: list[str], roles: list[str | None],
            segments: list[str] | None) -> tuple[int, int] | None:
    """(lo, k): the state's turns from lo on equal ``texts[:k]`` (texts, roles and segments), k
    as long as it goes; None when the first turn is not near the state's last start."""
    if (segments is None) != (state.segments is None):
        return None
    first = texts[0]
    kept = state.texts

    def same(lo: int, m: int) -> bool:
        return (kept[lo:lo + m] == texts[:m] and state.roles[lo:lo + m] == roles[:m]
                and (segments is None or state.segments is None or state.segments[lo:lo + m] == segments[:m]))

    for lo in range(state.last_lo, min(len(kept), state.last_lo + SLIDE_SEARCH)):
        if kept[lo] != first:
            continue
        k = min(len(texts), len(kept) - lo)
        if same(lo, k):
            return lo, k
        good, bad = 0, k   # the longest common run, by binary search (slice compares run in C)
        while bad - good > 1:
            mid = (good + bad) // 2
            if same(lo, mid):
                good = mid
            else:
                bad = mid
        return (lo, good) if good else None
    return None


def _fresh(texts: list[str], roles: list[str | None], segments: list[str] | None) -> _State:
    n = len(texts)
    terms = [_content_terms(x) for x in checked(texts)]
    df = Counter(chain.from_iterable(terms))
    idf = {t: math.log(1.0 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items()}
    mass = [sum(idf[t] for t in s) or 1.0 for s in terms]
    state = _State(list(texts), list(roles), list(segments) if segments is not None else None, terms, df, n,
                   idf, mass, [], [], [])
    state.lex = [state.lexical(i, i + 1) for i in range(n - 1)]
    state.far = [state.lexical(i, i + FAR_OFFSET) for i in range(n - FAR_OFFSET)]
    state.reply = [_is_reply(texts[i], roles[i], texts[i + 1], roles[i + 1], terms[i + 1]) for i in range(n - 1)]
    state.count()
    return state


def _is_reply(text: str, role: str | None, nxt: str, nxt_role: str | None, nxt_terms: frozenset[str]) -> bool:
    """Turn ``nxt`` answers ``text``: another speaker, after a question (anywhere in the turn), too
    short to stand alone, or asking back about what was just said."""
    if same_speaker(text, role, nxt, nxt_role):
        return False
    return asks(text) or len(nxt_terms) <= SHORT_REPLY_TERMS or asks(nxt)


def asks(text: str) -> bool:
    """The turn asks something (a "?" anywhere: people ask and then add an aside)."""
    return "?" in text or "？" in text


def same_speaker(text: str, role: str | None, other: str, other_role: str | None) -> bool:
    """Two turns by one speaker: the same role and the same "Name:" prefix (or none)."""
    return role == other_role and speaker_of(text) == speaker_of(other)


@cached_by_size(TEXT_CACHE_CHARS, 65536)
def _content_terms(text: str) -> frozenset[str]:
    # Cached by text: a growing history repeats all but its newest turn. One- and two-digit
    # numbers are left out: in a log they are the hours, minutes and days of each turn's time
    # prefix, which neighbours share because time runs forward, not because they are related; and
    # the prefix's place, which they share because the writer sat there (see context.select.signals.stamps).
    return frozenset(t for t in terms_of(without_stamp(text)) if is_content_term(t) and not _is_small_number(t))


def _is_small_number(term: str) -> bool:
    return len(term) <= 2 and term.isdigit()


def _prior(a: float, f: float) -> float:
    """Share ``a`` of adjacent pairs fully linked beyond the share ``f`` of pairs far apart (what
    chance gives), scaled to 0..1."""
    excess = (a - f) / (1.0 - f) if f < 1.0 else 0.0
    return max(0.0, min(1.0, excess / PRIOR_SCALE))


@cached_by_size(TEXT_CACHE_CHARS, 65536)
def speaker_of(text: str) -> str:
    """"Name: ..." prefixes name the speaker in many logs; '' when there is none.

    A time stamp is not a name: "10/22（周二）14:05 @家里 …" and "2024-01-06T15:04 …" open with text
    before a colon too, and read as a name they made every hour of a log a speaker of its own (turns
    an hour apart were "other speakers", so pronoun turns lost their antecedents). The name before a
    stamp ("Li: [May 3, 10:00] …") still counts."""
    found = stamped(text)
    if found is not None:
        text = found[0]
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
    # Only turns within ``window`` of a scored turn can gain: look at those (a long history
    # has a few hundred of them among thousands of turns).
    mark = bytearray(n)
    span = b"\x01" * (2 * window + 1)
    for j in compress(range(n), scores):
        lo = max(0, j - window)
        mark[lo:j + window + 1] = span[:min(n, j + window + 1) - lo]
    for i in compress(range(n), mark):
        left_chain = right_chain = 1.0
        gain = 0.0
        own = (1.0 - reinforce) * scores[i]
        for d in range(1, window + 1):
            left_chain = left_chain * links[i - d] if i - d >= 0 else 0.0
            right_chain = right_chain * links[i + d - 1] if i + d < n else 0.0
            if left_chain <= 0.0 and right_chain <= 0.0:
                break
            left = left_chain * max(0.0, scores[i - d] - own) if left_chain > 0.0 else 0.0
            right = right_chain * max(0.0, scores[i + d] - own) if right_chain > 0.0 else 0.0
            gain += decay ** (d - 1) * (left if left > right else right)
        out[i] += weight * gain
    return out


# Third-person personal pronouns: a closed grammatical class (the same dozen words in any domain), not a
# list of meanings. A clause they open is about someone named before it.
THIRD_PERSON = r"(?:(?<!\w)(?:he|she|they|his|her|their|him|them)\b|他|她)"
# A third-person pronoun anywhere (a clause that refers back to someone named before it).
REFERS_BACK = re.compile(THIRD_PERSON, re.IGNORECASE)
_PRONOUN_RE = re.compile(r"(?:^|[:：。.!?！？;；]\s*)" + THIRD_PERSON, re.IGNORECASE)


@cached_by_size(TEXT_CACHE_CHARS, 65536)
def refers_back(text: str) -> bool:
    """The turn opens a clause with a third-person pronoun ("He was born in Fresno.", "她现在当记者。",
    after any "time, place:" or "Name:" prefix): it speaks of someone a turn before it named.

    The stamp goes first: "【11月9日 21:31 · 家里】她今年六十六了。" opens its statement with 她 after a
    closing bracket, which no clause boundary marks."""
    return _PRONOUN_RE.search(without_stamp(text)) is not None


def antecedents(texts: Sequence[str], roles: Sequence[str | None], chain_limit: int = 3) -> list[int]:
    """For each turn that refers back (see ``refers_back``) and follows a turn by the same speaker:
    the index of the turn it speaks of (the first turn up the same speaker's run that does not
    itself refer back, at most ``chain_limit`` back: "My sister has a parakeet." / "She spammed the
    chat." / "Her family lives in Fresno."); -1 elsewhere."""
    out = [-1] * len(texts)
    for i in range(1, len(texts)):
        if not refers_back(texts[i]):
            continue
        j = i - 1
        while (j >= 0 and i - j <= chain_limit and same_speaker(texts[j], roles[j], texts[i], roles[i])):
            if not refers_back(texts[j]):
                out[i] = j
                break
            j -= 1
    return out
