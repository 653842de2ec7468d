"""Select: score candidates and pick whole packets under layered per-source budgets.

score = relevance_weight * relevance + recency_weight * recency
        + importance_weight * importance + source priority (+ a bonus for the newest turns)

Each source has a minimum share of the budget it gets first (when it has
candidates) and a maximum share it may not exceed while other sources still
want room, so one long source cannot starve the others. Items are never cut:
one that does not fit is skipped, or shortened visibly by the compress stage.
"""

from __future__ import annotations

import heapq
from collections import Counter
import re
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from functools import lru_cache
from itertools import compress
from collections.abc import Callable, Sequence


from notes_store.bounded_cache import TEXT_CACHE_CHARS, BoundedCache, cached_by_size
from .. import packets as P
from ..packets import Packet
from .dedup import NearDuplicates
from .signals.links import antecedents, asks, link_structure, same_speaker, speaker_of, spread_along_links
from .signals.hop import second_hop
from .signals.storyline import storyline_hop
from .signals.entities import lift_entity_facts
from .signals.owners import owned_turns
from .signals.coverage import uncovered_turns, COVERAGE_WEIGHT
from .signals.asides import ASIDE_WEIGHT, aside_terms
from .signals.when import UNTIMED_WEIGHT, untimed_turns
from .signals.spelled import spelled_out
from .proximity import proximity
from .signals.days import lift_by_session
from .relevance import join_analysed, lexical_relevance, plain_bm25, specificity, terms_of

QUERY_TYPES = ("auto", "knowledge", "chat", "task")

# Which share a packet's source draws on.
SHARE_OF = {P.TASK_STATE: "state", P.TOOL_RESULT: "tool_results", P.HISTORY: "history",
            P.SUMMARY: "history", P.NOTE: "evidence", P.MEMORY: "evidence", P.DOCUMENT: "documents",
            P.TOOL: "tools"}
PRIORITY = {P.TASK_STATE: 1.0, P.TOOL_RESULT: 0.1, P.NOTE: 0.05, P.MEMORY: 0.0, P.DOCUMENT: 0.0,
            P.HISTORY: 0.0}


@dataclass(frozen=True)
class Profile:
    """How a query type weighs the scores and shares out the budget (shares of what is left
    after system instructions, query and tools)."""

    relevance_weight: float
    recency_weight: float
    importance_weight: float
    shares: dict[str, tuple[float, float]]   # share name -> (min, max)
    recent_turns: int          # the newest N turns get RECENT_BONUS: the conversation's present
    neighbour_weight: float    # how much a turn inherits from its best neighbour's relevance
    condensed_share: float     # budget set aside for the condensed earlier conversation


