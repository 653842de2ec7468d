"""build_context: the Gather → Select → Structure → Compress pipeline behind one call.

Each stage is a function from the one before's output to its own (frozen dataclasses):

    Request --gather--> Gathered --select--> Selected --compress--> Packed --structure--> Packed --> ContextResult

``Request`` holds the checked arguments, the token counter and the budget; ``Gathered`` the candidate
packets; ``Selected`` the always-kept parts (``Frame``) and the packets picked under the budget by
estimate; ``Packed`` the exact layout, the history's tiers in it, and its exact token count.
"""

from __future__ import annotations

import heapq
import math
from collections import Counter
from itertools import chain
from dataclasses import dataclass, replace
from typing import Any
from collections.abc import Callable

from notes_store.bounded_cache import with_call_memo

from .gc_pause import without_collector
from . import packets as P
from .compress.summaries import Summarizer, extractive_shorten, shorten
from .errors import ContextError
from .gather.inputs import (check_input_items, check_input_size, gather_documents, gather_evidence,
                            gather_history_cached, gather_task_state, gather_tool_results, gather_tools)
from .packets import Packet
from .select.relevance import terms_of_query
from .result import ContextResult
from .select.packing import Selection, select_packets, select_tools, with_content
from .select.profiles import PROFILES, QUERY_TYPES, Profile, decide_query_type
from .select.scoring import score_packets
from .select.turn_cache import CachedHistory
from .gather.sources import EvidenceProvider
from .structure import (MESSAGE_OVERHEAD_TOKENS, STATE_HEADING, SUPPORT_HEADING, Layout, group_cost,
                        layout, output_tokens, packet_cost, render_messages, render_text,
                        section_tokens, year_marks_cost)
from .stopping import current_check, stoppable
from .compress.tiers import history_tiers
from .tokens import DEFAULT_ENCODING, TokenCounter

FORMATS = ("text", "messages")
MIN_MAX_TOKENS = 64
# The query is the question or task; long material goes in documents, task_state or history. Bounded
# so that a client cannot make every stage analyse megabytes of query (1M characters took ~5 s).
MAX_QUERY_CHARS = 32_000
# History rows in `dropped` beyond this many (lowest scores) are only counted in `sources`.
MAX_DROPPED_HISTORY_ROWS = 25
MAX_DROPPED_OTHER_ROWS = 200   # documents, tool results, notes, memories, tools: best first, the rest counted
TOP_UP_ATTEMPTS = 24

Progress = Callable[[float, float, str], None]
Dropped = list[tuple[Packet, str]]
Compressed = list[dict[str, Any]]


@dataclass(frozen=True)
class Request:
    """The checked arguments of one build, with the counter and budget every stage reads."""

    query: str                 # stripped
    system: str                # the system instructions, stripped ('' for none)
    history: list[dict[str, Any]] | None
    task_state: dict[str, Any] | str | None
    tool_results: list[dict[str, Any]] | None
    documents: list[dict[str, Any]] | None
    tools: list[dict[str, Any]] | None
    format: str
    query_type: str            # as asked: "auto" is decided by the select stage
    relevance_weight: float | None
    recency_weight: float | None
    min_relevance: float | None
    include_notes: bool
    include_memory: bool
    note_types: list[str] | None
    tags: list[str] | None
    evidence: EvidenceProvider | None
    summarizer: Summarizer | None
    counter: TokenCounter
    budget: int                # floor(max_tokens * (1 - reserve_ratio))
    stop_check: Callable[[], None]

    def cost(self, p: Packet) -> int:
        """``p``'s cost in the output format."""
        return packet_cost(p, self.format, self.counter)


@dataclass(frozen=True)
class Gathered:
    """Every candidate packet: the history turns first (positions 0, 1, ...), then the other sources."""

    history: CachedHistory     # the history cache's reading of the caller's turns (kept costs)
    hist: list[Packet]         # its turns, without a last turn that repeats the query
    candidates: list[Packet]   # hist, then task state, tool results, documents, notes and memories
    tools: list[Packet]
    warnings: tuple[str, ...]


@dataclass(frozen=True)
class Frame:
    """The always-kept parts of the output (system instructions, query, tools) and the room they leave."""

    system: str                # shortened visibly when it alone did not fit
    tools_kept: list[Packet]
    tools_dropped: Dropped
    container: int             # the messages format's section headings and message overheads
    available: int             # room for the candidates, by estimate
    warnings: tuple[str, ...]


