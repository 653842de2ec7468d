"""Group commit for file writes: one hold of the locks and one folder fsync for every write queued meanwhile.

Kept apart from ``workspace`` (which passes in its lock hold and its warnings) so the queue and its
hand-offs between writer threads can be read, and tested, on their own.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Generic, TypeVar

from ..errors import StorageError
from .durable import fsync_dir

__all__ = ["GroupApply", "GroupCommit", "sync_folder"]

T = TypeVar("T")

# What a grouped write does under the locks: its checks and its rename, no folder fsync. It returns the
# folder to fsync (None: nothing to fsync, e.g. it wrote durably itself) and what to run once that fsync
# is done, still under the locks: register the file (catalogue, overlay, listeners) and build the result.
GroupApply = Callable[[], "tuple[Path | None, Callable[[], T]]"]


class _GroupJob(Generic[T]):
    """One write waiting in ``GroupCommit``'s queue, and what came of it."""

    __slots__ = ("apply", "folder", "finish", "result", "error", "warnings", "ready", "lead", "has_result")

    def __init__(self, apply: GroupApply[T]) -> None:
        self.apply = apply
        self.folder: Path | None = None
        self.finish: Callable[[], T] | None = None
        self.result: T | None = None
        self.has_result = False
        self.error: BaseException | None = None
        self.warnings: list[str] = []
        self.ready = threading.Event()  # set when the job is done, or when it is to lead the next group
        self.lead = False


def sync_folder(folder: Path) -> None:
    """fsync a folder after a rename in it; a failure is a ``StorageError`` naming the folder."""
    try:
        fsync_dir(folder)
    except OSError as exc:
        raise StorageError(f"could not make the write in {folder.name}/ durable: {exc.strerror or exc}") \
            from exc


class GroupCommit:
    """The queue of ``Workspace.write_group`` (see its docstring): the first writer to arrive leads.

    ``hold`` takes the workspace's locks (``Workspace.writing``); ``warnings`` is the calling thread's
    list of pending listener warnings, from which each write's own are handed to its writer.
    """

    def __init__(self, hold: Callable[[], AbstractContextManager[None]],
                 warnings: Callable[[], list[str]]) -> None:
        self._hold = hold
        self._warnings = warnings
        self.queue: list[_GroupJob[Any]] = []  # writes waiting for the leader
        self.leading = False
        self._lock = threading.Lock()

    def run(self, apply: GroupApply[T], nested: bool) -> T:
        """Run ``apply`` with the writes queued meanwhile; ``nested``: the caller holds the locks (no queue)."""
        if nested:
            folder, finish = apply()
            if folder is not None:
                sync_folder(folder)
            return finish()
        job: _GroupJob[T] = _GroupJob(apply)
        with self._lock:
            self.queue.append(job)
            lead = not self.leading
            self.leading = True
        if not lead:
            job.ready.wait()
            lead = job.lead
        if lead:
            self._lead()
        if job.warnings:
            self._warnings().extend(job.warnings)
        if job.error is not None:
            raise job.error
        assert job.has_result
        return job.result  # type: ignore[return-value]

    def _lead(self) -> None:
        """Apply every queued write in one hold of the locks; then hand the lead on."""
        mine = self._warnings()
        group: list[_GroupJob[Any]] = []
        try:
            with self._hold():
                # Taken once the locks are held: every write queued while this one waited for them joins.
                with self._lock:
                    group, self.queue = self.queue, []
                self._apply_all(group, mine)
        except BaseException as exc:  # the locks could not be taken (or released): every unfinished write fails
            if not group:
                with self._lock:
                    group, self.queue = self.queue, []
            for job in group:
                if job.error is None and not job.has_result:
                    job.error = exc
        finally:
            self._hand_on(group)

    @staticmethod
    def _apply_all(group: list[_GroupJob[Any]], mine: list[str]) -> None:
        """Under the locks: each write's apply, one fsync per folder, then each write's finish."""
        for job in group:
            try:
                job.folder, job.finish = job.apply()
            except BaseException as exc:  # this write's own failure, for its own caller
                job.error = exc
        synced: dict[Path, BaseException | None] = {}
        for job in group:
            if job.error is not None or job.folder is None:
                continue
            if job.folder not in synced:
                try:
                    sync_folder(job.folder)
                    synced[job.folder] = None
                except StorageError as exc:
                    synced[job.folder] = exc
            job.error = synced[job.folder]
        for job in group:
            if job.error is not None or job.finish is None:
                continue
            start = len(mine)
            try:
                job.result = job.finish()
                job.has_result = True
            except BaseException as exc:
                job.error = exc
            job.warnings = mine[start:]  # a listener's warnings go to the writer they concern
            del mine[start:]

    def _hand_on(self, group: list[_GroupJob[Any]]) -> None:
        """Wake the group's writers, and the first write queued since, which leads the next group."""
        with self._lock:
            nxt = self.queue[0] if self.queue else None
            if nxt is None:
                self.leading = False
            else:
                nxt.lead = True
        for job in group:
            job.finish = None
            job.apply = None  # type: ignore[assignment]
            job.ready.set()
        if nxt is not None:
            nxt.ready.set()
