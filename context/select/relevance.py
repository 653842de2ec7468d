"""Lexical relevance of packets to a query, with the index's own analyzer.

Terms come from ``notes_store.analysis.analyzer`` so stemming and CJK bigrams match the
note index exactly (Chinese works the same as English). Scoring is BM25 with
IDF over the candidates themselves (the history is its own corpus), weighted by
how much of the query a packet covers, plus one round of pseudo-relevance
feedback to reach turns that use the answer's words rather than the question's.
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache
from bisect import bisect_left
from collections import Counter, OrderedDict
from collections.abc import Sequence

from notes_store.analysis.bm25 import B as BM25_B, K1 as BM25_K1, idf as bm25_idf
from notes_store.bounded_cache import (HISTORY_STATE_CHARS, QUERY_CACHE_CHARS, TEXT_CACHE_CHARS, BoundedCache,
                                      cached_by_size, evict_oldest)
from notes_store.analysis.analyzer import CACHED_WORD_CHARS, index_terms, is_cjk, is_content_term, query_terms, stem_word

from .signals.cues import attribute_groups
from ..stopping import checked

# Terms by text, and term counts by terms: the same history is scored on every call.
_terms_cache: BoundedCache[str, tuple[str, ...]] = BoundedCache(TEXT_CACHE_CHARS, 100_000)
_tf_cache: BoundedCache[tuple[str, ...], dict[str, int]] = BoundedCache(TEXT_CACHE_CHARS // 4, 100_000)


def terms_of(text: str) -> tuple[str, ...]:
    """Index terms of ``text``, cached (the same history is scored on every call)."""
    return _terms_cache.get_or_compute(text, lambda: tuple(index_terms(text)))


def join_analysed(*parts: str) -> str:
    """``"\n".join(parts)`` with its terms cached as the parts' terms in a row. Exact: a newline
    ends every token run (``TOKEN_RE`` matches neither it nor across it), and a term is made from
    one run alone. A turn whose content was already analysed then costs only its new parts."""
    text = "\n".join(parts)
    if text not in _terms_cache and _terms_cache.recall(text) is None:
        _terms_cache.put(text, tuple(t for part in parts for t in terms_of(part)))
    return text


def _term_frequencies(doc: Sequence[str]) -> dict[str, int]:
    """Term -> count of a document, cached (the same turns are scored on every call; read-only)."""
    key = tuple(doc)
    return _tf_cache.get_or_compute(key, lambda: dict(Counter(key)))


def terms_of_query(query: str) -> list[str]:
    """Distinct content terms of a query (question words and particles left out unless
    nothing else remains); index terms when the query analyzer finds none."""
    terms = query_terms(query) or list(dict.fromkeys(index_terms(query)))
    return [t for t in terms if is_content_term(t)] or terms


# CJK bigrams that hold a particle or pronoun straddle word edges ("我叔", "叔是"): weak
# evidence alone, but they tell "my uncle is..." from "their uncle said...", so they count a little.
CJK_EDGE_WEIGHT = 0.5


# A CJK character of the query that is a content word alone ("车", "岁"): the index holds it as a
# unigram. It breaks ties among the turns about the same person ("于洋卖了旧车" over "于洋来吃饭")
# where the question's bigram ("么车", "岁数") is not in the answer's wording.
CJK_UNIGRAM_WEIGHT = 0.4


# "When do I exercise?" asks of the speaker's own statements ("I go to the gym every Saturday."), as
# "我手机…" does through its edge bigram "我手": the English first person counts as such an edge term.
# Dev 1k/2k/4k: en-memlog 0.918/0.950/0.964 -> 0.923/0.964/0.974, en-memlog-hard 2k/4k 0.924/0.946 ->
# 0.929/0.951, en-daily 2k/4k 0.829/0.898 -> 0.835/0.904; Chinese sets and conv-26 unchanged.
FIRST_PERSON_WEIGHT = 0.5
_FIRST_PERSON = frozenset(("i", "me"))


# A span of the question that sets the time it asks within ("这两个月", "这段时间", "最近"), not what it asks about:
# its bigrams count this much ("朵朵这两个月因为生病请过几次假？" is about 朵朵 and 请假; "两个", "个月" are in every other turn).
TIME_SCOPE_WEIGHT = 0.3
_TIME_SCOPE = re.compile(r"(?:这|近|最近|过去|前)(?:[一二两三四五六七八九十几半]+|\d+)个?(?:天|周|星期|礼拜|月|年|学期)|"
                         r"(?:这|上|下)个?(?:月|周|星期|礼拜|学期)|这段(?:时间|日子)|这阵子|这些天|这些日子|最近|近来|今年|去年|"
                         r"上半年|下半年")


def _time_scope_terms(query: str) -> set[str]:
    """The CJK bigrams of ``query`` said only inside its time-scope spans (see TIME_SCOPE_WEIGHT)."""
    spans = [m.span() for m in _TIME_SCOPE.finditer(query)]
    if not spans:
        return set()
    inside: set[str] = set()
    outside: set[str] = set()
    for k in range(len(query) - 1):
        pair = query[k:k + 2]
        if is_cjk(pair[0]) and is_cjk(pair[1]):
            (inside if any(a <= k and k + 2 <= b for a, b in spans) else outside).add(pair)
    return inside - outside


def weighted_query_terms(query: str) -> dict[str, float]:
    """Query terms with weights: content terms 1 (TIME_SCOPE_WEIGHT inside a time scope), CJK edge bigrams
    CJK_EDGE_WEIGHT, CJK content characters CJK_UNIGRAM_WEIGHT."""
    content = terms_of_query(query)
    scope = _time_scope_terms(query) if TIME_SCOPE_WEIGHT < 1.0 else set()
    weights = {t: TIME_SCOPE_WEIGHT if t in scope else 1.0 for t in content}
    if content and (CJK_EDGE_WEIGHT or FIRST_PERSON_WEIGHT):
        for t in query_terms(query):
            if t in weights:
                continue
            if CJK_EDGE_WEIGHT and len(t) == 2 and is_cjk(t):
                weights[t] = CJK_EDGE_WEIGHT
            elif FIRST_PERSON_WEIGHT and t in _FIRST_PERSON:
                weights[t] = FIRST_PERSON_WEIGHT
    if CJK_UNIGRAM_WEIGHT and content:
        for t in index_terms(query):
            if len(t) == 1 and is_cjk(t) and t not in weights and is_content_term(t):
                weights[t] = CJK_UNIGRAM_WEIGHT
    return weights


# A run of overlapping query bigrams a turn holds counts as one unit: its best bigram, plus this
# share of the others (see LexicalScorer.bm25_runs). 1.0: every bigram on its own.
RUN_REST = 0.2


def _overlaps(a: str, b: str) -> bool:
    """Two CJK bigrams that follow each other in a text ("的生", "生日")."""
    return len(a) == 2 and len(b) == 2 and a[1] == b[0] and is_cjk(a[1])


class _Corpus:
    """Append-only store of analysed documents with full postings.

    Shared by the scorers of a history as it grows (or slides): a new turn costs its own terms,
    not a pass over the history. Postings only ever grow, and each scorer reads the slice of
    documents it covers, so a scorer stays valid while another call appends.
    """

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.tfs: list[dict[str, int]] = []
        self.lengths: list[int] = []
        self.cum_len: list[int] = [0]
        self.ids: dict[str, list[int]] = {}
        self.counts: dict[str, list[int]] = {}
        self.lock = threading.Lock()
        self.last_lo = 0

    def __len__(self) -> int:
        return len(self.tfs)

    def append(self, doc: Sequence[str], text: str = "") -> None:
        i = len(self.tfs)
        tf = _term_frequencies(doc)
        for term, c in tf.items():
            ids = self.ids.get(term)
            if ids is None:
                self.ids[term] = [i]
                self.counts[term] = [c]
            else:
                ids.append(i)
                self.counts[term].append(c)
        self.texts.append(text)
        self.lengths.append(len(doc))
        self.cum_len.append(self.cum_len[-1] + len(doc))
        self.tfs.append(tf)


class LexicalScorer:
    """BM25 over a list of documents (term tuples), with IDF from those documents.

    ``LexicalScorer(docs)`` scores ``docs``; ``scorer_for`` (and ``lexical_relevance``) reuse
    and extend one across calls whose texts grow or slide, so a long session costs its new
    turns only. A scorer covers documents ``lo..hi`` of a shared corpus, plus a few extra
    documents of its own (tool results, documents: what changes on every call).
    """

    K1 = BM25_K1
    B = BM25_B

    def __init__(self, docs: Sequence[Sequence[str]] = (), *, _corpus: _Corpus | None = None,
                 _lo: int = 0, _hi: int | None = None) -> None:
        if _corpus is None:
            _corpus = _Corpus()
            for d in docs:
                _corpus.append(d)
            docs = ()
        self._base = _corpus
        self._lo = _lo
        self._hi = len(_corpus) if _hi is None else _hi
        self._extra = _Corpus()
        for d in docs:
            self._extra.append(d)
        self._m = self._hi - self._lo
        self.n = self._m + len(self._extra)
        total = _corpus.cum_len[self._hi] - _corpus.cum_len[self._lo] + self._extra.cum_len[-1]
        self.avg_len = (total / self.n) if self.n else 1.0
        self._postings: dict[str, list[tuple[int, int]]] = {}
        self._df: dict[str, int] = {}

    def with_extra(self, docs: Sequence[Sequence[str]]) -> LexicalScorer:
        """This scorer's documents followed by ``docs`` (numbered after them)."""
        return LexicalScorer(docs, _corpus=self._base, _lo=self._lo, _hi=self._hi)

    @property
    def tfs(self) -> list[dict[str, int]]:
        return self._base.tfs[self._lo:self._hi] + self._extra.tfs

    @property
    def lengths(self) -> list[int]:
        return self._base.lengths[self._lo:self._hi] + self._extra.lengths

    def _slices(self, term: str) -> list[tuple[list[int], list[int], list[int], int, int, int]]:
        """(ids, counts, lengths, start, stop, offset) of each part's postings of ``term`` in range:
        documents ids[start:stop] are this scorer's documents ids[k] + offset."""
        out = []
        ids = self._base.ids.get(term)
        if ids:
            a = bisect_left(ids, self._lo)
            b = bisect_left(ids, self._hi, a)
            if b > a:
                out.append((ids, self._base.counts[term], self._base.lengths, a, b, -self._lo))
        ids = self._extra.ids.get(term)
        if ids:
            out.append((ids, self._extra.counts[term], self._extra.lengths, 0, len(ids), self._m))
        return out

    def postings(self, term: str) -> list[tuple[int, int]]:
        """(document index, term frequency) of every document containing ``term``."""
        found = self._postings.get(term)
        if found is None:
            found = []
            for ids, counts, _lengths, a, b, off in self._slices(term):
                found.extend((ids[k] + off, counts[k]) for k in range(a, b))
            self._postings[term] = found
        return found

    def df(self, term: str) -> int:
        found = self._df.get(term)
        if found is None:
            found = sum(b - a for _ids, _c, _l, a, b, _off in self._slices(term))
            self._df[term] = found
        return found

    def idf(self, term: str) -> float:
        return bm25_idf(self.n, self.df(term))

    def term_scores(self, term: str, weight: float = 1.0) -> dict[int, float]:
        """Document -> BM25 contribution of one weighted term (work in the term's postings only)."""
        got: dict[int, float] = {}
        parts = self._slices(term)
        if not parts:
            return got
        k1, b, avg = self.K1, self.B, self.avg_len or 1.0
        idf = self.idf(term) * weight * (k1 + 1.0)
        for ids, counts, lengths, lo, hi, off in parts:
            for k in range(lo, hi):
                d = ids[k]
                tf = counts[k]
                got[d + off] = idf * tf / (tf + k1 * (1.0 - b + b * lengths[d] / avg))
        return got

    def bm25(self, weights: dict[str, float]) -> list[float]:
        """BM25 of each document for weighted query terms."""
        scores = [0.0] * self.n
        for term, w in weights.items():
            for d, v in self.term_scores(term, w).items():
                scores[d] += v
        return scores

    def bm25_runs(self, weights: dict[str, float], order: Sequence[str], rest: float) -> list[float]:
        """``bm25(weights)`` with each run of overlapping CJK bigrams that follow each other in the
        query (``order``) and that a document all holds counted as one unit: its best term's score
        plus ``rest`` times the others'. "的生日是" is one phrase, not three pieces of evidence; the
        single bigram that names the person ("表哥") must not be outvoted by it."""
        per = {t: got for t, w in weights.items() if (got := self.term_scores(t, w))}
        # A CJK character counts where it stands outside the question's bigrams that hold it (学 of
        # 大学 again is no news; 车 without 么车 is).
        chars = {t: [b for b in weights if len(b) == 2 and t in b] for t in weights
                 if len(t) == 1 and is_cjk(t)}
        seq = [t for t in dict.fromkeys(order) if t in weights and t not in chars]
        in_seq = set(seq)
        seq += [t for t in weights if t not in in_seq and t not in chars]
        linked = [k > 0 and _overlaps(seq[k - 1], seq[k]) for k in range(len(seq))]
        # Where a document holds no two linked bigrams side by side and no character beside a bigram
        # holding it, every term is a unit of its own: the plain sum, added in the order below.
        scores = [0.0] * self.n
        for t in [*chars, *seq]:
            for d, v in per.get(t, {}).items():
                scores[d] += v
        touched: set[int] = set()
        for c, holders in chars.items():
            for h in holders:
                if c in per and h in per:
                    touched |= per[c].keys() & per[h].keys()
        for k in range(1, len(seq)):
            if linked[k] and seq[k - 1] in per and seq[k] in per:
                touched |= per[seq[k - 1]].keys() & per[seq[k]].keys()
        for d in touched:
            total = best = run = prev = 0.0
            for c, holders in chars.items():
                v = per[c].get(d, 0.0) if c in per else 0.0
                if v and not any(d in per.get(h, ()) for h in holders):
                    total += v
            for k, t in enumerate(seq):
                v = per[t].get(d, 0.0) if t in per else 0.0
                if not (linked[k] and prev):  # a new unit starts (or the run was broken)
                    total += best + rest * (run - best)
                    best = run = 0.0
                prev = v
                if v:
                    run += v
                    if v > best:
                        best = v
            scores[d] = total + best + rest * (run - best)
        return scores

    def coverage(self, terms: Sequence[str]) -> list[float]:
        """Share of the query's IDF mass each document contains (0..1): all of the question beats part of it."""
        total = sum(self.idf(t) for t in terms) or 1.0
        cov = [0.0] * self.n
        for t in terms:
            share = self.idf(t) / total
            for ids, _counts, _lengths, lo, hi, off in self._slices(t):
                for k in range(lo, hi):
                    cov[ids[k] + off] += share
        return cov

    def _tf(self, i: int) -> dict[str, int]:
        return self._base.tfs[self._lo + i] if i < self._m else self._extra.tfs[i - self._m]

    def feedback_terms(self, ranked: Sequence[int], query: Sequence[str], top_docs: int,
                       max_terms: int) -> dict[str, float]:
        """Pseudo-relevance feedback: terms shared by several top documents, weighted 0..1 by IDF."""
        if self.n < 20:
            return {}
        qset = set(query)
        hits: Counter[str] = Counter()
        for i in ranked[:top_docs]:
            hits.update(t for t in self._tf(i) if t not in qset)
        scored = {t: c * self.idf(t) for t, c in hits.items() if c >= 2}
        best = sorted(scored, key=scored.__getitem__, reverse=True)[:max_terms]
        top = max((scored[t] for t in best), default=1.0)
        return {t: scored[t] / top for t in best}


