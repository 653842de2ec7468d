"""Memory for agents: working, episodic and semantic memories as Markdown files.

* **working** — short-lived scratch context for the current task; expires
  after a TTL (default 120 minutes) and is capped (default 50: adding beyond
  the cap evicts the lowest ``importance × recency``, never the new one).
* **episodic** — what happened: events, outcomes, decisions; decays over days.
* **semantic** — durable facts and preferences; no decay.

Working memories are files like the others (not kept in process memory): the
CLI runs one process per command and several agents may share a workspace, so
only files make a memory added by one visible to the next. An expired working
memory is never returned and is deleted by the next memory operation.

The file format and the ranking formula are documented in ``memory.model``.
Every time comes from ``ws.clock``; every write follows the note store's
pattern (validate, take the workspace lock, atomic write, ``record_write``).

Recall leaves the files alone: a search hit's access count and time go to the
ignored sidecar of ``access_stats`` (so ``git status`` stays clean), and ranking
reads them from there. ``update`` and ``forget`` by id take ``expected_revision``
for compare-and-swap; without it the last writer wins.
"""

from __future__ import annotations

import builtins
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from collections.abc import Callable, Iterable, Sequence

from .access_stats import Access, AccessStats
from ..analysis.analyzer import QueryUnit, query_units, without_clitics
from ..files.front_matter import MAX_LISTED_UNREADABLE, dump_document, ordered_meta
from ..errors import InvalidInput, NotFound, StorageError, StoreError
from ..index import Filters
from ..files.items import ItemFiles, LoadedItem, StagedItem, check_revision, collecting_warnings
from .model import (MEMORY_KEYS, MEMORY_SORTS, MEMORY_TYPES, PROMOTIONS, STRATEGIES, IMPORTANCE_DIGITS,
                           MAX_SOURCE_CHARS, ConsolidateResult, ForgetResult, Memory, MemoryCollection,
                           MemoryConfig, MemoryHit, MemoryList, MemorySearchResult, MemorySummary, Moved,
                           content_to_body, row_recency, row_value)
from ..validation import (check_choice, check_content, check_paging, check_query, check_query_terms, check_tags,
                         is_number, iso_now, parse_time)
from ..workspace import Entry, Workspace
from ..index.write_batch import analyse

log = logging.getLogger("ctxnotes.memory")
Row = dict[str, Any]
Parts = tuple[float, float, float, float, float]  # score, relevance, recency, importance, bm25
# Access statistics live in the sidecar; a file keeps what it already had (older files, hand edits)
# and new files do not get them at all.
ACCESS_KEYS = ("last_accessed_at", "access_count")

__all__ = ["MemoryStore", "MemoryConfig", "MemoryCollection", "Memory", "MemoryHit", "MemorySearchResult",
           "ForgetResult", "ConsolidateResult", "MemoryList", "MemorySummary", "MEMORY_TYPES", "STRATEGIES"]

_DAY = 86400.0


