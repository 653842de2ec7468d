"""The build_context tool: the context builder over the server's workspace.

``context`` (and tiktoken behind it) is imported inside the tool, never at
server start. When the client declared the sampling capability, long items
may be summarised by the client's own LLM (``sampling/createMessage``); the
library falls back to extractive shortening when that is unavailable or fails.
"""

from __future__ import annotations

import logging
import threading
from typing import Annotated, Any, ClassVar, Literal, Optional, get_args, get_origin

import anyio
import anyio.from_thread
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema

from .models import ContextFormat, Turn
from ..state import WorkspaceHandle
from .kit import output_schema
from .notes import result

log = logging.getLogger("ctxnotes.server")

ContextQueryType = Literal["auto", "knowledge", "chat", "task"]
SAMPLING_TIMEOUT_S = 30.0   # one summary request
SAMPLING_CALL_BUDGET_S = 60.0  # all of one build_context call's summary requests together


# The input shapes, defined once: the tool's inputSchema is generated from these models and the
# same models validate what a client sends, so what the schema advertises is what is accepted. Each
# takes exactly the keys the library's ``build_context`` takes for it (``context.gather.inputs``: a
# test checks they agree) and refuses any other (``tools.arguments`` names the key meant).
class ToolResultIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    unlisted: ClassVar[tuple[str, ...]] = ("id", "timestamp")  # accepted, not named in the tool list
    tool: str
    content: Any
    id: Optional[str] = None
    timestamp: Optional[str | float] = None  # ISO-8601 or epoch seconds


class DocumentIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    unlisted: ClassVar[tuple[str, ...]] = ("score", "timestamp")
    content: str
    source: Optional[str] = None
    score: Optional[float] = None
    timestamp: Optional[str | float] = None


class ToolDefIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    unlisted: ClassVar[tuple[str, ...]] = ("required",)
    name: str
    description: Optional[str] = None
    input_schema: Optional[dict[str, Any]] = None
    required: Optional[bool] = None


class ContextOptions(BaseModel):
    """Rarely needed knobs, folded into one object so the common call stays small."""
    model_config = ConfigDict(extra="forbid")
    reserve_ratio: float = Field(default=0.2, ge=0, lt=1)
    query_type: ContextQueryType = "auto"
    include_notes: Optional[bool] = None
    include_memory: Optional[bool] = None
    note_types: Optional[list[str]] = None
    tags: Optional[list[str]] = None
    relevance_weight: Optional[float] = Field(default=None, ge=0, le=1)
    recency_weight: Optional[float] = Field(default=None, ge=0, le=1)
    min_relevance: Optional[float] = Field(default=None, ge=0, le=1)


def described(model: type[BaseModel], what: str) -> WithJsonSchema:
    """A rarely used object published as one line naming its keys (and the choices of a choice) instead of a
    whole schema: ``model`` still validates it, and the tool list stays small (issue 15)."""
    keys = []
    for name, f in model.model_fields.items():
        if name in getattr(model, "unlisted", ()):
            continue
        choices = get_args(f.annotation) if get_origin(f.annotation) is Literal else ()
        keys.append(f"{name} ({'|'.join(choices)})" if choices else name)
    return WithJsonSchema({"type": "object", "description": f"{what}: {', '.join(keys)}"})


class ContextMessage(BaseModel):
    # A message may also carry ``name`` (who spoke) and ``tool_call_id`` (a tool turn's call), only when set:
    # kept as given, never sent as null.
    model_config = ConfigDict(extra="allow")
    role: str
    content: str


class BuildContextOut(BaseModel):
    model_config = ConfigDict(extra="allow")
    # What each field holds is said in the README: the published schema carries types only (issue 15).
    context: Optional[str] = None                   # format="text"
    messages: Optional[list[ContextMessage]] = None  # format="messages"
    tokens: int                                     # exact size of the output
    budget: int                                     # floor(max_tokens * (1 - reserve_ratio)) >= tokens
    sections: dict[str, int]                        # tokens per section
    selected: list[dict[str, Any]]                  # items included, with their scores
    dropped: list[dict[str, Any]]                   # items left out and why
    compressed: list[dict[str, Any]]                # items shortened and how
    warnings: list[str]
    query_type: str
    sources: dict[str, dict[str, int]]              # per source: candidates, selected, dropped