def lexical_relevance(query: str, texts: Sequence[str], *, feedback_weight: float = 0.0,
                      coverage_weight: float = 0.25, growing: int | None = None,
                      implied: dict[str, float] | None = None) -> list[float]:
    """Relevance 0..1 of each text to the query (0 when it shares no term with it).

    ``growing``: how many leading texts are a list that grows or slides from call to call (a
    history); their analysis is kept and extended. Default: all of them. ``implied``: query terms
    to count at a given weight instead (see spelled.implied_terms), 0 leaving them out."""
    if not texts:
        return []
    scorer = scorer_for(texts, growing)
    weights = weighted_query_terms(query)
    if implied:
        for t, w in implied.items():
            if t in weights:
                weights[t] *= w
        weights = {t: w for t, w in weights.items() if w > 0}
    if COMPARATIVE_WEIGHT and weights:
        for base in comparative_bases(query):
            if base not in weights and scorer.df(base):
                weights[base] = COMPARATIVE_WEIGHT
    qterms = list(weights)
    if not qterms:
        return [0.0] * len(texts)
    scores = scorer.bm25_runs(weights, query_terms(query), RUN_REST) if RUN_REST < 1.0 \
        else scorer.bm25(weights)
    if ATTRIBUTE_WEIGHT:  # not counted in how much of the question a turn covers
        for d, v in _attribute_scores(query, scorer, weights).items():
            scores[d] += v
    if coverage_weight:
        cov = scorer.coverage(qterms)
        keep = 1.0 - coverage_weight
        scores = [s * (keep + coverage_weight * c) if s else 0.0 for s, c in zip(scores, cov)]
    if feedback_weight and scorer.n >= 20:
        ranked = sorted(range(scorer.n), key=scores.__getitem__, reverse=True)
        extra = scorer.feedback_terms(ranked, qterms, top_docs=5, max_terms=8)
        if extra:
            more = scorer.bm25({t: w * feedback_weight for t, w in extra.items()})
            scores = [s + m for s, m in zip(scores, more)]
    top = max(scores)
    return [s / top for s in scores] if top > 0 else scores


