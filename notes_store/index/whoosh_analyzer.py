"""The Whoosh adapter of our analyzer: ``analysis.analyze`` as a Whoosh tokenizer.

The analysis itself (folding, stop words, stemming, CJK bigrams, emoji) is ``analyze``; this
module only hands its terms to Whoosh as tokens, so the index and the context builder can
never analyse a text differently.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from whoosh.analysis import Token, Tokenizer

from ..analysis.analyzer import analyze


class MixedTokenizer(Tokenizer):  # type: ignore[misc]  # Whoosh is untyped
    """Every term of ``analyze`` as a Whoosh token (already lower-cased, stopped and stemmed)."""

    def __call__(self, value: str, positions: bool = False, chars: bool = False,
                 keeporiginal: bool = False, removestops: bool = True,
                 start_pos: int = 0, start_char: int = 0, tokenize: bool = True,
                 mode: str = "", **kwargs: Any) -> Iterator[Token]:
        t = Token(positions, chars, removestops=removestops, mode=mode, **kwargs)
        for term in analyze(value, mode="query" if mode == "query" else "index", removestops=removestops):
            t.text = term.text
            t.boost = 1.0
            t.stopped = term.stopped
            if keeporiginal:
                t.original = value[term.start:term.end]
            if positions:
                t.pos = start_pos + term.pos
            if chars:
                t.startchar = start_char + term.start
                t.endchar = start_char + term.end
            yield t


def make_analyzer() -> MixedTokenizer:
    """The analyzer used for every text field of the index."""
    return MixedTokenizer()


ANALYZER = make_analyzer()