PROXIMITY_WEIGHT = 1.0
PROXIMITY_CANDIDATES = 150
# A turn holding a rare word beyond the query's states something (see relevance.specificity).
SPECIFICITY_WEIGHT = 1.0
# The turns plain BM25 ranks first are taken before any other signal gets a say, until they fill
# this share of the room: recency, neighbours and proximity can add turns, never push these out.
# 0.2 rather than 0.3: level or better on 7 of 8 dev sets at 1k and 2k (bench.quality, 2026-12-01).
BM25_RESERVED_SHARE = 0.2
REINFORCE_BY_PRIOR = True
# Turns by a speaker the question does not name, when it names another (see _weigh_speakers).
# 0.4: 0.5 and 0.3 within a point of it on the dialogue dev sets, 1.0 (off) 2-3 points lower.
SPEAKER_WEIGHT = 0.4
SPEAKER_MIN_SHARE = 0.05   # a speaker is one with at least this share of the turns
# A turn that asks and is not answered (see _weigh_unanswered_questions). 0.25: dev 1k/2k on the hard
# memory logs +0.02/+0.01 (zh) and +0.01/0 (en), the dialogues level or better; 0.5 gave half of it.
UNANSWERED_QUESTION_WEIGHT = 0.25
# A turn that refers back with a pronoun inherits this share of its antecedent's lexical relevance
# (see _inherit_from_antecedents).
ANTECEDENT_WEIGHT = 0.5
# From a clear anchor turn to its names' other turns, in logs of one voice (see context.select.signals.hop).
SECOND_HOP = True
# From the question's anchor turns to the same speaker's other turns of the story, in conversations of
# several voices (see context.select.signals.storyline; its figures there).
STORYLINE = True
# The two entities a comparison names each get their fact turn lifted, in logs of one voice (see
# context.select.signals.entities): zh-daily dev 1k/2k comparison 0.611/0.750 -> 0.750/0.861, en-daily 0.417/0.722 ->
# 0.500/0.750; held-out comparison zh 0.472/0.667 -> 0.583/0.750, en 0.528/0.722 -> 0.583/0.750. Let
# into dialogues as well, a variant of it cost conv-26 a question at 2k (0.912 -> 0.906), gaining nothing.
ENTITY_FACTS = True
ENTITY_FACTS_ONE_VOICE = True
# A turn naming the question's person only as the owner of someone else ("我表妹的爸爸", "my niece's dad"),
# in logs of one voice, counts this much (see context.select.signals.owners).
OWNED_WEIGHT = 0.5
# Query words that only spell out an entity its name already names ("大学同学" of "我大学同学陈静"), in logs
# of one voice, count this much, and proximity reads the question without them (see context.select.signals.spelled).
# Dev 1k/2k/4k over the owner commit: zh-memlog-hard 0.768/0.901/0.956 -> 0.798/0.919/0.958, zh-daily
# 0.807/0.863/0.914 -> 0.815/0.866/0.911, en-daily 0.714/0.806/0.886 -> 0.732/0.806/0.880, en-memlog
# 0.906/0.947 -> 0.909/0.950, en-memlog-hard 0.853 -> 0.858 at 1k, zh-memlog 0.905 -> 0.903 at 1k. 0.5 the
# same within a question (en-daily 1k 0.723); 0.0 (left out) cost held-out zh-daily and en-daily at 2k.
IMPLIED_WEIGHT = 0.7
# Coverage (context.select.signals.coverage) in conversations of several speakers too, with the speakers' own names left
# out ("What did Aiko bake?" is asked of a speaker, whose turns say "I"): dev 1k/2k en-written 0.811/0.869 ->
# 0.813/0.877, en-reunion 0.752 -> 0.755 (4k 0.870 -> 0.875); conv26, conv26-interleaved, en-dialogue and
# en-longchat the same to the question.
DIALOGUE_COVERAGE = True
DUP_RARITY_SAMPLE = 1000
RECENT_BONUS = 1.0  # enough to outrank any relevance: the latest turns are the conversation's present

PROFILES: dict[str, Profile] = {
    # A question over material is answered by what the material says, not by when: recency and
    # the newest-turn bonus each pushed out turns plain BM25 packs, and lost to it on every
    # generated log (bench.quality, dev seeds) while moving conv-26 by one question.
    "knowledge": Profile(0.9, 0.0, 0.05, {
        "state": (0.0, 0.15), "tool_results": (0.0, 0.25), "history": (0.1, 0.8),
        "evidence": (0.15, 0.6), "documents": (0.1, 0.6), "tools": (0.0, 0.2)},
        recent_turns=0, neighbour_weight=0.6, condensed_share=0.0),
    "chat": Profile(0.45, 0.45, 0.1, {
        "state": (0.0, 0.1), "tool_results": (0.0, 0.2), "history": (0.4, 0.9),
        "evidence": (0.05, 0.35), "documents": (0.0, 0.3), "tools": (0.0, 0.2)},
        recent_turns=4, neighbour_weight=0.4, condensed_share=0.15),
    "task": Profile(0.6, 0.3, 0.1, {
        "state": (0.05, 0.25), "tool_results": (0.1, 0.4), "history": (0.15, 0.6),
        "evidence": (0.1, 0.45), "documents": (0.0, 0.4), "tools": (0.0, 0.25)},
        recent_turns=2, neighbour_weight=0.4, condensed_share=0.1),
}