# The other ways to say the attribute a question asks about ("生辰" -> "生日", "do for a living" -> "job")
# count at this weight (see context.select.signals.cues).
ATTRIBUTE_WEIGHT = 0.5


def _attribute_scores(query: str, scorer: LexicalScorer, weights: dict[str, float]) -> dict[int, float]:
    """Document -> what the other ways to say the question's attributes add: each attribute one unit per
    turn (its best term, plus RUN_REST of the others), as a run of the question's bigrams is."""
    out: dict[int, float] = {}
    for group in attribute_groups(query):
        per = [got for t in group if t not in weights and (got := scorer.term_scores(t, ATTRIBUTE_WEIGHT))]
        for d in set().union(*per):
            vals = [got.get(d, 0.0) for got in per]
            best = max(vals)
            out[d] = out.get(d, 0.0) + best + RUN_REST * (sum(vals) - best)
    return out


# An English comparative or superlative in the query ("older", "tallest") also finds its base ("is 41
# years old", "5 foot 10 tall") at this weight, where the history holds the base: inflection, as
# stemming is (the English stemmer leaves "older" whole), not a list of meanings.
COMPARATIVE_WEIGHT = 0.5
_WORD_RE = re.compile(r"[a-z]+")


@cached_by_size(QUERY_CACHE_CHARS, 4096)
def comparative_bases(query: str) -> tuple[str, ...]:
    """Stems of the bases of the query's words ending in -er / -est ("older" -> "old", "bigger" ->
    "big", "earliest" -> "earli"), other than the word's own stem."""
    out: list[str] = []
    for w in _WORD_RE.findall(query.lower()):
        for suffix in ("er", "est"):
            if len(w) < len(suffix) + 3 or not w.endswith(suffix):
                continue
            base = w[:-len(suffix)]
            forms = [base]
            if base[-1] == base[-2]:
                forms.append(base[:-1])          # bigger -> big
            if base.endswith("i"):
                forms.append(base[:-1] + "y")    # earlier -> early
            own = stem_word(w)
            out += [st for st in map(stem_word, forms) if st != own and is_content_term(st)]
    return tuple(dict.fromkeys(out))