@dataclass(frozen=True)
class Selected:
    """The packets picked best first under the frame's room, by estimated costs."""

    query_type: str
    frame: Frame
    reserve: int               # room kept out of the pick for the history's tiers
    qterms: list[str]          # the query's terms, for shortening and the tiers
    selection: Selection
    compressed: Compressed     # rows of the packets shortened to fit
    warnings: tuple[str, ...]


@dataclass(frozen=True)
class Packed:
    """The output laid out and counted exactly (never over the budget)."""

    chosen: list[Packet]
    dropped: Dropped
    lay: Layout
    tokens: int
    compressed: Compressed


@without_collector
@stoppable
@with_call_memo
def build_context(query: str, *, history: list[dict[str, Any]] | None = None,
                  system_instructions: str | None = None, task_state: dict[str, Any] | str | None = None,
                  tool_results: list[dict[str, Any]] | None = None,
                  documents: list[dict[str, Any]] | None = None,
                  max_tokens: int = 3000, reserve_ratio: float = 0.2, format: str = "text",
                  include_notes: bool = True, include_memory: bool = True,
                  note_types: list[str] | None = None, tags: list[str] | None = None,
                  tools: list[dict[str, Any]] | None = None, query_type: str = "auto",
                  relevance_weight: float | None = None, recency_weight: float | None = None,
                  min_relevance: float | None = None, encoding: str = DEFAULT_ENCODING,
                  evidence: EvidenceProvider | None = None, summarizer: Summarizer | None = None,
                  progress: Progress | None = None,
                  should_stop: Callable[[], bool] | None = None) -> ContextResult:
    """Pack the most useful context for ``query`` into at most
    floor(max_tokens * (1 - reserve_ratio)) tokens, and report what was left out and why.

    Raises ``ContextError`` (a ``ValueError``) for bad arguments, and ``ContextCancelled`` when
    ``should_stop()`` turns true (checked between stages and every few hundred items), so a
    server can stop the work of a client that has gone away.
    """
    _validate(query, max_tokens, reserve_ratio, format, query_type, relevance_weight,
              recency_weight, min_relevance)
    counter = TokenCounter(encoding)
    req = Request(query=query.strip(), system=(system_instructions or "").strip(), history=history,
                  task_state=task_state, tool_results=tool_results, documents=documents, tools=tools,
                  format=format, query_type=query_type, relevance_weight=relevance_weight,
                  recency_weight=recency_weight, min_relevance=min_relevance, include_notes=include_notes,
                  include_memory=include_memory, note_types=note_types, tags=tags, evidence=evidence,
                  summarizer=summarizer, counter=counter, budget=_budget(query, max_tokens, reserve_ratio, counter),
                  stop_check=current_check())  # installed from should_stop by @stoppable
    report = _progress(progress, req.stop_check)
    report(0, "gather")
    gathered = gather(req)
    report(1, "select")
    selected = select(req, gathered)
    report(2, "compress")
    packed = compress(req, gathered, selected)
    report(3, "structure")
    packed = structure(req, selected, packed)
    report(4, "done")
    return _result(req, gathered, selected, packed)


def _budget(query: str, max_tokens: int, reserve_ratio: float, counter: TokenCounter) -> int:
    """floor(max_tokens * (1 - reserve_ratio)), checked to hold the query."""
    budget = math.floor(max_tokens * (1 - reserve_ratio))
    query_tokens = counter.count(query.strip())
    if query_tokens > budget:  # told now, before any scoring: the template check would fail anyway
        raise ContextError(f"the query is {query_tokens} tokens and the budget floor(max_tokens * (1 - "
                           f"reserve_ratio)) = {budget} tokens cannot hold it; raise max_tokens, lower "
                           f"reserve_ratio, or shorten the query (put long material in documents)")
    return budget


# Gather.

