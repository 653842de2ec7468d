"""Text analysis shared by the index and the context builder: pure functions, no search engine.

Text is folded with NFKC first (full-width ``ｄｅｐｌｏｙ`` is ``deploy``, ``①`` is ``1``).
English words are lower-cased, stop-word filtered and stemmed (Snowball English, PyStemmer). Runs of CJK
characters have no spaces between words, so they are indexed as overlapping character
bigrams plus single characters: a word such as ``重构`` is then found inside
``已完成数据模型层的重构`` with no dictionary to load (jieba costs ~1 s to load and ~9 ms per
page; bigrams cost microseconds and find every substring of two or more characters).
Emoji are kept, one term each, so an emoji-only query finds the notes that hold it.

The Whoosh adapter (``index.whoosh_analyzer.ANALYZER``) wraps ``analyze``; this module never imports Whoosh.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

# The Snowball project's own English stemmer (Porter2's successor), in C: ~1.4 us a word against
# ~8 us for Whoosh's pure-Python Porter2, which was most of the CPU of a cold build over a long history
# of new words. Stemmer objects are not thread-safe: one per thread.
import Stemmer

from .english_forms import BASE_FORM

CJK_CHARS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
# Pictographs, dingbats and symbols that people use as words (🚀, ✅, ☕); variation selectors,
# joiners and skin tones that follow one belong to it.
EMOJI_CHARS = "\u2600-\u27bf\u2b00-\u2bff\U0001f000-\U0001faff"
_EMOJI_TAIL = "\ufe0f\u200d\U0001f3fb-\U0001f3ff"
TOKEN_RE = re.compile(rf"(?P<cjk>[{CJK_CHARS}]+)|(?P<word>[^\W_{CJK_CHARS}]+)"
                      rf"|(?P<emoji>[{EMOJI_CHARS}][{_EMOJI_TAIL}]*)")
# Whoosh's default English stop words: the index has always dropped exactly these.
STOP_WORDS = frozenset(
    "a an and are as at be by can for from have if in is it may not of on or tbd that the this to us "
    "we when will with yet you your".split())


def is_cjk(term: str) -> bool:
    """True for a term made of CJK characters (a unigram or bigram of a CJK run)."""
    m = TOKEN_RE.fullmatch(term)
    return m is not None and m.group("cjk") is not None


def stem_word(word: str) -> str:
    """English stemming (Snowball English: ``running`` -> ``run``; irregular forms first read as their
    base, ``gave`` -> ``give``); other scripts pass through.

    A number is its own stem (the rules all end in letters) and is not cached: a history's
    ids, times and amounts are mostly distinct and would push the words out of the cache. Nor is a
    word longer than CACHED_WORD_CHARS (a run of letters a client sent, not a word of a language),
    so the cache holds at most 50,000 x 40 characters.
    """
    if word.isdigit() and word.isascii():
        return word
    word = BASE_FORM.get(word, word)  # "gave" -> "give" (see english_forms)
    if len(word) > CACHED_WORD_CHARS:
        stemmed: str = _snowball_stem(word)
        return stemmed
    return _stem_cached(word)


CACHED_WORD_CHARS = 40
_stemmers = threading.local()


def _snowball_stem(word: str) -> str:
    stemmer = getattr(_stemmers, "english", None)
    if stemmer is None:
        stemmer = _stemmers.english = Stemmer.Stemmer("english")
        stemmer.maxCacheSize = 0  # its own cache is bounded by count only; ours decide what is kept
    stemmed: str = stemmer.stemWord(word)
    return stemmed


@lru_cache(maxsize=50_000)
def _stem_cached(word: str) -> str:
    stemmed: str = _snowball_stem(word)
    return stemmed


def fold(text: str) -> str:
    """NFKC folding (full-width and compatibility forms to their plain form); ASCII is left as is."""
    return text if text.isascii() else unicodedata.normalize("NFKC", text)


@dataclass(frozen=True)
class Term:
    """One analysed term: its text, position and the span of the original text it came from."""

    text: str
    pos: int
    start: int
    end: int
    stopped: bool = False


def analyze(value: str, *, mode: str = "index", removestops: bool = True) -> Iterator[Term]:
    """The terms of ``value``: folded, lower-cased, stop words dropped, English stemmed.

    Positions: a CJK bigram shares the position of its first character's unigram, so a phrase
    of consecutive bigrams matches consecutive positions. In ``mode="query"`` a CJK run yields
    only its bigrams (or the single character of a one-character run): a query word must match
    as a whole. Stop words keep their position (``stopped``) when ``removestops`` is False.
    """
    pos = 0
    query = mode == "query"
    for m in TOKEN_RE.finditer(value):
        kind = m.lastgroup
        raw = m.group(0)
        if kind == "word":
            word = fold(raw).lower()
            if word in STOP_WORDS:
                if not removestops:
                    yield Term(word, pos, m.start(), m.end(), stopped=True)
            else:
                yield Term(stem_word(word), pos, m.start(), m.end())
            pos += 1
            continue
        if kind == "emoji":
            yield Term(raw.replace("\ufe0f", ""), pos, m.start(), m.end())
            pos += 1
            continue
        run = fold(raw)
        base = m.start()
        n = len(run)
        last = len(raw)
        for i in range(n):
            # Offsets into the original run (folding may change its length: clamp).
            s, e1, e2 = base + min(i, last - 1), base + min(i + 1, last), base + min(i + 2, last)
            if not query or n == 1:
                yield Term(run[i], pos, s, e1)
            if i + 1 < n:
                yield Term(run[i:i + 2], pos, s, e2)
            pos += 1


def index_terms(text: str) -> list[str]:
    """The terms the index stores for ``text`` (CJK unigrams and bigrams included).

    The same terms as ``analyze(text)`` in index mode, in order, built without a ``Term`` per
    term: the context builder analyses every turn of a long history with it, and the objects
    were half the cost. ``tests/test_context_analysis.py`` holds the two to the same output.
    """
    out: list[str] = []
    append = out.append
    for m in TOKEN_RE.finditer(text):
        kind = m.lastgroup
        raw = m.group(0)
        if kind == "word":
            word = fold(raw).lower()
            if word not in STOP_WORDS:
                append(stem_word(word))
        elif kind == "emoji":
            append(raw.replace("\ufe0f", ""))
        else:
            run = fold(raw)
            n = len(run)
            for i in range(n):
                append(run[i])
                if i + 1 < n:
                    append(run[i:i + 2])
    return out


_WORD_TERMS: dict[str, str] = {}  # a word as written -> its term ("" for a stop word)


def index_positions(text: str) -> dict[str, list[int]]:
    """Each term the index stores for ``text`` with its positions, terms in first-seen order.

    The terms and positions of ``analyze(text)`` in index mode, grouped by term, without a ``Term``
    or a Whoosh token per term: the child build processes index every note with it.
    ``tests/test_analysis_positions.py`` holds the two to the same output.
    """
    return _ascii_positions(text) if text.isascii() else _any_positions(text)


def _term_of_word(raw: str, word: str) -> str:
    """The index term of a word as written (``word``: folded, lower case; '' for a stop word), remembered in
    ``_WORD_TERMS`` unless it is long (a note's 1 MiB "word" is not kept; see stem_word)."""
    term = "" if word in STOP_WORDS else stem_word(word)
    if len(raw) <= CACHED_WORD_CHARS:
        if len(_WORD_TERMS) >= 200_000:
            _WORD_TERMS.clear()
        _WORD_TERMS[raw] = term
    return term


def _any_positions(text: str) -> dict[str, list[int]]:
    """``index_positions`` of any text."""
    out: dict[str, list[int]] = {}
    words = _WORD_TERMS
    pos = 0
    for m in TOKEN_RE.finditer(text):
        kind = m.lastgroup
        raw = m.group(0)
        if kind == "word":
            term = words.get(raw)
            if term is None:
                term = _term_of_word(raw, fold(raw).lower())
            if term:
                found = out.get(term)
                if found is None:
                    out[term] = [pos]
                else:
                    found.append(pos)
            pos += 1
        elif kind == "emoji":
            out.setdefault(raw.replace("\ufe0f", ""), []).append(pos)
            pos += 1
        else:
            run = fold(raw)
            n = len(run)
            for i in range(n):
                out.setdefault(run[i], []).append(pos)
                if i + 1 < n:
                    out.setdefault(run[i:i + 2], []).append(pos)
                pos += 1
    return out


# An ASCII text's tokens: its runs of letters and digits (``TOKEN_RE``'s words; no CJK, no emoji, nothing to fold).
_ASCII_WORD_RE = re.compile(r"[A-Za-z0-9]+")


def _ascii_positions(text: str) -> dict[str, list[int]]:
    """``index_positions`` of an ASCII text: its words are ``TOKEN_RE``'s (no CJK, no emoji, nothing to fold),
    found by a plain pattern with no match object per word (a memory of 1 MiB of prose: ~0.1 s instead of
    ~0.18 s; the words are what every memory and note write analyses)."""
    words = _WORD_TERMS
    out: dict[str, list[int]] = {}
    for pos, raw in enumerate(_ASCII_WORD_RE.findall(text)):
        term = words.get(raw)
        if term is None:
            term = _term_of_word(raw, raw.lower())
        if term:
            found = out.get(term)
            if found is None:
                out[term] = [pos]
            else:
                found.append(pos)
    return out


@dataclass(frozen=True)
class QueryUnit:
    """One thing a query asks for: a single term, or a phrase of consecutive terms.

    A quoted phrase and a run of CJK characters (as its bigrams) are phrases.
    """

    terms: tuple[str, ...]

    @property
    def is_phrase(self) -> bool:
        return len(self.terms) > 1


_QUOTED_RE = re.compile(r'"([^"]*)"')


def _quoted_pieces(query: str) -> list[tuple[str, bool]]:
    """The query cut at its ``"quoted phrases"``: (text, quoted) in order, a phrase without its quotes."""
    pieces: list[tuple[str, bool]] = []
    last = 0
    for m in _QUOTED_RE.finditer(query):
        pieces.append((query[last:m.start()], False))
        pieces.append((m.group(1), True))
        last = m.end()
    pieces.append((query[last:], False))
    return pieces


def query_units(query: str) -> list[QueryUnit]:
    """Split a user query into units: plain words, ``"quoted phrases"``, CJK words."""
    units: list[QueryUnit] = []
    for text, quoted in _quoted_pieces(query):
        if quoted:
            terms = tuple(t.text for t in analyze(text, mode="query"))
            if terms:
                units.append(QueryUnit(terms))
            continue
        for m in TOKEN_RE.finditer(text):
            terms = tuple(t.text for t in analyze(m.group(0), mode="query"))
            if terms:
                units.append(QueryUnit(terms))
    return units


# An English clitic after a letter and an apostrophe: "Alice's", "don't", "we'll", "I've", "they're", "I'm", "I'd".
_CLITIC_RE = re.compile(r"(?<=[^\W\d_])['’](?:s|t|ll|ve|re|m|d)\b", re.IGNORECASE)


def without_clitics(query: str) -> str:
    """``query`` without English clitics outside its quoted phrases, for searches that want every word.

    Tokens split at the apostrophe, so "Alice's plan" asked for "alice", "s" and "plan", and a note titled
    "Plan for Alice" without an "'s" anywhere failed the all-words match. The index keeps the clitics, so a
    quoted "Alice's plan" still matches word for word. (build_context's scoring keeps them: there an "s" only
    weighs what its rarity says.)"""
    if "'" not in query and "’" not in query:
        return query
    out = "".join(f'"{text}"' if quoted else _CLITIC_RE.sub("", text) for text, quoted in _quoted_pieces(query))
    return out if TOKEN_RE.search(out) else query


def query_terms(query: str) -> list[str]:
    """All distinct terms of a query, in order (for lexical scoring outside the index)."""
    seen: dict[str, None] = {}
    for unit in query_units(query):
        for term in unit.terms:
            seen.setdefault(term, None)
    return list(seen)


# Words that shape a question but do not say what it is about ("what did we decide about
# the schema?"). The index keeps them (phrases stay searchable); a query drops them when
# it has other words. Chinese: bigrams holding a particle or pronoun straddle word edges.
_QUESTION_WORDS = ("what which who whom whose why how where did do does done doing was were been "
                   "has had would could should might must shall she he her hers his him they them "
                   "their i me my mine our ours any some kind type sort about there than then also its "
                   "into just more most other such only own same so too very ever")
_CJK_FUNCTION_CHARS = set("的了吗呢吧啊么是在有和与及也都就还他她它们我你什怎哪谁")
QUESTION_TERMS = frozenset(t for w in _QUESTION_WORDS.split() for t in index_terms(w))


def is_content_term(term: str) -> bool:
    """False for question words and for CJK bigrams that hold a particle or pronoun."""
    return _is_content_cached(term) if len(term) <= CACHED_WORD_CHARS else _is_content(term)


@lru_cache(maxsize=100_000)
def _is_content_cached(term: str) -> bool:
    return _is_content(term)


def _is_content(term: str) -> bool:
    if term in QUESTION_TERMS:
        return False
    return not (term and all("\u3400" <= c <= "\u9fff" for c in term)
                and any(c in _CJK_FUNCTION_CHARS for c in term))


def content_units(units: list[QueryUnit]) -> list[QueryUnit]:
    """The units that say what a query is about; all of them if none would remain.

    Phrases are kept whole (a quoted phrase means exactly those words).
    """
    kept = [u for u in units if u.is_phrase or is_content_term(u.terms[0])]
    return kept or units