def plain_bm25(query: str, texts: Sequence[str], *, growing: int | None = None) -> list[float]:
    """BM25 of each text for every term of the query (no question-word filtering, coverage or
    feedback): the baseline the selection guarantees its top turns to."""
    if not texts:
        return []
    return scorer_for(texts, growing).bm25({t: 1.0 for t in query_terms(query)})


_corpora: OrderedDict[int, _Corpus] = OrderedDict()
_corpora_lock = threading.Lock()
MAX_CORPORA = 4
SLIDE_SEARCH = 64       # how far the start of a sliding history is looked for in a cached one
# New turns are analysed per call until there are more than LAZY_TAIL of them; then all but the
# last SOFT_TAIL join the kept corpus. The newest turns are the ones a caller replaces (a partial
# turn, the current question passed as the last turn): kept out, they never make the corpus
# diverge from the history the next call sends.
LAZY_TAIL = 32
SOFT_TAIL = 4
_last: tuple[tuple[str, ...], int | None, LexicalScorer] | None = None


def scorer_for(texts: Sequence[str], growing: int | None = None) -> LexicalScorer:
    """A scorer over ``texts``. The first ``growing`` (default: all) are matched, by value,
    against the corpora kept from earlier calls: when they repeat one's documents and add turns
    (a session that grows), drop its first turns (a window that slides) or replace its newest
    ones, the corpus is reused and only the other turns are analysed. The rest are analysed per
    call."""
    global _last
    stable = len(texts) if growing is None else max(0, min(growing, len(texts)))
    key = tuple(texts)
    last = _last
    if last is not None and last[0] == key and last[1] == growing:
        return last[2]  # the same candidates again (several scorings of one build)
    head = list(texts[:stable])
    corpus, lo, k = _match(head)
    rest = [terms_of(t) for t in checked(head[k:])] + [terms_of(t) for t in checked(texts[stable:])]
    scorer = LexicalScorer(rest, _corpus=corpus, _lo=lo, _hi=lo + k)
    _last = (key, growing, scorer)
    return scorer


