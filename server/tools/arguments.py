"""Tool arguments a client gets wrong are refused in our own words, never dropped.

``strict(tool)`` (applied by ``tools.kit`` to every registered tool) makes the tool's argument model refuse
keys it does not know (``extra="forbid"``; the nested models in ``tools.models``, ``tools.memory``,
``tools.notes`` and ``tools.context`` forbid them too), publishes ``additionalProperties: false`` on its
input schema, and rewrites pydantic's validation errors into one line per problem: the argument's path,
what was given, and what is allowed or which name was meant::

    unknown argument 'type': did you mean 'note_type'?
    unknown arguments 'reserve_ratio', 'include_notes': they go inside 'options', e.g. "options": {...}
    unknown key 'tittle' in documents[0]: did you mean 'title'?
    sort must be one of updated_desc, updated_asc, created_desc, created_asc, title; got 'newest'

Suggestions come from the tool's own parameter names (exact after case folding, a name ending or starting
with the key such as ``type`` → ``note_type``, a few common synonyms, then difflib's close matches), from the
keys of its object parameters (a key of ``options`` or ``rule`` given at the top level "goes inside" it), and
the other way round (a top-level argument put inside an object "is an argument of its own").
"""

from __future__ import annotations

import difflib
import json
import re
import types
from collections.abc import Sequence
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.server.mcpserver.tools.base import Tool
from pydantic import BaseModel, ConfigDict, ValidationError

from .observe import observe_call

# Names clients commonly use for a parameter that has another name here: suggested only when the tool has
# the target. Everything else is derived from the tool's own names.
SYNONYMS: dict[str, tuple[str, ...]] = {
    "text": ("content", "query"), "body": ("content",), "message": ("content",), "value": ("content",),
    "q": ("query",), "search": ("query",), "question": ("query",), "prompt": ("query",),
    "name": ("title",), "label": ("tags",), "labels": ("tags",), "kind": ("note_type", "memory_type"),
    "category": ("note_type", "memory_type"), "k": ("limit",), "n": ("limit",), "top_k": ("limit",),
    "count": ("limit",), "max_results": ("limit",), "page_size": ("limit",), "skip": ("offset",),
    "start": ("offset",), "order": ("sort",), "order_by": ("sort",), "sort_by": ("sort",),
    "budget": ("max_tokens",), "token_budget": ("max_tokens",), "tokens": ("max_tokens",),
    "messages": ("history", "turns"), "conversation": ("history", "turns"), "history": ("turns",),
    "turns": ("history",), "system": ("system_instructions",), "system_prompt": ("system_instructions",),
    "instructions": ("system_instructions",), "state": ("task_state",), "docs": ("documents",),
    "revision": ("expected_revision",), "if_revision": ("expected_revision",), "dryrun": ("dry_run",),
    "preview": ("dry_run",), "ttl": ("ttl_minutes",), "result": ("content",), "output": ("content",),
    "parameters": ("input_schema",), "schema": ("input_schema",), "title": ("source",), "url": ("source",),
    "id": ("source",), "time": ("timestamp",), "date": ("timestamp",), "created_at": ("timestamp",), "speaker": ("name", "role"),
}
MAX_PROBLEMS = 6        # lines of one refusal
VALUE_CHARS = 60        # characters of a given value quoted back


class StrictArguments(Tool):
    """A tool whose argument errors are explained in our words (see the module docstring)."""

    async def run(self, arguments: dict[str, Any], context: Any, convert_result: bool = False) -> Any:
        try:
            return await super().run(arguments, context, convert_result=convert_result)
        except ToolError as exc:
            cause = exc.__cause__
            if isinstance(exc, UnexpectedToolError) or not isinstance(cause, ValidationError):
                raise
            # Only the SDK's argument validation raises a ToolError caused by a ValidationError directly.
            observe_call(self.name, 0.0, True)
            message = explain(cause, self.fn_metadata.arg_model, arguments)
            raise ToolError(f"Error executing tool {self.name}: {message}") from cause


def strict(tool: Tool) -> Tool:
    """``tool`` refusing unknown arguments in our words, its schema saying so; the same object when it already
    does. The caller puts the result in the tool manager in place of ``tool``."""
    if isinstance(tool, StrictArguments):
        return tool
    base = tool.fn_metadata.arg_model
    config = ConfigDict(**{**base.model_config, "extra": "forbid"})

    class Checked(base):  # type: ignore[valid-type,misc]
        model_config = config

    Checked.__name__ = base.__name__
    tool.fn_metadata.arg_model = Checked
    tool.parameters = {**tool.parameters, "additionalProperties": False}
    return StrictArguments(**{name: getattr(tool, name) for name in Tool.model_fields})


# -- where a key is: the type at a path of the argument model ----------------------------------------------

def _unwrap(tp: Any) -> Any:
    """``tp`` without Annotated and without an Optional's None."""
    while True:
        origin = get_origin(tp)
        if origin is Annotated:
            tp = get_args(tp)[0]
        elif origin in (Union, types.UnionType):
            members = [a for a in get_args(tp) if a is not type(None)]
            if len(members) != 1:
                return tp
            tp = members[0]
        else:
            return tp


