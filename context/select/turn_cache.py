"""History turns analysed once and reused: the query-independent half of every build.

An agent loop (or a stored session) rebuilds the context over the same history plus a turn or
two on every call. Validating each turn, making its packet and costing it in tokens do not
depend on the query, so they are kept here per history and extended by the new turns only.

Key and check: a cached history is found by its length and last turn, then verified value by
value (role, content, timestamp, id, name, tool_call_id of every turn; the only keys gather
reads), with list comparisons that run in C and short-cut on identical objects. So a history
edited or truncated behind the cache's back, or a caller that changed a turn dict in place,
never gets stale packets: a mismatch falls back to the longest cached prefix, or to none.
Only turns whose values are all ``str`` or ``None`` are cached (``1 == 1.0 == True`` would let
different ids compare equal); any other history is gathered the uncached way.

Bounded: at most ``MAX_HISTORIES`` histories, ``MAX_CACHED_TURNS`` turn references and
``HISTORY_STATE_CHARS`` bytes of turn text in all
(the packets and strings are shared between a history and the longer one it grew into).
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import repeat
from typing import Any

from notes_store.bounded_cache import HISTORY_STATE_CHARS, evict_oldest

from .signals.links import speaker_of
from ..packets import Packet
from ..stopping import checked

# A speaker's name opens at least this many turns (see roles_say_nothing).
NAMED_TURNS = 3
_NAME = re.compile(r"(?!(?:https?|ftp|file|mailto|note|todo|fixme|q|a|re|fwd|ps|nb)$)[^\W\d_][\w.'-]*", re.IGNORECASE)

# Content first: it tells two histories apart soonest when their columns are compared.
FIELDS = ("content", "role", "timestamp", "id", "name", "tool_call_id")
MAX_HISTORIES = 8
MAX_CACHED_TURNS = 60_000     # turns over all cached histories; measured ~0.6 KB each (5,000 turns: 2.8 MB)

TurnBuilder = Callable[[Any, int], Packet]


@dataclass
class _History:
    """One analysed history: its raw columns (to verify against) and its packets, in order."""

    columns: tuple[list[Any], ...]
    templates: list[Packet]                       # as gather makes them, show_role True; never handed out
    roles: list[str]
    speakers: list[str]                           # each turn's speaker (``_speaker``), or ''
    costs: dict[tuple[str, str, bool], list[int]] = field(default_factory=dict)
    text_bytes: int = 0                           # UTF-8 size of all contents (the input-size limit)


@dataclass
class CachedHistory:
    """A gathered history: fresh packets for this call, plus a handle to its cached token costs."""

    packets: list[Packet]
    _state: _History | None = None
    _lock: threading.Lock | None = None

    def text_bytes(self) -> int:
        """UTF-8 bytes of all the packets' contents (kept per history: not recounted every call)."""
        if self._state is not None:
            return self._state.text_bytes
        return sum(_size(p.content) for p in self.packets)

    def costs(self, key: tuple[str, str, bool], cost: Callable[[Packet], int]) -> list[int]:
        """Cost of each packet (by position) for ``key`` = (encoding, format, show_role), computed
        with ``cost`` once per turn and history and reused while the history only grows."""
        state = self._state
        if state is None or self._lock is None:
            return [cost(p) for p in checked(self.packets)]
        with self._lock:
            known = state.costs.get(key, [])
        n = len(state.templates)
        if len(known) < n:
            extra = [cost(copy_packet(p, key[2])) for p in checked(state.templates[len(known):])]
            known = known + extra
            with self._lock:
                if len(state.costs.get(key, [])) < n:
                    state.costs[key] = known
        return known


def copy_packet(template: Packet, show_role: bool = True) -> Packet:
    # Packets are plain dataclasses: a copy of the instance dict is several times cheaper than the
    # 26-field constructor, and each build needs its own packets (select fills in the scores).
    p: Packet = object.__new__(Packet)
    p.__dict__ = template.__dict__.copy()
    if not show_role:
        p.show_role = False
    return p


def _copies(templates: list[Packet], show_role: bool) -> list[Packet]:
    new = object.__new__
    out = []
    for t in templates:
        p: Packet = new(Packet)
        p.__dict__ = t.__dict__.copy()
        out.append(p)
    if not show_role:
        for p in out:
            p.show_role = False
    return out


def _columns(history: Sequence[Any]) -> tuple[list[Any], ...] | None:
    """The raw values gather reads, column by column; None when a turn is not a dict."""
    try:
        return tuple(list(map(dict.get, history, repeat(name))) for name in FIELDS)
    except TypeError:  # a turn that is not a dict: the uncached path reports it
        return None


def _plain(values: Sequence[Any]) -> bool:
    return all(v is None or type(v) is str for v in values)