def _match(head: list[str]) -> tuple[_Corpus, int, int]:
    """(corpus, lo, k): the corpus holds ``head[:k]`` as its documents lo..lo+k; the caller
    analyses ``head[k:]`` itself. A kept corpus is reused (and extended), or a new one made."""
    if not head:
        return _Corpus(), 0, 0
    with _corpora_lock:
        for cid, corpus in reversed(_corpora.items()):
            found = _common(corpus.texts, corpus.last_lo, head)
            if found is None:
                continue
            lo, k = found
            if lo > len(head) + 1000:
                continue  # mostly turns slid out: start afresh rather than keep them
            tail = len(head) - k
            if tail > LAZY_TAIL:
                if lo + k != len(corpus):
                    continue  # it went another way from here: not this history's corpus any more
                for t in checked(head[k:len(head) - SOFT_TAIL]):  # stopped part-way: still a prefix
                    corpus.append(terms_of(t), t)
                k = len(head) - SOFT_TAIL
            corpus.last_lo = lo
            _corpora.move_to_end(cid)
            return corpus, lo, k
        corpus = _Corpus()
        keep = max(0, len(head) - SOFT_TAIL)
        for t in checked(head[:keep]):  # stopped part-way: the corpus is never kept
            corpus.append(terms_of(t), t)
        _corpora[id(corpus)] = corpus
        evict_oldest(_corpora, _corpus_chars, HISTORY_STATE_CHARS, MAX_CORPORA)
        return corpus, 0, keep


