"""Scoring: the relevance, recency and score of every candidate packet.

score = relevance_weight * relevance + recency_weight * recency
        + importance_weight * importance + source priority (+ a bonus for the newest turns)

Relevance is lexical (``relevance``), then moved by what the history's turns say of each other and of
the question (``signals``): each weight and switch below says how much one signal counts, and where its
figures come from. ``packing`` then picks whole packets by these scores.
"""

from __future__ import annotations

import heapq
from collections import Counter
from dataclasses import dataclass
from datetime import date, datetime
from functools import lru_cache
from itertools import compress
from collections.abc import Sequence

from notes_store.bounded_cache import TEXT_CACHE_CHARS, BoundedCache
from .. import packets as P
from ..packets import Packet
from .profiles import Profile
from .signals.links import antecedents, asks, link_structure, same_speaker, speaker_of, spread_along_links
from .signals.hop import second_hop
from .signals.storyline import storyline_hop
from .signals.entities import lift_entity_facts
from .signals.owners import owned_turns
from .signals.coverage import uncovered_turns, COVERAGE_WEIGHT
from .signals.asides import ASIDE_WEIGHT, aside_terms
from .signals.when import UNTIMED_WEIGHT, asks_when, untimed_turns
from .signals.spelled import spelled_out
from .signals.stretches import Statements
from .proximity import proximity
from .signals.days import lift_by_session
from .signals.bridge import bridge_hop, own_thing
from .signals.cues import attribute_groups
from .signals.shapes import asked_shape, holds_shape
from .signals.breadth import breadth
from .signals.stamps import body_of, without_stamp
from .query import Clause, QueryPlan, understand
from notes_store.analysis.numbers import date_terms, with_date_words
from .relevance import join_analysed, lexical_relevance, plain_bm25, specificity, terms_of

PRIORITY = {P.TASK_STATE: 1.0, P.TOOL_RESULT: 0.1, P.NOTE: 0.05, P.MEMORY: 0.0, P.DOCUMENT: 0.0,
            P.HISTORY: 0.0}

PROXIMITY_WEIGHT = 1.0
PROXIMITY_CANDIDATES = 150
# A turn holding a rare word beyond the query's states something (see relevance.specificity).
SPECIFICITY_WEIGHT = 1.0
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
# Query understanding (context.select.query): a query of several asking clauses, or one in small talk, is
# scored clause by clause (see _by_clause).
QUERY_PLAN = True
# One hop across a bridge, from a clause's condition turns to what it asks (context.select.signals.bridge).
BRIDGE = True
CONDITION_ANCHORS = True
# The asker's own thing picks a question's anchors, as a condition does (see _for_clause).
OWN_THING_ANCHORS = True
# In a log of one voice, a turn inherits this share of what a conversation's turn inherits from its neighbours:
# a log's neighbours are often of threads that only happen to interleave.
LOG_NEIGHBOUR_SHARE = 0.0
# In a log of one voice, a clause's turns holding a thing of the shape it asks (a date, a phone number, an
# e-mail, an age: signals.shapes) weigh this much more.
SHAPE_LIFT = 0.3
# In a log of one voice, a counting clause that asks a shape (signals.shapes) raises every statement holding one this
# share of the way to its best turn's relevance (0: off).
SHAPE_BREADTH = 0.6
# Counting clauses lend the turns that state their attribute the way their best turns do (signals.breadth).
BREADTH = False
# History turns are scored on their statement (no stamp), numbers and dates in one spelling (see _statement).
STATEMENT_ONLY = False
DATE_WORDS = True
RECENT_BONUS = 1.0  # enough to outrank any relevance: the latest turns are the conversation's present

@dataclass(frozen=True)
class Lexical:
    """The candidates scored on their own text, and what every signal reads of them."""

    packets: list[Packet]
    texts: list[str]      # what relevance is computed on (see _searchable)
    growing: int          # the leading history turns: the part that grows from call to call
    a_log: bool           # a log of one voice's statements, not a conversation
    turns: Statements     # the history turns' statements, read once for the signals that need them
    dated: bool = False   # the texts' dates are written as their words (numbers.with_date_words)

    @property
    def history(self) -> list[Packet]:
        return self.packets[:self.growing]