_QUESTION_RE = re.compile(
    r"^\s*(what|when|where|who|whom|whose|which|why|how|is|are|was|were|do|does|did|can|could|"
    r"should|would|will|has|have|had)\b|[?？]|什么|怎么|为什么|哪|谁|何时|多少|吗[?？]?\s*$|是否",
    re.IGNORECASE)
_TASK_RE = re.compile(
    r"^\s*(please\s+)?(fix|implement|add|write|create|update|refactor|run|build|deploy|remove|delete|"
    r"rename|make|change|continue|finish|debug|test|migrate|set up|setup|install)\b|"
    r"^\s*(修复|实现|添加|编写|创建|更新|重构|运行|部署|删除|继续|完成|调试|测试|迁移)",
    re.IGNORECASE)


def decide_query_type(query: str, *, has_task_state: bool, has_tool_results: bool,
                      has_sources: bool) -> str:
    """``auto``: an imperative with work in progress is a task, a question over material is
    knowledge, anything else is chat."""
    if _TASK_RE.search(query) or (has_task_state and not _QUESTION_RE.search(query)):
        return "task"
    if _QUESTION_RE.search(query) and (has_sources or has_task_state or has_tool_results):
        return "knowledge"
    if has_tool_results and not _QUESTION_RE.search(query):
        return "task"
    return "chat"


