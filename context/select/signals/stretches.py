"""The question's stretches: parts of it the history holds word for word, and the statements they are found in.

Shared by the signals that look for the question's people in the history's statements (``entities``,
``spelled``, ``owners``, ``coverage``; ``hop`` reads names the same way):

- the question's tokens (words, CJK characters, punctuation; its first MAX_QUESTION_TOKENS only), joined
  back with spaces between words and none between CJK characters, and held by a statement as a whole word;
- a stretch grows while the last three tokens occur at least MIN_HOLDERS times in the turns, and stops at
  punctuation and at stop words ("and", "or"); function words at its ends are cut ("我", "my");
- a comparison's two entities are the question's first two stretches when only function words, one of
  them joining, stand between them ("X和我Y", "X or my Y");
- an entity's turns hold its shortest tail that is a name, or that is not much more common than the
  whole stretch ("陈静", "嫂子的男朋友", "Ben").

``Statements`` reads the turns once per build: each turn's statement (``stamps.body_of``, lowercased) and
the question's stretches in them, for every signal that asks.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from notes_store.analysis.analyzer import _CJK_FUNCTION_CHARS, STOP_WORDS, is_cjk

from .stamps import body_of
from ...stopping import checked

# A tail names the entity when at most this many times as many turns hold it as hold the whole stretch,
TAIL_RATIO = 2.0
# ... or when at most this share of the turns hold it (a name said alone in many turns).
TAIL_SHARE = 0.03
# A stretch grows by a token only where the last three occur at least this many times in the history.
MIN_HOLDERS = 3

# The question's words these signals read: each span costs a pass over the history, so a long query
# (a pasted page) must not cost a pass per word. A question names its people within its first words.
MAX_QUESTION_TOKENS = 40

_TOKEN = re.compile(r"[a-z0-9]+(?:['’-][a-z0-9]+)*|[\u3400-\u9fff]|[^\sa-z0-9\u3400-\u9fff]")
# A capitalised word inside a sentence (not the first of the text or of a sentence): a name.
CAPITALISED = re.compile(r"(?<![.!?。！？]\s)(?<!^)\b([A-Z][a-z]+)\b")

# Words that join the two people of a comparison ("X和我Y", "X or my Y").
JOINING_WORDS = frozenset(("和", "与", "跟", "及", "and", "or"))
# Possessives join a relation word to the speaker (like 我 among the CJK function characters).
POSSESSIVES = frozenset(("my", "our", "his", "her", "their", "its"))
# 跟 joins two people as 和 and 与 do (the analyzer's function characters lack it).
CONNECTORS = frozenset("跟")

Span = tuple[int, int]


def question_tokens(text: str) -> list[str]:
    """The question's first MAX_QUESTION_TOKENS tokens (words, CJK characters, punctuation)."""
    out: list[str] = []
    for m in _TOKEN.finditer(text.lower()):
        if len(out) >= MAX_QUESTION_TOKENS:
            break
        out.append(m.group(0))
    return out


def join_tokens(tokens: Sequence[str]) -> str:
    """Tokens as text: a space between words, none between CJK characters."""
    out = ""
    for t in tokens:
        if out and not (is_cjk(t[0]) and is_cjk(out[-1])):
            out += " "
        out += t
    return out


def holds(body: str, phrase: str) -> bool:
    """``body`` holds ``phrase``, as whole words where it begins or ends with one."""
    if phrase in body:
        if phrase[0].isascii() or phrase[-1].isascii():
            return re.search(rf"(?<![a-z0-9]){re.escape(phrase)}(?![a-z0-9])", body) is not None
        return True
    return False


def names_of(query: str) -> set[str]:
    """Capitalised words inside the question's sentences, lowercased: names."""
    return {w.lower() for w in CAPITALISED.findall(query)}


def breaks(token: str) -> bool:
    """Punctuation, and an English word of the stop list other than a possessive ("and", "or"): two
    entities meet there."""
    return not (token[0].isalnum() or is_cjk(token[0])) or token in STOP_WORDS


def is_function(token: str) -> bool:
    """A function word: a CJK function character, an English stop word, a possessive or a connector."""
    return token in _CJK_FUNCTION_CHARS or token in STOP_WORDS or token in POSSESSIVES or token in CONNECTORS


