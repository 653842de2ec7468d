"""Live updates: ``resources/subscribe`` (handshake era) and ``subscriptions/listen`` (2026-07-28).

A subscriber to ``note://ID`` or ``memory://ID`` gets ``notifications/resources/updated`` when that file
changes by any route (a tool, the CLI, an editor, ``git pull``); subscribers get
``notifications/resources/list_changed`` when notes or memories appear or disappear. Only subscribers hear,
and only about what they subscribed to.

How: a watcher thread runs while anyone subscribes. It ``stat``s only the subscribed files and lists the item
folders' names (no index involved, so every route is seen the same way), every ``POLL_S`` seconds or at once
when the workspace reports a change through ``add_change_listener`` (if the store offers it). Changes are
delivered on the event loop of each subscriber.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.subscriptions import InMemorySubscriptionBus, ResourcesListChanged, ResourceUpdated
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, EmptyResult, SubscribeRequestParams, UnsubscribeRequestParams

from .state import WorkspaceHandle

log = logging.getLogger("ctxnotes.server")

POLL_S = 0.25
FOLDERS = {"note": "notes", "memory": "memory"}


class CountingBus(InMemorySubscriptionBus):
    """The SDK's in-process bus (it is the one ``subscriptions/listen`` streams read from)."""


def uri_problem(uri: str) -> str | None:
    """Why ``uri`` is not the one spelling of a ``note://`` / ``memory://`` item, or None (canonical, or another
    scheme). Checked on the raw URI, before the SDK's template matching %-decodes it (``note://pl%61in``)."""
    from urllib.parse import unquote

    from notes_store.validation import is_id
    scheme, sep, item_id = uri.partition("://")
    kind = scheme.lower()
    if not sep or kind not in FOLDERS:
        return None
    if kind == "note":
        return note_uri_problem(uri, scheme, item_id)
    if scheme == kind and is_id(item_id) and not item_id.endswith(".md"):
        return None
    guess = unquote(item_id[:4096]).strip()
    for cut in ("?", "#"):
        guess = guess.partition(cut)[0]
    guess = guess.strip().rstrip("/")
    guess = guess[:-3] if guess.endswith(".md") else guess
    hint = f"; did you mean {kind}://{guess}?" if is_id(guess) else ""
    shown = uri if len(uri) <= 200 else uri[:200] + "…"
    return (f"{shown!r} is not a canonical {kind} URI: use {kind}://<id> with the bare id (letters, digits, '_', "
            f"'.', '-'; no '.md', spaces, query, fragment or %-escapes){hint}")


def note_uri_problem(uri: str, scheme: str, item_id: str) -> str | None:
    """``uri_problem`` for ``note://``: the id is a path under notes/, percent-encoded as RFC 3986 says
    (``note://projects/Plan%20Q1``; ``files.note_paths.encode_uri_id`` is the one spelling)."""
    from notes_store.errors import InvalidInput
    from notes_store.files.note_paths import decode_uri_id, encode_uri_id
    shown = uri if len(uri) <= 200 else uri[:200] + "…"
    try:
        note_id = decode_uri_id(item_id[:8192].partition("?")[0].partition("#")[0])
    except InvalidInput as exc:
        from urllib.parse import unquote

        from notes_store.files.note_paths import note_id_problem
        guess = unquote(item_id[:4096]).partition("?")[0].partition("#")[0].strip().rstrip("/").removesuffix(".md")
        hint = f"; did you mean note://{encode_uri_id(guess)}?" if guess and note_id_problem(guess) is None else ""
        return f"{shown!r} is not a canonical note URI: {exc}{hint}"
    canonical = encode_uri_id(note_id)
    if scheme == "note" and item_id == canonical:
        return None
    return (f"{shown!r} is not a canonical note URI: the id's path is percent-encoded as RFC 3986 says (upper-case "
            f"hex, no '.md', query or fragment); did you mean note://{canonical}?")


