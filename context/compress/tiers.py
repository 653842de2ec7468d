"""Compression tiers for a history that does not fit: recent turns verbatim, the middle condensed,
the oldest as a short extract (the seed's dialogue tiers, with the extractive compressors we have).

- **recent** (verbatim): what selection kept whole: the profile's newest turns always, and older turns
  the query makes relevant. Tiers never take room from these.
- **middle** (condensed): turns left out among the ``MIDDLE_TURNS`` positions before the newest kept
  turn become one "Earlier conversation (condensed …)" packet: their sentences that touch the query
  or read like decisions, facts and open questions, as ``- role: sentence`` lines (``condense_history``).
- **oldest** (extract): turns left out before that window become one "Earliest conversation (extract …)"
  packet: only sentences that share a query term, best first, in at most ``OLDEST_SHARE`` of the room
  (more when the middle leaves some). Only turns whose terms meet the query are split into sentences,
  so a 5,000-turn session costs a set test per turn, not an analysis per sentence.

Tiers apply only where history does not fit: they are made of turns selection left out, in the room
left after it (turns dropped as near-duplicates of kept ones are not among them), and a tier is only
made when it is smaller than the turns it stands for. Every line is a whole sentence (none is cut; one that does not fit is left out) and each
heading says how many turns the tier stands for; each packet's text is counted exactly against its room.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .. import packets as P
from .summaries import condense_history, pack_lines, sentence_table
from ..packets import Packet
from ..select.relevance import terms_of
from ..tokens import TokenCounter

MIDDLE_TURNS = 100          # left-out turns this close before the newest kept turn are "the middle"
OLDEST_SHARE = 1 / 3        # room the oldest tier gets first when both tiers have turns
MIN_TIER_ROOM = 24          # below this a tier's heading and one line do not fit: skip it
EXTRACT_HEADING = "Earliest conversation (extract: lines that match the task; {n} turns not shown verbatim):"
MAX_EXTRACT_SENTENCE_CHARS = 400   # longer sentences are not extract material (they would crowd out the rest)


def extract_oldest(turns: Sequence[Packet], query_terms: Sequence[str], max_tokens: int,
                   counter: TokenCounter) -> tuple[str, int] | None:
    """The sentences of ``turns`` that share most query terms, chronological, within ``max_tokens``:
    (text, number of turns it drew from), or None when no sentence matches or fits."""
    qset = frozenset(query_terms)
    if not turns or not qset:
        return None
    heading = EXTRACT_HEADING.format(n=len(turns))
    room = max_tokens - counter.count(heading) - 1
    if room < 8:
        return None
    found: list[tuple[float, int, int, str]] = []
    for t_index, turn in enumerate(turns):
        if qset.isdisjoint(terms_of(turn.content)):
            continue  # no sentence of it can match: skip the sentence split
        for s_index, (sentence, terms, cue) in enumerate(sentence_table(turn.content)):
            overlap = len(terms & qset)
            if overlap and len(sentence) <= MAX_EXTRACT_SENTENCE_CHARS:
                found.append((overlap + (0.3 if cue else 0.0), t_index, s_index, f"- {turn.role}: {sentence}"))
    return pack_lines(found, heading, max_tokens, counter)  # most query terms first, newer on ties


def history_tiers(older: Sequence[Packet], newest_kept: int, query_terms: Sequence[str], room: int,
                  counter: TokenCounter, cost: Callable[[Packet], int]
                  ) -> list[tuple[Packet, dict[str, Any]]]:
    """The tier packets for the left-out turns ``older`` (all before position ``newest_kept``), oldest
    tier first, each with its ``compressed`` report row; together they cost at most ``room`` tokens."""
    middle = [p for p in older if p.position >= newest_kept - MIDDLE_TURNS]
    oldest = [p for p in older if p.position < newest_kept - MIDDLE_TURNS]
    out: list[tuple[Packet, dict[str, Any]]] = []
    oldest_room = int(OLDEST_SHARE * room) if oldest and middle else (room if oldest else 0)
    used = 0
    if middle and room - oldest_room >= MIN_TIER_ROOM:
        made = condense_history(middle, query_terms, room - oldest_room - 1, counter)
        if made is not None:
            packet = _packet("earlier-conversation", made[0], "condensed", cost)
            if packet.tokens <= room - oldest_room and packet.tokens < sum(t.tokens for t in middle):
                out.append((packet, _row(packet, middle, made[1], "middle")))
                used += packet.tokens
    if oldest and room - used >= MIN_TIER_ROOM:
        made = extract_oldest(oldest, query_terms, room - used - 1, counter)
        if made is not None:
            packet = _packet("earliest-conversation", made[0], "extract", cost)
            if packet.tokens <= room - used and packet.tokens < sum(t.tokens for t in oldest):
                out.insert(0, (packet, _row(packet, oldest, made[1], "oldest")))
    return out


def _packet(pid: str, text: str, method: str, cost: Callable[[Packet], int]) -> Packet:
    p = Packet(source=P.SUMMARY, id=pid, content=text, relevance=0.0, score=-1.0, compression=method)
    p.tokens = cost(p)
    return p


def _row(p: Packet, turns: Sequence[Packet], drew_from: int, tier: str) -> dict[str, Any]:
    return {"source": P.SUMMARY, "id": p.id, "from_tokens": sum(t.tokens for t in turns), "to_tokens": p.tokens,
            "method": p.compression, "turns": drew_from, "tier": tier}
