"""Completion of note ids and tags (MCP ``completion/complete``) from an index of the notes' ids, titles
and tags, made once per generation of the catalogue's note rows and reused for every keystroke until a
note is created, changed or deleted (here or behind the workspace's back).

The answers are those of the straightforward scan over every note, most recently updated first
(``server.completions.match_notes``): ids that start with the value (as typed, after ``strip``), then
the other notes whose lowercased title contains every word of the lowercased value (anywhere: "migra"
finds "Database migration", and so does "base"). The index finds the same notes without looking at
each of them. Each note has a *position*, larger for more recently updated notes:

- ids: sorted, with each one's position: a prefix is a range found by bisection, and its first notes
  are the largest positions in that range;
- titles: for each character and each pair of adjacent characters within a word, the positions
  (ascending) of the lowercased titles that hold it (a *gram*). A typed word holds no space, so a title
  can hold it only if one of its words holds each of the typed word's grams: only the rarest gram's list
  is checked against the typed words (a word of one or two letters is answered by its list alone).

The next generation is the previous one stepped (``_step``) when few rows changed: rows never change
once made, and the rows that did not change keep their order (their sort keys are the same), so only
the new rows are read and placed (see ``NoteCompletions``). Otherwise it is made whole, still reusing
what was read of every unchanged row: only new and changed rows have their front matter parsed.
"""

from __future__ import annotations

import heapq
import threading
from array import array
from bisect import bisect_left, insort
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from .catalogue import Entry

REMEMBERED_ANSWERS = 64  # answers kept per generation (a value asked again, a backspace)
MAX_STEP = 256           # rows changed since the previous generation beyond which it is made whole


def _prefix_end(prefix: str) -> str | None:
    """The least string above every string that starts with ``prefix`` (None: there is none)."""
    head = prefix.rstrip("\U0010ffff")
    return head[:-1] + chr(ord(head[-1]) + 1) if head else None


def _shared(a: Sequence[Entry], b: Sequence[Entry], at_end: bool) -> int:
    """How many first (or last) rows ``a`` and ``b`` share, by comparing slices in C (Entry has no
    ``__eq__``: the very same objects). A change usually touches the newest rows only."""
    most = min(len(a), len(b))

    def same(i: int, j: int) -> bool:  # a and b share their rows i..j-1 (from the end if at_end)
        if at_end:
            return a[len(a) - j:len(a) - i] == b[len(b) - j:len(b) - i]
        return a[i:j] == b[i:j]

    lo, step = 0, 16
    while lo + step <= most and same(lo, lo + step):
        lo, step = lo + step, step * 2
    hi = min(most, lo + step)
    while lo < hi:  # the first difference is in lo..hi
        mid = (lo + hi + 1) // 2
        if same(lo, mid):
            lo = mid
        else:
            hi = mid - 1
    return lo


def _places(seq: Sequence[Entry], items: set[Entry], start: int) -> list[int]:
    """Where ``items`` are in ``seq``, from ``start`` on (each once), ascending."""
    if len(items) <= 8:
        return sorted(seq.index(e, start) for e in items)  # a scan for the very object, in C
    return [i for i, e in enumerate(seq[start:], start) if e in items]


def _grams(title: str) -> set[str]:
    """The characters, and pairs of adjacent characters, of the words of ``title``."""
    out: set[str] = set()
    for word in title.split():
        out.update(word)
        out.update(map(str.__add__, word, word[1:]))
    return out


def _word_grams(word: str) -> Iterable[str]:
    return word if len(word) == 1 else map(str.__add__, word, word[1:])


def _gram_positions(titles: Iterable[tuple[int, str]], grams: dict[str, list[int]]) -> None:
    """Add each (position, title) to the lists of the grams the title holds."""
    for at, title in titles:
        for gram in _grams(title):
            held = grams.get(gram)
            if held is None:
                grams[gram] = [at]
            else:
                held.append(at)


def _make_room(at: int, newer: int, positions: array[int], log_ids: list[str], log_titles: list[str],
               id_positions: array[int], grams: dict[str, array[int]], owned: set[str]) -> None:
    """Move the rows at position ``at`` and above up one (they are ``positions[:newer]``), leaving a hole at
    ``at``. Rare (a row placed between two rows that were consecutive), and mostly a move of a few rows."""
    log_ids.insert(at, "")
    log_titles.insert(at, "")
    for i in range(newer):
        positions[i] += 1
    id_positions[:] = array("i", [p + 1 if p >= at else p for p in id_positions])
    for gram, held in grams.items():
        i = bisect_left(held, at)
        if i < len(held):  # a new list: the previous generation may hold this one
            grams[gram] = held[:i] + array("i", [p + 1 for p in held[i:]])
            owned.add(gram)


