"""Packing: whole packets, best first, under layered per-source budgets.

Each source has a minimum share of the budget it gets first (when it has
candidates) and a maximum share it may not exceed while other sources still
want room, so one long source cannot starve the others. Items are never cut:
one that does not fit is skipped, or shortened visibly by the compress stage.
Before any of it, plain BM25's best turns are taken (BM25_RESERVED_SHARE).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from collections.abc import Callable

from notes_store.bounded_cache import TEXT_CACHE_CHARS, cached_by_size
from .. import packets as P
from ..packets import Packet
from .dedup import NearDuplicates
from .profiles import Profile
from .relevance import lexical_relevance, terms_of

# Which share a packet's source draws on.
SHARE_OF = {P.TASK_STATE: "state", P.TOOL_RESULT: "tool_results", P.HISTORY: "history",
            P.SUMMARY: "history", P.NOTE: "evidence", P.MEMORY: "evidence", P.DOCUMENT: "documents",
            P.TOOL: "tools"}
# The turns plain BM25 ranks first are taken before any other signal gets a say, until they fill
# this share of the room: recency, neighbours and proximity can add turns, never push these out.
# 0.2 rather than 0.3: level or better on 7 of 8 dev sets at 1k and 2k (bench.quality, 2026-12-01).
BM25_RESERVED_SHARE = 0.2
DUP_RARITY_SAMPLE = 1000


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
    n_hist = sum(1 for p in candidates if p.source == P.HISTORY)
    packer = _Packer(sel, pool, n_hist, available, profile, group_cost, shorten, max_compressions, stop_check)
    packer.take_plain_best()
    packer.take_floors()
    packer.take_best()
    for i, p in enumerate(pool):
        if i not in packer.taken:
            sel.dropped.append((p, packer.reasons.get(i, "did not fit the budget")))
    return sel


class _Packer:
    """One packing: the pool best first, what is taken of it, each share's use, and why the rest was not."""

    def __init__(self, sel: Selection, pool: list[Packet], n_hist: int, available: int, profile: Profile,
                 group_cost: Callable[[str], int], shorten: Shortener | None, max_compressions: int,
                 stop_check: Callable[[], None] | None) -> None:
        self.sel, self.pool, self.available, self.profile = sel, pool, available, profile
        self.group_cost, self.shorten, self.max_compressions = group_cost, shorten, max_compressions
        self.stop_check = stop_check
        # The profile's newest turns are the conversation's present: never dropped as a copy of an
        # older turn (the BM25 reserve may have taken the older copy first).
        self.recent = {id(p) for p in pool if p.source == P.HISTORY and p.position >= n_hist - profile.recent_turns}
        self.present = {SHARE_OF[p.source] for p in pool}
        self.usage: dict[str, int] = {}
        self.caps_min = {s: int(profile.shares[s][0] * available) for s in self.present}
        self.caps_max = {s: int(profile.shares[s][1] * available) for s in self.present}
        self.taken: set[int] = set()
        self.compressions = 0
        # The best item of each source may be shortened even with weak relevance: the caller chose it.
        first_of: dict[str, int] = {}
        for i, p in enumerate(pool):
            first_of.setdefault(p.source, i)
        self.best_of_source = set(first_of.values())
        self.reasons: dict[int, str] = {}
        # Term rarity for the duplicate index from the leading items only: any one order of terms finds
        # the same pairs (prefix filtering needs a global order, not the true one), and counting every
        # term of a 5,000-turn pool cost more than the whole rest of the selection.
        self.dups = NearDuplicates(_fingerprint(p)[1] for p in pool[:DUP_RARITY_SAMPLE])

    def extra_cost(self, p: Packet) -> int:
        return self.group_cost(p.header) if p.header and p.header not in self.sel.groups else 0

    def admit(self, p: Packet) -> None:
        sel = self.sel
        c = p.tokens + self.extra_cost(p)
        if p.header:
            sel.groups.add(p.header)
        sel.used += c
        self.usage[SHARE_OF[p.source]] = self.usage.get(SHARE_OF[p.source], 0) + c
        if p.source != P.TASK_STATE:
            text, terms = _fingerprint(p)
            self.dups.add(text, terms, len(sel.selected))
        sel.selected.append(p)

    def duplicate_of(self, p: Packet) -> Packet | None:
        text, terms = _fingerprint(p)
        # Identical short turns ("ok", "thanks") are separate moments, not copies; what is short is
        # measured without the speaker's name ("Caroline: Sounds good." is short).
        short = p.source == P.HISTORY and len(" ".join(p.content.split())) < 20
        h = self.dups.find(text, terms, same_text_counts=not short)
        return self.sel.selected[h] if h is not None else None

    def try_take(self, i: int, p: Packet, cap: int | None, dedup: bool = True) -> bool:
        if self.stop_check is not None and i % 256 == 0:
            self.stop_check()
        sel = self.sel
        share = SHARE_OF[p.source]
        room = self.available - sel.used
        if cap is not None:
            room = min(room, cap - self.usage.get(share, 0))
        need = p.tokens + self.extra_cost(p)
        if need > room:
            return self._take_shortened(i, p, cap, room)
        dup = None if id(p) in self.recent or not dedup else self.duplicate_of(p)
        self.taken.add(i)
        if dup is not None:
            self.reasons[i] = f"near-duplicate of {dup.source} {dup.id}"
            sel.dropped.append((p, self.reasons[i]))
            return False
        self.admit(p)
        return True

    def _take_shortened(self, i: int, p: Packet, cap: int | None, room: int) -> bool:
        """A strong item that is too big for ``room`` is shortened visibly rather than lost."""
        if (self.shorten is not None and self.compressions < self.max_compressions and p.source != P.HISTORY
                and (p.relevance >= 0.3 or p.source == P.TASK_STATE or i in self.best_of_source)
                and room >= 40):
            short = self.shorten(p, room)
            if short is not None and short.tokens <= room:
                self.compressions += 1
                self.taken.add(i)
                self.admit(short)
                return True
        self.reasons[i] = "no room in its share" if cap is not None and room < self.available - self.sel.used \
            else "did not fit the budget"
        return False

    def take_plain_best(self) -> None:
        """0. Plain BM25's best turns, whatever the other signals say (see BM25_RESERVED_SHARE)."""
        pool, sel = self.pool, self.sel
        reserved_room = int(BM25_RESERVED_SHARE * min(self.available, self.caps_max.get("history", 0)))
        if reserved_room <= 0:
            return
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
            if self.try_take(i, pool[i], None, dedup=False):
                spent += sel.used - before

    def take_floors(self) -> None:
        """1. Minimum shares: every source that has candidates gets its floor first."""
        usage, caps_min, taken = self.usage, self.caps_min, self.taken
        for share in sorted(self.present, key=lambda s: -self.profile.shares[s][0]):
            for i, p in enumerate(self.pool):
                if usage.get(share, 0) >= caps_min[share]:
                    break
                if i not in taken and SHARE_OF[p.source] == share:
                    self.try_take(i, p, caps_min[share])

    def take_best(self) -> None:
        """2. Best first within maximum shares; 3. then whatever is left, caps lifted, because a
        cap only exists to protect other sources and none of them wants the room any more."""
        pool, sel, taken, usage, reasons = self.pool, self.sel, self.taken, self.usage, self.reasons
        available, caps_max, shorten, try_take = self.available, self.caps_max, self.shorten, self.try_take
        smallest, whole = _suffix_bounds(pool)
        for capped in (True, False):
            for i, p in enumerate(pool):
                if i in taken:
                    continue
                room_left = available - sel.used
                if room_left < smallest[i] and (whole[i] or shorten is None
                                                or self.compressions >= self.max_compressions or room_left < 40):
                    break  # nothing else can fit, whole or shortened
                cap = caps_max[SHARE_OF[p.source]] if capped else None
                if p.source == P.HISTORY:
                    # What try_take would say of a turn too big for the room, without its work.
                    room = room_left if cap is None else min(room_left, cap - usage.get("history", 0))
                    if p.tokens > room:
                        reasons[i] = "no room in its share" if room < room_left else "did not fit the budget"
                        continue
                try_take(i, p, cap)


def _suffix_bounds(items: list[Packet]) -> tuple[list[int], list[bool]]:
    """smallest[i]: the smallest item from i on; whole[i]: no item from i on may be shortened (history)."""
    smallest = [0] * (len(items) + 1)
    whole = [True] * (len(items) + 1)
    smallest[-1] = 1 << 60
    for i in range(len(items) - 1, -1, -1):
        smallest[i] = min(smallest[i + 1], items[i].tokens)
        whole[i] = whole[i + 1] and items[i].source == P.HISTORY
    return smallest, whole


def _fingerprint(p: Packet) -> tuple[str, frozenset[str]]:
    """Whitespace- and case-normalised text and the term set, computed once per packet."""
    if p.fingerprint is None:
        p.fingerprint = _text_fingerprint(p.spoken)
    return p.fingerprint


@cached_by_size(TEXT_CACHE_CHARS, 65536)
def _text_fingerprint(content: str) -> tuple[str, frozenset[str]]:
    # Cached by text: an agent loop sends the same turns on every call.
    return " ".join(content.split()).lower(), frozenset(terms_of(content))



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
