"""Gather: validate the caller's inputs and turn every item into a candidate Packet.

System instructions and the query are returned apart: they are always kept.
Notes and memories come from the evidence provider; a provider that fails is
reported in warnings, never fatal.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from datetime import date, datetime
from functools import lru_cache
from typing import Any

from .. import packets as P
from notes_store.sessions import MAX_NAME_CHARS, is_short_line
from notes_store.bounded_cache import TEXT_CACHE_CHARS, BoundedCache, cached_by_size
from notes_store.timestamps import NotATime, to_naive_utc

from ..errors import ContextError
from ..packets import Packet
from .sources import Evidence, EvidenceProvider
from ..select.turn_cache import HISTORY_CACHE, CachedHistory, copy_packet

HISTORY_ROLES = ("user", "assistant", "system", "tool")
# Per call: beyond these the caller should summarise or page (the work grows with the input).
MAX_HISTORY_TURNS = 20_000
MAX_INPUT_BYTES = 16 * 1024 * 1024   # all history, documents, tool results, task state, system and tools
MAX_INPUT_ITEMS = 5_000              # documents, tool results and tools together


def parse_timestamp(value: Any, where: str) -> datetime | None:
    """A naive-UTC datetime from a datetime, ISO-8601 string or epoch seconds (None stays None)."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime) and value.tzinfo is None:
        return value  # naive means UTC already
    if isinstance(value, str):
        # Cached: a history's timestamps come back on every call of an agent loop.
        parsed = _parse_iso_cached(value)
        if parsed is not None:
            return parsed
    try:
        # Naive UTC: mixed aware/naive datetimes could not be compared.
        return to_naive_utc(value, numbers=True)
    except NotATime as exc:
        raise ContextError(f"{where}: timestamp {exc}") from None


