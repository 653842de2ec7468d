"""Near-duplicate detection in about linear time: exact text hashes plus prefix filtering.

Two items are near-duplicates when their normalised texts are equal, or when their term sets
overlap by at least ``JACCARD`` (both saying something: ``MIN_TERMS`` terms or more). Comparing
every pair is quadratic (8,000 turns took 30-42 s). Prefix filtering finds the same pairs
without that: order every set's terms rarest first; two sets with Jaccard >= t must share a term
among the first ``|x| - ceil(t*|x|) + 1`` of each. Only those few rare terms are indexed, so a
lookup meets a handful of candidates, each checked exactly. ``MAX_CANDIDATES`` bounds the checks
per lookup so a pathological input stays linear.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import chain

JACCARD = 0.8
MIN_TERMS = 4
MAX_CANDIDATES = 64


class NearDuplicates:
    """Remembers the items added so far and answers "which of them is this a near-duplicate of?"."""

    def __init__(self, all_term_sets: Iterable[frozenset[str]]) -> None:
        # Rarity over every candidate (added or not) gives the global order prefixes use.
        self._df: Counter[str] = Counter(chain.from_iterable(all_term_sets))
        self._by_text: dict[str, int] = {}
        self._prefix_index: dict[str, list[int]] = {}
        self._sets: list[frozenset[str]] = []
        self._texts: list[str] = []

    def _prefix(self, terms: frozenset[str]) -> Sequence[str]:
        ordered = sorted(terms, key=lambda t: (self._df.get(t, 0), t))
        keep = len(ordered) - math.ceil(JACCARD * len(ordered)) + 1
        return ordered[:keep]

    def find(self, text: str, terms: frozenset[str], same_text_counts: bool = True) -> int | None:
        """The handle of an added near-duplicate of (text, terms), or None. With
        ``same_text_counts`` False an item with the very same text is not a duplicate."""
        if same_text_counts:
            same = self._by_text.get(text)
            if same is not None:
                return same
        if len(terms) < MIN_TERMS:
            return None
        checked = 0
        seen: set[int] = set()
        for term in self._prefix(terms):
            for h in self._prefix_index.get(term, ()):
                if h in seen or (not same_text_counts and self._texts[h] == text):
                    continue
                seen.add(h)
                other = self._sets[h]
                small, large = min(len(terms), len(other)), max(len(terms), len(other))
                if small >= MIN_TERMS and small >= JACCARD * large:
                    if len(terms & other) / len(terms | other) >= JACCARD:
                        return h
                checked += 1
                if checked >= MAX_CANDIDATES:
                    return None
        return None

    def add(self, text: str, terms: frozenset[str], handle: int) -> None:
        """Register an item under ``handle`` (the caller's index of it)."""
        while len(self._sets) <= handle:
            self._sets.append(frozenset())
            self._texts.append("")
        self._sets[handle] = terms
        self._texts[handle] = text
        self._by_text.setdefault(text, handle)
        if len(terms) >= MIN_TERMS:
            for term in self._prefix(terms):
                self._prefix_index.setdefault(term, []).append(handle)