# Each subscription is watched (a stat every 0.25 s for an item URI) and kept for the session's life.
MAX_SUBSCRIPTIONS = 1000
MAX_SUBSCRIBED_URI_CHARS = 2048


def check_uri(uri: str) -> None:
    """Refuse a non-canonical ``note://`` / ``memory://`` spelling with JSON-RPC invalid params (-32602)."""
    problem = uri_problem(uri)
    if problem is not None:
        raise MCPError(code=INVALID_PARAMS, message=problem, data={"uri": uri[:200]})


def item_path(root: Path, uri: str) -> Path | None:
    """``note://ID`` / ``memory://ID`` -> the item's file; None for other URIs."""
    scheme, sep, item_id = uri.partition("://")
    if sep and scheme == "note" and item_id:
        from notes_store.errors import InvalidInput
        from notes_store.files.note_paths import decode_uri_id, safe_note_path
        try:
            return safe_note_path(root / FOLDERS[scheme], decode_uri_id(item_id))
        except InvalidInput:
            return None
    if not sep or scheme not in FOLDERS or not item_id or "/" in item_id or item_id.startswith("."):
        return None
    return root / FOLDERS[scheme] / f"{item_id}.md"


def _stamp(path: Path) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


def _names(root: Path) -> frozenset[str]:
    """Every note and memory id in the top folders, as URIs (polled: notes in sub-folders are not walked)."""
    from notes_store.files.note_paths import encode_uri_id
    out: set[str] = set()
    for kind, folder in FOLDERS.items():
        try:
            with os.scandir(root / folder) as it:
                out.update(f"{kind}://{encode_uri_id(e.name[:-3])}" for e in it if e.name.endswith(".md")
                           and not e.name.startswith("."))
        except OSError:
            continue
    return frozenset(out)


@dataclass(eq=False)
class Target:
    """One subscriber: a handshake-era session, or a listen stream (no session: publish on the bus).

    The session (its connection) is held weakly: over HTTP the event loop outlives every session, so a
    strong reference here would keep each closed session's connection and subscriptions forever."""

    loop: asyncio.AbstractEventLoop
    uris: set[str] = field(default_factory=set)
    wants_list: bool = False
    session_ref: weakref.ReferenceType[Any] | None = None

    @property
    def session(self) -> Any:
        return self.session_ref() if self.session_ref is not None else None

    @property
    def gone(self) -> bool:
        """The loop has closed, or the session this target notifies no longer exists."""
        return self.loop.is_closed() or (self.session_ref is not None and self.session_ref() is None)


