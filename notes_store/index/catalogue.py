"""The catalogue: one row per indexed file (what listings, summaries and search hits show).

It lives in memory, kept in step with the files by the workspace, and is saved to a compact
file under ``.index/`` so that a restart with nothing changed needs neither a scan nor the
search engine to list notes. Each row's front-matter fields (``meta``) stay as JSON text until
something reads them, and a loaded row stays one line of text until something asks for it
(``LazyRows``): a 100k-row catalogue loads in one read and a split per line in C, and a search
makes rows only for the hits it returns.
"""

from __future__ import annotations

import collections
import itertools
import json
import logging
import os
import threading
from collections.abc import Callable, Iterator, Mapping
from operator import itemgetter, methodcaller
from pathlib import Path
from typing import Any

log = logging.getLogger("ctxnotes.catalogue")

FORMAT = 1
_versions = itertools.count(1)
_MISSING = object()


class Entry:
    """The catalogue's row for one indexed file (``meta``: its front-matter fields, parsed on first use)."""

    __slots__ = ("key", "kind", "mtime_ns", "size", "_root", "_meta", "_raw")

    def __init__(self, key: str, kind: str, root: Path | str, mtime_ns: int, size: int,
                 meta: dict[str, Any] | None = None, raw: str | None = None) -> None:
        self.key = key
        self.kind = kind
        self.mtime_ns = mtime_ns
        self.size = size
        self._root = str(root)
        self._meta = meta
        self._raw = raw

    @property
    def meta(self) -> dict[str, Any]:
        if self._meta is None:
            self._meta = json.loads(self._raw or "{}")
        return self._meta

    def fields(self) -> dict[str, Any]:
        """``meta`` for one reader, without keeping it parsed when the row is in its JSON form (a reader of
        every row, such as the completion index, would otherwise leave ~1 KB of objects on each)."""
        return self._meta if self._meta is not None else json.loads(self._raw or "{}")

    @property
    def path(self) -> Path:
        return Path(self._root, self.key)

    @property
    def path_text(self) -> str:
        """``str(self.path)`` without building a ``Path`` (every search hit and listing row needs it)."""
        return os.path.join(self._root, self.key)

    @property
    def id(self) -> str:
        """The path under the kind's folder without ``.md``: ``notes/a/b.md`` is ``a/b``."""
        name = self.key.split("/", 1)[-1]
        return name[:-3] if name.endswith(".md") else name

    def compact(self) -> str:
        """The row's fields as JSON text, which from now on is all the row keeps (parsed again on use).

        A parsed front matter costs ~1 KB of Python objects per row, its JSON a few hundred bytes:
        after a rebuild or a save, 100k rows hold tens of MB less.
        """
        raw = self.raw_meta()
        self._raw, self._meta = raw, None
        return raw

    def raw_meta(self) -> str:
        """The row's fields as JSON text (re-encoded once parsed: a reader may have changed them)."""
        if self._meta is not None or self._raw is None:
            return json.dumps(self._meta or {}, ensure_ascii=False, separators=(",", ":"))
        return self._raw

    def __repr__(self) -> str:
        return f"Entry({self.key!r}, {self.kind!r}, mtime_ns={self.mtime_ns}, size={self.size})"


def _entry_from_line(key: str, rest: str, root: str) -> Entry:
    kind, mtime, size, raw = rest.split("\t", 3)
    try:
        return Entry(key, kind, root, int(mtime), int(size), raw=raw)
    except ValueError:  # a damaged line: a stamp no file has, so the next scan reads the file again
        return Entry(key, kind, root, -3, -3, raw=raw)


def _made(made: dict[str, Entry], lines: dict[str, str], key: str, root: str) -> Entry | None:
    """The row for ``key``: already made, or made now from its saved line (which then leaves ``lines``)."""
    entry = made.get(key)
    if entry is None:
        rest = lines.pop(key, None)
        if rest is None:
            return None
        entry = made[key] = _entry_from_line(key, rest, root)
    return entry


# A sorted listing is stepped from its cached order when at most STEP_AT_MOST rows changed since (a filter
# and a binary-search insert each: ~5 ms at 100k notes, against ~90 ms for sorting every row again).
STEP_AT_MOST = 256
JOURNAL_LENGTH = 1024