def gather(req: Request) -> Gathered:
    """Every candidate packet: the history's turns, the caller's other items and the workspace's evidence."""
    gathered_history = gather_history_cached(req.history)
    hist = gathered_history.packets
    if hist and " ".join(hist[-1].content.split()) == " ".join(req.query.split()):
        hist = hist[:-1]  # the caller also put the query in history; it is shown once, as the task
    check_input_items(req.tool_results, req.documents, req.tools)
    given = gather_task_state(req.task_state) + gather_tool_results(req.tool_results) + \
        gather_documents(req.documents)
    tools = gather_tools(req.tools)
    # The history's size is kept by the history cache (the query turn dropped above is counted too: harmless).
    # System instructions and tool schemas are text the caller sends as well.
    check_input_size(given + tools, already=gathered_history.text_bytes() + len(req.system.encode("utf-8", "replace")))
    warnings: list[str] = []
    evidence_limit = max(8, min(50, req.budget // 80))
    found = gather_evidence(req.evidence, req.query, evidence_limit, include_notes=req.include_notes,
                            include_memory=req.include_memory, note_types=req.note_types, tags=req.tags,
                            warnings=warnings)
    return Gathered(gathered_history, hist, hist + given + found, tools, tuple(warnings))


# Select.

def select(req: Request, g: Gathered) -> Selected:
    """Score every candidate, cost it, frame the always-kept parts, and pick the best under the room left."""
    query_type, profile = _profile(req, g)
    score_packets(g.candidates, req.query, profile)
    req.stop_check()
    _fill_costs(req, g)
    frame = _frame(req, g, profile)
    warnings = list(frame.warnings)
    qterms = terms_of_query(req.query)
    compressed: Compressed = []

    def shorten_packet(p: Packet, room: int) -> Packet | None:
        overhead = req.cost(replace(p, content=""))
        target = room - overhead - 1
        if target < 20:
            return None
        done = shorten(p.content, req.query, qterms, target, req.counter, req.summarizer, warnings)
        if done is None:
            return None
        q = with_content(p, done[0], done[1], req.cost)
        if q.tokens > room:
            return None
        compressed.append({"source": p.source, "id": p.id, "from_tokens": p.tokens, "to_tokens": q.tokens,
                           "method": done[1]})
        return q

    hist_total = sum(p.tokens for p in g.hist)
    reserve = 0
    if profile.condensed_share and hist_total > profile.shares["history"][1] * frame.available:
        reserve = int(profile.condensed_share * frame.available)
    sel = select_packets(g.candidates, frame.available - reserve, profile, group_cost=_day_costs(req),
                         min_relevance=req.min_relevance, shorten=shorten_packet, stop_check=req.stop_check)
    return Selected(query_type, frame, reserve, qterms, sel, compressed, tuple(warnings))


def _profile(req: Request, g: Gathered) -> tuple[str, Profile]:
    """The query type (decided when "auto") and its profile, with the caller's weights."""
    query_type = req.query_type
    if query_type == "auto":
        query_type = decide_query_type(
            req.query, has_task_state=req.task_state not in (None, "", {}), has_tool_results=bool(req.tool_results),
            has_sources=len(g.candidates) > len(g.hist) or len(g.hist) > 20)  # candidates = history + others
    profile = PROFILES[query_type]
    if req.relevance_weight is not None or req.recency_weight is not None:
        profile = replace(profile, relevance_weight=profile.relevance_weight if req.relevance_weight is None
                          else req.relevance_weight, recency_weight=profile.recency_weight
                          if req.recency_weight is None else req.recency_weight)
    return query_type, profile


def _fill_costs(req: Request, g: Gathered) -> None:
    """Each candidate's cost in the output format (``tokens``)."""
    hist = g.hist
    # History turns' costs are kept per turn by the history cache (a growing history costs its new turns only).
    hist_costs = g.history.costs((req.counter.encoding.name, req.format, hist[0].show_role if hist else True),
                                 req.cost)
    for p, c in zip(hist, hist_costs):  # hist is a prefix of the gathered turns: positions 0, 1, ...
        p.tokens = c
    for p in g.candidates[len(hist):]:
        p.tokens = req.cost(p)


def _frame(req: Request, g: Gathered, profile: Profile) -> Frame:
    """The tools that fit their share, the system instructions made to fit, and the room left for the rest."""
    fmt, counter, budget = req.format, req.counter, req.budget
    container = 0 if fmt == "text" else (
        counter.count(STATE_HEADING) + counter.count(SUPPORT_HEADING) + 2 * (MESSAGE_OVERHEAD_TOKENS + 1))
    # Tools get their share of the budget, or more when the other candidates leave room anyway.
    open_room = max(0, budget - _skeleton(req, req.system, []) - container)
    wanted = sum(p.tokens for p in g.candidates)
    tool_room = max(int(profile.shares["tools"][1] * open_room), open_room - wanted)
    tools_kept, tools_dropped = select_tools(g.tools, req.query, tool_room, req.cost)
    warnings = list(g.warnings)
    system = req.system
    skeleton = _skeleton(req, system, tools_kept)
    if skeleton + container > budget:
        system, skeleton = _fit_fixed(req, tools_kept, tools_dropped, container, warnings)
    # Day headers are costed without their year, which shows once per year (see structure.group_header).
    # Never below 0: the skeleton was checked to fit, the years' marks only may not (a tiny budget).
    available = max(0, budget - skeleton - container - year_marks_cost({p.header for p in g.hist if p.header},
                                                                       fmt, counter))
    return Frame(system, tools_kept, tools_dropped, container, available, tuple(warnings))


def _day_costs(req: Request) -> Callable[[str], int]:
    """A day header's cost, asked once per candidate and pass: counted once per day."""
    group_costs: dict[str, int] = {}

    def day_cost(grp: str) -> int:
        found = group_costs.get(grp)
        if found is None:
            found = group_costs[grp] = group_cost(grp, req.format, req.counter)
        return found
    return day_cost


def _skeleton(req: Request, system: str, tools: list[Packet]) -> int:
    """Exact size of the output with nothing but the always-kept parts."""
    return output_tokens(layout(system, req.query, tools, []), req.format, req.counter)


def _fit_fixed(req: Request, tools_kept: list[Packet], tools_dropped: Dropped, container: int,
               warnings: list[str]) -> tuple[str, int]:
    """Make the always-kept parts fit: drop optional tools, then shorten the system instructions
    visibly; if the query alone does not fit, the caller must raise max_tokens."""
    budget, counter = req.budget, req.counter
    for p in sorted([p for p in tools_kept if not p.required], key=lambda p: p.relevance):
        if _skeleton(req, req.system, tools_kept) + container <= budget:
            break
        tools_kept.remove(p)
        tools_dropped.append((p, "did not fit the budget with the system instructions and query"))
    skeleton = _skeleton(req, req.system, tools_kept)
    if skeleton + container <= budget:
        return req.system, skeleton
    bare = _skeleton(req, "", tools_kept)
    room = budget - container - bare - 2
    system = extractive_shorten(req.system, terms_of_query(req.query), room, counter) \
        if req.system and room > 8 else None
    if system is not None:
        shorter = _skeleton(req, system, tools_kept)
        if shorter + container <= budget:
            warnings.append(f"system instructions shortened to fit max_tokens ({counter.count(req.system)} → "
                            f"{counter.count(system)} tokens); raise max_tokens to keep them whole")
            return system, shorter
    raise ContextError(
        f"the budget floor(max_tokens * (1 - reserve_ratio)) = {budget} tokens cannot hold the query, "
        f"the required tools and the section template ({bare + container} tokens needed before any "
        f"context); raise max_tokens or lower reserve_ratio")


# Compress.

def compress(req: Request, g: Gathered, s: Selected) -> Packed:
    """Lay the pick out and count it exactly, fill the slack with whole items, then condense the turns
    that did not fit verbatim, older than the newest kept one, into the tiers (see tiers.py) in the room
    left."""
    chosen = list(s.selection.selected)
    dropped = list(s.selection.dropped)
    compressed = list(s.compressed)
    # Whole items first: the exact count leaves slack the estimates did not see, and whole turns fill
    # it before any tier does (outside the room reserved for the tiers when history does not fit).
    lay, tokens = _exact(req, s.frame, chosen, dropped, compressed)
    packed = _top_up(req, s.frame, Packed(chosen, dropped, lay, tokens, compressed), req.budget - s.reserve)
    chosen, dropped = packed.chosen, packed.dropped
    # Then the tiers (tiers.py): turns still left out, older than the newest kept one, condensed or
    # extracted into the room that is left.
    room = req.budget - packed.tokens - (s.frame.container if req.format == "messages" else 0)
    if room < 40 or not g.hist:
        return packed
    # Ids, not keys: no key string per turn. Near-duplicates are not "did not fit": a kept turn says it.
    left_out = {p.id for p, reason in dropped if p.source == P.HISTORY and not reason.startswith("near-dup")}
    kept_positions = [p.position for p in chosen if p.source == P.HISTORY]
    newest_kept = max(kept_positions, default=len(g.hist))
    older = [p for p in g.hist if p.id in left_out and p.position < newest_kept]
    tiers = history_tiers(older, newest_kept, s.qterms, room, req.counter, req.cost)
    for packet, row in tiers:
        chosen.append(packet)
        compressed.append(row)
    if not tiers:
        return packed
    lay, tokens = _exact(req, s.frame, chosen, dropped, compressed)
    return Packed(chosen, dropped, lay, tokens, compressed)


def _exact(req: Request, frame: Frame, chosen: list[Packet], dropped: Dropped,
           compressed: Compressed) -> tuple[Layout, int]:
    """Lay out and count exactly; while over budget, drop the weakest item (tiers first: score -1)
    (in place: ``chosen``, ``dropped`` and ``compressed``)."""
    lay = layout(frame.system, req.query, frame.tools_kept, chosen)
    tokens = output_tokens(lay, req.format, req.counter)
    while tokens > req.budget:
        req.stop_check()
        if not chosen:  # cannot happen: the skeleton alone was checked to fit
            raise ContextError(f"could not fit the query into {req.budget} tokens; raise max_tokens")
        worst = min(chosen, key=lambda p: (p.source == P.TASK_STATE, p.score, p.position))
        chosen.remove(worst)
        dropped.append((worst, "did not fit the budget (exact count)"))
        _forget_compression(compressed, worst)
        lay = layout(frame.system, req.query, frame.tools_kept, chosen)
        tokens = output_tokens(lay, req.format, req.counter)
    return lay, tokens


# Structure.

def structure(req: Request, s: Selected, packed: Packed) -> Packed:
    """Whatever slack is left takes more whole items, each checked with an exact count (without a
    reserve and without tiers the compress stage already tried exactly this: not repeated)."""
    if s.reserve or any(p.source == P.SUMMARY for p in packed.chosen):
        return _top_up(req, s.frame, packed, req.budget)
    return packed


def _top_up(req: Request, frame: Frame, packed: Packed, budget: int) -> Packed:
    """Use the slack the estimates left (removed placeholders, merged newlines) for more whole
    items, best first, each checked with an exact count."""
    chosen, dropped, lay, tokens = packed.chosen, packed.dropped, packed.lay, packed.tokens
    attempts = 0
    # The slack only shrinks: an item bigger than it is now can never be added, so it is not even sorted.
    most = budget - tokens + 2
    slack_items = sorted((i for i, (p, reason) in enumerate(dropped)
                          if p.tokens <= most and not reason.startswith(("near-duplicate", "relevance"))),
                         key=lambda i: -dropped[i][0].score)
    added: set[int] = set()
    for i in slack_items:
        p = dropped[i][0]
        if budget - tokens < 2 or attempts >= TOP_UP_ATTEMPTS:
            break
        if p.tokens > budget - tokens + 2:
            continue
        attempts += 1
        trial_lay = layout(frame.system, req.query, frame.tools_kept, chosen + [p])
        trial = output_tokens(trial_lay, req.format, req.counter)
        if trial <= budget:
            chosen = chosen + [p]
            lay, tokens = trial_lay, trial
            added.add(i)
    if added:
        dropped = [d for i, d in enumerate(dropped) if i not in added]
    return Packed(chosen, dropped, lay, tokens, packed.compressed)


def _validate(query: Any, max_tokens: Any, reserve_ratio: Any, fmt: Any, query_type: Any,
              relevance_weight: Any, recency_weight: Any, min_relevance: Any) -> None:
    if not isinstance(query, str) or not query.strip():
        raise ContextError("query must be a non-empty string: the task or question the context is for")
    if len(query) > MAX_QUERY_CHARS:
        raise ContextError(f"query is {len(query):,} characters; at most {MAX_QUERY_CHARS:,} are accepted: "
                           f"keep the query to the question or task, and pass long material as documents, "
                           f"task_state or history")
    if fmt not in FORMATS:
        raise ContextError(f"unknown format {fmt!r}: use 'text' (one string) or 'messages' "
                           f"(a list of {{role, content}})")
    if query_type not in QUERY_TYPES:
        raise ContextError(f"unknown query_type {query_type!r}: use one of {list(QUERY_TYPES)}")
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < MIN_MAX_TOKENS:
        raise ContextError(f"max_tokens must be an integer >= {MIN_MAX_TOKENS}, got {max_tokens!r}; "
                           f"a useful context needs room for the query and the template")
    if (isinstance(reserve_ratio, bool) or not isinstance(reserve_ratio, (int, float))
            or not 0 <= reserve_ratio < 1):
        raise ContextError(f"reserve_ratio must be in [0, 1), got {reserve_ratio!r}: it is the share "
                           f"of max_tokens kept free for the model's answer (0.2 keeps 20%)")
    for name, value in (("relevance_weight", relevance_weight), ("recency_weight", recency_weight),
                        ("min_relevance", min_relevance)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))
                                  or not 0 <= value <= 1):
            raise ContextError(f"{name} must be a number in [0, 1] or None (profile default), got {value!r}")