def score_packets(candidates: list[Packet], query: str, profile: Profile) -> None:
    """Fill relevance, recency and score of every candidate (in place)."""
    # Dates are written as their words (numbers.with_date_words) only for a question that names one: the words
    # make a turn longer, which alone moves BM25 for every other question.
    lx = lexical_view(candidates, dated=DATE_WORDS and bool(date_terms(query)))
    plan = understand(query) if QUERY_PLAN else None
    rels = _by_clause(plan, lx) if plan is not None and plan.split else _for_clause(
        plan.clauses[0] if plan is not None else None, plan.focused if plan is not None else query, lx)
    for p, rel in zip(lx.packets, rels):
        p.relevance = rel
    # The reserve is plain BM25 over the asking part of the query (small talk left out): its first turns are a
    # guarantee (tests/test_quality_floor).
    _fill_plain(plan.focused if plan is not None else query, lx)
    history = sorted((p for p in candidates if p.source == P.HISTORY), key=lambda p: p.position)
    # A turn that says no time counts less for a question of when; of several questions, only when each asks when
    # (a turn's relevance may be another question's: "岳母有什么爱好？另外，她的生日是哪天？"); and not when one picks
    # someone out by a fact: the turns that say who it is say no time ("我表哥叫陈志远。").
    untimed = plan is None or (not any(c.condition for c in plan.asking)
                               and (not plan.split or all(asks_when(c.text) for c in plan.asking)))
    _weigh_along_history(query, history, profile, lx.a_log, untimed)
    _fill_given(candidates)
    _fill_recency(candidates)
    _fill_scores(candidates, profile, len(history))


def _relevance(query: str, lx: Lexical) -> list[float]:
    """Each lexical candidate's relevance to ``query`` (a whole question, or one of its clauses): lexical,
    moved by what the turns say of each other and by the question's wording."""
    query = with_date_words(query) if lx.dated else query
    rels, worded = _matched(query, lx)
    _weigh_by_turns(query, rels, lx)
    rels = _weigh_by_wording(query, worded, rels, lx)
    if not lx.a_log:
        lift_by_session(query, rels, lx.texts, [p.group for p in lx.history], lx.growing)
    if ENTITY_FACTS and (lx.a_log or not ENTITY_FACTS_ONE_VOICE):
        lift_entity_facts(query, rels, lx.texts, lx.growing, turns=lx.turns)
    return rels


def _for_clause(clause: Clause | None, query: str, lx: Lexical) -> list[float]:
    """The relevance for one asking clause (``query``: its text), with its bridges and, when it counts, its
    breadth, in a log of one voice; scaled to a top of 1 when those moved it."""
    rels = _relevance(query, lx)
    shape = asked_shape(clause.asked or clause.text) if clause is not None and lx.a_log else ""
    if shape and SHAPE_LIFT:
        # What holds a thing of the asked shape (a date for "同事熊伟的生日是几号？": "熊伟是12月24日出生的。") comes
        # before what holds the asked word alone ("熊伟说生日那天不想大办。").
        for i in holds_shape(shape, lx.texts, [i for i, r in enumerate(rels) if r > 0]):
            rels[i] *= 1.0 + SHAPE_LIFT
    if shape and clause is not None and clause.counting and SHAPE_BREADTH:
        # A count of the asked shape ("我记下过几个人的手机号？", "有几个是二十几岁的？") is answered by every statement
        # holding one: each counts, matched words or not.
        top = max(rels, default=0.0) or 1.0
        for i in holds_shape(shape, lx.texts, range(lx.growing)):
            # Raised towards the best, in their order: the ones holding the question's words come first.
            rels[i] += SHAPE_BREADTH * (top - rels[i])
    if clause is None or not lx.a_log or not (BRIDGE or BREADTH):
        return rels
    top = max(rels, default=0.0)
    if top <= 0:
        return rels
    rels = [r / top for r in rels]
    if BRIDGE:
        by = None
        # The condition ("那个老家在四川成都的人") picks the anchors and is evidence itself. The asker's own thing ("我的车"
        # of "我的车开起来怎么样？", whose follow-ups name it by its model alone) picks them too; the bridge lends what
        # it finds (an item's model: see bridge_hop), never what a person's words alone would ("my aunt").
        condition = clause.condition if CONDITION_ANCHORS else ""
        # A question about a person's attribute ("What does my aunt like to do in free time?") asks of no thing.
        picks = condition or (own_thing(clause.text) if OWN_THING_ANCHORS and not clause.counting
                              and not attribute_groups(clause.text) else "")
        if picks:
            by = _relevance(picks, lx)
            most = max(by, default=0.0)
            if most > 0:
                by = [r / most for r in by]
                if condition:
                    rels = [max(r, b) for r, b in zip(rels, by)]
                else:
                    # The thing alone ("my phone") is said in passing by many turns: its anchors are the turns good
                    # for both the thing and the whole question.
                    by = [(r + b) / 2 for r, b in zip(rels, by)]
            else:
                by = None
        bridge_hop(clause, rels, lx.texts, lx.growing, anchors_by=by)
    if BREADTH:
        breadth(clause, rels, lx.texts, lx.growing)
    return rels