def score_packets(candidates: list[Packet], query: str, profile: Profile) -> None:
    """Fill relevance, recency and score of every candidate (in place)."""
    lexical = [p for p in candidates if p.source in (P.HISTORY, P.TOOL_RESULT, P.DOCUMENT)
               or (p.source in (P.NOTE, P.MEMORY) and not p.given_score)]
    texts = [_searchable(p) for p in lexical]
    # The leading history turns are the part that grows from call to call: its analysis is kept.
    growing = next((k for k, p in enumerate(lexical) if p.source != P.HISTORY), len(lexical))
    a_log = one_voice(lexical[:growing])  # a log of one voice's statements, not a conversation
    implied, worded = None, query
    if a_log and IMPLIED_WEIGHT < 1.0:
        terms, worded = spelled_out(query, texts, growing)
        implied = {t: IMPLIED_WEIGHT for t in terms}
    if ASIDE_WEIGHT < 1.0 and (aside := aside_terms(query)):
        implied = {**aside, **(implied or {})}
    rels = lexical_relevance(query, texts, growing=growing, implied=implied)
    # Which turn each pronoun turn speaks of: read once, for the inheritance and for coverage (both act
    # on turns with relevance only).
    coverage = COVERAGE_WEIGHT < 1.0 and (a_log or DIALOGUE_COVERAGE)
    ante = antecedents([p.spoken for p in lexical[:growing]], [voice(p) for p in lexical[:growing]]) \
        if (ANTECEDENT_WEIGHT or coverage) and growing >= 2 and any(rels[:growing]) else None
    if ANTECEDENT_WEIGHT and ante is not None:
        _inherit_from_antecedents(rels, ante)
    if OWNED_WEIGHT < 1.0 and a_log:
        for i in owned_turns(query, texts, growing):
            rels[i] *= OWNED_WEIGHT
    # Who said each turn of a conversation: read once, for coverage and the storyline hop.
    by = [speaker(p) for p in lexical[:growing]] if not a_log and (coverage or STORYLINE) else []
    said = _speakers(by) if coverage and not a_log else []
    # In a conversation, only where its speakers are known: a user addressed by name says "I".
    if coverage and ante is not None and (a_log or said):
        for i in uncovered_turns(query, texts, growing, ante, said):
            rels[i] *= COVERAGE_WEIGHT
    if SECOND_HOP and a_log:
        second_hop(query, rels, texts, growing)
    if STORYLINE and not a_log:
        storyline_hop(query, rels, texts, growing, [f"{voice(p)}\x1f{s}" for p, s in zip(lexical, by)], by)
    if PROXIMITY_WEIGHT or SPECIFICITY_WEIGHT:
        # Only the leading candidates can be reordered into the budget: look at those.
        leading = heapq.nlargest(PROXIMITY_CANDIDATES, compress(range(len(rels)), rels),
                                 key=rels.__getitem__)
        # A run of the query's words in its order is stronger evidence than the same words apart.
        near = proximity(worded, texts, leading) if PROXIMITY_WEIGHT else {}
        spec = specificity(query, texts, leading, growing=growing) if SPECIFICITY_WEIGHT else {}
        if near or spec:
            for i, v in near.items():
                rels[i] *= 1.0 + PROXIMITY_WEIGHT * v
            for i, v in spec.items():
                rels[i] *= 1.0 + SPECIFICITY_WEIGHT * v
            top = max(rels)
            rels = [r / top for r in rels]
    if not a_log:
        lift_by_session(query, rels, texts, [p.group for p in lexical[:growing]], growing)
    if ENTITY_FACTS and (a_log or not ENTITY_FACTS_ONE_VOICE):
        lift_entity_facts(query, rels, texts, growing)
    for p, rel in zip(lexical, rels):
        p.relevance = rel
    # The reserve's BM25 is the baseline's: over the turns' own text (no month terms) and the turns
    # alone, so the turns it ranks first are exactly the ones plain BM25 packs first.
    raw = [f"{p.title}\n{p.content}" if p.title else p.content for p in lexical[:growing]]
    same = growing == len(texts) and all(a is b or a == b for a, b in zip(raw, texts))
    for p, plain in zip(lexical, plain_bm25(query, texts if same else raw, growing=None if same else growing)):
        p.plain = plain
    history = sorted((p for p in candidates if p.source == P.HISTORY), key=lambda p: p.position)
    links: list[float] | None = None
    if history and profile.neighbour_weight:
        # Relevance spreads only between turns the history's own text shows to be connected.
        links, prior = link_structure([p.spoken for p in history], [voice(p) for p in history],
                                      [p.group for p in history])
    if UNTIMED_WEIGHT < 1.0 and history:
        # Before spreading: a "When did you get back?" linked to its "Yesterday morning." still lends it.
        for i in untimed_turns(query, [p.spoken for p in history], [p.relevance for p in history], links):
            history[i].relevance *= UNTIMED_WEIGHT
    if links is not None:
        spread = spread_along_links([p.relevance for p in history], links, profile.neighbour_weight,
                                    reinforce=prior if REINFORCE_BY_PRIOR else 1.0)
        top = max(spread) or 1.0
        for p, s in zip(history, spread):
            p.relevance = s / top
    if SPEAKER_WEIGHT < 1.0:
        _weigh_speakers(query, history)
    if UNANSWERED_QUESTION_WEIGHT < 1.0:
        _weigh_unanswered_questions(history)
    for source in (P.NOTE, P.MEMORY, P.DOCUMENT):
        given = [p for p in candidates if p.source == source and p.given_score]
        top = max((p.given_score or 0.0 for p in given), default=0.0)
        for p in given:
            index_rel = max(0.0, (p.given_score or 0.0) / top) if top > 0 else 0.0
            # Documents carry the caller's score and our lexical one; notes trust the index.
            p.relevance = 0.5 * index_rel + 0.5 * p.relevance if source == P.DOCUMENT else index_rel
    for p in candidates:
        if p.source == P.TASK_STATE:
            p.relevance = 1.0
    _fill_recency(candidates)
    n_hist = len(history)
    # The newest tool result is the current state of the work, like the newest turns.
    newest_tool = max((p for p in candidates if p.source == P.TOOL_RESULT),
                      key=lambda p: (p.timestamp or datetime.min, p.position), default=None)
    for p in candidates:
        importance = p.importance if p.importance is not None else 0.5
        p.score = (profile.relevance_weight * p.relevance + profile.recency_weight * p.recency
                   + profile.importance_weight * importance + PRIORITY.get(p.source, 0.0))
        if (p.source == P.HISTORY and p.position >= n_hist - profile.recent_turns) or p is newest_tool:
            p.score += RECENT_BONUS