def _progress(progress: Progress | None, stop_check: Callable[[], None]) -> Callable[[float, str], None]:
    def report(done: float, message: str) -> None:
        stop_check()
        if progress is not None:
            try:
                progress(done, 4, message)
            except Exception:  # a broken progress callback must not break the build
                pass
    return report



def _forget_compression(compressed: list[dict[str, Any]], p: Packet) -> None:
    compressed[:] = [c for c in compressed if not (c["source"] == p.source and c["id"] == p.id)]


# The result.

def _result(req: Request, g: Gathered, s: Selected, packed: Packed) -> ContextResult:
    fmt, counter, lay, chosen = req.format, req.counter, packed.lay, packed.chosen
    dropped = packed.dropped + s.frame.tools_dropped
    res = ContextResult(format=fmt, query_type=s.query_type, tokens=packed.tokens, budget=req.budget,
                        warnings=list(s.warnings), compressed=packed.compressed,
                        sections=section_tokens(lay, fmt, counter))
    if fmt == "text":
        res.context = render_text(lay)
    else:
        res.messages = render_messages(lay)
    for p in lay.tools:
        res.selected.append({"source": P.TOOL, "id": p.id, "tokens": p.tokens, "score": round(p.score, 3),
                             "required": p.required})
    res.selected += [p.report() for p in sorted(chosen, key=lambda p: -p.score)]
    hist_dropped, others = _dropped_rows(res, dropped)
    n_history = len(g.hist)
    # g.candidates is the n_history history turns, then the other sources: no pass over every turn.
    candidates: Counter[str] = Counter({P.HISTORY: n_history} if n_history else {})
    candidates.update(p.source for p in g.candidates[n_history:])
    candidates.update(p.source for p in g.tools)
    selected = Counter(p.source for p in chosen + lay.tools)
    selected_tokens: Counter[str] = Counter()
    for p in chosen + lay.tools:
        selected_tokens[p.source] += p.tokens
    dropped_n: Counter[str] = Counter({P.HISTORY: len(hist_dropped)} if hist_dropped else {})
    dropped_n.update(dropped[i][0].source for i in others)
    stats: dict[str, dict[str, int]] = {}
    # Sources in the order they were first met (candidates, then selected, then dropped), as before.
    for source in chain(candidates, selected, dropped_n):
        if source not in stats:
            stats[source] = {"candidates": candidates[source], "selected": selected[source],
                             "dropped": dropped_n[source], "tokens": selected_tokens[source]}
    res.sources = stats
    return res


