"""Words of the question that only spell out who its person is, where a name names them already.

"我大学同学陈静个子多高？" / "How tall is my friend Ben?": the history's chatty turns repeat the whole
phrase ("我大学同学陈静说周末要来我家玩。") and outrank the fact turn that names the person alone
("陈静身高184厘米。"). The relation ("大学同学", "friend") is shared by several people: where the tail of
the question's stretch names its entity (see context.select.signals.stretches), a turn holding the relation as well is
no better evidence of that person. Such words count scoring.IMPLIED_WEIGHT as much, and the signals that
read the question's wording (proximity of its words in order) read it without them.
"""

from __future__ import annotations

from collections.abc import Sequence

from notes_store.analysis.analyzer import is_cjk

from .stretches import Statements, holds, is_function, join_tokens, question_tokens, statements
from ..relevance import terms_of
from ...stopping import checked

# A word of an entity's stretch outside its tail only spells the entity out when at least this many times as
# many turns hold it as hold the tail.
IMPLIED_RATIO = 3.0

# A tail after these belongs to what stands before it ("X的女儿", "X's son"): the stretch is not spelled out.
_OWNERS = frozenset(("的", "'s", "’s", "之"))


def implied_terms(query: str, texts: Sequence[str], history: int) -> set[str]:
    """The terms of ``spelled_out``."""
    return spelled_out(query, texts, history)[0]


def spelled_out(query: str, texts: Sequence[str], history: int, *,
                turns: Statements | None = None) -> tuple[set[str], str]:
    """Terms of the question that only spell out who its entity is, where the stretch's tail names it
    already ("大学同学" of "我大学同学陈静", "friend" of "my friend Ben"). Such a word is shared by several
    entities (IMPLIED_RATIO times as many turns hold it as hold the tail); a word the rest of the
    question holds stays, and so does an owner ("对门那家的" of "对门那家的女儿": the tail is theirs, not
    a name). Returns those terms, and the question with the words that spell the entities out cut from
    it (a break in their place), for the signals that read the question's wording. ``turns``: the
    statements of the first ``history`` texts, when the caller read them already."""
    if history < 20:
        return set(), query
    turns = statements(texts, history, turns)
    bodies = turns.bodies
    toks = question_tokens(query)
    out: set[str] = set()
    kept: set[str] = set()
    covered: set[int] = set()
    cut: set[int] = set()
    for a, b in turns.spans(query):
        covered.update(range(a, b))
        start = turns.name_tail(query, a, b)
        whole = set(terms_of(join_tokens(toks[a:b])))
        if start is None or start == a or toks[start - 1] in _OWNERS:
            kept.update(whole)
            continue
        tail_text = join_tokens(toks[start:b])
        tail = set(terms_of(tail_text))
        common = IMPLIED_RATIO * sum(1 for x in checked(bodies) if holds(x, tail_text))
        # The prefix's words (English words, CJK bigrams), counted in the turns' statements.
        pre = toks[a:start]
        units = [t for t in pre if not is_cjk(t[0]) and not is_function(t)] + \
            [x + y for x, y in zip(pre, pre[1:]) if is_cjk(x) and is_cjk(y)]
        shared = [u for u in units if sum(1 for x in checked(bodies) if holds(x, u)) >= common]
        words = {t for u in shared for t in terms_of(u)} - tail
        if not words:
            kept.update(whole)
            continue
        # The bigram joining the prefix to the tail ("学陈") spells the same out.
        if shared and is_cjk(toks[start - 1]) and is_cjk(toks[start]) and shared[-1] == join_tokens(pre[-2:]):
            words.add(toks[start - 1] + toks[start])
        kept.update(whole - words)
        out |= words
        cut.update(range(a, start))
    rest = [t for k, t in enumerate(toks) if k not in covered]
    kept.update(terms_of(join_tokens(rest)))
    if not out - kept:
        return set(), query
    return out - kept, join_tokens([" / " if k in cut else t for k, t in enumerate(toks)])