def _inherit_from_antecedents(rels: list[float], ante: Sequence[int]) -> None:
    """A turn that speaks of someone named a turn before ("My coworker Noah called." / "He was born in
    Fresno.") matches the question through that turn: it gains ANTECEDENT_WEIGHT times the named
    turn's relevance, before proximity and specificity look at it (in place; ``ante`` from
    links.antecedents over the history's turns in order)."""
    base = rels[:len(ante)]
    for i, j in enumerate(ante):
        if j >= 0 and base[j]:
            rels[i] = base[i] + ANTECEDENT_WEIGHT * base[j]


def one_voice(history: list[Packet]) -> bool:
    """A log of one voice: every turn has the same role and no two speakers name themselves."""
    if not history or any(p.role != history[0].role for p in history):
        return False
    return len(_speakers([speaker(p) for p in history])) < 2


def _speakers(by: list[str]) -> list[str]:
    """The speakers of a history whose turns' speakers are ``by``: those with at least SPEAKER_MIN_SHARE
    of the turns (and 3), so that a name said once in a "Name:"-like opening is not a speaker."""
    least = max(3, int(SPEAKER_MIN_SHARE * len(by)))
    return [s for s, c in Counter(by).items() if s and c >= least]


def speaker(p: Packet) -> str:
    """Who said a history turn: the turn's ``name`` when the caller gave one, else its "Name:" prefix
    ('' when neither says)."""
    return p.label or speaker_of(p.content)


def voice(p: Packet) -> str | None:
    """What the links compare as a history turn's role: the role, and the speaker's ``name`` when the caller
    gave one (a group chat in one role is several speakers; "Name:" prefixes are compared apart)."""
    return f"{p.role}\x1f{p.label}" if p.label else p.role


def _weigh_unanswered_questions(history: list[Packet]) -> None:
    """A turn that asks and that no other speaker answers next holds no answer: it repeats a
    question's words ("has anyone asked you what my uncle does?") without its fact. In a
    dialogue the reply is next and relevance has spread to it; in a log of one voice nothing
    answers, and the asking turn counts UNANSWERED_QUESTION_WEIGHT as much."""
    for k, p in enumerate(history):
        if p.relevance and asks(p.content):
            nxt = history[k + 1] if k + 1 < len(history) else None
            if nxt is None or same_speaker(p.content, voice(p), nxt.content, voice(nxt)):
                p.relevance *= UNANSWERED_QUESTION_WEIGHT


def _weigh_speakers(query: str, history: list[Packet]) -> None:
    """A question that names some of a conversation's speakers ("what does Melanie do to
    destress?") is answered mostly in their own turns (conv-26: 174 of 181 evidence turns of
    questions naming one speaker): the other speakers' turns count SPEAKER_WEIGHT as much. After
    spreading, so the other speaker's question still lends its reply relevance."""
    if len(history) < 2:
        return
    by = [speaker(p) for p in history]
    speakers = _speakers(by)
    if len(speakers) < 2:
        return  # a log of one voice, or no names or "Name:" prefixes: nothing to tell apart
    q = set(terms_of(query))
    named = {s for s in speakers if (t := terms_of(s)) and q.issuperset(t)}
    if not named or len(named) == len(speakers):
        return
    for p, s in zip(history, by):
        if s and s not in named:
            p.relevance *= SPEAKER_WEIGHT