def _dropped_rows(res: ContextResult, dropped: Dropped) -> tuple[list[int], list[int]]:
    """Fill ``res.dropped`` with rows best first (history beyond MAX_DROPPED_HISTORY_ROWS, the rest beyond
    MAX_DROPPED_OTHER_ROWS, only counted, with a warning); return the indexes of the dropped history turns
    and of the other items."""
    # Equivalent to sorting every dropped item by score (stable) and skipping history past the limit,
    # without sorting thousands of turns.
    hist_dropped: list[int] = []
    others: list[int] = []
    for i, d in enumerate(dropped):
        (hist_dropped if d[0].source == P.HISTORY else others).append(i)
    shown = heapq.nlargest(MAX_DROPPED_HISTORY_ROWS, hist_dropped, key=lambda i: dropped[i][0].score)
    shown_others = (others if len(others) <= MAX_DROPPED_OTHER_ROWS else
                    heapq.nlargest(MAX_DROPPED_OTHER_ROWS, others, key=lambda i: (dropped[i][0].score, -i)))
    order = sorted(shown_others + shown, key=lambda i: (-dropped[i][0].score, i))
    for i in order:
        p, reason = dropped[i]
        row = p.report()
        row["reason"] = reason
        res.dropped.append(row)
    if len(others) > len(shown_others):
        res.warnings.append(f"{len(others) - len(shown_others)} more dropped items (lower scores) are not listed "
                            f"in 'dropped'; see 'sources'")
    extra_history = len(hist_dropped) - len(shown)
    if extra_history:
        res.warnings.append(f"{extra_history} more dropped history turns (lower scores) are not listed "
                            f"in 'dropped'; see 'sources'")
    return hist_dropped, others