class NoteCompletions:
    """The index of one generation of the note rows (``entries``: most recently updated first).

    Each row has a *position*, larger for more recently updated rows. Positions of rows that left are
    holes (``""`` in ``log_ids``/``log_titles``) until the index is made whole again, so a new or changed
    row is placed without moving the others: it is usually the newest, and goes after them all.

    Never changed once made (a keystroke may read it in one thread while another makes the next one),
    but for the memo of answers.
    """

    def __init__(self, version: int, entries: Sequence[Entry], positions: array[int], log_ids: list[str],
                 log_titles: list[str], ids: list[str], id_positions: array[int], grams: dict[str, array[int]],
                 tag_counts: dict[str, int]) -> None:
        self.version = version
        self.entries = entries        # the catalogue's own (cached, never mutated) list, for the next step
        self.positions = positions    # the position of each of ``entries`` (so: descending)
        self.log_ids = log_ids        # ids by position
        self.log_titles = log_titles  # lowercased titles by position
        self.ids = ids                # ids sorted
        self.id_positions = id_positions  # the position of each of ``ids``
        self.grams = grams            # gram -> positions (ascending) of the titles holding it
        self.tag_counts = tag_counts
        self._answers: dict[tuple[str, int], tuple[list[str], int]] = {}
        self._answers_lock = threading.Lock()
        self._ranked_tags: tuple[list[str], list[str]] | None = None

    @classmethod
    def make(cls, version: int, entries: Sequence[Entry], previous: NoteCompletions | None = None) -> NoteCompletions:
        """The index of ``entries`` (most recently updated first), from ``previous`` where it can."""
        if previous is not None:
            stepped = previous._step(version, entries)
            if stepped is not None:
                return stepped
        return cls._whole(version, entries, previous)

    @classmethod
    def _whole(cls, version: int, entries: Sequence[Entry], previous: NoteCompletions | None) -> NoteCompletions:
        """Made from the rows, reading only those ``previous`` did not have; positions 0 (oldest) to n - 1."""
        log_ids: list[str] = []
        log_titles: list[str] = []
        tags: Counter[str] = Counter(previous.tag_counts if previous is not None else ())
        before = {e: r for r, e in enumerate(previous.entries)} if previous is not None else {}
        for entry in reversed(entries):
            rank = before.pop(entry, -1)
            if rank >= 0 and previous is not None:
                at = previous.positions[rank]
                log_ids.append(previous.log_ids[at])
                log_titles.append(previous.log_titles[at])
            else:
                meta = entry.fields()
                log_ids.append(meta["id"])
                log_titles.append(meta["title"].lower())
                tags.update(meta["tags"])
        for gone in before:  # rows replaced or deleted since the previous generation
            tags.subtract(gone.fields()["tags"])
        by_id = sorted(range(len(log_ids)), key=log_ids.__getitem__)
        grams: dict[str, list[int]] = {}
        _gram_positions(enumerate(log_titles), grams)
        return cls(version, entries, array("i", range(len(log_ids) - 1, -1, -1)), log_ids, log_titles,
                   [log_ids[p] for p in by_id], array("i", by_id),
                   {g: array("i", at) for g, at in grams.items()}, {t: c for t, c in tags.items() if c > 0})

    def _step(self, version: int, entries: Sequence[Entry]) -> NoteCompletions | None:
        """The next generation made from this one when few rows changed and the others kept their order
        (None: make it whole). Rows that left become holes; new ones take a hole or a new position."""
        old = self.entries
        if len(self.log_ids) - len(old) > max(MAX_STEP, len(old)):
            return None  # as many holes as rows
        # The rows that left and came are between the rows both generations start and end with.
        first = _shared(old, entries, False)
        last = _shared(old[first:], entries[first:], True)
        old_set, new_set = set(old[first:len(old) - last]), set(entries[first:len(entries) - last])
        gone, new = old_set - new_set, new_set - old_set
        if len(gone) + len(new) > MAX_STEP:
            return None
        gone_ranks, new_ranks = _places(old, gone, first), _places(entries, new, first)
        kept, kept_now = list(old), list(entries)
        for r in reversed(gone_ranks):
            del kept[r]
        for r in reversed(new_ranks):
            del kept_now[r]
        if kept != kept_now:  # unchanged rows changed places (not with the store's sort keys)
            return None

        positions, log_ids, log_titles = array("i", self.positions), list(self.log_ids), list(self.log_titles)
        ids, id_positions = list(self.ids), array("i", self.id_positions)
        grams = dict(self.grams)  # lists shared with this generation until one changes (``own``)
        owned: set[str] = set()

        def own(gram: str) -> array[int]:
            held = grams[gram]
            if gram not in owned:
                held = grams[gram] = array("i", held)
                owned.add(gram)
            return held

        tags = Counter(self.tag_counts)
        for r in reversed(gone_ranks):
            at = positions[r]
            i = bisect_left(ids, log_ids[at])
            while id_positions[i] != at:  # (ids are file names: no two alike)
                i += 1
            del ids[i], id_positions[i]
            for gram in _grams(log_titles[at]):
                held = own(gram)
                del held[bisect_left(held, at)]  # (array.remove compares item by item from the start)
                if not held:
                    del grams[gram]
            tags.subtract(old[r].fields()["tags"])
            log_ids[at] = log_titles[at] = ""
            del positions[r]
        for r in new_ranks:  # ascending: the next newer row has its position already
            older = positions[r] if r < len(positions) else -1
            if r == 0 and older == len(log_ids) - 1:
                at = len(log_ids)
                log_ids.append("")
                log_titles.append("")
            else:
                newer = positions[r - 1] if r > 0 else len(log_ids)
                if newer - older > 1:
                    at = newer - 1  # a hole: no row lies between two neighbours
                else:  # no room: the newer rows move up one
                    at = newer
                    _make_room(at, r, positions, log_ids, log_titles, id_positions, grams, owned)
            meta: dict[str, Any] = entries[r].fields()
            title = meta["title"].lower()
            log_ids[at], log_titles[at] = meta["id"], title
            positions.insert(r, at)
            i = bisect_left(ids, meta["id"])
            ids.insert(i, meta["id"])
            id_positions.insert(i, at)
            for gram in _grams(title):
                if gram in grams:
                    insort(own(gram), at)
                else:
                    grams[gram] = array("i", (at,))
                    owned.add(gram)
            tags.update(meta["tags"])
        return NoteCompletions(version, entries, positions, log_ids, log_titles, ids, id_positions, grams,
                               {t: c for t, c in tags.items() if c > 0})

    def __len__(self) -> int:
        return len(self.entries)

    # -- note ids --------------------------------------------------------------------------
    def complete(self, value: str, limit: int) -> tuple[list[str], int]:
        """The first ``limit`` ids for ``value`` and how many there are (see the module doc for which)."""
        value = value.strip()
        key = (value, limit)
        answer = self._answers.get(key)
        if answer is None:
            answer = self._complete(value, limit)
            with self._answers_lock:
                if len(self._answers) >= REMEMBERED_ANSWERS:
                    del self._answers[next(iter(self._answers))]  # the oldest
                self._answers[key] = answer
        return list(answer[0]), answer[1]

    def _complete(self, value: str, limit: int) -> tuple[list[str], int]:
        n, log_ids = len(self.positions), self.log_ids
        if not value:
            return self._newest(limit), n
        lo = bisect_left(self.ids, value)
        end = _prefix_end(value)
        hi = bisect_left(self.ids, end, lo) if end is not None else len(self.ids)
        matched = hi - lo
        if matched == n:  # every id starts with it (every id starts with "note_"): no title adds a note
            return self._newest(limit), n
        values = self._newest_by_id(value, lo, hi, limit)
        by_title = self._title_positions(value.lower().split())
        if matched:
            by_title = [at for at in by_title if not log_ids[at].startswith(value)]
        values += [log_ids[at] for at in by_title[:max(0, limit - len(values))]]
        return values, matched + len(by_title)

    def _newest(self, limit: int) -> list[str]:
        return [self.log_ids[at] for at in self.positions[:limit]]

    def _newest_by_id(self, value: str, lo: int, hi: int, limit: int) -> list[str]:
        """The ``limit`` most recent of the ids ``ids[lo:hi]`` (those starting with ``value``)."""
        matched, log_ids = hi - lo, self.log_ids
        if matched * 8 >= len(self.positions):  # many: the most recent ones are met soon, newest first
            found: list[str] = []
            for at in self.positions:
                if log_ids[at].startswith(value):
                    found.append(log_ids[at])
                    if len(found) == limit:
                        break
            return found
        held = self.id_positions[lo:hi]
        newest = sorted(held, reverse=True) if matched <= limit else heapq.nlargest(limit, held)
        return [log_ids[at] for at in newest]

    def _title_positions(self, words: list[str]) -> Sequence[int]:
        """Positions of the titles holding every word, newest first."""
        rarest: array[int] | None = None
        for word in words:
            for gram in _word_grams(word):
                held = self.grams.get(gram)
                if held is None:
                    return ()
                if rarest is None or len(held) < len(rarest):
                    rarest = held
        if rarest is None:
            return ()
        titles = self.log_titles
        if len(words) == 1:
            word = words[0]
            return rarest[::-1] if len(word) <= 2 else [at for at in reversed(rarest) if word in titles[at]]
        return [at for at in reversed(rarest) if all(w in titles[at] for w in words)]

    # -- tags --------------------------------------------------------------------------------
    def tags(self, value: str) -> list[str]:
        """Tags starting with ``value`` (case aside), the most used first, then by name."""
        if self._ranked_tags is None:
            counts = self.tag_counts
            ranked = sorted(counts, key=lambda t: (-counts[t], t))
            self._ranked_tags = ranked, [t.lower() for t in ranked]
        want = value.strip().lower()
        ranked, lowered = self._ranked_tags
        return [t for t, low in zip(ranked, lowered) if low.startswith(want)]
