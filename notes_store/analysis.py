"""Text analysis shared by the index and the context builder.

English words are lower-cased, stop-word filtered and stemmed (Porter2). Runs of
CJK characters have no spaces between words, so they are indexed as overlapping
character bigrams plus single characters: a word such as ``重构`` is then found
inside ``已完成数据模型层的重构`` with no dictionary to load (jieba costs ~1 s to
load and ~9 ms per page; bigrams cost microseconds and find every substring of
two or more characters).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from collections.abc import Iterator

from whoosh.analysis import LowercaseFilter, StemFilter, StopFilter, Token, Tokenizer
from whoosh.lang.porter2 import stem as _porter2_stem

CJK_CHARS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
TOKEN_RE = re.compile(rf"(?P<cjk>[{CJK_CHARS}]+)|(?P<word>[^\W_{CJK_CHARS}]+)")


def is_cjk(term: str) -> bool:
    """True for a term made of CJK characters (a unigram or bigram of a CJK run)."""
    m = TOKEN_RE.fullmatch(term)
    return m is not None and m.group("cjk") is not None


class MixedTokenizer(Tokenizer):
    """Words for alphabetic scripts, unigrams + bigrams for CJK runs.

    Positions: a CJK bigram shares the position of its first character's
    unigram, so a phrase of consecutive bigrams matches consecutive positions.
    In ``mode="query"`` a CJK run yields only its bigrams (or the single
    character of a one-character run): a query word must match as a whole.
    """

    def __call__(self, value: str, positions: bool = False, chars: bool = False,
                 keeporiginal: bool = False, removestops: bool = True,
                 start_pos: int = 0, start_char: int = 0, tokenize: bool = True,
                 mode: str = "", **kwargs) -> Iterator[Token]:
        t = Token(positions, chars, removestops=removestops, mode=mode, **kwargs)
        pos = start_pos
        query = mode == "query"
        for m in TOKEN_RE.finditer(value):
            run = m.group("cjk")
            if run is None:
                yield _fill(t, m.group(0), pos, start_char + m.start(), start_char + m.end(),
                            positions, chars, keeporiginal)
                pos += 1
                continue
            base = start_char + m.start()
            n = len(run)
            for i in range(n):
                if not query or n == 1:
                    yield _fill(t, run[i], pos, base + i, base + i + 1, positions, chars, keeporiginal)
                if i + 1 < n:
                    yield _fill(t, run[i:i + 2], pos, base + i, base + i + 2, positions, chars, keeporiginal)
                pos += 1


def _fill(t: Token, text: str, pos: int, start: int, end: int,
          positions: bool, chars: bool, keeporiginal: bool) -> Token:
    t.text = text
    t.boost = 1.0
    t.stopped = False
    if keeporiginal:
        t.original = text
    if positions:
        t.pos = pos
    if chars:
        t.startchar = start
        t.endchar = end
    return t


def stem_word(word: str) -> str:
    """English stemming (Porter2: ``running`` -> ``run``); other scripts pass through."""
    return _porter2_stem(word)


def make_analyzer():
    """The analyzer used for every text field of the index."""
    return (MixedTokenizer() | LowercaseFilter() | StopFilter(minsize=1, renumber=False)
            | StemFilter(stemfn=stem_word, cachesize=50000))


ANALYZER = make_analyzer()


def index_terms(text: str) -> list[str]:
    """The terms the index stores for ``text`` (CJK unigrams and bigrams included)."""
    return [t.text for t in ANALYZER(text)]


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


def query_units(query: str) -> list[QueryUnit]:
    """Split a user query into units: plain words, ``"quoted phrases"``, CJK words."""
    units: list[QueryUnit] = []
    pieces: list[tuple[str, bool]] = []
    last = 0
    for m in _QUOTED_RE.finditer(query):
        pieces.append((query[last:m.start()], False))
        pieces.append((m.group(1), True))
        last = m.end()
    pieces.append((query[last:], False))
    for text, quoted in pieces:
        if quoted:
            terms = tuple(t.text for t in ANALYZER(text, mode="query"))
            if terms:
                units.append(QueryUnit(terms))
            continue
        for m in TOKEN_RE.finditer(text):
            terms = tuple(t.text for t in ANALYZER(m.group(0), mode="query"))
            if terms:
                units.append(QueryUnit(terms))
    return units


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
