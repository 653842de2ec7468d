"""Turns that do not name the question's person.

"何哥空闲时间喜欢干嘛？": the question's other words ("空闲时间") are said of everyone ("邻居说最近太忙，
空闲时间都没了。"), and those turns match more of the question than the person's own fact ("我客户何哥的
爱好是打台球。"), which holds only the name. A question about one person is answered in that person's
turns: a turn that does not name the person counts COVERAGE_WEIGHT as much.

From the text alone: the person is the first stretch the history holds word for word (see
context.select.signals.stretches) of the clause that asks, by its shortest tail that names it, when at most MAX_SHARE
of the turns hold that tail (a word in every other turn names no one in particular); a comparison's
two people are both covered. A turn that refers back to a turn naming the person ("He is 5 foot 5.")
names the person too. In a conversation of several speakers a speaker is never that person: their own
turns say "I", not their name ("What did Aiko bake?" sets no turn back); someone they talk about is
("How did Mochi recover after the accident?").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .links import REFERS_BACK
from .stretches import POSSESSIVES, Statements, holds, is_function, join_tokens, named_pair, names_of, question_tokens, \
    statements
from notes_store.analysis.analyzer import QUESTION_TERMS, is_cjk

# A turn that does not name the question's person counts this much. 0.5 (dev, 1k/2k/4k, before the prefix
# fix of context.select.signals.stamps): zh-memlog-hard 0.798/0.919/0.958 -> 0.825/0.919/0.961, en-memlog-hard 0.858/0.909 -> 0.873/0.924,
# zh-memlog 0.903 -> 0.915 at 1k, en-daily 0.732/0.806 -> 0.747/0.817, zh-daily 0.815/0.866/0.911 ->
# 0.810/0.881/0.940, zh-diary level (0.679/0.807 -> 0.687/0.799); zh-lifelog dev 0.616/0.700 -> 0.629/0.733.
COVERAGE_WEIGHT = 0.5
# The person's tail names someone in particular when at most this share of the turns hold it.
MAX_SHARE = 0.05

# A clause that refers back with a pronoun asks of the lead's person (as context.select.signals.asides reads it): dev en-written
# 1k/2k 0.813/0.877 -> 0.815/0.880, every other dev set the same.
LEAD_BY_PRONOUN = True
_CLAUSE_END = re.compile(r"[,，;；:：.。!！?？]")


def _asking_clause(toks: list[str]) -> tuple[int, int]:
    """Token range of the clause that ends with the question mark (the whole question when none
    does): "Someone at the meeting asked me, what pet does my coworker Priya have?" asks of Priya."""
    end = next((k for k, t in enumerate(toks) if t in "?？"), len(toks))
    start = max((k + 1 for k, t in enumerate(toks[:end]) if _CLAUSE_END.fullmatch(t)), default=0)
    return start, end


def _trim(toks: list[str], span: tuple[int, int], names: set[str]) -> tuple[int, int] | None:
    """The span without question words at its ends ("which phone" -> "phone"); None when what is left
    is one word that is neither a name nor owned ("my uncle"): no one in particular."""
    a, b = span
    while a < b and toks[a] in QUESTION_TERMS:
        a += 1
    while b > a and toks[b - 1] in QUESTION_TERMS:
        b -= 1
    if b - a == 1 and (a, b) != span and not (toks[a] in names or (a > 0 and toks[a - 1] in POSSESSIVES)):
        return None
    return (a, b) if a < b else None


def _people(toks: list[str], spans: list[tuple[int, int]], names: set[str]) -> list[tuple[int, int]]:
    """The spans naming whom the question asks of: a comparison's two, else the asking clause's first."""
    spans = [t for s in spans if (t := _trim(toks, s, names)) is not None]
    pair = named_pair(toks, spans)  # "Between my barber and Felix, who is taller?": before the asking clause
    if pair:
        return pair
    start, end = _asking_clause(toks)
    first = next((s for s in spans if start <= s[0] and s[1] <= end), None)
    if first is None and LEAD_BY_PRONOUN and any(REFERS_BACK.fullmatch(t) for t in toks[start:end]):
        # "What did Mochi go through, and how did he recover?": the clause asks of the lead's person, when
        # the lead names one ("My brother Tom introduced me to Anna; what does she do?" names two).
        lead = [s for s in spans if s[1] <= start and _names_someone(toks, 0, s, names)]
        named = [s for s in lead if any(t in names for t in toks[s[0]:s[1]])]  # Mochi, not "his accident"
        if len(named or lead) == 1:
            start, first = 0, (named or lead)[0]
    return [first] if first is not None and _names_someone(toks, start, first, names) else []


def _names_someone(toks: list[str], start: int, span: tuple[int, int], names: set[str]) -> bool:
    """The span is who the clause asks of, not what: a Chinese clause opens with its person (only
    function words before it: "我那个", "你还记得我"); an English one names them ("my coworker Priya",
    "my uncle"). "空闲时间" of "何哥空闲时间喜欢干嘛？", when 何哥 is too rare to be a stretch, is not."""
    a, b = span
    if is_cjk(toks[a][0]):
        return all(is_function(t) for t in toks[start:a])
    return (a > 0 and toks[a - 1] in POSSESSIVES) or any(t in names for t in toks[a:b])


# What follows a person in the history's statements: they own things and they say things.
_OWNS_OR_SAYS = ("的", "说")


def _is_someone(tail: str, bodies: Sequence[str], holders: list[int]) -> bool:
    """A Chinese tail names a person when some statement has them own or say something ("小姨的手机",
    "何哥说"): "平时", "记得", "手机" open a question's clause without being anyone."""
    if not is_cjk(tail[-1]):
        return True
    return any(tail + w in bodies[i] for i in holders for w in _OWNS_OR_SAYS)


def _holders(toks: list[str], a: int, b: int, bodies: Sequence[str], most: float) -> list[int]:
    """The turns holding the shortest tail of toks[a:b] that at most ``most`` turns hold (a word, or two
    CJK characters at least: "袁野" of "叔叔袁野", "andre" of "coworker andre"); [] when none does."""
    for start in range(b - 1, a - 1, -1):
        tail = join_tokens(toks[start:b])
        if len(tail) < 2:
            continue
        holders = [i for i, x in enumerate(bodies) if holds(x, tail)]
        if len(holders) <= most:
            return holders
    return []


def uncovered_turns(query: str, texts: Sequence[str], history: int, ante: Sequence[int],
                    speakers: Sequence[str] = (), *, turns: Statements | None = None) -> list[int]:
    """History turns (of the first ``history`` texts) that do not name the person the question asks of;
    ``ante``: links.antecedents of those turns (a pronoun turn names whom its antecedent names);
    ``speakers``: the names of a conversation's speakers, whose turns say "I", not their name;
    ``turns``: the statements of those texts, when the caller read them already."""
    if history < 20:
        return []
    turns = statements(texts, history, turns)
    bodies = turns.bodies
    toks = [re.sub(r"['’]s$", "", t) for t in question_tokens(query)]
    spans = turns.spans(query)
    if not spans:
        return []
    chosen = _people(toks, spans, names_of(query))
    held: set[int] = set()
    most = MAX_SHARE * history
    said_by = {w.lower() for s in speakers for w in s.split()}
    for a, b in chosen:
        if said_by & set(toks[a:b]):
            return []
        holders = _holders(toks, a, b, bodies, most)
        if not holders or not _is_someone(join_tokens(toks[a:b]), bodies, holders):
            return []
        held.update(holders)
    if not held:
        return []
    return [i for i in range(history) if i not in held and ante[i] not in held]