def _step(rows: list[Entry], changed: dict[str, Entry], now: list[Entry], sort_key: Callable[[Entry], Any],
          old_key: Callable[[Entry], Any], reverse: bool) -> list[Entry]:
    """``rows`` (in ``sort_key`` order, descending if ``reverse``) without the rows ``changed`` maps to (each
    key's row as it was when ``rows`` was made), with the rows ``now`` (their current versions) inserted in
    order: a new list, the same as sorting everything again, as the sort keys are unique (they end with the
    id). Each row is found by a binary search, not a pass over the list."""
    out = list(rows)
    # A replaced row is still in ``out`` under its old key, which ``sort_key`` no longer knows (it would
    # take it again and keep it for the file's key, where the new row's belongs).
    before = {id(e): old_key(e) for e in changed.values()}

    def in_out(entry: Entry) -> Any:
        value = before.get(id(entry), _MISSING)
        return sort_key(entry) if value is _MISSING else value

    astray: set[str] = set()
    for key, old in changed.items():
        i = _position(out, before[id(old)], in_out, reverse)
        if i < len(out) and out[i] is old:
            del out[i]
        else:  # not where its key says (rows sharing an id): one pass over every row for all such
            astray.add(key)
    if astray:
        out = [e for e in out if e.key not in astray]
    for entry in now:
        out.insert(_position(out, sort_key(entry), sort_key, reverse), entry)
    return out


def _position(rows: list[Entry], value: Any, sort_key: Callable[[Entry], Any], reverse: bool) -> int:
    """The first place in ``rows`` (sorted by ``sort_key``, descending if ``reverse``) not before ``value``."""
    lo, hi = 0, len(rows)
    while lo < hi:
        mid = (lo + hi) // 2
        if (sort_key(rows[mid]) > value) if reverse else (sort_key(rows[mid]) < value):
            lo = mid + 1
        else:
            hi = mid
    return lo


class LazyRows(Mapping[str, Entry]):
    """Rows loaded from the catalogue file, each kept as its line (minus the key) until first asked for.

    ``Catalogue.replace_all`` adopts both halves, so an ``Entry`` taken from here before or after
    is the very object the catalogue holds.
    """

    def __init__(self, lines: dict[str, str], root: str) -> None:
        self.lines = lines            # key -> "kind\tmtime\tsize\tmeta": not made into an Entry yet
        self.made: dict[str, Entry] = {}
        self.root = root

    def __getitem__(self, key: str) -> Entry:
        entry = _made(self.made, self.lines, key, self.root)
        if entry is None:
            raise KeyError(key)
        return entry

    def __contains__(self, key: object) -> bool:
        return key in self.made or key in self.lines

    def __iter__(self) -> Iterator[str]:
        return itertools.chain(list(self.made), list(self.lines))

    def __len__(self) -> int:
        return len(self.made) + len(self.lines)