def _searchable(p: Packet) -> str:
    """The text relevance is computed on: title and content; for history the speaker's ``name`` (shown
    before the turn, like a "Name:" opening) and the turn's month and year, so "what did we do in June
    2023?" finds turns from then."""
    if p.source == P.HISTORY and p.timestamp is not None:
        return _with_month(p.title, p.spoken, p.timestamp.year, p.timestamp.month)
    return f"{p.title}\n{p.content}" if p.title else p.spoken


def _with_month(title: str, content: str, year: int, month: int) -> str:
    # Cached: the same turns come back on every call, and the same string object lets the
    # scorer's value comparisons short-cut.
    # Analysed part by part: the content's terms are the ones every other stage already took.
    def join() -> str:
        month_text = _month_terms(year, month)
        return join_analysed(title, content, month_text) if title else join_analysed(content, month_text)
    return _month_texts.get_or_compute((title, content, year, month), join)


_month_texts: BoundedCache[tuple[str, str, int, int], str] = BoundedCache(
    TEXT_CACHE_CHARS, 65536, size=lambda key: len(key[0]) + len(key[1]))


@lru_cache(maxsize=1024)
def _month_terms(year: int, month: int) -> str:
    return f"{date(year, month, 1):%B} {year} {year}年{month}月"


def _fill_recency(candidates: list[Packet]) -> None:
    """Recency 0..1 per source: by position for history, by age relative to the newest item
    (half-life = a third of the source's time span) for timestamped items, so items that are
    all weeks old are still told apart."""
    by_source: dict[str, list[Packet]] = {}
    for p in candidates:
        by_source.setdefault(p.source, []).append(p)
    for source, items in by_source.items():
        if source == P.HISTORY:
            n = len(items)
            for p in items:
                p.recency = (p.position + 1) / n
            continue
        stamped = [(p, p.timestamp) for p in items if p.timestamp is not None]
        if stamped:
            newest = max(ts for _, ts in stamped)
            oldest = min(ts for _, ts in stamped)
            half_life = max((newest - oldest).total_seconds() / 3.0, 3600.0)
            for p, ts in stamped:
                p.recency = 0.5 ** ((newest - ts).total_seconds() / half_life)
        for p in items:
            if p.timestamp is None:
                # Without a time, later in the caller's list counts as newer (tool results).
                p.recency = 0.5 if source in (P.NOTE, P.MEMORY) else (p.position + 1) / len(items)


def _fingerprint(p: Packet) -> tuple[str, frozenset[str]]:
    """Whitespace- and case-normalised text and the term set, computed once per packet."""
    if p.fingerprint is None:
        p.fingerprint = _text_fingerprint(p.spoken)
    return p.fingerprint


@cached_by_size(TEXT_CACHE_CHARS, 65536)
def _text_fingerprint(content: str) -> tuple[str, frozenset[str]]:
    # Cached by text: an agent loop sends the same turns on every call.
    return " ".join(content.split()).lower(), frozenset(terms_of(content))


@dataclass
class Selection:
    selected: list[Packet] = field(default_factory=list)
    dropped: list[tuple[Packet, str]] = field(default_factory=list)
    used: int = 0
    groups: set[str] = field(default_factory=set)


Shortener = Callable[[Packet, int], "Packet | None"]


