"""Short highlighted extracts of a text around the words a query matched.

Runs on every search hit, so it avoids the full analyzer: words are stemmed
only when their first letters could match a query stem, and CJK query terms
are found with plain substring search. What depends on the query alone (its
Latin and CJK terms, the prefix pattern) is worked out once per query
(``SnippetQuery``), not once per hit.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from ..analysis.analyzer import CACHED_WORD_CHARS, TOKEN_RE, is_cjk, stem_word

MAX_SCAN_CHARS = 8_000

# A search's snippets stem every word they scan: a cache hit here is one C call (~40 ns), where
# stem_word's number check in Python before its own cache costs ~75 ns. Long words are not kept.
_stem = lru_cache(maxsize=50_000)(stem_word)


class SnippetQuery:
    """A query's terms split for snippet cutting: Latin terms (found by prefix, then stemmed) and CJK terms
    (found as substrings); ``key`` identifies the terms (snippet caches are keyed by it)."""

    __slots__ = ("key", "latin", "cjk", "_lowered", "_folded", "_ignorecase")

    def __init__(self, terms: Iterable[str]) -> None:
        self.key = frozenset(terms)
        self.latin = frozenset(t for t in self.key if not is_cjk(t))
        self.cjk = tuple(t for t in self.key if t not in self.latin)
        self._lowered = all(t[:3].lower() == t[:3] for t in self.latin)  # true of analysed terms
        self._folded: re.Pattern[str] | None = None
        self._ignorecase: re.Pattern[str] | None = None

    def candidates(self, text: str) -> Iterable[re.Match[str]]:
        """Where a Latin term's first three characters start, ignoring case, left to right, not overlapping.

        The pattern runs case-sensitively over ``text.lower()`` (three times faster than ``re.IGNORECASE``)
        when lower-casing keeps every offset; else (a character whose lower case is longer, like ``İ``)
        over ``text`` with ``re.IGNORECASE``. The lower-cased search can only miss a place where a
        character equals its query letter by case folding alone (``ſ`` for ``s``), and a word holding
        one never matched: its lower case is not a query term (terms are NFKC-folded).
        """
        low = text.lower() if self._lowered else ""
        if len(low) == len(text):
            if self._folded is None:
                self._folded = _prefix_pattern(self.latin, 0)
            return self._folded.finditer(low)
        if self._ignorecase is None:
            self._ignorecase = _prefix_pattern(self.latin, re.IGNORECASE)
        return self._ignorecase.finditer(text)


@lru_cache(maxsize=256)
def snippet_query(terms: frozenset[str]) -> SnippetQuery:
    """The ``SnippetQuery`` of ``terms`` (shared: a query's hits, and a query asked again)."""
    return SnippetQuery(terms)


def _as_query(terms: set[str] | frozenset[str] | SnippetQuery) -> SnippetQuery:
    return terms if isinstance(terms, SnippetQuery) else snippet_query(frozenset(terms))


def find_matches(text: str, terms: set[str] | frozenset[str] | SnippetQuery,
                 settle: int | None = None) -> list[tuple[int, int]]:
    """Character spans in ``text`` whose analyzed form is one of ``terms``.

    With ``settle``, scanning stops once every term has been seen and ``settle``
    more characters passed without a new one: enough to place a snippet.
    """
    query = _as_query(terms)
    latin = query.latin
    spans: list[tuple[int, int]] = []
    unseen = set(query.key)
    last_new = 0
    for term in query.cjk:  # CJK terms are character pairs: plain substring search
        pos = text.find(term)
        while pos != -1:
            spans.append((pos, pos + len(term)))
            if term in unseen:
                unseen.discard(term)
                last_new = max(last_new, pos)
            pos = text.find(term, pos + 1)
    if latin:
        # Only words starting like a query stem are stemmed; the regex skips the rest in C.
        for hit in query.candidates(text):
            start = hit.start()
            if settle is not None and not unseen and start > last_new + settle:
                break
            if start and _inside_word(text[start - 1]):
                continue  # the prefix sits inside a longer word, not at its start
            m = TOKEN_RE.match(text, start)
            if m is None:  # the prefix is not where a token starts (e.g. punctuation)
                continue
            word = m.group(0).lower()
            term = word if word in latin else _stem(word) if len(word) <= CACHED_WORD_CHARS else stem_word(word)
            if term in latin:
                spans.append((start, m.end()))
                if term in unseen:
                    unseen.discard(term)
                    last_new = max(last_new, start)
    spans.sort()
    return spans


def _inside_word(char: str) -> bool:
    """True when ``char`` belongs to an alphabetic word token (not CJK, space or punctuation)."""
    m = TOKEN_RE.fullmatch(char)
    return m is not None and m.group("word") is not None


def _prefix_pattern(latin: frozenset[str], flags: int) -> re.Pattern[str]:
    # Plain literals only: character classes as large as the CJK ranges make
    # compiling this per-query pattern cost milliseconds.
    prefixes = sorted({t[:3] for t in latin}, key=len, reverse=True)
    return re.compile("|".join(re.escape(p) for p in prefixes), flags)


def make_snippet(text: str, terms: set[str] | frozenset[str] | SnippetQuery, width: int = 180,
                 mark: str = "**") -> str:
    """The ``width``-character window of ``text`` with the most query-word matches, matches marked.

    Falls back to the start of the text when nothing matches (e.g. a title-only hit).
    """
    scan = text[:MAX_SCAN_CHARS]
    spans = find_matches(scan, terms, settle=width) if terms else []
    if not spans:
        flat = " ".join(text[:width * 2].split())
        return flat[:width] + ("…" if len(flat) > width else "")
    lead = width // 3
    best_start, best_count, j = 0, -1, 0
    for i, (start, _end) in enumerate(spans):  # sliding window over match starts
        while spans[j][0] < start - lead:
            j += 1
        k, window_end = i, start - lead + width
        while k + 1 < len(spans) and spans[k + 1][0] < window_end:
            k += 1
        if k - j + 1 > best_count:
            best_count, best_start = k - j + 1, max(0, start - lead)
    end = min(len(scan), best_start + width)
    merged: list[list[int]] = []
    for s, e in spans:
        if s < best_start or e > end:
            continue
        if merged and s <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], e)
        else:
            merged.append([s, e])
    out, pos = [], best_start
    for s, e in merged:
        out.append(scan[pos:s])
        out.append(f"{mark}{scan[s:e]}{mark}")
        pos = e
    out.append(scan[pos:end])
    snippet = " ".join("".join(out).split())
    return ("…" if best_start > 0 else "") + snippet + ("…" if end < len(text) else "")