def _model(tp: Any) -> type[BaseModel] | None:
    tp = _unwrap(tp)
    return tp if isinstance(tp, type) and issubclass(tp, BaseModel) else None


def _item(tp: Any) -> Any:
    tp = _unwrap(tp)
    return get_args(tp)[0] if get_origin(tp) in (list, tuple, Sequence) and get_args(tp) else None


def _fields(model: type[BaseModel]) -> list[str]:
    return [f.alias or name for name, f in model.model_fields.items()]


def _at(root: type[BaseModel], loc: Sequence[Any]) -> tuple[Any, str]:
    """The type at ``loc`` (pydantic's error location) and the path as a caller writes it
    (``documents[0].content``); union member tags pydantic puts in a location are skipped."""
    tp: Any = root
    path = ""
    for part in loc:
        model = _model(tp)
        if isinstance(part, int):
            tp = _item(tp)
            path += f"[{part}]"
            continue
        if model is None and tp is not None and get_origin(_unwrap(tp)) in (Union, types.UnionType):
            continue  # the tag of the union member that failed
        field = model.model_fields.get(str(part)) if model is not None else None
        tp = field.annotation if field is not None else None
        path += f".{part}" if path else str(part)
    return tp, path


# -- unknown keys ----------------------------------------------------------------------------------------