def select_packets(candidates: list[Packet], available: int, profile: Profile, *,
                   group_cost: Callable[[str], int],
                   min_relevance: float | None, shorten: Shortener | None = None,
                   max_compressions: int = 4, stop_check: Callable[[], None] | None = None) -> Selection:
    """Pick whole packets, best first, within ``available`` tokens and the profile's shares
    (each packet's ``tokens`` must already hold its cost in the output format)."""
    sel = Selection()
    pool: list[Packet] = []
    for p in candidates:
        if (min_relevance is not None and p.source in P.EVIDENCE_SOURCES
                and p.relevance < min_relevance):
            sel.dropped.append((p, f"relevance {p.relevance:.2f} below min_relevance {min_relevance:.2f}"))
            continue
        pool.append(p)
    pool.sort(key=lambda p: (-p.score, -p.position))
    # The profile's newest turns are the conversation's present: never dropped as a copy of an
    # older turn (the BM25 reserve may have taken the older copy first).
    n_hist = sum(1 for p in candidates if p.source == P.HISTORY)
    recent = {id(p) for p in pool if p.source == P.HISTORY and p.position >= n_hist - profile.recent_turns}
    present = {SHARE_OF[p.source] for p in pool}
    usage: dict[str, int] = {}
    caps_min = {s: int(profile.shares[s][0] * available) for s in present}
    caps_max = {s: int(profile.shares[s][1] * available) for s in present}
    taken: set[int] = set()
    compressions = 0
    # The best item of each source may be shortened even with weak relevance: the caller chose it.
    first_of: dict[str, int] = {}
    for i, p in enumerate(pool):
        first_of.setdefault(p.source, i)
    best_of_source = set(first_of.values())
    reasons: dict[int, str] = {}

    def extra_cost(p: Packet) -> int:
        return group_cost(p.header) if p.header and p.header not in sel.groups else 0

    # Term rarity for the duplicate index from the leading items only: any one order of terms finds
    # the same pairs (prefix filtering needs a global order, not the true one), and counting every
    # term of a 5,000-turn pool cost more than the whole rest of the selection.
    dups = NearDuplicates(_fingerprint(p)[1] for p in pool[:DUP_RARITY_SAMPLE])

    def admit(p: Packet) -> None:
        c = p.tokens + extra_cost(p)
        if p.header:
            sel.groups.add(p.header)
        sel.used += c
        usage[SHARE_OF[p.source]] = usage.get(SHARE_OF[p.source], 0) + c
        if p.source != P.TASK_STATE:
            text, terms = _fingerprint(p)
            dups.add(text, terms, len(sel.selected))
        sel.selected.append(p)

    def duplicate_of(p: Packet) -> Packet | None:
        text, terms = _fingerprint(p)
        # Identical short turns ("ok", "thanks") are separate moments, not copies; what is short is
        # measured without the speaker's name ("Caroline: Sounds good." is short).
        short = p.source == P.HISTORY and len(" ".join(p.content.split())) < 20
        h = dups.find(text, terms, same_text_counts=not short)
        return sel.selected[h] if h is not None else None

    def try_take(i: int, p: Packet, cap: int | None, dedup: bool = True) -> bool:
        nonlocal compressions
        if stop_check is not None and i % 256 == 0:
            stop_check()
        share = SHARE_OF[p.source]
        room = available - sel.used
        if cap is not None:
            room = min(room, cap - usage.get(share, 0))
        need = p.tokens + extra_cost(p)
        if need > room:
            # A strong item that is too big is shortened visibly rather than lost.
            if (shorten is not None and compressions < max_compressions and p.source != P.HISTORY
                    and (p.relevance >= 0.3 or p.source == P.TASK_STATE or i in best_of_source)
                    and room >= 40):
                short = shorten(p, room)
                if short is not None and short.tokens <= room:
                    compressions += 1
                    taken.add(i)
                    admit(short)
                    return True
            reasons[i] = "no room in its share" if cap is not None and room < available - sel.used \
                else "did not fit the budget"
            return False
        dup = None if id(p) in recent or not dedup else duplicate_of(p)
        taken.add(i)
        if dup is not None:
            reasons[i] = f"near-duplicate of {dup.source} {dup.id}"
            sel.dropped.append((p, reasons[i]))
            return False
        admit(p)
        return True

    # 0. Plain BM25's best turns, whatever the other signals say (see BM25_RESERVED_SHARE).
    reserved_room = int(BM25_RESERVED_SHARE * min(available, caps_max.get("history", 0)))
    if reserved_room > 0:
        by_plain = sorted((i for i, p in enumerate(pool) if p.source == P.HISTORY and p.plain > 0),
                          key=lambda i: (-pool[i].plain, pool[i].position))  # BM25 greedy's own order
        spent = 0
        least = min((pool[i].tokens for i in by_plain), default=0)
        for i in by_plain:
            if reserved_room - spent < least:
                break  # the reserve is full: nothing more can fit in it
            if spent + pool[i].tokens > reserved_room:
                continue
            before = sel.used
            # No near-duplicate check here: plain BM25 packs both copies, and which copy a question's
            # evidence is cannot be told (the same statement again, at another time).
            if try_take(i, pool[i], None, dedup=False):
                spent += sel.used - before
    # 1. Minimum shares: every source that has candidates gets its floor first.
    for share in sorted(present, key=lambda s: -profile.shares[s][0]):
        for i, p in enumerate(pool):
            if usage.get(share, 0) >= caps_min[share]:
                break
            if i not in taken and SHARE_OF[p.source] == share:
                try_take(i, p, caps_min[share])
    # 2. Best first within maximum shares; 3. then whatever is left, caps lifted, because a
    # cap only exists to protect other sources and none of them wants the room any more.
    # smallest[i]: the smallest item from i on; whole[i]: no item from i on may be shortened.
    smallest = [0] * (len(pool) + 1)
    whole = [True] * (len(pool) + 1)
    smallest[-1] = 1 << 60
    for i in range(len(pool) - 1, -1, -1):
        smallest[i] = min(smallest[i + 1], pool[i].tokens)
        whole[i] = whole[i + 1] and pool[i].source == P.HISTORY
    for capped in (True, False):
        for i, p in enumerate(pool):
            if i in taken:
                continue
            room_left = available - sel.used
            if room_left < smallest[i] and (whole[i] or shorten is None or compressions >= max_compressions
                                            or room_left < 40):
                break  # nothing else can fit, whole or shortened
            cap = caps_max[SHARE_OF[p.source]] if capped else None
            if p.source == P.HISTORY:
                # What try_take would say of a turn too big for the room, without its work.
                room = room_left if cap is None else min(room_left, cap - usage.get("history", 0))
                if p.tokens > room:
                    reasons[i] = "no room in its share" if room < room_left else "did not fit the budget"
                    continue
            try_take(i, p, cap)
    for i, p in enumerate(pool):
        if i not in taken:
            sel.dropped.append((p, reasons.get(i, "did not fit the budget")))
    return sel


