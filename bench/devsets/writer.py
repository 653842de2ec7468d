"""The machinery every generator shares: a history being written, its stamps, evidence and questions.

- ``LogWriter``: appends turns (``{"role", "content", "id"}`` and, if given, ``"timestamp"``) with ids
  numbered from a format, records each in ``by_id`` and, under the tags a caller gives, in ``tagged``
  (the evidence ids a question is built from); ``conversation`` hands the result back.
- ``ChatWriter``: the same for two-speaker chats fed as conv-26 is (``"<speaker>: <text>"``, the session's
  datetime, ids ``D<session>:<turn>``).
- ``stamp`` writes a "time, place" prefix from a template; ``day_times`` spreads times over days;
  ``interleave`` merges threads fairly; ``question`` builds a ``Question``; ``seeded_set`` splits by seed.

Every function draws from the caller's ``random.Random`` in a fixed order: a generator's data depends
only on its seed.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Iterable, Sequence
from datetime import datetime, timedelta
from typing import Any, TypeVar

from .model import Conversation, DevSet, Question, Turn

T = TypeVar("T")


class LogWriter:
    """A history being written; ``ids`` formats a turn's number (0-based index + ``first``) as its id."""

    def __init__(self, ids: str = "T{}", first: int = 0) -> None:
        self.history: list[Turn] = []
        self.by_id: dict[str, str] = {}
        self.tagged: dict[Hashable, list[str]] = {}
        self._ids = ids
        self._first = first

    def next_id(self) -> str:
        return self._ids.format(len(self.history) + self._first)

    def add(self, content: str, *, role: str = "user", timestamp: Any = None, tags: Iterable[Hashable] = ()) -> str:
        """Append one turn (``timestamp`` left out when None); its id."""
        tid = self.next_id()
        turn: Turn = {"role": role, "content": content, "id": tid}
        if timestamp is not None:
            turn["timestamp"] = timestamp
        return self._append(turn, tags)

    def _append(self, turn: Turn, tags: Iterable[Hashable]) -> str:
        tid: str = turn["id"]
        self.history.append(turn)
        self.by_id[tid] = turn["content"]
        for tag in tags:
            self.tagged.setdefault(tag, []).append(tid)
        return tid

    def id_of(self, tag: Hashable) -> str:
        """The id of the (last) turn tagged ``tag``."""
        return self.tagged[tag][-1]

    def ids_of(self, tag: Hashable) -> list[str]:
        """The ids of every turn tagged ``tag``, in order."""
        return self.tagged[tag]

    def conversation(self, questions: list[Question] | None = None) -> Conversation:
        return Conversation(self.history, self.by_id, questions if questions is not None else [])


class ChatWriter(LogWriter):
    """A two-speaker chat: sessions of turns ``"<speaker>: <text>"``, ids ``D<session>:<turn>``, every
    turn stamped with its session's datetime."""

    def __init__(self) -> None:
        super().__init__()
        self.session = 0
        self.n = 0
        self.when: datetime | None = None

    def start_session(self, when: datetime) -> None:
        """The next session, held at ``when``; its turns count from 1."""
        self.session += 1
        self.n = 0
        self.when = when

    def say(self, speaker: str, role: str, text: str, tags: Iterable[Hashable] = ()) -> str:
        self.n += 1
        return self._append({"role": role, "content": f"{speaker}: {text}", "timestamp": self.when,
                             "id": f"D{self.session}:{self.n}"}, tags)


def stamp(template: str, when: datetime, weekdays: Sequence[str] = (), **fields: object) -> str:
    """``template`` with the fields of ``when`` (``year``, ``month``, ``day``, ``monthname`` "Mar", ``hh``,
    ``mm``, ``h12`` and ``ampm`` for a 12-hour clock, ``weekday`` from ``weekdays`` Monday first) and ``fields``."""
    return template.format(year=when.year, month=when.month, day=when.day, monthname=f"{when:%b}",
                           hh=when.hour, mm=when.minute, h12=when.hour % 12 or 12,
                           ampm="AM" if when.hour < 12 else "PM",
                           weekday=weekdays[when.weekday()] if weekdays else "", **fields)


def day_times(n: int, start: datetime, days: int, minutes: Callable[[int], Iterable[int]]) -> list[datetime]:
    """``n`` times over ``days`` days from ``start``, shared out evenly (earlier days take the remainder);
    ``minutes(k)`` draws a day's ``k`` minutes after midnight, sorted here."""
    per_day = [n // days + (1 if d < n % days else 0) for d in range(days)]
    out: list[datetime] = []
    for d, k in enumerate(per_day):
        out += [start + timedelta(days=d, minutes=m) for m in sorted(minutes(k))]
    return out


def interleave(rng: random.Random, queues: Iterable[Sequence[T]], stay: float = 0.0) -> list[T]:
    """The items of every queue, each queue in its own order: the next one is drawn from a queue picked in
    proportion to what it has left (a fair merge) or, with chance ``stay``, from the queue just drawn from."""
    left = [list(q) for q in queues]
    out: list[T] = []
    last = -1
    while any(left):
        if stay and last >= 0 and left[last] and rng.random() < stay:
            i = last
        else:
            live = [j for j, q in enumerate(left) if q]
            i = rng.choices(live, weights=[len(left[j]) for j in live])[0]
        out.append(left[i].pop(0))
        last = i
    return out


def question(text: str, evidence: list[str], answer: str, category: int | str,
             superseded: list[str] | None = None) -> Question:
    """A question with its evidence ids (and, for an updated fact, the ids of the statements it replaces)."""
    q: Question = {"question": text, "evidence": evidence, "answer": answer, "category": category}
    if superseded:
        q["superseded"] = superseded
    return q


def seeded_set(name: str, split: str, seeds: Sequence[int], per_seed: int, make: Callable[[int], Conversation]) -> DevSet:
    """A set of ``per_seed`` histories for each seed: history seeds ``seed * 100 + k``, k = 0..per_seed-1."""
    return DevSet(name, split, [make(seed * 100 + k) for seed in seeds for k in range(per_seed)])


def options(text: str) -> tuple[str, ...]:
    """A word list written on one line: ``"a|b|c"`` -> ``("a", "b", "c")`` (empty items left out)."""
    return tuple(x for x in text.split("|") if x)


def cap(text: str) -> str:
    """``text`` with its first letter upper-cased."""
    return text[:1].upper() + text[1:]