def _corpus_chars(corpus: _Corpus) -> int:
    return sum(map(len, corpus.texts))


def _common(kept: list[str], last_lo: int, head: list[str]) -> tuple[int, int] | None:
    """(lo, k): ``head[:k]`` equals ``kept[lo:lo + k]``, k as long as it goes (the longest common
    run from a start near ``last_lo``); None when head's first turn is not near there."""
    if not head or not kept:
        return None
    first = head[0]
    for lo in range(last_lo, min(len(kept), last_lo + SLIDE_SEARCH)):
        if kept[lo] != first:
            continue
        k = min(len(head), len(kept) - lo)
        if kept[lo:lo + k] == head[:k]:
            return lo, k
        # Diverged somewhere: binary search the longest common run (slice compares run in C).
        good, bad = 1, k
        while bad - good > 1:
            mid = (good + bad) // 2
            if kept[lo:lo + mid] == head[:mid]:
                good = mid
            else:
                bad = mid
        return lo, good
    return None


def spread_to_neighbours(scores: Sequence[float], weight: float, window: int = 3,
                         decay: float = 0.6, segments: Sequence[object] | None = None) -> list[float]:
    """Let each item inherit part of the strongest score at each distance up to ``window``.

    Conversations stay on a topic for a few turns: the answer often sits a turn or
    two from the one that repeats the question's words ("Where did you go?" /
    "To the lake"). At distance d an item gains ``weight * decay**(d-1)`` times the
    better of its two neighbours at that distance. With ``segments`` (e.g. each turn's
    day), nothing spreads across a segment boundary: a new session is a new topic.
    """
    n = len(scores)
    out = list(scores)
    for d in range(1, window + 1):
        w = weight * decay ** (d - 1)
        for i in range(n):
            left = scores[i - d] if i >= d else 0.0
            right = scores[i + d] if i + d < n else 0.0
            if segments is not None:
                if left and segments[i - d] != segments[i]:
                    left = 0.0
                if right and segments[i + d] != segments[i]:
                    right = 0.0
            out[i] += w * (left if left > right else right)
    return out