def select_tools(tools: list[Packet], query: str, room: int, cost: Callable[[Packet], int]
                 ) -> tuple[list[Packet], list[tuple[Packet, str]]]:
    """Tool definitions for the system part: required ones always, the rest all when they fit
    in ``room``, otherwise the ones relevant to the query, best first."""
    if not tools:
        return [], []
    for p, rel in zip(tools, lexical_relevance(query, [f"{p.id} {p.label} {p.id.replace('_', ' ')}"
                                                       for p in tools], feedback_weight=0.0)):
        p.relevance = rel
        p.score = rel + (1.0 if p.required else 0.0)
        p.tokens = cost(p)
    kept = [p for p in tools if p.required]
    optional = [p for p in tools if not p.required]
    used = sum(p.tokens for p in kept)
    if used + sum(p.tokens for p in optional) <= room:
        return kept + optional, []
    dropped = []
    for p in sorted(optional, key=lambda p: (-p.relevance, p.position)):
        if p.relevance <= 0:
            dropped.append((p, "not relevant to the query (tools did not all fit)"))
        elif used + p.tokens <= room:
            kept.append(p)
            used += p.tokens
        else:
            dropped.append((p, "did not fit the tools share"))
    return kept, dropped


def with_content(p: Packet, content: str, method: str, cost: Callable[[Packet], int]) -> Packet:
    """A copy of ``p`` with shortened content, marked as compressed."""
    q = replace(p, content=content, compressed_from=p.tokens, compression=method, fingerprint=None)
    q.tokens = cost(q)
    return q
