"""How every ctxnotes tool is registered and called: one wrapper, compact schemas, bounded results.

- ``add_tool`` registers a tool whose function returns ``Reply(text, data)``. The one wrapper around it turns
  the store's expected failures into ``ToolError``, appends the write's warnings to the text, bounds the
  result, times the call and reports it to ``server.metrics`` when that module exists.
- Schemas are compacted once at registration (no per-property titles, ``X | None`` parameters published as
  ``X``): every tool definition is sent to the model on every turn.
- The output schema is published from a pydantic model, but results are not re-validated against it on every
  call (the SDK would otherwise validate each structured result a second time); tests check the results
  against the published schemas instead.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import collections
import contextlib
import contextvars
import functools
import inspect
import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import anyio.to_thread
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel

from .observe import observe_call

log = logging.getLogger("ctxnotes.server")

DEFAULT_MAX_RESULT_TOKENS = 10_000

# The tools that add indexed text: they wait for a lagging index (``WorkspaceHandle.room_to_write``) before
# taking a worker thread. Searches (memory_search counts accesses in a sidecar, not the index) and deletes never.
ADDS_TEXT = frozenset({"note_create", "note_update", "memory_add", "memory_update", "memory_consolidate"})
READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITES = ToolAnnotations(destructive_hint=False, open_world_hint=False)
OVERWRITES = ToolAnnotations(destructive_hint=True, idempotent_hint=True, open_world_hint=False)
DELETES = ToolAnnotations(destructive_hint=True, open_world_hint=False)


@dataclass
class Reply:
    """What a tool function returns: text for the model, structured data for programs, and warnings."""

    text: str
    data: dict[str, Any]
    warnings: list[str] = field(default_factory=list)


@dataclass
class Limits:
    """Per-server result bounds."""

    max_result_tokens: int = DEFAULT_MAX_RESULT_TOKENS


# -- result size -------------------------------------------------------------------------------------------

def count_tokens(text: str) -> int:
    """cl100k tokens of ``text``; a UTF-8 byte is never less than a token, so short texts skip the tokenizer."""
    if len(text) * 4 <= 1000:  # at most 4 bytes a character: under 1,000 bytes, bytes bound tokens well enough
        return len(text.encode("utf-8"))
    from context.tokens import get_encoding
    return len(get_encoding("cl100k_base").encode(text, disallowed_special=()))


# Characters of a text's head tokenized to decide a long text does not fit: a cl100k token averages ~4
# characters, so a head this long that already holds more than the budget settles it without tokenizing
# megabytes (tiktoken keeps ~13 bytes per input byte while it works).
HEAD_CHARS_PER_TOKEN = 16


def fits(text: str, budget: int) -> bool:
    """Whether ``text`` is within ``budget`` tokens (cheap when it obviously is, or obviously is not)."""
    if len(text) <= budget or len(text.encode("utf-8")) <= budget:
        return True
    head = max(budget, 0) * HEAD_CHARS_PER_TOKEN
    # Cutting a text can split one token into a few: a head over the budget by a margin is over for certain.
    if len(text) > head and count_tokens(text[:head]) > budget + 8:
        return False
    return count_tokens(text) <= budget


# -- schemas -----------------------------------------------------------------------------------------------

def _is_null(schema: Any) -> bool:
    return isinstance(schema, dict) and schema.get("type") == "null"


# Numeric bounds are left out of published input schemas to keep them small; pydantic still enforces them.
_BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength",
           "minItems", "maxItems")


def compact_schema(schema: Any, *, optional_as_plain: bool, keep_descriptions: bool = True) -> Any:
    """A smaller equivalent of a pydantic JSON schema for the tool list.

    Inlines ``$defs`` (our models are not recursive), drops generated ``title`` keywords, ``default: null``,
    ``additionalProperties: true`` (the JSON Schema default) and model docstrings; with ``optional_as_plain``
    (input schemas: an omitted parameter means None) ``anyOf: [X, null]`` becomes ``X``, otherwise
    ``type: [X, "null"]`` for a plain X and ``X`` for a container (our results omit those rather than
    sending null).
    """
    defs = schema.get("$defs", {}) if isinstance(schema, dict) else {}
    return _compact(schema, defs, optional_as_plain, keep_descriptions)


def _compact(schema: Any, defs: dict[str, Any], plain: bool, descriptions: bool) -> Any:
    if isinstance(schema, list):
        return [_compact(s, defs, plain, descriptions) for s in schema]
    if not isinstance(schema, dict):
        return schema
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/") and ref[8:] in defs:
        target = {k: v for k, v in defs[ref[8:]].items() if k != "description"}  # the docstring
        schema = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "$defs":
            continue
        if (key == "title" and isinstance(value, str)) or (key == "description" and not descriptions):
            continue
        if (key == "default" and value is None) or (key == "additionalProperties" and value is True):
            continue
        if plain and (key in _BOUNDS or (key == "default" and (value is False or value == ""
                                                                  or isinstance(value, (int, float))))):
            # Inputs: bounds are still enforced (a clear tool error); numeric, empty and false defaults are
            # applied by the server and rarely change what a model sends. Choice defaults stay: they say
            # what omitting a choice means.
            continue
        if key in ("properties", "patternProperties"):
            out[key] = {k: _compact(v, defs, plain, descriptions) for k, v in value.items()}
            continue
        out[key] = _compact(value, defs, plain, descriptions)
    any_of = out.get("anyOf")
    if isinstance(any_of, list) and len(any_of) == 2 and any(_is_null(s) for s in any_of):
        other = next(s for s in any_of if not _is_null(s))
        rest = {k: v for k, v in out.items() if k != "anyOf"}
        if plain:
            return {**other, **rest}
        if set(other) == {"type"} and isinstance(other["type"], str):
            return {"type": [other["type"], "null"], **rest}
        return {**other, **rest}  # outputs: optional containers are left out when empty, never sent as null
    return out


# -- worker threads ----------------------------------------------------------------------------------------

WORKER_THREADS = 40  # as many as anyio's default thread limiter allows
_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _workers() -> ThreadPoolExecutor:
    global _pool
    if _pool is None:
        with _pool_lock:
            if _pool is None:
                _pool = ThreadPoolExecutor(WORKER_THREADS, thread_name_prefix="ctxnotes-call")
    return _pool


def _front_of_queue(loop: asyncio.AbstractEventLoop) -> tuple[Any, Callable[[], None]] | None:
    """The ready queue of asyncio's own event loop and its wake-up, or None for any other loop."""
    ready = getattr(loop, "_ready", None)
    wake = getattr(loop, "_write_to_self", None)
    # The base class's _write_to_self raises NotImplementedError: only a loop that overrides it can be woken.
    overridden = getattr(type(loop), "_write_to_self", None) is not getattr(asyncio.BaseEventLoop,
                                                                            "_write_to_self", None)
    if isinstance(loop, asyncio.BaseEventLoop) and isinstance(ready, collections.deque) and callable(wake) \
            and overridden:
        return ready, wake
    return None