class HistoryCache:
    """Histories gathered before, found again by their turns' values (see the module docstring)."""

    def __init__(self, max_histories: int = MAX_HISTORIES, max_turns: int = MAX_CACHED_TURNS) -> None:
        self.max_histories = max_histories
        self.max_turns = max_turns
        self._lock = threading.Lock()
        self._local = threading.local()
        self._items: OrderedDict[tuple[int, tuple[Any, ...]], _History] = OrderedDict()
        self.hits = 0            # histories found whole or as a prefix
        self.reused_turns = 0    # turns not gathered again thanks to the cache

    @contextlib.contextmanager
    def bypassed(self) -> Iterator[None]:
        """Within this block this thread's builds neither use nor fill the cache (the reference
        builds that tests and benchmarks compare cached builds with)."""
        before = getattr(self._local, "bypass", False)
        self._local.bypass = True
        try:
            yield
        finally:
            self._local.bypass = before

    @property
    def is_bypassed(self) -> bool:
        """Whether this thread is inside ``bypassed()``."""
        return bool(getattr(self._local, "bypass", False))

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self.hits = self.reused_turns = 0

    def gather(self, history: Sequence[Any], build: TurnBuilder) -> CachedHistory:
        """Packets of ``history`` (oldest first), reusing what an earlier call analysed.

        ``build(turn, position)`` makes (and validates) one turn's packet; it raises for a bad turn,
        which is then never cached. ``show_role`` is set as gather defines it: False when the role
        says nothing (``roles_say_nothing``).
        """
        cols = None if getattr(self._local, "bypass", False) else _columns(history)
        if cols is None:
            packets = [build(t, i) for i, t in enumerate(history)]
            _set_show_role(packets)
            return CachedHistory(packets)
        base = self._best_prefix(cols)
        done = len(base.templates) if base else 0
        new_cols = tuple(c[done:] for c in cols)
        fresh = [build(t, done + i) for i, t in enumerate(history[done:])]
        if not all(_plain(c) for c in new_cols):
            packets = (_copies(base.templates, True) if base else []) + fresh
            _set_show_role(packets)
            return CachedHistory(packets)
        if base is not None and not fresh:
            state = base
            self._store(state)  # a truncated history's state is derived: keep it for the next call
        else:
            state = _History(
                columns=tuple((b + c) if base else c for b, c in zip(base.columns if base else new_cols, new_cols)),
                templates=(base.templates if base else []) + fresh,
                roles=(base.roles if base else []) + [p.role or "user" for p in fresh],
                speakers=(base.speakers if base else []) + [_speaker(p) for p in fresh],
                costs={k: v for k, v in base.costs.items()} if base else {},
                text_bytes=(base.text_bytes if base else 0) + sum(_size(p.content) for p in fresh))
            self._store(state)
        show = not roles_say_nothing(state.roles, state.speakers)
        return CachedHistory(_copies(state.templates, show), state, self._lock)

    def _best_prefix(self, cols: tuple[list[Any], ...]) -> _History | None:
        """The longest cached history that ``cols`` starts with (or that starts with ``cols``:
        a truncated history), verified value by value."""
        m = len(cols[0])
        with self._lock:
            candidates = list(self._items.items())
        best: _History | None = None
        for (n, _last), state in reversed(candidates):
            if n <= m and (best is None or n > len(best.templates)):
                if n == 0 or all(c[:n] == s for c, s in zip(cols, state.columns)):
                    best = state
            elif n > m and (best is None or m > len(best.templates)):
                if m > 0 and all(c == s[:m] for c, s in zip(cols, state.columns)):
                    templates = state.templates[:m]
                    best = _History(tuple(s[:m] for s in state.columns), templates, state.roles[:m],
                                    state.speakers[:m], {k: v[:m] for k, v in state.costs.items()},
                                    sum(_size(p.content) for p in templates))
        if best is not None:
            with self._lock:
                self.hits += 1
                self.reused_turns += len(best.templates)
        return best

    def _store(self, state: _History) -> None:
        n = len(state.templates)
        if n == 0 or n > self.max_turns:
            return
        key = (n, tuple(c[-1] for c in state.columns))
        with self._lock:
            self._items[key] = state
            self._items.move_to_end(key)
            while len(self._items) > 1 and sum(k[0] for k in self._items) > self.max_turns:
                self._items.popitem(last=False)
            evict_oldest(self._items, lambda kept: kept.text_bytes, HISTORY_STATE_CHARS, self.max_histories)


def _size(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def _speaker(p: Packet) -> str:
    """Who spoke: the ``name`` the caller gave the turn (any name: the caller says it is one), else its
    content's "Melanie: ..." prefix when that reads as a name ('' when neither says)."""
    if p.label.strip():
        return p.label.strip()
    opening = speaker_of(p.content)
    return opening if _NAME.fullmatch(opening) else ""


def roles_say_nothing(roles: Sequence[str], speakers: Sequence[str]) -> bool:
    """A role on every line says nothing when every turn has the same one, or when every turn names its
    speaker (a ``name`` or a "Name:" opening) and each name always comes in the same role (a transcript fed
    as user/assistant turns): "assistant: Melanie: …" spends two tokens a turn on what "Melanie:" says."""
    if len(roles) < 2:
        return False
    if len(set(roles)) == 1:
        return True
    # A tool turn's role is what marks it; "Note:", "TODO:", "http:" or "10:30" open ordinary turns, so a
    # speaker's name is a word said in at least NAMED_TURNS turns, never in another role.
    if "tool" in roles or not all(speakers):
        return False
    role_of: dict[str, str] = {}
    if not all(role_of.setdefault(who, role) == role for who, role in zip(speakers, roles)):
        return False
    return min(Counter(speakers).values()) >= NAMED_TURNS


def _set_show_role(packets: list[Packet]) -> None:
    if roles_say_nothing([p.role or "user" for p in packets], [_speaker(p) for p in packets]):
        for p in packets:
            p.show_role = False


HISTORY_CACHE = HistoryCache()