class Catalogue:
    """Rows by key, with a ``version`` that changes on every mutation (sorted listings are cached
    against it) and a ``kind_version`` per kind that changes only when a row of that kind does.
    Mutations and snapshots take a short lock, so readers never see a half-made change and never
    wait behind a file write."""

    def __init__(self, rows: Mapping[str, Entry] | None = None) -> None:
        self._rows: dict[str, Entry] = {}
        self._lazy: dict[str, str] = {}  # rows still in their saved form (see ``LazyRows``)
        self._root = ""
        self._lock = threading.Lock()
        self._adopt(rows or {})
        self.version = next(_versions)
        self._kind_versions: dict[str, int] = {}  # kind -> ``version`` when a row of it last changed
        self._all_replaced = self.version  # ... for a kind with none since the rows were last replaced
        self._cache: dict[str, tuple[int, list[Entry]]] = {}
        self._sort_keys: dict[str, dict[str, Any]] = {}  # "kind:name" -> {row key: its sort key}
        # (version, key, the row before) of the latest single-row changes, oldest first: a sorted listing
        # steps from its cached order by these instead of sorting every row again. Complete back to
        # ``_journal_start``.
        self._journal: collections.deque[tuple[int, str, Entry | None]] = collections.deque()
        self._journal_start = self.version

    def _adopt(self, rows: Mapping[str, Entry]) -> None:
        if isinstance(rows, LazyRows):
            self._rows, self._lazy, self._root = rows.made, rows.lines, rows.root
        else:
            self._rows, self._lazy = dict(rows), {}

    def _make(self, key: str) -> Entry | None:
        """The row for ``key``, made from its saved line on first use (caller holds the lock)."""
        return _made(self._rows, self._lazy, key, self._root)

    def _make_all(self) -> None:
        if self._lazy:
            lazy, self._lazy = self._lazy, {}
            root = self._root
            self._rows.update((k, _entry_from_line(k, rest, root)) for k, rest in lazy.items())

    # -- dict-like access ------------------------------------------------------
    def get(self, key: str, default: Entry | None = None) -> Entry | None:
        entry = self._rows.get(key)
        if entry is not None:
            return entry
        if not self._lazy:
            return default
        with self._lock:
            entry = self._make(key)
        return default if entry is None else entry

    def __getitem__(self, key: str) -> Entry:
        entry = self.get(key)
        if entry is None:
            raise KeyError(key)
        return entry

    def __contains__(self, key: object) -> bool:
        return key in self._rows or key in self._lazy

    def stamp(self, key: str) -> tuple[int, int] | None:
        """(mtime_ns, size) of a row, without making an ``Entry`` of a row still in its saved form:
        a scan compares 100k stamps and keeps none of them."""
        entry = self._rows.get(key)
        if entry is not None:
            return entry.mtime_ns, entry.size
        rest = self._lazy.get(key)
        if rest is None:
            return None
        parts = rest.split("\t", 3)
        try:
            return int(parts[1]), int(parts[2])
        except (ValueError, IndexError):
            return -3, -3

    def __len__(self) -> int:
        return len(self._rows) + len(self._lazy)

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys())

    def keys(self) -> list[str]:
        with self._lock:
            return list(self._rows) + list(self._lazy)

    def values(self) -> list[Entry]:
        with self._lock:
            self._make_all()
            return list(self._rows.values())

    def kind_version(self, kind: str) -> int:
        """Changes whenever a row of ``kind`` is added, replaced or removed, or all rows are replaced; unlike
        ``version``, not when other kinds change (a cache of the notes outlives memory writes). Values come
        from the same counter as ``version``: no two catalogues, nor two states of one, share a value."""
        return self._kind_versions.get(kind, self._all_replaced)

    def _kind_changed(self, *kinds: str) -> None:
        for kind in kinds:
            self._kind_versions[kind] = self.version

    def _forget_sort_keys(self, key: str) -> None:
        for known in self._sort_keys.values():
            known.pop(key, None)

    def __setitem__(self, key: str, entry: Entry) -> None:
        with self._lock:
            lazy = self._lazy.pop(key, None)
            old = self._rows.get(key)
            self._rows[key] = entry
            self._forget_sort_keys(key)
            self.version = next(_versions)
            self._journal_add(key, old)
            self._kind_changed(entry.kind, *((old.kind,) if old is not None else ()),
                               *((lazy.split("\t", 1)[0],) if lazy is not None else ()))

    def __delitem__(self, key: str) -> None:
        self.pop(key)

    def pop(self, key: str, default: Entry | None = None) -> Entry | None:
        with self._lock:
            entry = self._make(key)
            self._rows.pop(key, None)
            self._forget_sort_keys(key)
            self.version = next(_versions)
            self._journal_add(key, entry)
            if entry is not None:
                self._kind_changed(entry.kind)
            return default if entry is None else entry

    def replace_all(self, rows: Mapping[str, Entry]) -> None:
        with self._lock:
            self._adopt(rows)
            self._sort_keys = {}
            self.version = next(_versions)
            self._kind_versions, self._all_replaced = {}, self.version
            self._journal.clear()
            self._journal_start = self.version

    def _journal_add(self, key: str, before: Entry | None) -> None:
        """Record a change of ``key`` at the current version, and its row before (caller holds the lock)."""
        self._journal.append((self.version, key, before))
        if len(self._journal) > JOURNAL_LENGTH:
            self._journal_start = self._journal.popleft()[0]

    def _changed_since(self, version: int) -> dict[str, Entry | None] | None:
        """Keys changed after ``version``, each with its row as it was at ``version`` (None: there was none);
        None when the journal does not reach back that far or they are more than ``STEP_AT_MOST`` (then a
        full sort is as quick)."""
        changed: dict[str, Entry | None] = {}
        with self._lock:
            if version < self._journal_start:
                return None
            for v, key, before in reversed(self._journal):
                if v <= version:
                    break
                changed[key] = before  # walking back: the earliest change after ``version`` is written last
        return changed if len(changed) <= STEP_AT_MOST else None

    # -- listings ----------------------------------------------------------------
    def entries(self, kind: str) -> list[Entry]:
        """The rows of one kind (a fresh list; the scan is cached until the catalogue changes)."""
        return list(self._of_kind(kind))

    def _of_kind(self, kind: str) -> list[Entry]:
        # Kept until a row of this kind changes: a memory write does not make the notes' listing scan again.
        version = self.kind_version(kind)
        cached = self._cache.get(kind)
        if cached is None or cached[0] != version:
            cached = (version, [e for e in self.values() if e.kind == kind])
            self._cache[kind] = cached
        return cached[1]

    def sorted_entries(self, kind: str, key: Callable[[Entry], Any], name: str, reverse: bool) -> list[Entry]:
        """Rows of one kind in ``key`` order, cached per ``name`` until a row of that kind changes.

        Each row's sort key is kept (per ``name``, until that row changes), and a row still in its
        JSON form is parsed only for the moment its key is taken: re-sorting after a write reads
        no JSON again, and listing 100k notes does not leave 100k parsed front matters behind.
        """
        cache_key = f"{kind}:{name}:{reverse}"
        version = self.kind_version(kind)
        cached = self._cache.get(cache_key)
        if cached is None or cached[0] != version:
            known = self._sort_keys.setdefault(f"{kind}:{name}", {})

            def old_key(entry: Entry) -> Any:  # taken without leaving a row in its JSON form parsed
                compact = entry._meta is None
                value = key(entry)
                if compact:
                    entry._meta = None
                return value

            def sort_key(entry: Entry) -> Any:  # kept for the row until it changes; a replaced row's is not
                value = known.get(entry.key, _MISSING)
                if value is _MISSING:
                    value = known[entry.key] = old_key(entry)
                return value

            changed = self._changed_since(cached[0]) if cached is not None else None
            if cached is not None and changed is not None:
                before = {k: e for k, e in changed.items() if e is not None and e.kind == kind}
                now = [e for k in changed if (e := self.get(k)) is not None and e.kind == kind]
                rows = _step(cached[1], before, now, sort_key, old_key, reverse)
            else:
                rows = sorted(self._of_kind(kind), key=sort_key, reverse=reverse)
            cached = (version, rows)
            self._cache[cache_key] = cached
        return cached[1]

    # -- the compact file ----------------------------------------------------------
    def save(self, path: Path, record: dict[str, Any], rows: list[Entry] | None = None) -> None:
        """Write ``rows`` (default: every row) and ``record`` (what they were checked against) to ``path``
        atomically. Rows never change once made, so a list taken earlier can be written unlocked.

        A derived cache: no fsync. A torn file fails the row count check and is ignored.
        """
        rows = self.values() if rows is None else rows
        if any("\t" in e.key or "\n" in e.key for e in rows):
            return  # a file name this format cannot hold: such a workspace reopens with a scan
        header = json.dumps({"format": FORMAT, "rows": len(rows), **record}, separators=(",", ":"))
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        try:
            # Streamed line by line: no second copy of a 100k-row file in memory.
            with open(tmp, "w", encoding="utf-8") as fh:
                fh.write(header + "\n")
                fh.writelines(f"{e.key}\t{e.kind}\t{e.mtime_ns}\t{e.size}\t{e.compact()}\n" for e in rows)
                fh.write("end\n")
            os.replace(tmp, path)
        except OSError as exc:
            log.info("could not save the catalogue to %s: %s", path, exc)
            tmp.unlink(missing_ok=True)

    @staticmethod
    def load(path: Path, root: Path, kinds: set[str]) -> tuple[LazyRows, dict[str, Any]] | None:
        """Rows and record saved by ``save``; None when the file is missing, torn or of another format.

        The rows stay lines of text (``LazyRows``) until used: loading is one read and splits in C.
        """
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None
        lines = text.split("\n")
        try:
            record = json.loads(lines[0])
            if (not isinstance(record, dict) or record.get("format") != FORMAT
                    or len(lines) != record.get("rows", -1) + 3 or lines[-2] != "end"):
                return None
            del lines[-2:], lines[0]
            # A line without a tab makes a one-item pair: dict() refuses it with ValueError (no second pass).
            by_key: dict[str, str] = dict(map(methodcaller("split", "\t", 1), lines))
            found_kinds = set(map(itemgetter(0), map(methodcaller("split", "\t", 1), by_key.values())))
        except (ValueError, TypeError):
            return None
        if not found_kinds <= kinds:  # a folder no longer served: drop its rows (rare; made one by one)
            by_key = {k: rest for k, rest in by_key.items() if rest.split("\t", 1)[0] in kinds}
        if by_key and min(map(methodcaller("count", "\t"), by_key.values())) < 3:
            return None
        return LazyRows(by_key, str(root)), record