@cached_by_size(TEXT_CACHE_CHARS // 8, 65536)
def _parse_iso_cached(value: str) -> datetime | None:
    try:
        return to_naive_utc(value)
    except NotATime:
        return None  # the caller reports it with where it came from


def day_label(ts: datetime) -> str:
    """The date shown above a day's turns: weekday too, since turns say "last Tuesday"."""
    return _day_label(ts.date())


@lru_cache(maxsize=4096)
def _day_label(day: date) -> str:
    return f"{day:%a} {day.day} {day:%b %Y}"


# How far into a turn its own date is looked for (a "time, place:" prefix opens the turn).
DATE_HEAD = 40
_DATE_PART = re.compile(r"\d+|[A-Za-z]+")


def states_day(content: str, ts: datetime) -> bool:
    """The turn opens with the day ``ts`` falls on: its year, month (number or name) and day of month
    stand next to each other among the numbers and words of its first DATE_HEAD characters
    ("2024年11月15日 13:55，...", "Aug 15, 2024, 7:04 AM, ...", "2024-11-15 ..."; not "2024 goals: run
    5 km"). Such a turn needs no date header: the header would repeat it."""
    parts = [p.lower() for p in _DATE_PART.findall(content[:DATE_HEAD])]
    year = str(ts.year)
    days = {str(ts.day), f"{ts.day:02d}"}
    months = {str(ts.month), f"{ts.month:02d}", f"{ts:%b}".lower(), f"{ts:%B}".lower()}
    for i in range(len(parts) - 2):
        a, b, c = parts[i:i + 3]
        if year == a and (b in months and c in days or b in days and c in months) \
                or year == c and (a in months and b in days or a in days and b in months):
            return True
    return False


def _text(value: Any) -> str:
    """Item content as text; structured values (tool results, task state) become compact JSON."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, default=str, separators=(",", ": "))
    except (TypeError, ValueError):
        return str(value)


# The keys each kind of input item takes; any other is refused (ContextError naming the key meant), never
# ignored. The MCP server's input models take the same keys (a test checks they agree).
TURN_KEYS = ("role", "content", "timestamp", "id", "name", "tool_call_id")
TOOL_RESULT_KEYS = ("tool", "content", "result", "id", "timestamp")  # "result": older callers' "content"
DOCUMENT_KEYS = ("content", "source", "score", "timestamp")
TOOL_KEYS = ("name", "description", "input_schema", "required")
_KEY_SYNONYMS = {"text": "content", "body": "content", "output": "content", "title": "source",
                 "url": "source", "id": "source", "time": "timestamp", "date": "timestamp", "speaker": "name",
                 "inputSchema": "input_schema", "parameters": "input_schema", "schema": "input_schema"}


def refuse_unknown_keys(item: dict[str, Any], keys: tuple[str, ...], where: str) -> None:
    """ContextError if ``item`` has a key not in ``keys``: the first such key, the one meant when it is
    clear (a synonym or a close spelling), else the keys ``where`` takes."""
    allowed = frozenset(keys)
    if item.keys() <= allowed:
        return
    import difflib
    unknown = sorted(str(k) for k in item if k not in allowed)
    key = unknown[0]
    meant = _KEY_SYNONYMS.get(key)
    if meant not in allowed:
        close = difflib.get_close_matches(key.lower(), list(keys) + [s for s, t in _KEY_SYNONYMS.items()
                                                                       if t in allowed], n=1, cutoff=0.7)
        meant = _KEY_SYNONYMS.get(close[0], close[0]) if close else None
    more = f" (and {', '.join(map(repr, unknown[1:]))})" if len(unknown) > 1 else ""
    hint = f"did you mean {meant!r}?" if meant else f"{where} takes {', '.join(keys)}"
    raise ContextError(f"unknown key {key!r} in {where}{more}: {hint}")


def gather_history(history: list[dict[str, Any]] | None) -> list[Packet]:
    """One packet per turn, oldest first; ``position`` keeps the original order."""
    return gather_history_cached(history).packets


def gather_history_cached(history: list[dict[str, Any]] | None) -> CachedHistory:
    """``gather_history`` through the history cache: packets of turns seen in an earlier call (the same
    values at the same positions) are copied, not rebuilt, and their token costs are kept (turn_cache)."""
    if history is None:
        return CachedHistory([])
    if not isinstance(history, (list, tuple)):
        raise ContextError("history must be a list of {role, content, timestamp?, id?} dicts, oldest first")
    if len(history) > MAX_HISTORY_TURNS:
        raise ContextError(f"history has {len(history):,} turns; at most {MAX_HISTORY_TURNS:,} are accepted "
                           f"per call: pass the most recent ones (and a summary of the rest as task_state)")
    try:  # every key of every turn in one pass (0.4 ms for 10k turns), each turn only when one is unknown
        keys_ok = set().union(*history) <= _TURN_KEY_SET
    except TypeError:  # a turn that is not a dict: refused with its position when its packet is built
        keys_ok = False
    if not keys_ok:
        for i, turn in enumerate(history):
            if isinstance(turn, dict):
                refuse_unknown_keys(turn, TURN_KEYS, f"history[{i}]")
    # One role (a log, a notebook), or every turn naming its speaker, each name in one role (a transcript):
    # HISTORY_CACHE turns show_role off, a role on every line says nothing.
    # A bypassed build (the reference tests compare with) makes every packet anew.
    return HISTORY_CACHE.gather(history, _build_turn_packet if HISTORY_CACHE.is_bypassed else _turn_packet)


_TURN_KEYS = ("content", "role", "timestamp", "id", "name", "tool_call_id")
_TURN_KEY_SET = frozenset(TURN_KEYS)
# Packets of turns by their values, whatever their position: an agent that keeps a sliding window of the
# last N turns sends a history no earlier history is a prefix of (the turn cache's reuse), yet every turn
# but the newest was seen. Only str/None values (``1 == 1.0 == True`` would let different ids match).
_TURN_TEMPLATES: BoundedCache[tuple[Any, ...], Packet] = BoundedCache(
    TEXT_CACHE_CHARS, MAX_HISTORY_TURNS, size=lambda key: len(key[0]) + 64)


def _turn_packet(turn: Any, i: int) -> Packet:
    """The packet of ``history[i]``, validated (a bad turn raises ContextError saying which and why)."""
    if type(turn) is dict:
        key = tuple(map(turn.get, _TURN_KEYS))
        if all(v is None or type(v) is str for v in key):
            template = _TURN_TEMPLATES.lookup(key, None)
            if template is None:
                template = _build_turn_packet(turn, i)
                _TURN_TEMPLATES.put(key, template)
            packet = copy_packet(template)
            packet.position = i
            if not key[3]:  # an id-less turn is named by its position
                packet.id = f"turn-{i}"
            return packet
    return _build_turn_packet(turn, i)


def _build_turn_packet(turn: Any, i: int) -> Packet:
    if not isinstance(turn, dict):
        raise ContextError(f"history[{i}] must be a dict with 'role' and 'content', got {type(turn).__name__}")
    content = turn.get("content")
    if content is None or (isinstance(content, str) and not content.strip()):
        raise ContextError(f"history[{i}] has no content: every turn needs a non-empty 'content' "
                           f"(drop empty turns before calling build_context)")
    role = turn.get("role") or "user"
    if role not in HISTORY_ROLES:
        raise ContextError(f"history[{i}] has role {role!r}: use one of {list(HISTORY_ROLES)}")
    ts = parse_timestamp(turn.get("timestamp"), f"history[{i}]")
    call_id = _short(turn.get("tool_call_id"), f"history[{i}].tool_call_id")
    name = _short(turn.get("name"), f"history[{i}].name")
    text = _text(content)
    return Packet(source=P.HISTORY, id=str(turn.get("id") or f"turn-{i}"), content=text,
                  role=role, timestamp=ts, position=i,
                  group=day_label(ts) if ts else "", dated=ts is not None and states_day(text, ts),
                  label=name, tool_call_id=call_id)


def _short(value: Any, where: str) -> str:
    """A turn's ``name`` or ``tool_call_id``: one line of at most MAX_NAME_CHARS characters (as sessions
    store them), '' when not given. Not counted in the input-size limit, so bounded here."""
    if value is None or value == "":
        return ""
    text = str(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else value
    if not isinstance(text, str) or not is_short_line(text, MAX_NAME_CHARS):
        raise ContextError(f"{where} must be one line of at most {MAX_NAME_CHARS} characters "
                           f"(who spoke, or the tool call's id)")
    return text


def gather_tool_results(tool_results: list[dict[str, Any]] | None) -> list[Packet]:
    if not tool_results:
        return []
    out = []
    for i, item in enumerate(tool_results):
        # "content" is the documented field; "result" is accepted from older callers.
        key = "content" if isinstance(item, dict) and "content" in item else "result"
        if not isinstance(item, dict) or item.get(key) is None:
            raise ContextError(f"tool_results[{i}] must be an object {{tool, content, id?, timestamp?}} "
                               f"with the tool's output in 'content'")
        refuse_unknown_keys(item, TOOL_RESULT_KEYS, f"tool_results[{i}]")
        tool = str(item.get("tool") or "tool")
        out.append(Packet(source=P.TOOL_RESULT, id=str(item.get("id") or f"{tool}-{i}"),
                          content=_text(item[key]), label=tool, position=i,
                          timestamp=parse_timestamp(item.get("timestamp"), f"tool_results[{i}]")))
    return out


def gather_documents(documents: list[dict[str, Any]] | None) -> list[Packet]:
    if not documents:
        return []
    out = []
    for i, doc in enumerate(documents):
        if isinstance(doc, str):
            doc = {"content": doc}
        if not isinstance(doc, dict) or not str(doc.get("content") or "").strip():
            raise ContextError(f"documents[{i}] must be a dict with a non-empty 'content' (and optional source, score)")
        refuse_unknown_keys(doc, DOCUMENT_KEYS, f"documents[{i}]")
        score = doc.get("score")
        if score is not None and not isinstance(score, (int, float)):
            raise ContextError(f"documents[{i}].score must be a number, got {score!r}")
        source = str(doc.get("source") or f"doc-{i}")
        out.append(Packet(source=P.DOCUMENT, id=source, content=_text(doc["content"]), label=source,
                          position=i, given_score=float(score) if score is not None else None,
                          timestamp=parse_timestamp(doc.get("timestamp"), f"documents[{i}]")))
    return out


def gather_task_state(task_state: dict[str, Any] | str | None) -> list[Packet]:
    if task_state is None or task_state == "" or task_state == {}:
        return []
    if isinstance(task_state, dict):
        text = "\n".join(f"{k}: {_text(v)}" for k, v in task_state.items())
    elif isinstance(task_state, str):
        text = task_state
    else:
        raise ContextError("task_state must be a dict or a string")
    return [Packet(source=P.TASK_STATE, id="task_state", content=text, required=True)]


def gather_tools(tools: list[dict[str, Any]] | None) -> list[Packet]:
    """Tool definitions as packets whose content is the tool's JSON schema."""
    if not tools:
        return []
    out = []
    for i, tool in enumerate(tools):
        if not isinstance(tool, dict) or not tool.get("name"):
            raise ContextError(f"tools[{i}] must be a dict with 'name', 'description', 'input_schema'")
        refuse_unknown_keys(tool, TOOL_KEYS, f"tools[{i}]")
        schema = {"name": tool["name"], "description": tool.get("description", ""),
                  "input_schema": tool.get("input_schema") or {"type": "object"}}
        out.append(Packet(source=P.TOOL, id=str(tool["name"]), content=json.dumps(schema, ensure_ascii=False),
                          label=str(tool.get("description", "")), required=bool(tool.get("required")),
                          position=i))
    return out