def register(server: MCPServer, handle: WorkspaceHandle) -> None:

    @server.tool(
        name="build_context", title="Build a context for a query",
        description=(
            "Pack the notes and memories relevant to a query, plus any history, documents and tool results "
            "you pass, into a token budget."),
        annotations=ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True,
                                    open_world_hint=False))
    async def build_context(
        ctx: Context,
        query: str,
        max_tokens: Annotated[int, Field(ge=64)] = 3000,
        history: Optional[list[Turn]] = None,
        session_id: Optional[str] = None,  # session_append's description says what it is
        system_instructions: Optional[str] = None,
        task_state: Annotated[Optional[dict[str, Any] | str], WithJsonSchema({"type": ["object", "string"]})] = None,
        tool_results: Optional[list[Annotated[ToolResultIn, described(ToolResultIn, "A tool result")]]] = None,
        documents: Optional[list[Annotated[DocumentIn, described(DocumentIn, "A document")]]] = None,
        tools: Optional[list[Annotated[ToolDefIn, described(ToolDefIn, "A tool")]]] = None,
        format: ContextFormat = "text",
        options: Annotated[Optional[ContextOptions], described(ContextOptions, "Rare knobs")] = None,
    ) -> Annotated[CallToolResult, BuildContextOut]:
        opts = options or ContextOptions()
        if opts.note_types:
            from notes_store import NOTE_TYPES
            unknown = sorted(set(opts.note_types) - set(NOTE_TYPES))
            if unknown:
                raise ToolError(f"options.note_types: unknown type(s) {unknown}; use {list(NOTE_TYPES)}")
        ws = await anyio.to_thread.run_sync(handle.get)
        summarizer = _sampling_summarizer(ctx)

        def progress(done: float, total: float, message: str = "") -> None:
            try:
                anyio.from_thread.run(ctx.report_progress, done, total, message)
            except Exception:
                log.debug("progress notification failed", exc_info=True)

        gone = threading.Event()  # set when the client cancels or disconnects

        def run() -> Any:
            import time

            from context import ContextCancelled, ContextError, build_context as build
            from notes_store.errors import StoreError
            from notes_store.sessions import history_with_session

            from .build_log import record_build
            evidence = _evidence(ws)
            try:
                turns = history_with_session(ws.root, session_id, _dicts(history))
            except StoreError as exc:
                raise ToolError(str(exc)) from None
            started = time.perf_counter()
            try:
                built = build(query, history=turns, system_instructions=system_instructions,
                             task_state=task_state, tool_results=_dicts(tool_results), documents=_dicts(documents),
                             tools=_dicts(tools), max_tokens=max_tokens, reserve_ratio=opts.reserve_ratio,
                             format=format, include_notes=opts.include_notes is not False,
                             include_memory=opts.include_memory is not False,
                             note_types=list(opts.note_types) if opts.note_types else None, tags=opts.tags,
                             query_type=opts.query_type, relevance_weight=opts.relevance_weight,
                             recency_weight=opts.recency_weight, min_relevance=opts.min_relevance,
                             evidence=evidence, summarizer=summarizer, progress=progress,
                             should_stop=gone.is_set)
                record_build(ws.root, built, time.perf_counter() - started, session_id=session_id)
                return built
            except ContextCancelled:
                raise ToolError("build_context was cancelled") from None
            except (ContextError, ValueError) as exc:
                raise ToolError(str(exc)) from None

        try:
            # abandon_on_cancel: a cancelled call returns at once; the flag stops the worker thread.
            res = await anyio.to_thread.run_sync(run, abandon_on_cancel=True)
        finally:
            gone.set()
        data = res.to_dict()
        out = BuildContextOut(**data)
        if format == "text":
            text = data.get("context") or ""
        else:
            text = "\n\n".join(f"[{m['role']}{' (' + m['name'] + ')' if m.get('name') else ''}]\n{m['content']}"
                           for m in data.get("messages") or [])
        summary = (f"\n\n---\n{out.tokens}/{out.budget} tokens; {len(out.selected)} item(s) selected, "
                   f"{len(out.dropped)} dropped, {len(out.compressed)} compressed")
        if out.warnings:
            summary += "\nwarnings: " + "; ".join(out.warnings)
        structured = out.model_dump(mode="json")
        for unused in ("context", "messages"):  # the other format's field is left out, not sent as null
            if structured.get(unused) is None:
                structured.pop(unused, None)
        return result(text + summary, structured)

    # Published like every other tool's: typed top-level fields, nested objects as ``object``, no descriptions.
    tool = server._tool_manager.get_tool("build_context")  # the SDK offers no public way to publish a schema
    assert tool is not None
    tool.fn_metadata.output_schema = output_schema(BuildContextOut)