class MemoryStore:
    """Add, search, read, list, update, forget, consolidate and summarise memories."""

    def __init__(self, workspace: Workspace, config: MemoryConfig | None = None) -> None:
        self.ws = workspace
        self.config = config or MemoryConfig()
        self.collection: MemoryCollection = workspace.collections["memory"]  # type: ignore[assignment]
        self.files = ItemFiles(workspace, self.collection, what="memory", id_name="memory_id", id_prefix="mem",
                               find_hint="use memory search or memory list to find ids")
        self.stats = AccessStats(workspace.index_dir)
        self._expiries: _Expiries | None = None  # see _expiry_table
        self._first_expiry: tuple[tuple[int, float], float] | None = None  # see _purge_expired

    # -- actions ---------------------------------------------------------------------
    def add(self, content: str, memory_type: str = "working", importance: float = 0.5,
            tags: Sequence[str] | None = (), source: str | None = None,
            ttl_minutes: float | None = None) -> Memory:
        """Store a memory and return it; for working memory, evictions are listed in ``evicted``.

        ``ttl_minutes`` (working only) overrides the configured TTL (default 120).
        """
        content = _check_memory_content(content, self.ws.max_content_bytes)
        memory_type = _check_type(memory_type)
        importance = _check_importance(importance)
        tags = check_tags(list(tags) if isinstance(tags, tuple) else tags)
        source = _check_source(source)
        ttl = self._check_ttl(ttl_minutes, memory_type)
        self._prepare()
        now = self._now()
        stamp = iso_now(now)
        meta: dict[str, Any] = {"id": self.files.new_id(), "memory_type": memory_type,
                                "importance": importance, "tags": tags, "created_at": stamp, "source": source}
        if memory_type == "working" and ttl is not None:
            meta["expires_at"] = iso_now(now + ttl * 60.0)
        # The file is written and fsynced, and its text analysed for the index, before the lock is taken: other
        # writers do not wait for either (1 MiB of text is ~0.1-0.6 s of analysis); under the lock remain the
        # rename, the folder fsync and the registration, which reuses this analysis (``write_batch.analyse``).
        staged = self._stage(meta, None, content)
        analysis = analyse(staged[1].entry)
        try:
            with self.ws.writing():
                if memory_type == "working":
                    self._sync_with_folder()  # count what other processes added, for the capacity
                with collecting_warnings(self.ws) as warnings:
                    if os.path.lexists(self._path(meta["id"])):  # 32 random bits collided meanwhile: a new id
                        meta["id"] = self.files.new_id()
                        memory = self._write(meta, None, content)
                    else:
                        memory = self._commit(staged, content)
                    if memory_type == "working":
                        memory.evicted = self._evict_over_capacity(memory.id, now)
        finally:
            staged[1].discard()  # nothing left when it was committed
            del analysis
        memory.warnings = warnings
        return memory

    def read(self, memory_id: str) -> Memory:
        """The memory with its content (reading is not counted as an access; search hits are)."""
        item = self.files.load(memory_id)
        row = item.entry.meta
        if self._expired(row, self._now()):
            self._purge([item.entry.key])
            raise NotFound(f"memory {row['id']!r} expired at {self._expires_at(row)} and was purged; "
                           "add it again, or as an episodic/semantic memory if it should last")
        return self._memory_of(item, self._access(row["id"]))

    def search(self, query: str, memory_type: str | Sequence[str] | None = None, min_importance: float = 0.0,
               limit: int = 5, *, touch: bool = True) -> MemorySearchResult:
        """Memories ranked by relevance, recency and importance (see ``memory.model``).

        Every word must match; when nothing does, memories with any of the words.
        Each returned hit counts as an access (``last_accessed_at``, ``access_count``)
        unless ``touch=False``; the count goes to the sidecar statistics, never into the
        file, so recall leaves a Git working tree clean. A memory file that cannot be
        read is left out of the hits (``memory_summary`` lists it), never an error.
        """
        query = check_query(query, "give words to search for (use memory list to see memories without a query)")
        types = _check_types(memory_type)
        min_importance = _check_importance(min_importance, "min_importance")
        limit, _ = check_paging(limit, 0)
        self._prepare()
        units = query_units(without_clitics(query))
        check_query_terms(sum(len(u.terms) for u in units))
        now = self._now()
        top, matches = self._rank(units, types, min_importance, now, True, limit)
        matched = "all"
        if not top and (len(units) > 1 or (units and units[0].is_phrase)):
            top, matches = self._rank(units, types, min_importance, now, False, limit)
            matched = "any"
        if not top:
            matched = "none"
        loaded = [(item, parts) for item, parts in
                   ((self._try_load(hit_row.meta["id"]), parts) for hit_row, parts in top)
                   if item is not None and not self._expired(item.entry.meta, now)]
        warnings: builtins.list[str] = []
        accesses: dict[str, Access] = {}
        if touch and loaded:
            try:
                accesses = self.stats.touch({item.entry.meta["id"]: self._file_access(item.entry.meta)
                                             for item, _parts in loaded}, self._now())
            except StorageError as exc:  # the recall itself worked: report, don't fail
                warnings.append(f"access statistics not updated: {exc}")
        if not accesses:
            accesses = self._accesses([item.entry.meta["id"] for item, _parts in loaded], warnings)
        hits = [MemoryHit(self._memory_of(item, accesses.get(item.entry.meta["id"])), *parts)
                for item, parts in loaded]
        c = self.config
        return MemorySearchResult(query=query, hits=hits, candidates=matches, limit=limit, matched=matched,
                                  weights={"relevance": c.weight_relevance, "recency": c.weight_recency,
                                           "importance": c.weight_importance}, warnings=warnings)

    def list(self, memory_type: str | Sequence[str] | None = None, limit: int = 20, offset: int = 0,
             sort: str = "created_desc") -> MemoryList:
        """Live memories (content included), filtered and sorted, with the total before paging."""
        limit, offset = check_paging(limit, offset, max_limit=1000)
        sort = check_choice(sort, MEMORY_SORTS, "sort")
        types = _check_types(memory_type)
        self._prepare()
        now = self._now()
        rows = [r.meta for r in self.ws.entries("memory") if not self._expired(r.meta, now)
                and (not types or r.meta["memory_type"] in types)]
        if sort == "accessed_desc":
            rows = self._with_accesses(rows)
        key: Callable[[Row], Any] = {
            "created_desc": lambda r: (r["_created"], r["id"]),
            "created_asc": lambda r: (r["_created"], r["id"]),
            "importance_desc": lambda r: (r["importance"], r["_created"], r["id"]),
            "accessed_desc": lambda r: (r["_accessed"], r["id"]),
        }[sort]
        rows.sort(key=key, reverse=sort.endswith("_desc"))
        page = [item for item in (self._try_load(r["id"]) for r in rows[offset:offset + limit]) if item is not None]
        accesses = self._accesses([item.entry.meta["id"] for item in page])
        memories = [self._memory_of(item, accesses.get(item.entry.meta["id"])) for item in page]
        return MemoryList(memories, total=len(rows), limit=limit, offset=offset)

    def ids(self, prefix: str = "") -> builtins.list[str]:
        """Ids of the live memories starting with ``prefix``, newest first, from the catalogue (no file is
        read: completion asks on every keystroke, and ``list`` loads each memory whole)."""
        self._prepare()
        now = self._now()
        return [i for i, expires in self._expiry_table().rows if expires > now and i.startswith(prefix)]

    def update(self, memory_id: str, content: str | None = None, importance: float | None = None,
               tags: Sequence[str] | None = None, ttl_minutes: float | None = None, *,
               expected_revision: str | None = None) -> Memory:
        """Change content, importance or tags (None = unchanged); ``ttl_minutes`` resets a working
        memory's expiry to now + ttl. Access statistics are not changed.

        With ``expected_revision``, only if the file is still that revision (else ``Conflict``,
        nothing written); without it, last writer wins.
        """
        if content is None and importance is None and tags is None and ttl_minutes is None:
            raise InvalidInput("nothing to update: give content, importance, tags or ttl_minutes")
        if content is not None:
            content = _check_memory_content(content, self.ws.max_content_bytes)
        if importance is not None:
            importance = _check_importance(importance)
        if tags is not None:
            tags = check_tags(list(tags) if isinstance(tags, tuple) else tags)
        expected = check_revision(expected_revision)
        self._prepare()
        with self.ws.writing():
            item = self.files.load(memory_id)
            front, entry = item.front, item.entry
            now = self._now()
            row = entry.meta
            if self._expired(row, now):
                self._purge([entry.key])
                raise NotFound(f"memory {row['id']!r} expired at {self._expires_at(row)} and was purged; "
                               "nothing was updated")
            self.files.require_revision(row["id"], expected, item.revision)
            ttl = self._check_ttl(ttl_minutes, row["memory_type"], explicit_only=True)
            new = self._known(row)
            if importance is not None:
                new["importance"] = importance
            if tags is not None:
                new["tags"] = tags
            if ttl is not None:
                new["expires_at"] = iso_now(now + ttl * 60.0)
            new_content = content if content is not None else entry.text
            if new == self._known(row) and new_content == entry.text:
                return self._memory_of(item, self._access(row["id"]))
            with collecting_warnings(self.ws) as warnings:
                memory = self._write(new, front, new_content)
            memory.warnings = warnings
            return memory

    def forget(self, memory_id: str | None = None, strategy: str | None = None, threshold: float = 0.1,
               max_age_days: float = 30, capacity: int | None = None, dry_run: bool = False,
               memory_type: str | Sequence[str] | None = None, *,
               expected_revision: str | None = None) -> ForgetResult:
        """Remove one memory by id, or every memory a strategy selects; return what was (would be) removed.

        * ``importance_based``: importance below ``threshold`` (0..1);
        * ``time_based``: created and last accessed more than ``max_age_days`` ago;
        * ``capacity_based``: per type, keep the ``capacity`` memories of highest
          importance × recency (default: the working capacity for working memory,
          ``long_term_capacity`` for the others).

        ``memory_type`` restricts a strategy to some types; ``dry_run`` changes nothing.
        ``expected_revision`` (by id only): forget only if the file is still that revision (else
        ``Conflict``); without it, last writer wins.
        """
        if (memory_id is None) == (strategy is None):
            raise InvalidInput("give either memory_id (to forget one memory) or strategy (one of: "
                               f"{', '.join(STRATEGIES)}), not both and not neither")
        if memory_id is not None:
            return self._forget_one(memory_id, dry_run, check_revision(expected_revision))
        if expected_revision is not None:
            raise InvalidInput("expected_revision applies to forgetting one memory by memory_id, not to a strategy")
        strategy = check_choice(strategy, STRATEGIES, "strategy")
        types = _check_types(memory_type) or list(MEMORY_TYPES)
        if strategy == "importance_based":
            threshold = _check_importance(threshold, "threshold")
        elif strategy == "time_based":
            if not is_number(max_age_days) or max_age_days <= 0:
                raise InvalidInput(f"max_age_days must be a number of days > 0; got {max_age_days!r}")
        elif capacity is not None and (isinstance(capacity, bool) or not isinstance(capacity, int) or capacity < 0):
            raise InvalidInput(f"capacity must be a whole number >= 0 (memories to keep per type); got {capacity!r}")
        self.ws.refresh(force=True)  # decide on what the files say now, not on a stale catalogue
        if not dry_run:
            self._purge_expired()
        now = self._now()
        rows = self._with_accesses([r.meta for r in self.ws.entries("memory")
                                    if r.meta["memory_type"] in types and not self._expired(r.meta, now)])
        if strategy == "importance_based":
            chosen = [r for r in rows if r["importance"] < threshold]
        elif strategy == "time_based":
            cutoff = now - max_age_days * _DAY
            chosen = [r for r in rows if r["_created"] < cutoff and r["_accessed"] < cutoff]
        else:
            chosen = []
            for t in types:
                of_type = [r for r in rows if r["memory_type"] == t]
                keep = capacity if capacity is not None else (
                    self.config.working_capacity if t == "working" else self.config.long_term_capacity)
                of_type.sort(key=lambda r: self._value_key(r, now), reverse=True)
                chosen += of_type[keep:]
        chosen.sort(key=lambda r: r["id"])
        removed: list[Memory] = []
        accesses = {r["id"]: Access(r["access_count"], r["_accessed"]) for r in chosen}
        with self.ws.writing(), collecting_warnings(self.ws) as warnings:
            for r in chosen:
                item = self._try_load(r["id"])
                if item is None:
                    continue
                removed.append(self._memory_of(item, accesses.get(r["id"])))
                if not dry_run:
                    self.files.delete(r["id"])
            if not dry_run:
                self._drop_stats([m.id for m in removed])
        return ForgetResult(strategy=strategy, dry_run=dry_run, removed=removed, warnings=warnings)

    def consolidate(self, from_type: str = "working", to_type: str = "episodic", importance_threshold: float = 0.7,
                    min_access_count: int | None = None, dry_run: bool = False) -> ConsolidateResult:
        """Promote memories to a longer-lived type; return what moved (would move, with ``dry_run``).

        * from ``working``: memories with importance >= ``importance_threshold``;
        * from ``episodic`` (to ``semantic``): memories accessed at least
          ``min_access_count`` times (default ``config.min_access_count``, 3).

        A promoted memory keeps its id, content and access history, loses its
        expiry, and its importance is multiplied by 1.1 and clamped to 1.0.
        """
        from_type = _check_type(from_type, "from_type")
        to_type = _check_type(to_type, "to_type")
        if (from_type, to_type) not in PROMOTIONS:
            allowed = ", ".join(f"{a}->{b}" for a, b in PROMOTIONS)
            raise InvalidInput(f"cannot consolidate {from_type} into {to_type}: memories only move to longer-lived "
                               f"types ({allowed})")
        importance_threshold = _check_importance(importance_threshold, "importance_threshold")
        if min_access_count is None:
            min_access_count = self.config.min_access_count
        elif isinstance(min_access_count, bool) or not isinstance(min_access_count, int) or min_access_count < 0:
            raise InvalidInput(f"min_access_count must be a whole number >= 0; got {min_access_count!r}")
        if from_type == "working":
            criterion = f"importance >= {importance_threshold}"

            def selected(row: dict[str, Any]) -> bool:
                return bool(row["importance"] >= importance_threshold)
        else:
            criterion = f"access_count >= {min_access_count}"

            def selected(row: dict[str, Any]) -> bool:
                return bool(row["access_count"] >= min_access_count)
        self.ws.refresh(force=True)
        if not dry_run:
            self._purge_expired()
        now = self._now()
        candidates = sorted(r["id"] for r in self._with_accesses(
            [r.meta for r in self.ws.entries("memory")
             if r.meta["memory_type"] == from_type and not self._expired(r.meta, now)])
            if selected(r))
        moved: list[Moved] = []
        with self.ws.writing(), collecting_warnings(self.ws) as warnings:
            accesses = self._accesses(candidates)
            for mem_id in candidates:
                item = self._try_load(mem_id)
                if item is None:
                    continue
                file_row = item.entry.meta
                row = self._with_access(file_row, accesses.get(mem_id))
                if row["memory_type"] != from_type or self._expired(row, now) or not selected(row):
                    continue  # changed on disk since the catalogue saw it
                new = self._known(file_row)
                new["memory_type"] = to_type
                new["importance"] = min(1.0, round(row["importance"] * 1.1, IMPORTANCE_DIGITS))
                new.pop("expires_at", None)
                if dry_run:
                    after = self._memory({**row, **new, "expires_at": None, "_expires": None}, item.path,
                                         item.entry.text, item.front, item.revision)
                else:
                    after = self._write(new, item.front, item.entry.text)
                moved.append(Moved(after, row["importance"]))
        return ConsolidateResult(from_type=from_type, to_type=to_type, criterion=criterion, dry_run=dry_run,
                                 moved=moved, warnings=warnings)

    def summary(self) -> MemorySummary:
        """Counts and mean importance by type, oldest/newest, expired-but-not-purged count, unreadable files.

        Read-only: it does not purge, so expired working memories are counted apart.
        """
        self.ws.refresh()
        now = self._now()
        by_type: dict[str, dict[str, Any]] = {}
        live, expired = [], 0
        for r in self.ws.entries("memory"):
            if self._expired(r.meta, now):
                expired += 1
            else:
                live.append(r.meta)
        for t in MEMORY_TYPES:
            imps = [m["importance"] for m in live if m["memory_type"] == t]
            by_type[t] = {"count": len(imps),
                          "mean_importance": round(sum(imps) / len(imps), IMPORTANCE_DIGITS) if imps else None}
        live.sort(key=lambda m: (m["_created"], m["id"]))

        def brief(m: dict[str, Any]) -> dict[str, Any]:
            return {"id": m["id"], "memory_type": m["memory_type"], "created_at": m["created_at"]}

        unreadable = self.files.unreadable()
        return MemorySummary(total=len(live), by_type=by_type, oldest=brief(live[0]) if live else None,
                             newest=brief(live[-1]) if live else None, expired_unpurged=expired,
                             unreadable=unreadable[:MAX_LISTED_UNREADABLE], config=self.config.to_dict(),
                             unreadable_total=len(unreadable))

    def purge_expired(self) -> builtins.list[str]:
        """Delete expired working memories now; return their ids (every other action does this too)."""
        self.ws.refresh()
        return self._purge_expired()

    # -- internals ---------------------------------------------------------------------
    def _now(self) -> float:
        return float(self.ws.clock())

    def _path(self, memory_id: str) -> Path:
        return self.files.path(memory_id)

    def _prepare(self) -> None:
        """Pick up outside changes, then purge expired working memories."""
        self.ws.refresh()
        self._purge_expired()

    def _sync_with_folder(self) -> None:
        """Make sure the catalogue has every file in ``memory/`` (call under the lock).

        The workspace notices other processes' new files by the folder's mtime,
        which has a coarse granularity (a few ms) and which our own writes also
        update; listing the folder's names is exact and cheap.
        """
        folder = self.ws.folder("memory")
        try:
            names = {n for n in os.listdir(folder) if n.endswith(".md") and not n.startswith(".")}
        except FileNotFoundError:
            names = set()
        prefix = self.collection.folder_name + "/"
        known = {e.path.name for e in self.ws.entries("memory")}
        known |= {k[len(prefix):] for k in list(self.ws.problems) if k.startswith(prefix)}
        if names != known:
            self.ws.refresh(force=True)

    def _try_load(self, memory_id: str) -> LoadedItem | None:
        """The memory's file, or None when it is gone or unreadable (then listed by ``summary``)."""
        try:
            return self.files.load(memory_id)
        except StoreError as exc:
            if not isinstance(exc, NotFound):
                log.warning("%s: skipping memory %s: %s", self.ws.root, memory_id, exc)
            return None

    # -- access statistics (the sidecar) -------------------------------------------------
    def _accesses(self, ids: Iterable[str], warnings: builtins.list[str] | None = None) -> dict[str, Access]:
        """Sidecar statistics of some memories ({} with a warning when the sidecar cannot be read)."""
        try:
            return self.stats.get(ids)
        except StorageError as exc:
            log.warning("%s: %s", self.ws.root, exc)
            if warnings is not None:
                warnings.append(f"access statistics not read: {exc}")
            return {}

    def _access(self, memory_id: str) -> Access | None:
        return self._accesses([memory_id]).get(memory_id)

    @staticmethod
    def _file_access(row: Row) -> Access:
        """What the file itself says (older files and hand edits may carry statistics)."""
        return Access(int(row["access_count"]), float(row["_accessed"]))

    @staticmethod
    def _with_access(row: Row, access: Access | None) -> Row:
        """The row with its effective statistics: the larger of the file's and the sidecar's."""
        if access is None or (access.count <= row["access_count"] and access.last <= row["_accessed"]):
            return row
        out = dict(row)
        out["access_count"] = max(row["access_count"], access.count)
        if access.last > row["_accessed"]:
            out["_accessed"] = access.last
            out["last_accessed_at"] = iso_now(access.last)
        return out

    def _with_accesses(self, rows: builtins.list[Row]) -> builtins.list[Row]:
        if not rows:
            return rows
        accesses = self._accesses(r["id"] for r in rows)
        return [self._with_access(r, accesses.get(r["id"])) for r in rows]

    def _drop_stats(self, ids: builtins.list[str]) -> None:
        try:
            self.stats.drop(ids)
        except StorageError as exc:  # stale rows of deleted ids are harmless
            log.warning("%s: %s", self.ws.root, exc)

    # -- files ---------------------------------------------------------------------------
    @staticmethod
    def _known(row: Row) -> Row:
        """The front-matter keys we write, from a file's catalogue row (None values left out)."""
        return {k: row[k] for k in MEMORY_KEYS if row.get(k) is not None}

    def _write(self, known: Row, previous: Row | None, content: str) -> Memory:
        """Write a memory file (caller holds the lock) and register it with the workspace."""
        return self._commit(self._stage(known, previous, content), content)

    def _stage(self, known: Row, previous: Row | None, content: str) -> tuple[Row, StagedItem]:
        """The memory's file written and fsynced to a temp file (no lock needed; ``_commit`` follows under it)."""
        known = {k: v for k, v in known.items() if v is not None}
        for key in ACCESS_KEYS:  # kept unchanged where a file had them (a floor for the sidecar's); never added
            if previous is None or key not in previous:
                known.pop(key, None)
        if known["memory_type"] == "working" and "expires_at" not in known:
            known["expires_at"] = iso_now(_iso_ts(known["created_at"]) + self.config.working_ttl_minutes * 60.0)
        if known["memory_type"] != "working":
            known.pop("expires_at", None)
        front = ordered_meta({k: known[k] for k in MEMORY_KEYS if k in known}, previous, MEMORY_KEYS)
        return front, self.files.stage(known["id"], dump_document(front, content_to_body(content)))

    def _commit(self, staged: tuple[Row, StagedItem], content: str) -> Memory:
        """Rename a staged memory into place durably and register it (caller holds the lock)."""
        front, item = staged
        entry, revision = self.files.commit(item)
        row = self._with_access(entry.meta, self._access(item.item_id))
        return self._memory(row, self._path(item.item_id), content, front, revision)

    def _memory_of(self, item: LoadedItem, access: Access | None) -> Memory:
        return self._memory(self._with_access(item.entry.meta, access), item.path, item.entry.text, item.front,
                            item.revision)

    def _memory(self, row: Row, path: Path, content: str | None, front: Row | None, revision: str = "") -> Memory:
        return Memory(id=row["id"], content=content, memory_type=row["memory_type"], importance=row["importance"],
                      tags=list(row["tags"]), created_at=row["created_at"], last_accessed_at=row["last_accessed_at"],
                      access_count=row["access_count"], source=row.get("source"),
                      expires_at=self._expires_at(row) if row["memory_type"] == "working" else None,
                      path=str(path), extra={k: v for k, v in (front or {}).items() if k not in MEMORY_KEYS},
                      revision=revision or row.get("revision") or "")

    def _expires_ts(self, row: Row) -> float:
        if row.get("_expires") is not None:
            return float(row["_expires"])
        return float(row["_created"]) + self.config.working_ttl_minutes * 60.0

    def _expires_at(self, row: Row) -> str:
        return str(row.get("expires_at") or iso_now(self._expires_ts(row)))

    def _expiry(self, row: Row) -> float:
        """When the memory expires: a working memory's expiry, never (inf) for the other types."""
        return self._expires_ts(row) if row["memory_type"] == "working" else float("inf")

    def _expired(self, row: Row, now: float) -> bool:
        return self._expiry(row) <= now

    def _value_key(self, row: Row, now: float) -> tuple[float, float, str]:
        """Sort key, best last when ascending: value, then last access, then id."""
        return (row_value(row, now, self.config), float(row["_accessed"]), str(row["id"]))

    def _check_ttl(self, ttl_minutes: Any, memory_type: str, explicit_only: bool = False) -> float | None:
        if ttl_minutes is None:
            return None if explicit_only else self.config.working_ttl_minutes
        if memory_type != "working":
            raise InvalidInput(f"ttl_minutes applies only to working memories, not {memory_type}; "
                               "episodic and semantic memories do not expire (use forget to remove them)")
        if not is_number(ttl_minutes) or ttl_minutes <= 0:
            raise InvalidInput(f"ttl_minutes must be a number of minutes > 0; got {ttl_minutes!r}")
        return float(ttl_minutes)

    def _purge_expired(self) -> builtins.list[str]:
        """Purge expired working memories. Every memory call starts here: while the rows are those of the last
        look and the earliest expiry it saw is still ahead, no row is looked at."""
        now = self._now()
        version = self._rows_version()
        seen = self._first_expiry
        if seen is not None and seen[0] == version and seen[1] > now:
            return []
        keys: builtins.list[str] = []
        first = float("inf")
        for entry in self.ws.entries("memory"):
            expires = self._expiry(entry.meta)
            if expires <= now:
                keys.append(entry.key)
            elif expires < first:
                first = expires
        self._first_expiry = (version, first)
        return self._purge(keys) if keys else []

    def _rows_version(self) -> tuple[int, float]:
        """Changes with any memory row, and with the TTL that dates working memories without an expiry."""
        return self.ws.catalogue.kind_version("memory"), float(self.config.working_ttl_minutes)

    def _expiry_table(self) -> _Expiries:
        """Every memory's (id, expiry; inf unless working), newest first, read once per change of the rows:
        completion asks on every keystroke, and parsing and sorting every row took ~14 ms at 5,000 memories."""
        version = self._rows_version()
        found = self._expiries
        if found is None or found.version != version:
            entries = sorted(self.ws.entries("memory"), key=lambda e: (e.meta["_created"], e.meta["id"]),
                             reverse=True)
            found = self._expiries = _Expiries(version, [(str(e.meta["id"]), self._expiry(e.meta)) for e in entries])
        return found

    def _purge(self, keys: builtins.list[str]) -> builtins.list[str]:
        """Delete the files of expired working memories, re-checking each file under the lock."""
        purged = []
        with self.ws.writing():
            now = self._now()
            for key in keys:
                mem_id = Path(key).stem
                try:
                    item = self.files.load(mem_id)
                except NotFound:
                    self.ws.record_delete(key)
                    continue
                except StoreError:
                    continue
                if self._expired(item.entry.meta, now):  # the file may have been extended by hand
                    self.files.delete(mem_id)
                    purged.append(mem_id)
            self._drop_stats(purged)
        return purged

    def _evict_over_capacity(self, new_id: str, now: float) -> builtins.list[str]:
        """Delete the lowest-value working memories beyond capacity, never ``new_id`` (lock held)."""
        rows = [r.meta for r in self.ws.entries("memory")
                if r.meta["memory_type"] == "working" and not self._expired(r.meta, now)]
        excess = len(rows) - self.config.working_capacity
        if excess <= 0:
            return []
        others = sorted((r for r in self._with_accesses(rows) if r["id"] != new_id),
                        key=lambda r: self._value_key(r, now))
        evicted = []
        for r in others[:excess]:
            self.files.delete(r["id"])
            evicted.append(str(r["id"]))
        self._drop_stats(evicted)
        return evicted

    def _forget_one(self, memory_id: str, dry_run: bool, expected: str | None) -> ForgetResult:
        memory_id = self.files.check_id(memory_id)
        with self.ws.writing(), collecting_warnings(self.ws) as warnings:
            path = self._path(memory_id)
            if not os.path.lexists(path):
                raise NotFound(f"no memory with id {memory_id!r}; nothing was forgotten "
                               "(use memory list or memory search to see ids)")
            try:
                item = self.files.load(memory_id)
                revision: str | None = item.revision
                removed = [self._memory_of(item, self._access(memory_id))]
            except (InvalidInput, StorageError):  # an unreadable file can still be forgotten
                revision = self.files.current_revision(memory_id)
                removed = [Memory(id=memory_id, content=None, memory_type="", importance=0.0, tags=[],
                                  created_at="", last_accessed_at="", access_count=0, source=None,
                                  expires_at=None, path=str(path), revision=revision or "")]
            self.files.require_revision(memory_id, expected, revision)
            if not dry_run:
                self.files.delete(memory_id)
                self._drop_stats([memory_id])
        return ForgetResult(strategy=None, dry_run=dry_run, removed=removed, warnings=warnings)

    def _rank(self, units: builtins.list[QueryUnit], types: builtins.list[str] | None, min_importance: float,
              now: float, match_all: bool, limit: int) -> tuple[builtins.list[tuple[Entry, Parts]], int]:
        """The ``limit`` best live memories with (score, relevance, recency, importance, bm25), and the
        number of memories the query matched (before the importance filter).

        Only the BM25 top ``pool`` are fetched from the index; the pool grows until no memory
        outside it could still reach the top: one outside has relevance <= the pool's lowest,
        recency and importance <= 1, which bounds its score. Recency uses the effective last
        access (sidecar statistics included).
        """
        if not units:
            return [], 0
        c = self.config
        total_weight = c.weight_relevance + c.weight_recency + c.weight_importance
        pool = max(50, 10 * limit)
        while True:
            rows, total = self.ws.search(units, Filters(kind="memory", types=types), pool, match_all)
            complete = len(rows) >= total
            live = [(r, bm25) for r, bm25 in rows
                    if not self._expired(r.meta, now) and r.meta["importance"] >= min_importance]
            accesses = self._accesses(r.meta["id"] for r, _bm25 in live)
            out: builtins.list[tuple[Entry, Parts]] = []
            if live:
                best = max(bm25 for _r, bm25 in live) or 1.0
                for r, bm25 in live:
                    rel = bm25 / best
                    rec = row_recency(self._with_access(r.meta, accesses.get(r.meta["id"])), now, c)
                    imp = r.meta["importance"]
                    score = (c.weight_relevance * rel + c.weight_recency * rec + c.weight_importance * imp) / total_weight
                    out.append((r, (score, rel, rec, imp, bm25)))
                out.sort(key=lambda item: (-item[1][0], -item[1][4], item[0].meta["id"]))
            if complete:
                return out[:limit], total
            if len(out) >= limit and rows:
                lowest = rows[-1][1] / (max(bm25 for _r, bm25 in live) or 1.0)
                bound = (c.weight_relevance * lowest + c.weight_recency + c.weight_importance) / total_weight
                if out[limit - 1][1][0] > bound:
                    return out[:limit], total
            pool *= 4