def check_input_items(*lists: list[Any] | None) -> None:
    """Refuse more than MAX_INPUT_ITEMS documents, tool results and tools in one call: each is a packet
    scored, laid out and reported, so their number costs work whatever their size."""
    n = sum(len(items) for items in lists if isinstance(items, (list, tuple)))
    if n > MAX_INPUT_ITEMS:
        raise ContextError(f"{n:,} documents, tool results and tools in one call; at most {MAX_INPUT_ITEMS:,} "
                           f"are accepted: pass the relevant ones, or join small ones into one document")


def check_input_size(candidates: list[Packet], already: int = 0) -> None:
    """Refuse a call whose caller-given text (``already`` bytes counted, e.g. the history's, plus the
    candidates') exceeds MAX_INPUT_BYTES, with what to do about it."""
    total = already
    for p in candidates:
        if total > MAX_INPUT_BYTES:
            break
        total += len(p.content) if p.content.isascii() else len(p.content.encode("utf-8", "surrogatepass"))
    if total > MAX_INPUT_BYTES:
        raise ContextError(f"history, documents, tool results, task state, system instructions and tools hold more than "
                           f"{MAX_INPUT_BYTES // (1024 * 1024)} MiB of text; pass less per call "
                           f"(recent turns, the relevant documents) or summarise the rest")