def _by_clause(plan: QueryPlan, lx: Lexical) -> list[float]:
    """Relevance for a query of several asking clauses, or one in small talk: each asking clause scored
    alone, scaled to a top of 1, and each turn taking its best clause's, so every clause's best turns come
    first together and share the budget (small talk is not scored)."""
    rels = [0.0] * len(lx.texts)
    for clause in plan.asking:
        got = _for_clause(clause, clause.text, lx)
        top = max(got, default=0.0)
        if top <= 0:
            continue
        rels = [max(a, clause.weight * b / top) for a, b in zip(rels, got)]
    return rels


def lexical_view(candidates: list[Packet], dated: bool = False) -> Lexical:
    """The candidates relevance is computed for by their text (notes and memories the index scored are not)."""
    packets = [p for p in candidates if p.source in (P.HISTORY, P.TOOL_RESULT, P.DOCUMENT)
               or (p.source in (P.NOTE, P.MEMORY) and not p.given_score)]
    # The leading history turns are the part that grows from call to call: its analysis is kept.
    growing = next((k for k, p in enumerate(packets) if p.source != P.HISTORY), len(packets))
    a_log = one_voice(packets[:growing])
    texts = [_searchable(p, a_log, dated) for p in packets]
    return Lexical(packets, texts, growing, a_log, Statements(texts, growing), dated)


def _matched(query: str, lx: Lexical) -> tuple[list[float], str]:
    """Each text's lexical relevance, the words that only spell an entity out or set the scene counting
    less; and the question as the signals that read its wording see it (without the spelled-out words)."""
    implied, worded = None, query
    if lx.a_log and IMPLIED_WEIGHT < 1.0:
        terms, worded = spelled_out(query, lx.texts, lx.growing, turns=lx.turns)
        implied = {t: IMPLIED_WEIGHT for t in terms}
    if ASIDE_WEIGHT < 1.0 and (aside := aside_terms(query)):
        implied = {**aside, **(implied or {})}
    return lexical_relevance(query, lx.texts, growing=lx.growing, implied=implied), worded


def _weigh_by_turns(query: str, rels: list[float], lx: Lexical) -> None:
    """What the history's turns say of each other: pronouns inherit from their antecedents, turns that
    name the question's person only as an owner or not at all count less, and relevance hops from a
    clear anchor to its names' (a log) or its speaker's story's (a conversation) other turns (in place)."""
    growing, texts, a_log = lx.growing, lx.texts, lx.a_log
    history = lx.history
    # Which turn each pronoun turn speaks of: read once, for the inheritance and for coverage (both act
    # on turns with relevance only).
    coverage = COVERAGE_WEIGHT < 1.0 and (a_log or DIALOGUE_COVERAGE)
    ante = antecedents([p.spoken for p in history], [voice(p) for p in history]) \
        if (ANTECEDENT_WEIGHT or coverage) and growing >= 2 and any(rels[:growing]) else None
    if ANTECEDENT_WEIGHT and ante is not None:
        _inherit_from_antecedents(rels, ante)
    if OWNED_WEIGHT < 1.0 and a_log:
        for i in owned_turns(query, texts, growing, turns=lx.turns):
            rels[i] *= OWNED_WEIGHT
    # Who said each turn of a conversation: read once, for coverage and the storyline hop.
    by = [speaker(p) for p in history] if not a_log and (coverage or STORYLINE) else []
    said = _speakers(by) if coverage and not a_log else []
    # In a conversation, only where its speakers are known: a user addressed by name says "I".
    if coverage and ante is not None and (a_log or said):
        for i in uncovered_turns(query, texts, growing, ante, said, turns=lx.turns):
            rels[i] *= COVERAGE_WEIGHT
    if SECOND_HOP and a_log:
        second_hop(query, rels, texts, growing)
    if STORYLINE and not a_log:
        storyline_hop(query, rels, texts, growing, [f"{voice(p)}\x1f{s}" for p, s in zip(lx.packets, by)], by)


def _weigh_by_wording(query: str, worded: str, rels: list[float], lx: Lexical) -> list[float]:
    """Relevance raised where the question's words run in its order and where a rare word beyond them
    states something, among the leading candidates; rescaled to a top of 1 when either did."""
    if not (PROXIMITY_WEIGHT or SPECIFICITY_WEIGHT):
        return rels
    # Only the leading candidates can be reordered into the budget: look at those.
    leading = heapq.nlargest(PROXIMITY_CANDIDATES, compress(range(len(rels)), rels),
                             key=rels.__getitem__)
    # A run of the query's words in its order is stronger evidence than the same words apart.
    near = proximity(worded, lx.texts, leading) if PROXIMITY_WEIGHT else {}
    spec = specificity(query, lx.texts, leading, growing=lx.growing) if SPECIFICITY_WEIGHT else {}
    if near or spec:
        for i, v in near.items():
            rels[i] *= 1.0 + PROXIMITY_WEIGHT * v
        for i, v in spec.items():
            rels[i] *= 1.0 + SPECIFICITY_WEIGHT * v
        top = max(rels)
        rels = [r / top for r in rels]
    return rels