# -- input checks -------------------------------------------------------------------

def _check_importance(value: Any, what: str = "importance") -> float:
    if not is_number(value) or not 0.0 <= value <= 1.0:
        raise InvalidInput(f"{what} must be a number from 0.0 to 1.0 (e.g. 0.8 for important, 0.2 for minor); "
                           f"got {value!r}")
    return round(float(value), IMPORTANCE_DIGITS)


def _check_type(value: Any, what: str = "memory_type") -> str:
    return check_choice(value, MEMORY_TYPES, what)


def _check_types(value: str | Sequence[str] | None) -> list[str] | None:
    if value is None or value == "" or (isinstance(value, (list, tuple)) and not value):
        return None
    values = [value] if isinstance(value, str) else builtins.list(value)
    return [_check_type(v) for v in values]


def _check_memory_content(value: Any, max_bytes: int) -> str:
    text = check_content(value, max_bytes)
    if not text.strip():
        raise InvalidInput("content must not be empty: give the text to remember")
    return text


def _check_source(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidInput("source must be a string such as a session or note id")
    text = value.strip()
    if not text:
        return None
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in text) or len(text) > MAX_SOURCE_CHARS:
        raise InvalidInput(f"source must be one line of at most {MAX_SOURCE_CHARS} characters, "
                           "e.g. a session or note id")
    return text


def _iso_ts(value: str) -> float:
    return parse_time(value, "created_at")


@dataclass(frozen=True)
class _Expiries:
    """MemoryStore._expiry_table: for one version of the memory rows and one TTL."""

    version: tuple[int, float]
    rows: builtins.list[tuple[str, float]]   # (id, expiry or inf), newest first