def _snake(key: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", key).replace("-", "_").replace(" ", "_").lower()


def closest(key: str, names: Sequence[str], *, fuzzy: bool = True) -> str | None:
    """The name ``key`` most likely meant among ``names``, or None: the same name in another case or
    spelling (``noteType``), the one name ending or starting with it (``type`` → ``note_type``), a common
    synonym (``text`` → ``content``), then (``fuzzy``) difflib's closest match (``limt`` → ``limit``)."""
    if not names:
        return None
    norm = _snake(key)
    for name in names:
        if name.lower() == norm or _snake(name) == norm:
            return name
    ends = [n for n in names if n.endswith("_" + norm) or n.startswith(norm + "_")]
    if len(ends) == 1:
        return ends[0]
    for target in SYNONYMS.get(norm, ()):
        if target in names:
            return target
    if not fuzzy:
        return None
    close = difflib.get_close_matches(norm, list(names), n=1, cutoff=0.7)
    if close:
        return close[0]
    # A misspelt synonym ("tittle" for a document's "source").
    known = [s for s, targets in SYNONYMS.items() if any(t in names for t in targets)]
    close = difflib.get_close_matches(norm, known, n=1, cutoff=0.8)
    return next(t for t in SYNONYMS[close[0]] if t in names) if close else None


def _objects(model: type[BaseModel]) -> dict[str, type[BaseModel]]:
    """The object-valued (not list) parameters of ``model`` and their models."""
    out = {}
    for name, f in model.model_fields.items():
        inner = _model(f.annotation)
        if inner is not None:
            out[f.alias or name] = inner
    return out


def _value(value: Any) -> str:
    """A given value quoted back (strings as 'text', other values as JSON), cut to VALUE_CHARS."""
    if isinstance(value, str):
        text = repr(value)
        return text if len(text) <= VALUE_CHARS else text[:VALUE_CHARS - 2] + "…'"
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= VALUE_CHARS else text[:VALUE_CHARS - 1] + "…"


def _unknown(root: type[BaseModel], parent: Sequence[Any], keys: list[str], given: dict[str, Any],
             suggested: set[str]) -> list[str]:
    """The lines refusing ``keys`` found in the object at ``parent``."""
    tp, where = _at(root, parent)
    model = _model(tp) or root
    names = _fields(model)
    top = not where
    lines: list[str] = []
    moves: dict[str, list[str]] = {}
    objects = _objects(root) if top else {}
    for key in keys:
        what = f"unknown argument {key!r}" if top else f"unknown key {key!r} in {where}"
        meant = closest(key, names, fuzzy=False)
        # A key of an object parameter given beside it (reserve_ratio beside options) goes inside it.
        home = None if meant is not None else next(
            (p for fuzzy in (False, True) for p, m in objects.items()
             if key in _fields(m) or closest(key, _fields(m), fuzzy=fuzzy)), None)
        if meant is None and home is None:
            meant = closest(key, names)
        if meant is not None:
            suggested.add(".".join(map(str, (*parent, meant))))
            lines.append(f"{what}: did you mean {meant!r}?")
        elif home is not None:
            moves.setdefault(home, []).append(key)
        elif not top and key in _fields(root):
            lines.append(f"{key!r} is an argument of its own, not a key of {where}")
        else:
            lines.append(f"{what}; {'the tool' if top else where} takes {', '.join(names) or 'no arguments'}")
    for home, moved in moves.items():
        inner = _objects(root)[home]
        fixed = {closest(k, _fields(inner)) or k: given.get(k) for k in moved}
        they = (f"unknown arguments {', '.join(map(repr, moved))}: they go" if len(moved) > 1
                else f"unknown argument {moved[0]!r}: it goes")
        renamed = "".join(f" ({k!r} is spelt {f!r})" for k, f in zip(moved, fixed) if k != f)
        lines.append(f"{they} inside {home!r}{renamed}, e.g. \"{home}\": {_value(fixed)}")
    return lines


# -- everything else -------------------------------------------------------------------------------------

_KINDS = {
    "string": "a string", "int": "a whole number", "float": "a number", "bool": "true or false",
    "list": "a list", "dict": "an object", "model": "an object", "none": "null",
}


def _kind(error_type: str) -> str | None:
    for prefix, kind in (("string", "string"), ("int", "int"), ("float", "float"), ("bool", "bool"),
                         ("list", "list"), ("tuple", "list"), ("dict", "dict"), ("model", "model"),
                         ("none", "none"), ("dataclass", "model")):
        if error_type.startswith(prefix + "_"):
            return _KINDS[kind]
    return None


def _choices(tp: Any) -> list[str] | None:
    tp = _unwrap(tp)
    if get_origin(tp) is Literal:
        return [str(a) for a in get_args(tp)]
    return None


def _problem(err: Any, root: type[BaseModel]) -> tuple[str, str]:
    """(path, what is wrong with it) for one pydantic error other than an unknown key."""
    loc = err.get("loc", ())
    tp, path = _at(root, loc)
    path = path or "the arguments"
    kind = err.get("type", "")
    ctx = err.get("ctx") or {}
    got = f"; got {_value(err.get('input'))}"
    if kind == "missing":
        return path, "is required"
    if kind == "literal_error":
        choices = _choices(tp) or [c.strip(" '") for c in re.split(r",| or ", str(ctx.get("expected", "")))
                                   if c.strip(" '")]
        return path, f"must be one of {', '.join(choices)}{got}"
    bounds = {"greater_than_equal": ("at least", "ge"), "greater_than": ("more than", "gt"),
              "less_than_equal": ("at most", "le"), "less_than": ("less than", "lt")}
    if kind in bounds:
        word, key = bounds[kind]
        bound = ctx.get(key)
        if isinstance(bound, float) and bound.is_integer():
            bound = int(bound)
        return path, f"must be {word} {bound}{got}"
    if kind in ("too_short", "string_too_short"):
        unit = "character(s)" if kind.startswith("string") else "item(s)"
        return path, f"must have at least {ctx.get('min_length')} {unit}{got}"
    if kind in ("too_long", "string_too_long"):
        unit = "character(s)" if kind.startswith("string") else "item(s)"
        return path, f"must have at most {ctx.get('max_length')} {unit}{got}"
    if kind == "int_from_float":
        return path, f"must be a whole number{got}"
    expected = _kind(kind)
    if expected is not None:
        return path, f"must be {expected}{got}"
    if kind == "json_invalid":
        return path, f"is not valid JSON{got}"
    # A rule of our own (a validator's message) or a kind not listed above: pydantic's short message, no URL.
    msg = str(err.get("msg") or "is not valid").removeprefix("Value error, ")
    return path, f"{msg[:1].lower()}{msg[1:]}{got}"


def explain(exc: ValidationError, root: type[BaseModel], given: dict[str, Any] | None = None) -> str:
    """The refusal of a call whose arguments failed ``root``'s validation, one line per problem: unknown keys
    first (with the name meant), then each argument's problem (merged per argument: a union's members
    each report one)."""
    errors = exc.errors(include_url=False)
    extra: dict[tuple[Any, ...], list[str]] = {}
    for err in errors:
        if err.get("type") == "extra_forbidden" and err.get("loc"):
            loc = tuple(err["loc"])
            extra.setdefault(loc[:-1], []).append(str(loc[-1]))
    suggested: set[str] = set()
    lines: list[str] = []
    for parent, keys in extra.items():
        lines += _unknown(root, parent, keys, given or {}, suggested)
    problems: dict[str, list[str]] = {}
    for err in errors:
        if err.get("type") == "extra_forbidden":
            continue
        if err.get("type") == "missing" and ".".join(map(str, err.get("loc", ()))) in suggested:
            continue  # "did you mean 'title'?" already says it
        path, what = _problem(err, root)
        if what not in problems.setdefault(path, []):
            problems[path].append(what)
    for path, whats in problems.items():
        if len(whats) > 1 and all(w.startswith("must be ") for w in whats):
            got = whats[0].rsplit("; got ", 1)[-1] if "; got " in whats[0] else ""
            kinds = [w[len("must be "):].rsplit("; got ", 1)[0] for w in whats]
            lines.append(f"{path} must be {' or '.join(dict.fromkeys(kinds))}" + (f"; got {got}" if got else ""))
        else:
            lines += [f"{path} {w}" for w in whats]
    if len(lines) > MAX_PROBLEMS:
        lines = lines[:MAX_PROBLEMS] + [f"(and {len(lines) - MAX_PROBLEMS} more problem(s))"]
    return "\n".join(lines) + "\nNothing was done: correct the arguments and call again."