def _fill_plain(query: str, lx: Lexical) -> None:
    """Each lexical candidate's plain BM25 (for packing's reserve)."""
    # The reserve's BM25 is the baseline's: over the turns' own text (no month terms) and the turns
    # alone, so the turns it ranks first are exactly the ones plain BM25 packs first.
    raw = [f"{p.title}\n{p.content}" if p.title else p.content for p in lx.history]
    same = lx.growing == len(lx.texts) and all(a is b or a == b for a, b in zip(raw, lx.texts))
    for p, plain in zip(lx.packets, plain_bm25(query, lx.texts if same else raw,
                                               growing=None if same else lx.growing)):
        p.plain = plain


def _weigh_along_history(query: str, history: list[Packet], profile: Profile, a_log: bool,
                         untimed: bool = True) -> None:
    """The history turns' relevance spread along the links between them, after the turns that give no
    time for a question of when (``untimed``: only when each of its questions asks when) and before the
    turns of speakers it does not name and the questions nobody answers count less (in place; ``history``
    in order; ``a_log``: it is a log of one voice)."""
    links: list[float] | None = None
    weight = profile.neighbour_weight * (LOG_NEIGHBOUR_SHARE if a_log else 1.0)
    if history and weight:
        # Relevance spreads only between turns the history's own text shows to be connected.
        links, prior = link_structure([p.spoken for p in history], [voice(p) for p in history],
                                      [p.group for p in history])
    if UNTIMED_WEIGHT < 1.0 and history and untimed:
        # Before spreading: a "When did you get back?" linked to its "Yesterday morning." still lends it.
        for i in untimed_turns(query, [p.spoken for p in history], [p.relevance for p in history], links):
            history[i].relevance *= UNTIMED_WEIGHT
    if links is not None:
        spread = spread_along_links([p.relevance for p in history], links, weight,
                                    reinforce=prior if REINFORCE_BY_PRIOR else 1.0)
        top = max(spread) or 1.0
        for p, s in zip(history, spread):
            p.relevance = s / top
    if SPEAKER_WEIGHT < 1.0:
        _weigh_speakers(query, history)
    if UNANSWERED_QUESTION_WEIGHT < 1.0:
        _weigh_unanswered_questions(history)


def _fill_given(candidates: list[Packet]) -> None:
    """Relevance of the candidates the caller or the index scored, and of the task state (always 1)."""
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


def _fill_scores(candidates: list[Packet], profile: Profile, n_hist: int) -> None:
    """Each candidate's score from its relevance, recency, importance and source, the present's bonus added."""
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


def _searchable(p: Packet, a_log: bool = False, dated: bool = False) -> str:
    """The text relevance is computed on: title and content; for history the speaker's ``name`` (shown
    before the turn, like a "Name:" opening) and the turn's month and year, so "what did we do in June
    2023?" finds turns from then."""
    # In a log of one voice the writer's ``name`` says nothing of a turn: each turn is its statement alone.
    spoken = _statement(p.content if a_log and STATEMENT_ONLY else p.spoken, dated) if p.source == P.HISTORY \
        else p.spoken
    if p.source == P.HISTORY and p.timestamp is not None:
        return _with_month(p.title, spoken, p.timestamp.year, p.timestamp.month)
    return f"{p.title}\n{p.content}" if p.title else spoken


def _statement(text: str, dated: bool = True) -> str:
    """What a history turn is scored on: without its "time, place" stamp when STATEMENT_ONLY (where a log was
    written is not what it says: written in 杭州, every turn is stamped 浙江杭州, and "有几个活动在浙江杭州办？" finds
    them all), and its statement's numbers and dates in one spelling (numbers.with_date_words) when DATE_WORDS
    (a stamp's date is when it was written, not a date it speaks of: never rewritten)."""
    if STATEMENT_ONLY:
        bare = without_stamp(text)
        return with_date_words(bare) if dated else bare
    if not dated:
        return text
    body = body_of(text)
    if not body or not text.endswith(body):
        return text
    new = with_date_words(body)
    return text if new == body else text[:len(text) - len(body)] + new


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