def entity_spans(query: str, bodies: Sequence[str]) -> list[Span]:
    """Token spans [a, b) of the question that the history holds word for word (see the module)."""
    return _spans(question_tokens(query), names_of(query), "\n".join(bodies))


def _spans(toks: Sequence[str], names: set[str], joined: str) -> list[Span]:
    spans: list[Span] = []
    k = 0
    while k < len(toks):
        end = k + 1
        while end < len(toks) and not breaks(toks[end - 1]):
            lo = max(k, end - 2)
            if breaks(toks[end]) or joined.count(join_tokens(toks[lo:end + 1])) < MIN_HOLDERS:
                break
            end += 1
        a, b = k, end
        while a < b and is_function(toks[a]):
            a += 1
        while b > a and is_function(toks[b - 1]):
            b -= 1
        single = b - a == 1 and (toks[a] in names or (a > 0 and toks[a - 1] in POSSESSIVES))
        if b - a >= 2 or single:
            spans.append((a, b))
        k = end
    return spans


def named_pair(toks: Sequence[str], spans: list[Span]) -> list[Span]:
    """The question's first two stretches when only function words stand between them ("X和我Y", "X or
    my Y"): the two entities compared; any stretch after them is what is asked ("个子")."""
    if len(spans) < 2:
        return []
    (a1, b1), (a2, b2) = spans[:2]
    gap = toks[b1:a2]
    # A joining word between them: "堂弟有什么爱好" is one person and what is asked, not two people.
    joined = gap and all(is_function(t) for t in gap) and JOINING_WORDS.intersection(gap)
    return [(a1, b1), (a2, b2)] if joined else []


def name_tail(toks: Sequence[str], a: int, b: int, bodies: Sequence[str], names: set[str]) -> int | None:
    """Where the shortest tail of the stretch toks[a:b] that names its entity starts: a name, or a tail
    held by at most TAIL_RATIO times as many turns as the whole stretch (or by TAIL_SHARE of the turns);
    ``a`` when no shorter tail does; None when no turn holds the stretch."""
    whole = join_tokens(toks[a:b])
    n_whole = sum(1 for x in checked(bodies) if holds(x, whole))
    if not n_whole:
        return None
    for start in range(b - 1, a, -1):
        tail = join_tokens(toks[start:b])
        if len(tail) < 2:
            continue
        if tail in names or \
                sum(1 for x in bodies if holds(x, tail)) <= max(TAIL_RATIO * n_whole, TAIL_SHARE * len(bodies)):
            return start
    return a


class Statements:
    """The first ``history`` texts' statements (``body_of``, lowercased), read on first use and once per
    build, and what the signals ask of them about one question: its stretches (``spans``) and where each
    stretch's name starts (``name_tail``), each found once however many signals ask."""

    __slots__ = ("_texts", "_history", "_bodies", "_joined", "_spans", "_tails")

    def __init__(self, texts: Sequence[str], history: int) -> None:
        self._texts = texts
        self._history = history
        self._bodies: list[str] | None = None
        self._joined: str | None = None
        self._spans: dict[str, list[Span]] = {}
        self._tails: dict[tuple[str, int, int], int | None] = {}

    @property
    def bodies(self) -> list[str]:
        if self._bodies is None:
            self._bodies = [body_of(t).lower() for t in self._texts[:self._history]]
        return self._bodies

    def spans(self, query: str) -> list[Span]:
        """``entity_spans(query, self.bodies)``."""
        found = self._spans.get(query)
        if found is None:
            if self._joined is None:
                self._joined = "\n".join(self.bodies)
            found = self._spans[query] = _spans(question_tokens(query), names_of(query), self._joined)
        return list(found)

    def name_tail(self, query: str, a: int, b: int) -> int | None:
        """``name_tail`` of the stretch [a, b) of ``query``'s tokens over these statements."""
        key = (query, a, b)
        if key not in self._tails:
            self._tails[key] = name_tail(question_tokens(query), a, b, self.bodies, names_of(query))
        return self._tails[key]


def statements(texts: Sequence[str], history: int, turns: Statements | None) -> Statements:
    """``turns`` when the caller read the statements already, else a reading of the first ``history`` texts."""
    return turns if turns is not None else Statements(texts, history)