class Watcher:
    """Who listens to what, and the thread that notices changes for them."""

    def __init__(self, root: Path, bus: InMemorySubscriptionBus, handle: WorkspaceHandle) -> None:
        self.root = root
        self.bus = bus
        self.handle = handle
        self._lock = threading.Lock()
        self._targets: list[Target] = []
        self._sessions: weakref.WeakKeyDictionary[Any, Target] = weakref.WeakKeyDictionary()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._hooked = False
        self._stamps: dict[str, tuple[int, int, int] | None] = {}
        self._names: frozenset[str] | None = None

    def baseline(self, uris: set[str], wants_list: bool) -> None:
        """Record the current state of what a new subscriber watches, so a change right after it subscribed
        (before the thread's next look) is still reported."""
        stamps = {u: _stamp(p) for u in uris if (p := item_path(self.root, u)) is not None}
        names = _names(self.root) if wants_list else None
        with self._lock:
            for uri, stamp in stamps.items():
                self._stamps.setdefault(uri, stamp)
            if names is not None and self._names is None:
                self._names = names

    # -- who listens ---------------------------------------------------------------------------------------
    def session_target(self, session: Any) -> Target:
        with self._lock:
            target = self._sessions.get(session)
            if target is None:
                target = Target(asyncio.get_running_loop(), session_ref=weakref.ref(session))
                self._sessions[session] = target
                self._targets.append(target)
                # The connection's own teardown (documented for handler cleanup) drops the target as the session
                # closes; the weak reference covers a connection that has no exit stack.
                stack = getattr(session, "exit_stack", None)
                if stack is not None:
                    stack.callback(self.remove, target)
        self._start()
        return target

    def add(self, target: Target) -> None:
        with self._lock:
            self._targets.append(target)
        self._start()

    def remove(self, target: Target) -> None:
        with self._lock:
            if target in self._targets:
                self._targets.remove(target)

    def _snapshot_targets(self) -> list[Target]:
        with self._lock:
            live = [t for t in self._targets if not t.gone]
            self._targets[:] = live
            return list(live)

    # -- the thread ----------------------------------------------------------------------------------------
    def _start(self) -> None:
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                self._wake.set()
                return
            self._thread = threading.Thread(target=self._run, name="ctxnotes-live", daemon=True)
            self._thread.start()

    def _hook_store(self) -> None:
        """Wake at once on the store's own change events, when it offers them (polling stays the fallback)."""
        if self._hooked or not self.handle.is_open:
            return
        self._hooked = True
        try:
            add = getattr(self.handle.get(), "add_change_listener", None)
        except Exception:
            return
        if callable(add):
            try:
                add(lambda *_: self._wake.set())
            except Exception:
                log.debug("add_change_listener failed; polling only", exc_info=True)

    def _run(self) -> None:
        idle = 0
        while True:
            targets = self._snapshot_targets()
            if not targets:
                idle += 1
                if idle > 40:  # nobody has listened for ~10 s: stop; the next subscriber starts a new thread
                    with self._lock:
                        if not self._targets:
                            self._thread = None
                            return
            else:
                idle = 0
            self._pass(targets)
            self._wake.wait(POLL_S)
            self._wake.clear()

    def _pass(self, targets: list[Target]) -> None:
        """One look at what ``targets`` watch: report what changed since the last look."""
        self._hook_store()
        watched = set().union(*(t.uris for t in targets)) if targets else set()
        wants_list = any(t.wants_list for t in targets)
        current = {u: _stamp(p) for u in watched if (p := item_path(self.root, u)) is not None}
        names = _names(self.root) if wants_list else None
        with self._lock:
            updated = [u for u, now in current.items() if u in self._stamps and self._stamps[u] != now]
            self._stamps = {**{u: v for u, v in self._stamps.items() if u in watched}, **current}
            list_changed = names is not None and self._names is not None and names != self._names
            self._names = names
        if updated or list_changed:
            self._deliver(targets, updated, list_changed)

    def _deliver(self, targets: list[Target], updated: list[str], list_changed: bool) -> None:
        published: set[asyncio.AbstractEventLoop] = set()
        for t in targets:
            if t.session_ref is not None:
                session = t.session
                mine = [u for u in updated if u in t.uris]
                send_list = list_changed and t.wants_list
                if session is not None and (mine or send_list):
                    self._call(t.loop, self._notify_session(session, mine, send_list))
            elif t.loop not in published:  # the bus filters per listen stream; publish once per loop
                published.add(t.loop)
                self._call(t.loop, self._publish(updated, list_changed))

    @staticmethod
    def _call(loop: asyncio.AbstractEventLoop, coro: Any) -> None:
        try:
            asyncio.run_coroutine_threadsafe(coro, loop)
        except RuntimeError:  # the loop has closed: that subscriber is gone
            coro.close()

    @staticmethod
    async def _notify_session(session: Any, uris: list[str], list_changed: bool) -> None:
        try:
            for uri in uris:
                await session.send_resource_updated(uri)
            if list_changed:
                await session.send_resource_list_changed()
        except Exception:  # a closed session: it will be dropped with its loop or session object
            log.debug("could not notify a session", exc_info=True)

    async def _publish(self, uris: list[str], list_changed: bool) -> None:
        for uri in uris:
            await self.bus.publish(ResourceUpdated(uri=uri))
        if list_changed:
            await self.bus.publish(ResourcesListChanged())


