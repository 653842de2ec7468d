"""One shared open workspace per server process, opened on first use.

Opening is deferred so that the server answers ``initialize``/``tools/list``
without loading the store (Whoosh) or scanning a large workspace. The store
itself is thread-safe; this handle only makes sure it is opened once.
"""

from __future__ import annotations

import gc
import logging
import threading
import time
from pathlib import Path
from typing import Any
from collections.abc import Callable

import anyio
from mcp.server.mcpserver.exceptions import ToolError

log = logging.getLogger("ctxnotes.server")


def load_tokenizer() -> None:
    """Load the token counter's encoding now (~0.25 s, most of it holding the GIL); cached afterwards.
    Errors are left to the first call that needs it, which reports them."""
    try:
        from context.tokens import get_encoding
        get_encoding()
    except Exception:
        log.debug("tokenizer warm-up failed", exc_info=True)


class WorkspaceHandle:
    def __init__(self, path: str | Path, opener: Callable[[Path], Any] | None = None) -> None:
        self.path = Path(path).expanduser()
        self._opener = opener
        self._ws: Any = None
        self._lock = threading.Lock()
        self._closed = False
        self._warming = False

    def get(self) -> Any:
        ws = self._ws
        if ws is not None:
            return ws
        with self._lock:
            if self._closed:
                raise ToolError("the server is shutting down; retry on a new connection")
            if self._ws is None:
                opener = self._opener
                if opener is None:
                    from notes_store import open_workspace
                    opener = open_workspace
                self._ws = opener(self.path)
                log.info("opened workspace %s", self.path)
                # What exists now (modules, the catalogue's rows, the index's readers) lives as long as the
                # server: keep it out of the collector's full passes, which cost a long build ~40 ms p95.
                gc.freeze()
            return self._ws

    @property
    def is_open(self) -> bool:
        return self._ws is not None

    async def room_to_write(self) -> None:
        """Before a write tool takes a worker thread: while the open workspace's index is too far behind its
        writes (``Workspace.index_behind``), wait here on the event loop, so writers held back by a slow commit
        do not fill the worker threads that reads need; after ``BACKLOG_WAIT_S``, the write's Busy error."""
        ws = self._ws
        if ws is None or not ws.index_behind:
            return
        from notes_store import workspace
        deadline = time.monotonic() + workspace.BACKLOG_WAIT_S
        while ws.index_behind:
            if time.monotonic() >= deadline:
                raise ToolError(str(ws.backlog_error()))
            await anyio.sleep(0.05)

    def warm_up(self, delay: float = 0.0) -> None:
        """Open the workspace in a background thread, now or after ``delay`` seconds; only the first
        call that gets to start does it (errors surface again on the first tool call)."""
        if delay > 0:
            timer = threading.Timer(delay, self.warm_up)
            timer.daemon = True
            timer.start()
            return
        with self._lock:
            if self._warming or self._ws is not None or self._closed:
                return
            self._warming = True

        def run() -> None:
            try:
                self.get()
            except Exception:  # reported again, to the caller, on first use
                log.debug("warm-up failed", exc_info=True)
                return
            # The tokenizer costs ~0.3 s CPU to load, which the first build_context (or a long result)
            # would otherwise pay; load it once the workspace is open and the first calls had their turn.
            time.sleep(1.0)
            if not self._closed:
                load_tokenizer()
        threading.Thread(target=run, name="ctxnotes-warmup", daemon=True).start()

    def take_warnings(self) -> list[str]:
        """Warnings the store raised in this thread since the last call (e.g. a Git commit that failed after
        the note was saved); empty when the workspace is not open."""
        ws = self._ws
        take = getattr(ws, "take_warnings", None)
        return list(take()) if callable(take) else []

    def close(self) -> None:
        with self._lock:
            self._closed = True
            ws, self._ws = self._ws, None
        if ws is not None:
            ws.close()