def _evidence_packet(ev: Evidence, rank: int) -> Packet:
    return Packet(source=ev.source if ev.source in (P.NOTE, P.MEMORY) else P.NOTE, id=str(ev.id),
                  content=ev.content or "", title=ev.title or "", label=ev.label or "",
                  uri=ev.uri or f"{ev.source}://{ev.id}", given_score=float(ev.score or 0.0),
                  importance=ev.importance, position=rank,
                  timestamp=parse_timestamp(ev.timestamp, f"evidence {ev.id}"))


def gather_evidence(provider: EvidenceProvider | None, query: str, limit: int, *,
                    include_notes: bool, include_memory: bool, note_types: list[str] | None,
                    tags: list[str] | None, warnings: list[str]) -> list[Packet]:
    """Notes and memories from the provider; each failing call becomes a warning."""
    if provider is None:
        return []
    calls: list[tuple[str, Callable[[], Iterable[Evidence]]]] = []
    if include_notes:
        calls.append(("find_notes", lambda: provider.find_notes(query, limit, note_types, tags)))
    if include_memory:
        calls.append(("find_memories", lambda: provider.find_memories(query, limit)))
    out: list[Packet] = []
    seen: set[str] = set()
    followed: list[str] = []
    for name, call in calls:
        try:
            found = list(call() or [])
        except Exception as exc:  # a broken store must not take the whole context down
            warnings.append(f"evidence provider {name} failed ({type(exc).__name__}: {exc}); "
                            f"continuing without its results")
            continue
        for rank, ev in enumerate(found):
            try:
                packet = _evidence_packet(ev, rank)
            except (AttributeError, TypeError, ValueError) as exc:
                warnings.append(f"evidence provider {name} returned an unusable item ({exc}); skipped")
                continue
            if packet.key not in seen and packet.content.strip():
                seen.add(packet.key)
                out.append(packet)
                if getattr(ev, "linked_from", ""):
                    followed.append(f"{ev.linked_from} -> {ev.id}")
    if followed:  # the report says so: these candidates came by a link, not by the query's words
        warnings.append(f"followed one hop of links from the notes found: {len(followed)} linked note(s) added as "
                        f"candidates ({'; '.join(followed)})")
    return out
