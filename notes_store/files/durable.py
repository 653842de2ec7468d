"""Durable file writes and the workspace's inter-process lock."""

from __future__ import annotations

import contextlib
import fcntl
import itertools
import os
import threading
import time
from pathlib import Path
from collections.abc import Callable, Iterator

from ..errors import StorageError

TEMP_PREFIX = ".tmp-"


def fsync_dir(folder: Path) -> None:
    """Make a rename or unlink in ``folder`` survive a power cut."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


_temp_numbers = itertools.count()


class StagedWrite:
    """A file's new bytes already durable in a temp file beside it, waiting to be renamed into place.

    ``stage_write`` does the slow part (write + fsync of the data) without any lock; the caller then
    takes the workspace lock and calls ``commit`` (rename over the target, fsync the folder) or
    ``discard``. The durable order is unchanged: data fsync, rename, folder fsync, acknowledge. A crash
    before ``commit`` leaves only a temp file (``TEMP_PREFIX``, not ``*.md``: no note, nothing indexed),
    which ``remove_temp_files`` deletes when the workspace is next opened.
    """

    def __init__(self, path: Path, tmp: Path, st: os.stat_result | None = None) -> None:
        self.path = path
        self.tmp = tmp
        self.st = st  # the temp file's stat once its data is durable: a rename keeps mtime and size
        self.done = False

    def commit(self, sync_folder: bool = True) -> os.stat_result:
        """Rename into place and make the rename durable; the new file's stat.

        ``sync_folder=False``: the rename only; the caller fsyncs the folder (``fsync_dir``) before it
        acknowledges or publishes the write (a group commit fsyncs the folder once for many renames).
        Raises ``TempFileGone`` when the temp file vanished meanwhile (a workspace opened by another
        process swept it as a dead writer's leftover): nothing changed, the caller writes afresh.
        """
        if self.done:
            raise RuntimeError("a staged write commits once")
        folder = self.path.parent
        try:
            os.replace(self.tmp, self.path)
        except FileNotFoundError:
            if not os.path.lexists(self.tmp):
                self.done = True
                raise TempFileGone(str(self.tmp)) from None
            self.discard()
            raise StorageError(f"could not write {self.path.name}: its folder is gone") from None
        except OSError as exc:
            self.discard()
            raise StorageError(f"could not write {self.path.name}: {exc.strerror or exc}; the previous "
                               "version (if any) is unchanged — check free space and permissions") from exc
        self.done = True
        try:
            if sync_folder:
                fsync_dir(folder)
            # The stat taken when the data was fsynced: the rename changes neither mtime nor size, and
            # every syscall saved here is one less chance to wait for the GIL with the lock held.
            return self.st if self.st is not None else os.stat(self.path, follow_symlinks=False)
        except OSError as exc:
            raise StorageError(f"could not make {self.path.name} durable: {exc.strerror or exc}") from exc

    def discard(self) -> None:
        """Remove the temp file (nothing was renamed)."""
        if not self.done:
            self.done = True
            with contextlib.suppress(OSError):
                os.unlink(self.tmp)


class TempFileGone(Exception):
    """A staged temp file disappeared before its rename (swept by a workspace opening elsewhere)."""


def stage_write(path: Path, data: bytes) -> StagedWrite:
    """Write ``data`` to a fresh temp file beside ``path`` and fsync it (no lock needed: the name is
    unique to this process, thread and call). ``StorageError`` says why when it fails."""
    folder = path.parent
    tmp = folder / f"{TEMP_PREFIX}{path.name}.{os.getpid()}.{threading.get_ident()}.{next(_temp_numbers)}"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
        try:
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            os.fsync(fd)
            st = os.fstat(fd)
        finally:
            os.close(fd)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise StorageError(f"could not write {path.name}: {exc.strerror or exc}; "
                           "the previous version (if any) is unchanged — check free space and permissions") from exc
    return StagedWrite(path, tmp, st)


def atomic_write(path: Path, data: bytes) -> os.stat_result:
    """Write ``data`` to ``path`` so a reader sees the old or the new bytes, never a mix.

    Temp file in the same folder, fsync, rename over the target, fsync the
    folder. On failure the temp file is removed, the old file is untouched and
    a ``StorageError`` says why. Returns the new file's stat.
    """
    try:
        return commit_staged(stage_write(path, data), data, attempts=3)
    except TempFileGone:
        raise StorageError(f"could not write {path.name}: its temp file kept disappearing before the rename "
                           "(is something deleting .tmp- files in the folder?)") from None


def commit_staged(staged: StagedWrite, data: bytes, attempts: int, sync_folder: bool = True) -> os.stat_result:
    """``staged.commit()``; when its temp file was swept before the rename (by a workspace opening
    elsewhere), ``data`` is staged and committed again, ``attempts`` commits in all. The last
    ``TempFileGone`` propagates: the caller says what could not be written. ``sync_folder``: see
    ``StagedWrite.commit``."""
    left = attempts
    while True:
        try:
            return staged.commit(sync_folder)
        except TempFileGone:
            left -= 1
            if left <= 0:
                raise
        finally:
            staged.discard()
        staged = stage_write(staged.path, data)


def durable_unlink(path: Path) -> None:
    """Remove ``path`` and make the removal durable."""
    try:
        os.unlink(path)
        fsync_dir(path.parent)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise StorageError(f"could not delete {path.name}: {exc.strerror or exc}") from exc


def _writer_alive(name: str) -> bool:
    """Whether the temp file ``name`` (``.tmp-<file>.<pid>.<thread>.<n>``) belongs to a live process.

    Writes are staged outside the lock (``stage_write``), so a temp file of a live writer (this process
    included) may be in flight; only those of dead processes are leftovers. Any other name, or a pid
    that cannot be checked, counts as dead (the sweep's old behaviour). A reused pid only delays a
    leftover's removal to a later sweep.
    """
    parts = name.split(".")
    if not (len(parts) >= 5 and all(p.isdigit() for p in parts[-3:])):
        return False  # not .<pid>.<thread>.<n>: an older writer's, and those wrote only under the lock
    pid = int(parts[-3])
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # exists, owned by someone else
    except (OSError, OverflowError):
        return False
    return True


def remove_temp_files(folder: Path) -> list[str]:
    """Delete temp files left by writers that died mid-write (not those of live processes, whose staged
    writes may be in flight). Call under the lock."""
    removed: list[str] = []
    try:
        names = os.listdir(folder)  # names only: at 100k files a scandir's entries cost ~0.3 s per open
    except FileNotFoundError:
        return removed
    for name in names:
        if name.startswith(TEMP_PREFIX) and not _writer_alive(name):
            with contextlib.suppress(OSError):
                os.unlink(folder / name)
                removed.append(name)
    return removed


def flock_with_deadline(fd: int, deadline: float, message: str | Callable[[], str]) -> None:
    """Take an exclusive ``flock`` on ``fd``, retrying with backoff (1 ms doubling to 50 ms) until
    ``time.monotonic()`` passes ``deadline``; then raise ``StorageError(message)``.

    Non-blocking attempts rather than a blocking ``flock``: a blocked call cannot time out, and a
    hung holder must give its waiters a clear error, not an endless wait. ``message`` may be a
    callable so it can name the holder as of the timeout (the workspace lock reads its pid then).
    """
    delay = 0.001
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise StorageError(message if isinstance(message, str) else message()) from None
            time.sleep(delay)
            delay = min(delay * 2, 0.05)


class WorkspaceLock:
    """An exclusive lock shared by every thread and process on one workspace.

    The lock file (``<workspace>/.ctxnotes.lock``) sits beside the notes, not in the derived
    ``.index/`` folder, so deleting the index never takes the lock with it. It is created once
    and never replaced; after taking the ``flock`` the holder checks that the path still names
    the file it locked (someone may have deleted or swapped it in between) and tries again if not.

    ``flock`` is released by the kernel when a process dies, so a lock "left
    behind" by a killed writer never blocks anyone. A live process that holds
    it longer than ``timeout`` seconds (hung, or stopped in a debugger) gets a
    clear ``StorageError`` naming its pid instead of an endless wait.
    Re-entrant per thread.

    The file stays open between holds (``close`` closes it): a write takes the lock with a
    ``flock`` and a ``stat``, not an open, an fstat and a close too. Each syscall made while a
    writer holds the locks may wait for the GIL, and the other writers queue behind it.
    """

    def __init__(self, path: Path, timeout: float = 60.0) -> None:
        self._path = path
        self.timeout = timeout
        self._thread_lock = threading.RLock()
        self._depth = 0
        self._fd: int | None = None          # the fd while the lock is held
        self._kept: tuple[int, int, int, int] | None = None  # (fd, st_dev, st_ino, pid that opened it)

    @property
    def path(self) -> Path:
        return self._path

    def _acquire(self, fd: int, deadline: float) -> bool:
        """Take the flock on ``fd``; False when ``fd`` is no longer the file at the path."""
        def busy() -> str:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "another process"
            return (f"the workspace is locked by {holder} for over {self.timeout:.0f} s; "
                    "if that process is hung, stop it (the lock is released when it exits)")

        flock_with_deadline(fd, deadline, busy)
        assert self._kept is not None and self._kept[0] == fd
        try:
            st = os.stat(self._path, follow_symlinks=False)
            same = (st.st_dev, st.st_ino) == self._kept[1:3]
        except FileNotFoundError:
            same = False
        if not same:
            fcntl.flock(fd, fcntl.LOCK_UN)
            return False
        mine = f"pid {os.getpid()}".encode()
        if os.pread(fd, 64, 0) != mine:  # written only when it changes: the file's mtime stays put
            os.ftruncate(fd, 0)
            os.pwrite(fd, mine, 0)
        return True

    def _open(self) -> int:
        """The lock file's fd: the one kept from an earlier hold, or a fresh one."""
        if self._kept is not None:
            if self._kept[3] == os.getpid():
                return self._kept[0]
            # Inherited through fork: the open file description (and so the flock) is shared with the
            # parent. Dropping our copy releases nothing the parent holds; lock with a description of our own.
            self._drop()
        try:
            fd = os.open(self._path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise StorageError(f"cannot open the workspace lock {self._path}: {exc.strerror or exc}") from exc
        try:
            st = os.fstat(fd)
        except OSError:
            os.close(fd)
            raise
        self._kept = (fd, st.st_dev, st.st_ino, os.getpid())
        return fd

    def _drop(self) -> None:
        """Close the kept fd (not held: after a failed or stale attempt, or in ``close``)."""
        if self._kept is not None:
            fd, self._kept = self._kept[0], None
            with contextlib.suppress(OSError):
                os.close(fd)

    def close(self) -> None:
        """Close the lock file (it is reopened by the next ``hold``)."""
        with self._thread_lock:
            if self._depth == 0:
                self._drop()

    @contextlib.contextmanager
    def hold(self) -> Iterator[None]:
        with self._thread_lock:
            if self._depth == 0:
                deadline = time.monotonic() + self.timeout
                while True:
                    fd = self._open()
                    try:
                        if self._acquire(fd, deadline):
                            break
                    except BaseException:
                        self._drop()
                        raise
                    self._drop()  # the file was deleted or replaced: lock the one the path names now
                self._fd = fd
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
                if self._depth == 0 and self._fd is not None:
                    fd, self._fd = self._fd, None
                    try:
                        fcntl.flock(fd, fcntl.LOCK_UN)
                    except OSError:  # cannot happen on a valid fd; closing it releases the lock anyway
                        self._drop()