def _connection(ctx: Any) -> Any:
    """The client connection behind a request: ``ctx.session`` is a per-request object in SDK 2.x, the
    connection outlives it and sends unsolicited notifications on the connection's own channel."""
    return getattr(ctx.session, "_connection", None) or ctx.session


def install(server: MCPServer, handle: WorkspaceHandle, bus: InMemorySubscriptionBus) -> Watcher:
    """Serve resources/subscribe and unsubscribe, watch what ``subscriptions/listen`` streams ask for, and
    advertise ``resources.listChanged`` in the handshake era."""
    watcher = Watcher(Path(handle.path), bus, handle)
    low = server._lowlevel_server  # the SDK's documented extension point for extra request handlers

    async def subscribe(ctx: Any, params: SubscribeRequestParams) -> EmptyResult:
        # Any URI is accepted, as on the subscriptions/listen route: only note:// and memory:// items ever
        # change, so a subscription to anything else is honoured and never fires.
        uri = str(params.uri)
        check_uri(uri)  # one spelling: a subscription to note://pl%61in would never fire
        if len(uri) > MAX_SUBSCRIBED_URI_CHARS:
            raise MCPError(code=INVALID_PARAMS, message=f"the URI is {len(uri):,} characters; a subscription "
                           f"takes at most {MAX_SUBSCRIBED_URI_CHARS:,}", data={"uri": uri[:200]})
        target = watcher.session_target(_connection(ctx))
        if uri not in target.uris and len(target.uris) >= MAX_SUBSCRIPTIONS:
            raise MCPError(code=INVALID_PARAMS, message=f"this session already has {MAX_SUBSCRIPTIONS:,} "
                           f"subscriptions; unsubscribe from some first", data={"uri": uri[:200]})
        # Watched first, then the baseline: the thread keeps stamps only for watched URIs, so a baseline taken
        # before the URI is watched could be dropped by a pass in between, and a change right after the
        # subscription was then taken for the starting state (test_subscribe_over_stdio, intermittently).
        target.uris.add(uri)
        target.wants_list = True
        await anyio.to_thread.run_sync(watcher.baseline, {uri}, True)
        return EmptyResult()

    async def unsubscribe(ctx: Any, params: UnsubscribeRequestParams) -> EmptyResult:
        # The same one spelling as subscribe: unsubscribing note://pl%61in would silently leave note://plain on.
        check_uri(str(params.uri))
        target = watcher.session_target(_connection(ctx))
        target.uris.discard(str(params.uri))
        return EmptyResult()

    low.add_request_handler("resources/subscribe", SubscribeRequestParams, subscribe)
    low.add_request_handler("resources/unsubscribe", UnsubscribeRequestParams, unsubscribe)

    listen = low._request_handlers.get("subscriptions/listen")
    if listen is not None:
        original = listen.handler

        async def listen_and_watch(ctx: Any, params: Any) -> Any:
            wanted = params.notifications
            for uri in wanted.resource_subscriptions or ():
                check_uri(str(uri))
            target = Target(asyncio.get_running_loop(), uris=set(wanted.resource_subscriptions or ()),
                            wants_list=bool(wanted.resources_list_changed))
            watcher.add(target)  # watched before the baseline is taken (see subscribe)
            try:
                await anyio.to_thread.run_sync(watcher.baseline, target.uris, target.wants_list)
                return await original(ctx, params)
            finally:
                watcher.remove(target)

        low.add_request_handler("subscriptions/listen", listen.params_type, listen_and_watch)

    # Handshake-era capabilities come from NotificationOptions, which MCPServer.run does not pass: default
    # them so that initialize advertises resources.listChanged (we do send it).
    from mcp.server.lowlevel.server import NotificationOptions
    create_options = low.create_initialization_options

    def create_initialization_options(notification_options: Any = None, *args: Any, **kwargs: Any) -> Any:
        return create_options(notification_options or NotificationOptions(resources_changed=True), *args, **kwargs)

    low.create_initialization_options = create_initialization_options  # type: ignore[method-assign]
    server.live_watcher = watcher  # type: ignore[attr-defined]
    return watcher