def _dicts(items: Optional[list[Any]]) -> Optional[list[dict[str, Any]]]:
    """Validated models back to the plain dicts the library takes (unset fields left out)."""
    return [m.model_dump(exclude_none=True) for m in items] if items else None


def _evidence(ws: Any) -> Any:
    from context.gather.workspace import WorkspaceEvidence
    return WorkspaceEvidence(ws)


def _sampling_summarizer(ctx: Context) -> Any:
    """A summarizer backed by the client's LLM, or None when the client cannot sample.

    Made per call. The first failure (an error, a refusal, a timeout) ends sampling for the rest of the
    call, and all its requests share one time budget: a client whose model is down or hangs costs a call
    one timeout, not one per long item.
    """
    try:
        from mcp.types import ClientCapabilities, SamplingCapability
        session = ctx.session
        if not session.check_client_capability(ClientCapabilities(sampling=SamplingCapability())):
            return None
    except Exception:
        return None
    import time
    spent = [0.0]  # seconds this call's summary requests have taken so far
    failed: list[str] = []  # why sampling stopped for this call (empty while it works)

    async def ask(text: str, query: str, max_tokens: int) -> str | None:
        import warnings
        from mcp.types import SamplingMessage, TextContent
        prompt = (f"Summarise the following text in at most {max_tokens} tokens, keeping every fact that helps "
                  f"with this query: {query}\nReply with the summary only.\n\n---\n{text}")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with anyio.fail_after(min(SAMPLING_TIMEOUT_S, max(0.0, SAMPLING_CALL_BUDGET_S - spent[0]))):
                r = await session.create_message(
                    [SamplingMessage(role="user", content=TextContent(type="text", text=prompt))],
                    max_tokens=max(16, int(max_tokens)),
                    system_prompt="You write faithful, compact summaries. Never add facts.")
        content = r.content
        if isinstance(content, list):
            content = next((c for c in content if getattr(c, "type", None) == "text"), None)
        return getattr(content, "text", None) or None

    def summarize(text: str, query: str, max_tokens: int) -> str | None:
        if failed:
            raise SamplingUnavailable(failed[0])
        if spent[0] >= SAMPLING_CALL_BUDGET_S:
            failed.append(f"this call's {SAMPLING_CALL_BUDGET_S:.0f} s for summaries is used up")
            raise SamplingUnavailable(failed[0])
        started = time.monotonic()
        try:
            return anyio.from_thread.run(ask, text, query, max_tokens)
        except Exception as exc:  # the library falls back to extractive shortening
            why = "timed out" if isinstance(exc, TimeoutError) else f"{type(exc).__name__}: {exc}"
            failed.append(f"the client's sampling failed earlier in this call ({why})")
            log.info("sampling summarizer unavailable (%s); falling back", why)
            raise SamplingUnavailable(f"client sampling failed ({why})") from None
        finally:
            spent[0] += time.monotonic() - started

    return summarize


class SamplingUnavailable(Exception):
    """The client's sampling failed or is stopped for this call; the library shortens extractively."""
