"""Turns about someone the question's person owns, not about that person, in logs of one voice.

"我表妹闲下来都做些什么？" / "What does my niece do for fun?": the history speaks of 表妹 and also, often,
of 表妹的爸爸 ("my niece's dad"), another person whose turns all hold the question's word. Those turns
("我表妹的爸爸请我吃了顿饭。") outrank the niece's own fact turn ("表妹一有空就去打乒乓球。"), which shares
nothing else with the question.

From the text alone, with the possessive as the only word of grammar ("的", "'s"):
- the question's people are the tails of its stretches the history holds word for word (see
  context.select.signals.stretches: the last two CJK characters, or the last English word, "表妹", "陈静", "niece");
  one the question itself follows by a possessive ("表妹的爸爸", "陈静的生日") is left alone;
- an owned one is "X的Y" / "X's Y" with the same Y (two CJK characters, or a word) in at least
  MIN_OWNED turns and at least OWNED_SHARE of the turns holding X, and Y none of the question's words:
  a person the history keeps coming back to (an attribute is worded differently each time: "陈静的车是",
  "陈静的车送去"); a function character in Y ("喜欢的菜是") is not a person either;
- a turn that names X only as that owner counts OWNED_WEIGHT (scoring) as much.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from notes_store.analysis.analyzer import _CJK_FUNCTION_CHARS, is_cjk

from .stretches import Statements, holds, question_tokens, statements
from ..relevance import terms_of

# "X的Y" names an owned person when at least this many turns hold it with the same Y ...
MIN_OWNED = 3
# ... and at least this share of the turns holding X.
OWNED_SHARE = 0.2

_OWNED_CJK = "的"
_OWNED_EN = re.compile(r"(?:'s|’s)\s+([a-z]+)")


def _tails(query: str, turns: Statements) -> list[str]:
    """The people the question names: each stretch's last two CJK characters or last English word."""
    toks = question_tokens(query)
    out: list[str] = []
    for a, b in turns.spans(query):
        last = toks[b - 1]
        if is_cjk(last[0]):
            if b - a < 2 or not is_cjk(toks[b - 2][0]):
                continue
            tail = toks[b - 2] + last
        else:
            tail = last
        after = toks[b] if b < len(toks) else ""
        if after in (_OWNED_CJK, "'s", "’s") or after.startswith(("'", "’")):
            continue  # the question asks of what X owns
        out.append(tail)
    return list(dict.fromkeys(out))


def _owned_after(body: str, x: str) -> list[str]:
    """What follows each occurrence of ``x`` in ``body`` as an owned Y ('' where it is not "X的Y")."""
    out: list[str] = []
    start = 0
    while (k := body.find(x, start)) >= 0:
        start = k + len(x)
        rest = body[start:]
        if is_cjk(x[-1]):
            y = rest[1:3] if rest[:1] == _OWNED_CJK else ""
            ok = len(y) == 2 and all(is_cjk(c) for c in y) and _CJK_FUNCTION_CHARS.isdisjoint(y)
            out.append(y if ok else "")
        else:
            if k > 0 and body[k - 1].isalnum():
                continue
            m = _OWNED_EN.match(rest)
            if m is None and rest[:1].isalnum():
                continue  # a longer word holding x
            out.append(m.group(1) if m else "")
    return out


def owned_turns(query: str, texts: Sequence[str], history: int, *,
                turns: Statements | None = None) -> list[int]:
    """History turns (of the first ``history`` texts) that name one of the question's people only as
    the owner of someone else the history keeps naming (see the module). ``turns``: the statements of
    those texts, when the caller read them already."""
    if history < 20:
        return []
    turns = statements(texts, history, turns)
    bodies = turns.bodies
    qterms = set(terms_of(query))
    found: set[int] = set()
    for x in _tails(query, turns):
        holders = [i for i, b in enumerate(bodies) if holds(b, x)]
        if not holders:
            continue
        after = {i: _owned_after(bodies[i], x) for i in holders}
        counts = Counter(y for ys in after.values() for y in set(ys) if y)
        least = max(MIN_OWNED, OWNED_SHARE * len(holders))
        owned = {y for y, c in counts.items() if c >= least and qterms.isdisjoint(terms_of(y))}
        if not owned:
            continue
        for i, ys in after.items():
            if ys and all(y in owned for y in ys):
                found.add(i)
    return sorted(found)

