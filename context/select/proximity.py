"""Proximity: how long a run of the query's words a text holds in the query's order.

BM25 sees bags of terms; "我叔叔是厨师长" and "我叔叔说最近工作太累了" both hold 叔叔. The
question "我叔叔是做什么工作的" shares the run 我叔叔是 with the first and only 我叔叔 with the
second. Runs are found on units (one per CJK character, one per stemmed word), so Chinese runs
of bigrams and English phrases are measured alike, and a run only counts when it holds a
content term (a run of particles says nothing).
"""

from __future__ import annotations

from collections.abc import Sequence

from notes_store.analysis.analyzer import CACHED_WORD_CHARS, TOKEN_RE, is_content_term, stem_word

from notes_store.bounded_cache import TEXT_CACHE_CHARS, BoundedCache

_units_cache: BoundedCache[str, str] = BoundedCache(TEXT_CACHE_CHARS, 100_000)
_word_codes: dict[str, str] = {}
_code_words: dict[str, str] = {}
_raw_codes: dict[str, str] = {}      # a word as written -> its code (skips stemming it again)
_PRIVATE_USE = 0xF0000  # plane 15: words become one code point each, never a CJK character
MAX_QUERY_UNITS = 64


MAX_CODES = 60_000
MAX_CODED_CHARS = 2_000_000   # the words coded, added up: a client's words may be any length
_coded_chars = 0
_generation = 0    # how many times the codes started again (units of different generations do not compare)


def _code(word: str) -> str:
    global _coded_chars, _generation
    code = _word_codes.get(word)
    if code is None:
        if len(_word_codes) >= MAX_CODES or _coded_chars > MAX_CODED_CHARS:
            # Codes are only compared within one call's units, so all of them start again together.
            _word_codes.clear()
            _code_words.clear()
            _raw_codes.clear()
            _units_cache.clear()
            _coded_chars = 0
            _generation += 1
        _coded_chars += len(word)
        code = chr(_PRIVATE_USE + len(_word_codes))
        _word_codes[word] = code
        _code_words[code] = word
    return code


def units(text: str) -> str:
    """The text as a string of units: CJK characters as they are, each word as one code point."""
    def coded() -> str:
        out = []
        for m in TOKEN_RE.finditer(text):
            run = m.group("cjk")
            if run is not None:
                out.append(run)
            else:
                word = m.group(0)
                code = _raw_codes.get(word)
                if code is None:
                    code = _code(stem_word(word.lower()))
                    if len(word) <= CACHED_WORD_CHARS:
                        _raw_codes[word] = code
                out.append(code)
            out.append(" ")  # a break between tokens: runs never cross punctuation or spaces
        return "".join(out)

    def compute() -> str:
        # When the codes start again while this text is coded, its first words hold old codes: code it
        # again (once: a text whose own words fill the table stays mixed, and proximity() sees the change).
        generation = _generation
        found = coded()
        return found if generation == _generation else coded()
    return _units_cache.get_or_compute(text, compute)


def _has_content(run: str) -> bool:
    for i, c in enumerate(run):
        if ord(c) >= _PRIVATE_USE:
            if is_content_term(_code_words.get(c, "")):
                return True
        elif i + 1 < len(run) and ord(run[i + 1]) < _PRIVATE_USE and is_content_term(run[i:i + 2]):
            return True
    return False


def proximity(query: str, texts: Sequence[str], candidates: Sequence[int]) -> dict[int, float]:
    """0..1 for each text index in ``candidates``: its longest in-order run of query units
    (that holds a content term) minus one, relative to the best candidate's; others are 0."""
    # The query's and the candidates' units must come from one generation of codes: when coding the
    # candidates starts the codes again, the query's codes would name other words. Read them again
    # once; a call whose own words fill the code table twice gets no proximity (bounded work).
    for _attempt in range(2):
        generation = _generation
        q = units(query)[: MAX_QUERY_UNITS * 2]
        seen = [units(texts[i]) for i in candidates]
        if generation == _generation:
            break
    else:
        return {}
    pieces = [p for p in q.split(" ") if p]
    if not pieces:
        return {}
    # Word units are one code point each: join consecutive words so phrases count as runs.
    joined = "".join(pieces) if all(len(p) == 1 for p in pieces) else None
    sources = [joined] if joined else pieces
    if max(len(s) for s in sources) < 2:
        return {}
    out: dict[int, float] = {}
    for i, u in zip(candidates, seen):
        t = u.replace(" ", "") if joined else u
        best = 0
        for src in sources:
            lo, hi = best, len(src)
            # Binary search the longest substring of src found in t (a run of L implies one of L-1).
            while lo < hi:
                mid = (lo + hi + 1) // 2
                if any(src[k:k + mid] in t for k in range(len(src) - mid + 1)):
                    lo = mid
                else:
                    hi = mid - 1
            if lo > best and lo >= 2 and any(src[k:k + lo] in t and _has_content(src[k:k + lo])
                                            for k in range(len(src) - lo + 1)):
                best = lo
        if best >= 2:
            out[i] = best - 1.0
    # Relative to the best run found: the longest match among the candidates is the reference.
    top = max(out.values(), default=0.0)
    return {i: v / top for i, v in out.items()} if top > 0 else out