async def in_thread(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)`` in a worker thread, its context variables copied, handed over at once, and
    its result handed back first in line.

    ``anyio.to_thread.run_sync`` passes through the event loop twice (two checkpoints) before the thread
    gets the call: under load each pass waits behind every request queued on the loop (a create's
    hand-off to its thread was 4 ms at the median in the mixed load). The way back has the same two
    passes (``run_in_executor``: the thread's result is set on the loop at the end of its queue, and the
    awaiting task resumes at the end of the queue after that): 3.6-5.7 ms at the median for a create in
    the SDK mixed load, 12-17 ms at p95. Here the result is delivered at the front of asyncio's ready
    queue and the awaiting task resumes right after: a call that has done its work (a durable write) is
    answered before new work is started. Cancelled before the thread starts, the call never runs; once
    started it runs to its end (its result is then dropped). Other event loops than asyncio's get
    ``run_in_executor`` (no front of the queue to put it at), and without a running asyncio loop
    anyio's hand-off.
    """
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return await anyio.to_thread.run_sync(functools.partial(fn, *args, **kwargs))
    call = functools.partial(contextvars.copy_context().run, fn, *args, **kwargs)
    queue = _front_of_queue(loop)
    if queue is None:
        return await loop.run_in_executor(_workers(), call)
    ready, wake = queue
    fut: asyncio.Future[Any] = loop.create_future()
    task = asyncio.current_task()

    def deliver(outcome: tuple[bool, Any]) -> None:  # on the loop, first in its queue
        if fut.done():  # cancelled meanwhile: the result is dropped
            return
        ok, value = outcome
        if ok:
            fut.set_result(value)
        else:
            fut.set_exception(value)
        # set_result queued the awaiting task's resumption last: move it to the front, so the task answers
        # before the loop starts anything queued meanwhile. Only that one handle moves, and only when it is
        # still last (another thread may append at any time; their order is left alone).
        woken = ready[-1] if ready else None
        if woken is not None and getattr(getattr(woken, "_callback", None), "__self__", None) is task:
            last = ready.pop()
            if last is woken:
                ready.appendleft(woken)
            else:
                ready.append(last)

    def run() -> None:  # in the worker thread
        if fut.cancelled():  # read across threads: at worst a call cancelled just now still runs
            return
        try:
            outcome: tuple[bool, Any] = (True, call())
        except StopIteration as exc:  # a future refuses it (it would end the awaiting coroutine's generator)
            outcome = (False, RuntimeError(f"StopIteration raised in a worker thread: {exc}"))
        except BaseException as exc:
            outcome = (False, exc)
        if loop.is_closed():  # nobody awaits it any more
            return
        ready.appendleft(asyncio.Handle(deliver, (outcome,), loop))
        wake()

    def failed(job: concurrent.futures.Future[None]) -> None:
        """run() catches the call's errors, but the pool may cancel it (a shutdown) or the hand-off itself
        fail: the awaiting task then gets an error instead of waiting for ever."""
        exc: BaseException | None = (RuntimeError("the worker pool cancelled the call") if job.cancelled()
                                     else job.exception())
        if exc is None or loop.is_closed():
            return

        def fail() -> None:
            if not fut.done():
                fut.set_exception(exc)
        loop.call_soon_threadsafe(fail)

    _workers().submit(run).add_done_callback(failed)
    return await fut


# -- the one wrapper ---------------------------------------------------------------------------------------

def _store_errors() -> tuple[type[BaseException], ...]:
    from notes_store.errors import StoreError
    return (StoreError,)


def _finish(reply: Reply, limits: Limits, take_warnings: Callable[[], list[str]] | None) -> CallToolResult:
    """The result: warnings (from the library's result, the tool, or the workspace) appended to the text and
    listed under ``warnings``; the text bounded by the result limit."""
    data = dict(reply.data)
    warnings = list(data.pop("warnings", None) or [])
    warnings += [w for w in reply.warnings if w not in warnings]
    if take_warnings is not None:
        warnings += [w for w in take_warnings() if w not in warnings]
    text = reply.text + "".join(f"\nWarning: {w}" for w in warnings)
    if warnings:
        data["warnings"] = warnings
    if not fits(text, limits.max_result_tokens):
        # A last guard for texts a tool did not bound itself: cut with a marker that says so.
        text = cut_to_tokens(text, limits.max_result_tokens - 60) + (
            f"\n[… result cut at the {limits.max_result_tokens}-token result limit: ask for fewer items "
            "(limit/offset) or a smaller window]")
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data)


def cut_to_tokens(text: str, budget: int) -> str:
    """The longest prefix of ``text`` (at a line end when possible) within ``budget`` tokens."""
    if fits(text, budget):
        return text
    from context.tokens import get_encoding
    enc = get_encoding("cl100k_base")
    span = max(budget, 0) * HEAD_CHARS_PER_TOKEN
    ids = enc.encode(text[:span], disallowed_special=()) if len(text) > span else []
    if len(ids) <= budget + 8:  # a head too short to hold the budget (long runs of spaces): the whole text
        ids = enc.encode(text, disallowed_special=())
    head = enc.decode(ids[:max(budget, 0)])
    cut = head.rfind("\n")
    return head[:cut] if cut > len(head) // 2 else head


def add_tool(server: MCPServer, fn: Callable[..., Any], *, name: str, title: str, description: str,
             annotations: ToolAnnotations, output: type[BaseModel] | None, limits: Limits,
             take_warnings: Callable[[], list[str]] | None = None,
             inline: Callable[[], contextlib.AbstractContextManager[Any] | None] | None = None,
             before: Callable[[], Awaitable[None]] | None = None) -> None:
    """Register ``fn`` (sync or async, returning ``Reply``) as tool ``name`` behind the one wrapper.

    A sync ``fn`` runs in a worker thread (``in_thread``). ``inline`` (sync ``fn`` only): called on the
    event loop before each call; when it returns a context
    manager, ``fn`` runs inside it on the event loop itself, else in a worker thread as usual. Inside,
    ``fn`` must either answer without waiting or raise ``notes_store.workspace.WouldBlock`` having
    changed nothing; it then runs again in a worker thread. For quick reads: the two thread hand-offs
    of a worker call each wait for the GIL (up to the switch interval while the loop runs Python).
    ``before`` (sync ``fn`` only) is awaited on the event loop before a worker thread is taken: a write waits
    there for the index to catch up (``WorkspaceHandle.room_to_write``), holding no thread.
    """
    errors = _store_errors()

    if inspect.iscoroutinefunction(fn):
        @functools.wraps(fn)
        async def call_async(*args: Any, **kwargs: Any) -> CallToolResult:
            started = time.perf_counter()
            ok = False
            try:
                reply = await fn(*args, **kwargs)
                ok = True
            except errors as exc:
                raise ToolError(str(exc)) from None
            finally:
                observe_call(name, time.perf_counter() - started, not ok)
            return _finish(reply, limits, take_warnings)
        wrapped: Callable[..., Any] = call_async
    else:
        from notes_store.workspace import WouldBlock

        @functools.wraps(fn)
        def call_sync(*args: Any, **kwargs: Any) -> CallToolResult:
            started = time.perf_counter()
            ok = False
            again = False
            try:
                reply = fn(*args, **kwargs)
                ok = True
            except errors as exc:
                if take_warnings is not None:
                    take_warnings()  # a failed call wrote nothing: its warnings must not leak into the next call
                raise ToolError(str(exc)) from None
            except WouldBlock:  # an inline attempt (see ``inline``): run again in a thread, counted there
                again = True
                raise
            finally:
                if not again:
                    observe_call(name, time.perf_counter() - started, not ok)
            return _finish(reply, limits, take_warnings)

        async def wait_before() -> None:
            """``before``, once per call; a call it refuses is counted as a failed call."""
            if before is None:
                return
            started = time.perf_counter()
            try:
                await before()
            except ToolError:
                observe_call(name, time.perf_counter() - started, True)
                raise

        @functools.wraps(fn)
        async def call_threaded(*args: Any, **kwargs: Any) -> CallToolResult:
            await wait_before()
            result: CallToolResult = await in_thread(call_sync, *args, **kwargs)
            return result
        wrapped = call_threaded  # not the SDK's own thread hand-off: see ``in_thread``
        if inline is not None:

            @functools.wraps(fn)
            async def call_inline(*args: Any, **kwargs: Any) -> CallToolResult:
                await wait_before()
                guard = inline()
                if guard is not None:
                    try:
                        with guard:
                            return call_sync(*args, **kwargs)
                    except WouldBlock:
                        pass  # nothing was done: the worker thread does it, waiting as it must
                result: CallToolResult = await in_thread(call_sync, *args, **kwargs)
                return result
            wrapped = call_inline
    # The SDK reads the signature (through __wrapped__) to build the input schema; the return type it would
    # turn into a validated output model is replaced: results are CallToolResult, the schema is set below.
    wrapped.__signature__ = inspect.signature(fn, eval_str=True).replace(  # type: ignore[attr-defined]
        return_annotation=CallToolResult)

    wrapped._ctxnotes_wrapped = True  # type: ignore[attr-defined]
    server.tool(name=name, title=title, description=description, annotations=annotations)(wrapped)
    tool = server._tool_manager.get_tool(name)  # the SDK offers no public way to publish a schema we built
    assert tool is not None
    tool.parameters = compact_schema(tool.parameters, optional_as_plain=True)
    if output is not None:
        tool.fn_metadata.output_schema = output_schema(output)
    from .arguments import strict
    server._tool_manager._tools[name] = strict(tool)


def refuse_unknown_arguments(server: MCPServer) -> None:
    """Every tool of ``server`` refuses arguments it does not know, and explains bad ones in our words
    (``tools.arguments``); tools that already do are left as they are."""
    from .arguments import strict
    manager = server._tool_manager  # the SDK has no public way to replace a registered tool
    for tool in manager.list_tools():
        checked = strict(tool)
        if checked is not tool:
            manager._tools[tool.name] = checked


@functools.cache
def _output_schema_cached(model: type[BaseModel]) -> dict[str, Any]:
    schema = compact_schema(model.model_json_schema(), optional_as_plain=False, keep_descriptions=False)
    # No "required" list: it would repeat most field names again for a check clients do not rely on.
    return {"type": "object", "properties": {k: _shallow(v) for k, v in schema.get("properties", {}).items()}}


def _shallow(schema: Any) -> Any:
    """Nested objects published as plain ``object``: the top level says what a result holds, the tool list
    stays small (every definition is sent to the client on every list)."""
    if not isinstance(schema, dict):
        return schema
    if schema.get("type") == "object" or "properties" in schema:
        return {"type": "object"}
    if schema.get("type") == "array" and isinstance(schema.get("items"), dict):
        return {**schema, "items": _shallow(schema["items"])}
    return schema


def output_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The compact output schema published for ``model``: typed top-level fields, nested objects as ``object``."""
    return _output_schema_cached(model)


def timed(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` (a tool registered elsewhere) timed and reported like ours; failures pass through unchanged."""
    if inspect.iscoroutinefunction(fn):
        @functools.wraps(fn)
        async def call_async(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            ok = False
            try:
                value = await fn(*args, **kwargs)
                ok = not getattr(value, "is_error", False)
                return value
            finally:
                observe_call(name, time.perf_counter() - started, not ok)
        wrapper: Callable[..., Any] = call_async
    else:
        @functools.wraps(fn)
        def call_sync(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            ok = False
            try:
                value = fn(*args, **kwargs)
                ok = not getattr(value, "is_error", False)
                return value
            finally:
                observe_call(name, time.perf_counter() - started, not ok)
        wrapper = call_sync
    wrapper._ctxnotes_wrapped = True  # type: ignore[attr-defined]
    return wrapper
