"""BM25's two constants, in one place for the index's ranker and the context builder's scorer.

``K1`` bounds how much repeating a word raises a score (term-frequency saturation);
``B`` says how strongly long texts are normalised towards the average length.
These are the textbook values (Robertson & Zaragoza) that Lucene and Whoosh also use.
"""

from __future__ import annotations

import math
from typing import Final

K1: Final = 1.2
B: Final = 0.75


def idf(n_docs: int, df: int) -> float:
    """BM25's inverse document frequency (the "+1" form: never negative)."""
    return math.log(1 + (n_docs - df + 0.5) / (df + 0.5)) if df else 0.0


def tf_part(tf: float, length: float, avg_length: float) -> float:
    """BM25's saturated, length-normalised term-frequency part of one term's score."""
    return tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / (avg_length or 1.0)))