def specificity(query: str, texts: Sequence[str], candidates: Sequence[int], *,
                growing: int | None = None) -> dict[int, float]:
    """0..1 for each text in ``candidates``: the IDF of its rarest content term that the query does
    not hold, relative to a term found once. A turn that states something (a value, a named
    thing: "is a head chef", "adopted a husky") holds a word few other turns hold; the turns that
    merely mention the same person ("had lunch with my colleague") are made of common words.
    Numbers count like words (an age of 63 is rare, a minute of a time prefix is not); CJK
    unigrams and bigrams that touch a query character (the edge of a name: "虹是") do not."""
    if not candidates:
        return {}
    scorer = scorer_for(texts, growing)
    qterms = set(query_terms(query)) | set(index_terms(query))
    qchars = {c for t in qterms for c in t if is_cjk(c)}
    top = bm25_idf(scorer.n, 1) or 1.0
    idf: dict[str, float] = {}
    out: dict[int, float] = {}
    for i in candidates:
        best = 0.0
        for t in scorer._tf(i):
            kind = _specific_kind_cached(t) if len(t) <= CACHED_WORD_CHARS else _kind_of(t)  # inlined: hot
            if not kind or t in qterms or (kind == 2 and not qchars.isdisjoint(t)):
                continue
            v = idf.get(t)
            if v is None:
                v = idf[t] = scorer.idf(t)
            if v > best:
                best = v
        out[i] = best / top
    return out


@lru_cache(maxsize=200_000)
def _specific_kind_cached(term: str) -> int:
    return _kind_of(term)


def _kind_of(term: str) -> int:
    """0: never counts for specificity (question word, particle bigram, CJK unigram); 2: a CJK
    bigram (left out when it touches a query character); 1: any other term. Cached for terms up to
    CACHED_WORD_CHARS long (the cache's keys stay small)."""
    if not is_content_term(term):
        return 0
    if is_cjk(term[0]):
        return 2 if len(term) >= 2 else 0
    return 1
