"""build_context: the Gather → Select → Structure → Compress pipeline behind one call."""

from __future__ import annotations

import heapq
import math
from collections import Counter
from itertools import chain
from dataclasses import replace
from typing import Any
from collections.abc import Callable

from notes_store.bounded_cache import with_call_memo

from .gc_pause import without_collector
from . import packets as P
from .compress.summaries import Summarizer, extractive_shorten, shorten
from .errors import ContextError
from .gather.inputs import (Gathered, check_input_items, check_input_size, gather_documents, gather_evidence, gather_history_cached,
                     gather_task_state,
                     gather_tool_results, gather_tools)
from .packets import Packet
from .select.relevance import terms_of_query
from .result import ContextResult
from .select.selection import (PROFILES, QUERY_TYPES, decide_query_type, score_packets, select_packets,
                     select_tools, with_content)
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
    budget = math.floor(max_tokens * (1 - reserve_ratio))
    query_tokens = counter.count(query.strip())
    if query_tokens > budget:  # told now, before any scoring: the template check below would fail anyway
        raise ContextError(f"the query is {query_tokens} tokens and the budget floor(max_tokens * (1 - "
                           f"reserve_ratio)) = {budget} tokens cannot hold it; raise max_tokens, lower "
                           f"reserve_ratio, or shorten the query (put long material in documents)")
    stop_check = current_check()  # installed from should_stop by @stoppable
    report = _progress(progress, stop_check)

    # Gather.
    report(0, "gather")
    g = Gathered(system=(system_instructions or "").strip(), query=query.strip())
    gathered_history = gather_history_cached(history)
    hist = gathered_history.packets
    if hist and " ".join(hist[-1].content.split()) == " ".join(g.query.split()):
        hist = hist[:-1]  # the caller also put the query in history; it is shown once, as the task
    check_input_items(tool_results, documents, tools)
    given = gather_task_state(task_state) + gather_tool_results(tool_results) + gather_documents(documents)
    g.candidates = hist + given
    g.tools = gather_tools(tools)
    # The history's size is kept by the history cache (the query turn dropped above is counted too: harmless).
    # System instructions and tool schemas are text the caller sends as well.
    check_input_size(given + g.tools, already=gathered_history.text_bytes() + len(g.system.encode("utf-8", "replace")))
    evidence_limit = max(8, min(50, budget // 80))
    g.candidates += gather_evidence(evidence, g.query, evidence_limit, include_notes=include_notes,
                                    include_memory=include_memory, note_types=note_types, tags=tags,
                                    warnings=g.warnings)

    # Select.
    report(1, "select")
    if query_type == "auto":
        query_type = decide_query_type(
            g.query, has_task_state=task_state not in (None, "", {}), has_tool_results=bool(tool_results),
            has_sources=len(g.candidates) > len(hist) or len(hist) > 20)  # candidates = history + others
    profile = PROFILES[query_type]
    if relevance_weight is not None or recency_weight is not None:
        profile = replace(profile, relevance_weight=profile.relevance_weight if relevance_weight is None
                          else relevance_weight, recency_weight=profile.recency_weight
                          if recency_weight is None else recency_weight)
    score_packets(g.candidates, g.query, profile)
    stop_check()

    def cost(p: Packet) -> int:
        return packet_cost(p, format, counter)

    # History turns' costs are kept per turn by the history cache (a growing history costs its new turns only).
    hist_costs = gathered_history.costs((counter.encoding.name, format, hist[0].show_role if hist else True),
                                        cost)
    for p, c in zip(hist, hist_costs):  # hist is a prefix of the gathered turns: positions 0, 1, ...
        p.tokens = c
    for p in g.candidates[len(hist):]:
        p.tokens = cost(p)
    container = 0 if format == "text" else (
        counter.count(STATE_HEADING) + counter.count(SUPPORT_HEADING) + 2 * (MESSAGE_OVERHEAD_TOKENS + 1))
    # Tools get their share of the budget, or more when the other candidates leave room anyway.
    open_room = max(0, budget - _skeleton(g, [], format, counter) - container)
    wanted = sum(p.tokens for p in g.candidates)
    tool_room = max(int(profile.shares["tools"][1] * open_room), open_room - wanted)
    tools_kept, tools_dropped = select_tools(g.tools, g.query, tool_room, cost)
    system = g.system
    skeleton = _skeleton(g, tools_kept, format, counter)
    if skeleton + container > budget:
        system, skeleton = _fit_fixed(g, tools_kept, tools_dropped, format, counter, budget, container)
        g.system = system
    # Day headers are costed without their year, which shows once per year (see structure.group_header).
    # Never below 0: the skeleton was checked to fit, the years' marks only may not (a tiny budget).
    available = max(0, budget - skeleton - container - year_marks_cost({p.header for p in hist if p.header},
                                                                       format, counter))

    qterms = terms_of_query(g.query)
    compressed: list[dict[str, Any]] = []

    def shorten_packet(p: Packet, room: int) -> Packet | None:
        overhead = cost(replace(p, content=""))
        target = room - overhead - 1
        if target < 20:
            return None
        done = shorten(p.content, g.query, qterms, target, counter, summarizer, g.warnings)
        if done is None:
            return None
        q = with_content(p, done[0], done[1], cost)
        if q.tokens > room:
            return None
        compressed.append({"source": p.source, "id": p.id, "from_tokens": p.tokens, "to_tokens": q.tokens,
                           "method": done[1]})
        return q

    hist_total = sum(hist_costs[:len(hist)])
    reserve = 0
    if profile.condensed_share and hist_total > profile.shares["history"][1] * available:
        reserve = int(profile.condensed_share * available)
    group_costs: dict[str, int] = {}

    def day_cost(grp: str) -> int:  # asked once per candidate and pass: a day's header costs the same each time
        found = group_costs.get(grp)
        if found is None:
            found = group_costs[grp] = group_cost(grp, format, counter)
        return found

    sel = select_packets(g.candidates, available - reserve, profile, group_cost=day_cost,
                         min_relevance=min_relevance, shorten=shorten_packet, stop_check=stop_check)

    # Compress: turns that did not fit verbatim, older than the newest kept one, become the tiers
    # (the middle condensed, the oldest as a short extract; see tiers.py) in the room left.
    report(2, "compress")
    chosen = list(sel.selected)
    dropped = list(sel.dropped)

    def exact(chosen: list[Packet], dropped: list[tuple[Packet, str]]) -> tuple[Layout, int]:
        """Lay out and count exactly; while over budget, drop the weakest item (tiers first: score -1)."""
        lay = layout(system, g.query, tools_kept, chosen)
        tokens = output_tokens(lay, format, counter)
        while tokens > budget:
            stop_check()
            if not chosen:  # cannot happen: the skeleton alone was checked to fit
                raise ContextError(f"could not fit the query into {budget} tokens; raise max_tokens")
            worst = min(chosen, key=lambda p: (p.source == P.TASK_STATE, p.score, p.position))
            chosen.remove(worst)
            dropped.append((worst, "did not fit the budget (exact count)"))
            _forget_compression(compressed, worst)
            lay = layout(system, g.query, tools_kept, chosen)
            tokens = output_tokens(lay, format, counter)
        return lay, tokens

    # Whole items first: the exact count leaves slack the estimates did not see, and whole turns fill
    # it before any tier does (outside the room reserved for the tiers when history does not fit).
    lay, tokens = exact(chosen, dropped)
    chosen, dropped, lay, tokens = _top_up(chosen, dropped, lay, tokens, budget - reserve, system, g,
                                           tools_kept, format, counter)
    # Then the tiers (tiers.py): turns still left out, older than the newest kept one, condensed or
    # extracted into the room that is left.
    room = budget - tokens - (container if format == "messages" else 0)
    if room >= 40 and hist:
        # Ids, not keys: no key string per turn. Near-duplicates are not "did not fit": a kept turn says it.
        left_out = {p.id for p, reason in dropped if p.source == P.HISTORY and not reason.startswith("near-dup")}
        kept_positions = [p.position for p in chosen if p.source == P.HISTORY]
        newest_kept = max(kept_positions, default=len(hist))
        older = [p for p in hist if p.id in left_out and p.position < newest_kept]
        tiers = history_tiers(older, newest_kept, qterms, room, counter, cost)
        for packet, row in tiers:
            chosen.append(packet)
            compressed.append(row)
        if tiers:
            lay, tokens = exact(chosen, dropped)

    # Structure: whatever slack is left takes more whole items, each checked with an exact count (without
    # a reserve and without tiers the first pass already tried exactly this: not repeated).
    report(3, "structure")
    if reserve or any(p.source == P.SUMMARY for p in chosen):
        chosen, dropped, lay, tokens = _top_up(chosen, dropped, lay, tokens, budget, system, g, tools_kept,
                                               format, counter)

    report(4, "done")
    return _result(format, query_type, tokens, budget, lay, chosen, dropped + tools_dropped,
                   compressed, g, counter, len(hist))


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


def _skeleton(g: Gathered, tools: list[Packet], fmt: str, counter: TokenCounter) -> int:
    """Exact size of the output with nothing but the always-kept parts."""
    return output_tokens(layout(g.system, g.query, tools, []), fmt, counter)


def _fit_fixed(g: Gathered, tools_kept: list[Packet], tools_dropped: list[tuple[Packet, str]], fmt: str,
               counter: TokenCounter, budget: int, container: int) -> tuple[str, int]:
    """Make the always-kept parts fit: drop optional tools, then shorten the system instructions
    visibly; if the query alone does not fit, the caller must raise max_tokens."""
    for p in sorted([p for p in tools_kept if not p.required], key=lambda p: p.relevance):
        if _skeleton(g, tools_kept, fmt, counter) + container <= budget:
            break
        tools_kept.remove(p)
        tools_dropped.append((p, "did not fit the budget with the system instructions and query"))
    skeleton = _skeleton(g, tools_kept, fmt, counter)
    if skeleton + container <= budget:
        return g.system, skeleton
    bare = _skeleton(replace(g, system=""), tools_kept, fmt, counter)
    room = budget - container - bare - 2
    system = extractive_shorten(g.system, terms_of_query(g.query), room, counter) if g.system and room > 8 else None
    if system is not None:
        shorter = _skeleton(replace(g, system=system), tools_kept, fmt, counter)
        if shorter + container <= budget:
            g.warnings.append(f"system instructions shortened to fit max_tokens ({counter.count(g.system)} → "
                              f"{counter.count(system)} tokens); raise max_tokens to keep them whole")
            return system, shorter
    raise ContextError(
        f"the budget floor(max_tokens * (1 - reserve_ratio)) = {budget} tokens cannot hold the query, "
        f"the required tools and the section template ({bare + container} tokens needed before any "
        f"context); raise max_tokens or lower reserve_ratio")


def _top_up(chosen: list[Packet], dropped: list[tuple[Packet, str]], lay: Layout, tokens: int,
            budget: int, system: str, g: Gathered, tools_kept: list[Packet], fmt: str,
            counter: TokenCounter
            ) -> tuple[list[Packet], list[tuple[Packet, str]], Layout, int]:
    """Use the slack the estimates left (removed placeholders, merged newlines) for more whole
    items, best first, each checked with an exact count."""
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
        trial_lay = layout(system, g.query, tools_kept, chosen + [p])
        trial = output_tokens(trial_lay, fmt, counter)
        if trial <= budget:
            chosen = chosen + [p]
            lay, tokens = trial_lay, trial
            added.add(i)
    if added:
        dropped = [d for i, d in enumerate(dropped) if i not in added]
    return chosen, dropped, lay, tokens


def _forget_compression(compressed: list[dict[str, Any]], p: Packet) -> None:
    compressed[:] = [c for c in compressed if not (c["source"] == p.source and c["id"] == p.id)]


def _result(fmt: str, query_type: str, tokens: int, budget: int, lay: Layout, chosen: list[Packet],
            dropped: list[tuple[Packet, str]], compressed: list[dict[str, Any]], g: Gathered,
            counter: TokenCounter, n_history: int) -> ContextResult:
    res = ContextResult(format=fmt, query_type=query_type, tokens=tokens, budget=budget,
                        warnings=list(g.warnings), compressed=compressed,
                        sections=section_tokens(lay, fmt, counter))
    if fmt == "text":
        res.context = render_text(lay)
    else:
        res.messages = render_messages(lay)
    for p in lay.tools:
        res.selected.append({"source": P.TOOL, "id": p.id, "tokens": p.tokens, "score": round(p.score, 3),
                             "required": p.required})
    res.selected += [p.report() for p in sorted(chosen, key=lambda p: -p.score)]
    # Rows best first; history beyond MAX_DROPPED_HISTORY_ROWS is only counted. Equivalent to sorting every
    # dropped item by score (stable) and skipping history past the limit, without sorting thousands of turns.
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
