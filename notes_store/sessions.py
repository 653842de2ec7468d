"""Conversation sessions kept in the workspace: ``sessions/<session_id>.jsonl``, one turn per line.

Why a file per session, append-only: diffs stay clean when sessions are committed, and an append
is one ``write`` + ``fsync`` under an exclusive ``flock`` on that file, so two processes (a server
and a CLI hook) can record turns into one session safely. A line cut short by a crash (the writer
died before its acknowledgement) is ignored and reported by readers, and cut off by the next append.

Readers never trust the file: regular files only (no links, FIFOs), opened non-blocking, bounded
in size and in lines (a line cap is counted before any parsing: 60 MiB of one-byte lines would
otherwise cost minutes of CPU), with over-long lines skipped unparsed and keys that are not a turn's
dropped. A per-process cache keeps each parsed session keyed by (file identity, bytes read), so a
growing session is read and parsed only from where the last read stopped; it is bounded by an
estimate of memory (bytes read plus a fixed cost per line), since a parsed minimal turn takes
~20 times its bytes.
"""

from __future__ import annotations

import builtins
import contextlib
import errno
import json
import math
import os
import secrets
import stat
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from .errors import InvalidInput, NotFound, StorageError
from .files.durable import atomic_write, flock_with_deadline, fsync_dir
from .validation import check_id

SESSIONS_DIR = "sessions"
SUFFIX = ".jsonl"
# The roles build_context's history accepts (context.gather.inputs.HISTORY_ROLES; a test keeps them equal).
ROLES = ("user", "assistant", "system", "tool")
TURN_KEYS = ("role", "content", "timestamp", "id", "tool_call_id", "name")
DEFAULT_MAX_TURN_BYTES = 256 * 1024
DEFAULT_MAX_SESSION_BYTES = 64 * 1024 * 1024
# Lines (turns) in one session: build_context takes at most this many history turns
# (context.gather.inputs.MAX_HISTORY_TURNS; a test keeps them equal), so a longer session could not be used.
DEFAULT_MAX_SESSION_TURNS = 20_000
MAX_TURNS_PER_APPEND = 500
MAX_PAGE_TURNS = 500
MAX_TURN_ID_CHARS = 128
MAX_NAME_CHARS = 256
LOCK_TIMEOUT_S = 30.0
CACHED_SESSIONS = 32
# Bytes of session files one listing parses to count their turns (parses already cached cost nothing): a
# page of 1,000 maximal sessions would otherwise read 64 GB. The rest are listed as "turns not counted".
LIST_PARSE_BYTES = 64 * 1024 * 1024
CACHED_BYTES = 160 * 1024 * 1024     # estimated memory of all kept parses: bytes read + LINE_COST per line
LINE_COST = 1024                     # measured ~880 bytes per parsed turn beyond its text (turn, history, id)
SHOWN_BAD_LINES = 50                 # bad line numbers kept (and shown); the rest are only counted
GIT_CONFIG_KEY = "sessions_git"      # in .ctxnotes.yaml: "ignore" (default) or "commit"
GIT_MODES = ("ignore", "commit")
GITIGNORE_LINE = "sessions/"
GITIGNORE_COMMENT = "# ctxnotes: conversation sessions (sessions_git: ignore in .ctxnotes.yaml)"

_READ_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_APPEND_FLAGS = (os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0)
                 | getattr(os, "O_CLOEXEC", 0))


def _env_int(name: str, default: int) -> int:
    try:
        value = int(os.environ.get(name, ""))
    except ValueError:
        return default
    return value if value > 0 else default


def _checked_turns(turns: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """``turns`` checked for an append (a list, not empty, not too many, each turn valid, ids unique)."""
    if isinstance(turns, (str, bytes, dict)) or not isinstance(turns, Sequence):
        raise InvalidInput("turns must be a list of {role, content, timestamp?, id?} objects, oldest first")
    if not turns:
        raise InvalidInput("turns is empty: pass at least one {role, content} turn")
    if len(turns) > MAX_TURNS_PER_APPEND:
        raise InvalidInput(f"{len(turns)} turns in one append; send at most {MAX_TURNS_PER_APPEND} per call")
    checked = [check_turn(t, f"turns[{i}]") for i, t in enumerate(turns)]
    seen: dict[str, int] = {}
    for i, t in enumerate(checked):
        if "id" in t:
            if t["id"] in seen:
                raise InvalidInput(f"turns[{i}].id {t['id']!r} repeats turns[{seen[t['id']]}].id; ids must be unique")
            seen[t["id"]] = i
    return checked


def _new_lines(session_id: str, checked: list[dict[str, Any]], entry: _Parsed,
               max_turn_bytes: int) -> tuple[list[bytes], list[str], list[str]]:
    """The JSON lines of the turns not in the session yet, their ids, and the ids skipped as retried."""
    received = _now_iso()
    lines: list[bytes] = []
    ids: list[str] = []
    duplicates: list[str] = []
    taken = set(entry.ids)
    position = len(entry.turns)
    for i, t in enumerate(checked):
        if "id" in t and t["id"] in entry.ids:
            old = entry.turns[entry.ids[t["id"]]]
            if old["role"] == t["role"] and old["content"] == t["content"]:
                duplicates.append(t["id"])
                continue
            raise InvalidInput(f"turns[{i}].id {t['id']!r} is already used in session {session_id} by a "
                               "different turn; use a new id or leave id out")
        turn_id = t.get("id") or _new_id(position, taken)
        taken.add(turn_id)
        record = {"id": turn_id, **{k: v for k, v in t.items() if k != "id"}, "received_at": received}
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
        if len(line) > max_turn_bytes:
            raise InvalidInput(f"turns[{i}] is {len(line)} bytes stored, over the limit of "
                               f"{max_turn_bytes} bytes (CTXNOTES_MAX_TURN_BYTES); shorten it or store "
                               "the long part as a note and refer to it")
        lines.append(line)
        ids.append(turn_id)
        position += 1
    return lines, ids, duplicates


def _now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


# -- results ---------------------------------------------------------------------------------------

@dataclass
class AppendResult:
    """What one append stored: ids of the new turns, duplicates skipped, the session's new size."""

    session_id: str
    appended: int
    ids: list[str]
    duplicates: list[str]
    total_turns: int
    repaired_tail_bytes: int = 0     # an unfinished line from a crashed writer, cut off first
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class SessionInfo:
    """One session in a listing."""

    id: str
    turns: int | None                # None: not counted (``problem`` says why)
    bytes: int
    updated_at: str
    uri: str
    problem: str | None = None       # unreadable file (a link, a FIFO, too large), or turns not counted

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}

    def line(self, with_bytes: bool = False) -> str:
        """``- id: N turns[, B bytes], updated T[ (problem)]``: one line of a listing."""
        turns = "turns not counted" if self.turns is None else f"{self.turns} turns"
        size = f", {self.bytes} bytes" if with_bytes else ""
        return f"- {self.id}: {turns}{size}, updated {self.updated_at}" + (f" ({self.problem})" if self.problem else "")


@dataclass
class TurnsPage:
    """A page of a session's turns, oldest first, with what was skipped and how to get the rest."""

    session_id: str
    total: int
    offset: int
    turns: list[dict[str, Any]]
    next_offset: int | None
    incomplete_tail_bytes: int = 0   # bytes after the last newline: a torn line, ignored
    bad_lines: list[int] = field(default_factory=list)  # 1-based line numbers that are not turns
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# -- validation ------------------------------------------------------------------------------------

def check_session_id(value: Any) -> str:
    """Session ids follow the note id rules (file-name stems); a trailing ``.jsonl`` is dropped."""
    if isinstance(value, str) and value.strip().endswith(SUFFIX):
        value = value.strip()[: -len(SUFFIX)]
    return check_id(value, "session_id")


def _check_timestamp(value: Any, where: str) -> Any:
    """ISO 8601 string or epoch seconds, checked the way build_context parses it; kept as given."""
    if value is None or value == "":
        return None
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise InvalidInput(f"{where}.timestamp must be an ISO 8601 string (e.g. 2026-11-29T15:30:00Z) "
                           f"or epoch seconds, got {type(value).__name__}")
    if isinstance(value, str):
        try:
            datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            raise InvalidInput(f"{where}.timestamp {value[:40]!r} is not ISO 8601; "
                               "use e.g. 2026-11-29T15:30:00Z") from None
    elif not math.isfinite(float(value)):
        raise InvalidInput(f"{where}.timestamp must be a finite number of epoch seconds")
    return value


def is_short_line(text: str, limit: int) -> bool:
    """One line of at most ``limit`` characters, no control characters (a turn's id, name or call id)."""
    return len(text) <= limit and not any(ord(c) < 32 or ord(c) == 127 for c in text)


def _check_short(value: Any, where: str, limit: int) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(f"{where} must be a non-empty string")
    if not is_short_line(value, limit):
        raise InvalidInput(f"{where} must be one line of at most {limit} characters")
    return value


def check_turn(turn: Any, where: str) -> dict[str, Any]:
    """A turn as stored: role, content, and timestamp/id/tool_call_id/name when given."""
    if not isinstance(turn, dict):
        raise InvalidInput(f"{where} must be an object with 'role' and 'content', got {type(turn).__name__}")
    unknown = sorted(set(turn) - set(TURN_KEYS))
    if unknown:
        raise InvalidInput(f"{where} has unknown key(s) {unknown}: a turn takes only {list(TURN_KEYS)}")
    role = turn.get("role")
    if role not in ROLES:
        raise InvalidInput(f"{where}.role {role!r} is not allowed: use one of {list(ROLES)}")
    content = turn.get("content")
    if not isinstance(content, str):
        raise InvalidInput(f"{where}.content must be a string (the turn's text), got {type(content).__name__}")
    if not content.strip():
        raise InvalidInput(f"{where}.content is empty: every turn needs text (drop empty turns)")
    if "\x00" in content:
        raise InvalidInput(f"{where}.content contains NUL characters; turns hold text, not binary data")
    out: dict[str, Any] = {"role": role, "content": content}
    timestamp = _check_timestamp(turn.get("timestamp"), where)
    if timestamp is not None:
        out["timestamp"] = timestamp
    for key, limit in (("id", MAX_TURN_ID_CHARS), ("tool_call_id", MAX_NAME_CHARS), ("name", MAX_NAME_CHARS)):
        value = _check_short(turn.get(key), f"{where}.{key}", limit)
        if value is not None:
            out[key] = value
    return out


# -- the parsed-session cache ----------------------------------------------------------------------

@dataclass
class _Parsed:
    """A session file parsed up to ``consumed`` bytes (always just after a newline)."""

    dev: int
    ino: int
    head: bytes = b""                # the first line's bytes: tells a recreated file on a reused inode
    consumed: int = 0
    lines: int = 0
    turns: list[dict[str, Any]] = field(default_factory=list)
    history: list[dict[str, Any]] = field(default_factory=list)  # the same turns as build_context takes them
    ids: dict[str, int] = field(default_factory=dict)
    bad_lines: list[int] = field(default_factory=list)  # the first SHOWN_BAD_LINES of them
    bad_count: int = 0
    tail_bytes: int = 0
    size: int = 0
    mtime_ns: int = 0

    @property
    def cost(self) -> int:
        """Estimated memory of this parse, in bytes (what the cache's bound counts)."""
        return self.consumed + LINE_COST * self.lines


_cache: OrderedDict[str, _Parsed] = OrderedDict()
_cache_lock = threading.Lock()


STORED_KEYS = (*TURN_KEYS, "received_at")


def _parse_line(raw: bytes, max_bytes: int) -> dict[str, Any] | None:
    """The turn on one line, or None when it is not one. A line over ``max_bytes`` is not parsed (JSON
    such as ``[{},{},…]`` takes ~20 times its bytes while parsing), and keys no turn has are dropped."""
    if len(raw) > max_bytes:
        return None
    try:
        obj = json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    if (not isinstance(obj, dict) or obj.get("role") not in ROLES or not isinstance(obj.get("content"), str)
            or not obj["content"].strip() or not isinstance(obj.get("id"), str)):
        return None
    if len(obj) > len(STORED_KEYS) or not obj.keys() <= set(STORED_KEYS):
        obj = {k: obj[k] for k in STORED_KEYS if k in obj}
    return obj


def _pread_all(fd: int, start: int, end: int) -> bytes:
    chunks: list[bytes] = []
    pos = start
    while pos < end:
        chunk = os.pread(fd, min(end - pos, 1 << 20), pos)
        if not chunk:
            break
        chunks.append(chunk)
        pos += len(chunk)
    return b"".join(chunks)


def _refresh(key: str, fd: int, st: os.stat_result, max_lines: int, max_line_bytes: int) -> _Parsed:
    """The cached parse of the open session file, brought up to date by reading only new bytes.

    Raises ``StorageError`` when the file holds more than ``max_lines`` lines (counted before parsing)."""
    with _cache_lock:
        entry = _cache.get(key)
    if entry is not None:
        same_file = _continues(entry, st)
        if same_file and entry.head and os.pread(fd, len(entry.head), 0) != entry.head:
            same_file = False
        if not same_file:
            entry = None
        elif st.st_size == entry.size and st.st_mtime_ns == entry.mtime_ns:
            return entry  # unchanged since the last read: nothing to parse
    if entry is None:
        entry = _Parsed(st.st_dev, st.st_ino)
    else:  # work on a copy of the mutable parts so a concurrent reader never sees a half update
        entry = _Parsed(entry.dev, entry.ino, entry.head, entry.consumed, entry.lines, list(entry.turns),
                        list(entry.history), dict(entry.ids), list(entry.bad_lines), entry.bad_count)
    data = _pread_all(fd, entry.consumed, st.st_size) if st.st_size > entry.consumed else b""
    end = data.rfind(b"\n") + 1
    lines = entry.lines + data.count(b"\n", 0, end)
    if lines > max_lines:
        _forget(key)
        raise StorageError(f"session file {os.path.basename(key)} has {lines:,} lines, over the limit of "
                           f"{max_lines:,} turns (CTXNOTES_MAX_SESSION_TURNS); split or delete it")
    for raw in data[:end].split(b"\n")[:-1]:
        entry.lines += 1
        if not entry.head:
            entry.head = raw[:256]
        turn = _parse_line(raw, max_line_bytes)
        if turn is None:
            if raw.strip():
                entry.bad_count += 1
                if len(entry.bad_lines) < SHOWN_BAD_LINES:
                    entry.bad_lines.append(entry.lines)
            continue
        entry.ids[turn["id"]] = len(entry.turns)
        entry.turns.append(turn)
        shaped = {"role": turn["role"], "content": turn["content"], "id": turn["id"]}
        # Every key build_context reads: a tool turn's call id and name shape its message and label.
        for name in ("timestamp", "tool_call_id", "name"):
            if turn.get(name) is not None:
                shaped[name] = turn[name]
        entry.history.append(shaped)
    entry.consumed += end
    entry.tail_bytes = len(data) - end
    entry.size = st.st_size
    entry.mtime_ns = st.st_mtime_ns
    with _cache_lock:
        _cache[key] = entry
        _cache.move_to_end(key)
        # Bounded by count and by estimated memory; the newest parse is always kept (one session at
        # its limits, 64 MiB and 20,000 lines, costs ~84 MiB).
        while len(_cache) > CACHED_SESSIONS or (len(_cache) > 1 and sum(e.cost for e in _cache.values())
                                                > CACHED_BYTES):
            _cache.popitem(last=False)
    return entry


def _unparsed_bytes(key: str, st: os.stat_result) -> int:
    """Bytes of the file ``key`` (with stat ``st``) that reading it would parse: what the cache lacks."""
    entry = _cache.get(key)
    return st.st_size - entry.consumed if entry is not None and _continues(entry, st) else st.st_size


def _continues(entry: _Parsed, st: os.stat_result) -> bool:
    """The file with stat ``st`` may be the one ``entry`` parsed, grown (the same inode, no shorter);
    _refresh also compares the first bytes before it trusts that."""
    return (entry.dev, entry.ino) == (st.st_dev, st.st_ino) and st.st_size >= entry.consumed


def _forget(key: str) -> None:
    with _cache_lock:
        _cache.pop(key, None)


# -- Git policy ------------------------------------------------------------------------------------

def git_mode(root: Path) -> str:
    """``sessions_git`` in ``<workspace>/.ctxnotes.yaml``: "ignore" (default) or "commit"."""
    import yaml  # PyYAML is already a dependency of the store

    from .files.front_matter import BadFile
    from .files.safe_read import read_regular_file
    try:  # read like any workspace file: it may come from someone else's repository
        raw, _ = read_regular_file(root / ".ctxnotes.yaml", 64 * 1024)
        data = yaml.safe_load(raw.decode("utf-8"))
    except FileNotFoundError:
        return "ignore"
    except (OSError, BadFile, UnicodeDecodeError, yaml.YAMLError):
        return "ignore"
    value = data.get(GIT_CONFIG_KEY, "ignore") if isinstance(data, dict) else "ignore"
    if value is True:
        return "commit"
    if value is False or value is None:
        return "ignore"
    if value not in GIT_MODES:
        raise InvalidInput(f"{GIT_CONFIG_KEY}: {value!r} in .ctxnotes.yaml is not allowed: use 'ignore' "
                           "(sessions stay out of Git) or 'commit' (sessions/ can be committed)")
    return str(value)


def apply_git_policy(root: Path) -> bool:
    """Make the workspace's ``.gitignore`` agree with ``sessions_git``; returns whether it changed.

    "ignore" adds ``sessions/``; "commit" removes only the line this function added.
    """
    mode = git_mode(root)
    path = root / ".gitignore"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        from .files.layout import GITIGNORE  # the file a workspace starts with: keep the index ignored too
        text = GITIGNORE
    except (OSError, UnicodeDecodeError):
        return False  # a .gitignore we cannot read is the user's business; never overwrite it
    lines = text.splitlines()
    present = any(line.strip() in (GITIGNORE_LINE, GITIGNORE_LINE.rstrip("/"), "/" + GITIGNORE_LINE)
                  for line in lines)
    if mode == "ignore" and not present:
        sep = "" if not text or text.endswith("\n") else "\n"
        new = f"{text}{sep}{GITIGNORE_COMMENT}\n{GITIGNORE_LINE}\n"
    elif mode == "commit" and GITIGNORE_COMMENT in lines:
        i = lines.index(GITIGNORE_COMMENT)
        if i + 1 < len(lines) and lines[i + 1].strip() == GITIGNORE_LINE:
            del lines[i:i + 2]
        else:
            del lines[i]
        new = "\n".join(lines) + ("\n" if lines else "")
    else:
        return False
    atomic_write(path, new.encode("utf-8"))
    return True


# -- the store -------------------------------------------------------------------------------------

class SessionStore:
    """Append, page, list, delete and prune the sessions of one workspace folder.

    Thread- and process-safe: appends to one session are serialised by ``flock`` on its file.
    """

    def __init__(self, workspace_root: str | os.PathLike[str], *, max_turn_bytes: int | None = None,
                 max_session_bytes: int | None = None, max_session_turns: int | None = None,
                 clock: Any = time.time) -> None:
        self.root = Path(workspace_root).expanduser().resolve()
        self.folder = self.root / SESSIONS_DIR
        self.max_turn_bytes = max_turn_bytes or _env_int("CTXNOTES_MAX_TURN_BYTES", DEFAULT_MAX_TURN_BYTES)
        self.max_session_bytes = max_session_bytes or _env_int("CTXNOTES_MAX_SESSION_BYTES",
                                                               DEFAULT_MAX_SESSION_BYTES)
        self.max_session_turns = max_session_turns or _env_int("CTXNOTES_MAX_SESSION_TURNS",
                                                               DEFAULT_MAX_SESSION_TURNS)
        # Reading skips lines longer than any turn this store (or one with the default limit) writes.
        self._max_line_bytes = max(self.max_turn_bytes, DEFAULT_MAX_TURN_BYTES)
        self.clock = clock
        self._policy_checked = False

    def path(self, session_id: str) -> Path:
        return self.folder / f"{check_session_id(session_id)}{SUFFIX}"

    # -- reading -------------------------------------------------------------------------------
    @contextlib.contextmanager
    def _open_read(self, session_id: str) -> Iterator[tuple[int, os.stat_result, str]]:
        path = self.path(session_id)
        try:
            fd = os.open(path, _READ_FLAGS)
        except OSError as exc:
            raise self._open_error(exc, session_id) from None
        try:
            st = os.fstat(fd)
            self._check_file(st, session_id)
            yield fd, st, str(path)
        finally:
            os.close(fd)

    def _open_error(self, exc: OSError, session_id: str) -> Exception:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            return NotFound(f"no session {session_id!r}: append a turn to create it, or list sessions "
                            "with session list")
        if exc.errno == errno.ELOOP:
            return StorageError(f"session file {session_id}{SUFFIX} is a symbolic link; links are not followed")
        if exc.errno in (errno.ENXIO, errno.EISDIR):
            return StorageError(f"session file {session_id}{SUFFIX} is not a regular file; remove or rename it")
        return StorageError(f"cannot open session {session_id}: {exc.strerror or exc}")

    def _check_file(self, st: os.stat_result, session_id: str) -> None:
        if not stat.S_ISREG(st.st_mode):
            raise StorageError(f"session file {session_id}{SUFFIX} is not a regular file (a FIFO, socket or "
                               "device); remove or rename it")
        if st.st_size > self.max_session_bytes:
            raise StorageError(f"session {session_id} is {st.st_size} bytes, over the limit of "
                               f"{self.max_session_bytes} bytes (CTXNOTES_MAX_SESSION_BYTES); delete or prune it, "
                               "or continue in a new session")

    def _parsed(self, session_id: str) -> _Parsed:
        session_id = check_session_id(session_id)
        with self._open_read(session_id) as (fd, st, key):
            return _refresh(key, fd, st, self.max_session_turns, self._max_line_bytes)

    def turns(self, session_id: str, offset: int = 0, limit: int = 50,
              max_chars: int | None = None) -> TurnsPage:
        """Turns ``offset`` .. ``offset + limit`` (oldest first); a negative offset counts from the end.

        ``max_chars`` (of JSON) ends a page early; a page always holds at least one turn.
        """
        session_id = check_session_id(session_id)
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_PAGE_TURNS:
            raise InvalidInput(f"limit must be a whole number from 1 to {MAX_PAGE_TURNS}")
        if isinstance(offset, bool) or not isinstance(offset, int):
            raise InvalidInput("offset must be a whole number (negative counts from the end)")
        entry = self._parsed(session_id)
        total = len(entry.turns)
        start = max(0, total + offset) if offset < 0 else min(offset, total)
        page: list[dict[str, Any]] = []
        used = 0
        for turn in entry.turns[start:start + limit]:
            size = len(json.dumps(turn, ensure_ascii=False))
            if page and max_chars is not None and used + size > max_chars:
                break
            page.append(dict(turn))
            used += size
        end = start + len(page)
        return TurnsPage(session_id, total, start, page, end if end < total else None,
                         entry.tail_bytes, list(entry.bad_lines), _read_warnings(session_id, entry))

    def history(self, session_id: str) -> list[dict[str, Any]]:
        """Every turn in the shape build_context's ``history`` takes: role, content, id, and timestamp,
        tool_call_id and name when given.

        A new list each call; the turn dicts are shared with the parse cache (no per-call copies of a long
        session), so read them, do not change them."""
        return list(self._parsed(session_id).history)

    def version(self, session_id: str) -> tuple[int, str | None]:
        """(number of turns, id of the last turn): changes whenever the session grows."""
        entry = self._parsed(session_id)
        return len(entry.turns), entry.turns[-1]["id"] if entry.turns else None

    def exists(self, session_id: str) -> bool:
        return self.path(session_id).exists()

    def list(self, limit: int = 100, offset: int = 0) -> tuple[int, list[SessionInfo]]:
        """(total, sessions): most recently updated first; turn counts come from the (cached) parse."""
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 1000:
            raise InvalidInput("limit must be a whole number from 1 to 1000")
        if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
            raise InvalidInput("offset must be a whole number >= 0")
        found: list[tuple[int, str, os.stat_result]] = []
        try:
            entries = list(os.scandir(self.folder))
        except FileNotFoundError:
            return 0, []
        for e in entries:
            if not e.name.endswith(SUFFIX) or e.name.startswith("."):
                continue
            try:
                st = e.stat(follow_symlinks=False)
            except OSError:
                continue
            found.append((st.st_mtime_ns, e.name[: -len(SUFFIX)], st))
        found.sort(key=lambda f: (-f[0], f[1]))
        out: list[SessionInfo] = []
        budget = LIST_PARSE_BYTES
        for mtime_ns, sid, st in found[offset:offset + limit]:
            updated = datetime.fromtimestamp(mtime_ns / 1e9, timezone.utc).isoformat(timespec="seconds")
            info = SessionInfo(sid, None, st.st_size, updated, f"session://{sid}")
            pending = _unparsed_bytes(str(self.folder / f"{sid}{SUFFIX}"), st)
            if pending > budget:
                info.problem = (f"turns not counted: one listing parses at most {LIST_PARSE_BYTES >> 20} MiB of "
                                f"session files; read session://{sid} for its turns")
                out.append(info)
                continue
            budget -= pending
            try:
                info.turns = len(self._parsed(sid).turns)
            except (InvalidInput, StorageError) as exc:
                info.problem = str(exc)
            except NotFound:
                continue
            out.append(info)
        return len(found), out

    # -- writing -------------------------------------------------------------------------------
    def append(self, session_id: str, turns: Sequence[dict[str, Any]]) -> AppendResult:
        """Append ``turns`` durably (fsync before returning) and return their ids.

        A turn whose ``id`` is already in the session with the same role and content is skipped
        (so a retried append does not duplicate); the same id with other content is an error.
        """
        session_id = check_session_id(session_id)
        checked = _checked_turns(turns)
        self._ensure_folder()
        path = self.folder / f"{session_id}{SUFFIX}"
        with self._locked_append(path, session_id) as (fd, st):
            entry = _refresh(str(path), fd, st, self.max_session_turns, self._max_line_bytes)
            warnings = _read_warnings(session_id, entry)
            repaired = 0
            if entry.tail_bytes:
                # An unfinished line from a writer killed mid-write was never acknowledged: cut it
                # off so the new turns start on their own line.
                repaired = entry.tail_bytes
                os.ftruncate(fd, entry.consumed)
                warnings.append(f"removed an incomplete last line ({repaired} bytes) left by an interrupted "
                                "append; no acknowledged turn was lost")
            lines, ids, duplicates = _new_lines(session_id, checked, entry, self.max_turn_bytes)
            data = b"".join(lines)
            self._check_growth(session_id, entry, len(lines), len(data))
            if data:
                self._write_durably(session_id, fd, data, entry.consumed, new_file=entry.consumed == 0 and not repaired)
            total = len(entry.turns) + len(ids)
        return AppendResult(session_id, len(ids), ids, duplicates, total, repaired, warnings)

    def _check_growth(self, session_id: str, entry: _Parsed, new_lines: int, new_bytes: int) -> None:
        """Refuse an append that would take the session over its turn or byte limit."""
        if entry.lines + new_lines > self.max_session_turns:
            raise InvalidInput(f"session {session_id} would grow to {entry.lines + new_lines:,} turns, over the "
                               f"limit of {self.max_session_turns:,} (CTXNOTES_MAX_SESSION_TURNS); continue in a new "
                               "session")
        if entry.consumed + new_bytes > self.max_session_bytes:
            raise InvalidInput(f"session {session_id} would grow to {entry.consumed + new_bytes} bytes, over the "
                               f"limit of {self.max_session_bytes} (CTXNOTES_MAX_SESSION_BYTES); prune it or "
                               "continue in a new session")

    def _write_durably(self, session_id: str, fd: int, data: bytes, consumed: int, new_file: bool) -> None:
        """Write and fsync ``data`` at the end of the locked file (and its folder for a ``new_file``); on a
        failure cut the file back to ``consumed`` bytes, so no partial turn is left behind."""
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
            if new_file:
                fsync_dir(self.folder)  # a new file: make its name durable too
        except OSError as exc:
            # Leave no partial turn behind: cut back to what was there before.
            with contextlib.suppress(OSError):
                os.ftruncate(fd, consumed)
                os.fsync(fd)
            raise StorageError(f"could not append to session {session_id}: {exc.strerror or exc}; "
                               "nothing was stored — check free space and permissions") from exc

    @contextlib.contextmanager
    def _locked_append(self, path: Path, session_id: str) -> Iterator[tuple[int, os.stat_result]]:
        """The session file opened for appending and exclusively locked; retried if it was deleted
        or replaced while we waited for the lock (an append must never land in an unlinked file)."""
        deadline = time.monotonic() + LOCK_TIMEOUT_S
        while True:
            try:
                fd = os.open(path, _APPEND_FLAGS, 0o644)
            except OSError as exc:
                raise self._open_error(exc, session_id) from None
            try:
                st = os.fstat(fd)
                if not stat.S_ISREG(st.st_mode):
                    raise StorageError(f"session file {session_id}{SUFFIX} is not a regular file; remove or rename it")
                _flock(fd, deadline, session_id)
                try:
                    now = os.stat(path, follow_symlinks=False)
                except FileNotFoundError:
                    now = None
                if now is None or (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino):
                    continue  # deleted or replaced meanwhile: open the current file
                st = os.fstat(fd)
                self._check_file(st, session_id)
                yield fd, st
                return
            finally:
                os.close(fd)  # closing releases the flock

    def delete(self, session_id: str) -> bool:
        """Remove a session file (durably); False when it did not exist."""
        session_id = check_session_id(session_id)
        path = self.folder / f"{session_id}{SUFFIX}"
        try:
            fd = os.open(path, _READ_FLAGS)
        except OSError as exc:
            if exc.errno in (errno.ENOENT, errno.ENOTDIR):
                return False
            if exc.errno not in (errno.ELOOP, errno.ENXIO):
                raise self._open_error(exc, session_id) from None
            fd = -1  # a link or FIFO named like a session: remove the name, never open it
        try:
            if fd >= 0:
                _flock(fd, time.monotonic() + LOCK_TIMEOUT_S, session_id)  # wait for a running append
            os.unlink(path)
            fsync_dir(self.folder)
        except FileNotFoundError:
            return False
        except OSError as exc:
            raise StorageError(f"could not delete session {session_id}: {exc.strerror or exc}") from exc
        finally:
            if fd >= 0:
                os.close(fd)
            _forget(str(path))
        return True

    def prune(self, older_than_seconds: float, dry_run: bool = False) -> builtins.list[str]:
        """Delete sessions with no append for ``older_than_seconds``; returns their ids."""
        if isinstance(older_than_seconds, bool) or not isinstance(older_than_seconds, (int, float)) \
                or not older_than_seconds > 0 or not math.isfinite(older_than_seconds):
            raise InvalidInput("older_than must be a positive duration, e.g. 30d, 12h or 3600 (seconds)")
        cutoff = self.clock() - older_than_seconds
        try:
            entries = list(os.scandir(self.folder))
        except FileNotFoundError:
            return []
        old = []
        for e in entries:
            if e.name.endswith(SUFFIX) and not e.name.startswith("."):
                try:
                    if e.stat(follow_symlinks=False).st_mtime < cutoff:
                        old.append(e.name[: -len(SUFFIX)])
                except OSError:
                    continue
        old.sort()
        if dry_run:
            return old
        removed = []
        for sid in old:
            try:
                sid = check_session_id(sid)
            except InvalidInput:
                continue  # a hand-made file with an odd name: not ours to delete
            path = self.folder / f"{sid}{SUFFIX}"
            try:  # re-check under the lock: an append may have just made it recent again
                fd = os.open(path, _READ_FLAGS)
            except OSError:
                continue
            try:
                _flock(fd, time.monotonic() + LOCK_TIMEOUT_S, sid)
                st = os.fstat(fd)
                if st.st_mtime >= cutoff or not stat.S_ISREG(st.st_mode):
                    continue
                os.unlink(path)
                removed.append(sid)
            except FileNotFoundError:
                continue
            finally:
                os.close(fd)
                _forget(str(path))
        if removed:
            fsync_dir(self.folder)
        return removed

    def _ensure_folder(self) -> None:
        if not self.folder.is_dir():
            try:
                self.root.mkdir(parents=True, exist_ok=True)
                self.folder.mkdir(exist_ok=True)
                fsync_dir(self.root)
            except OSError as exc:
                raise StorageError(f"cannot create {self.folder}: {exc.strerror or exc}") from exc
        if not self._policy_checked:
            apply_git_policy(self.root)
            self._policy_checked = True


def _new_id(position: int, taken: set[str]) -> str:
    """``turn-<position>``: the id build_context gives an id-less turn at that position, so a session
    build and a build given the same turns as history report the same ids."""
    candidate = f"turn-{position}"
    while candidate in taken:
        candidate = f"turn-{position}-{secrets.token_hex(3)}"
    return candidate


def _flock(fd: int, deadline: float, session_id: str) -> None:
    flock_with_deadline(fd, deadline, f"session {session_id} is locked by another writer for over "
                                      f"{LOCK_TIMEOUT_S:.0f} s; if that process is hung, stop it")


def _read_warnings(session_id: str, entry: _Parsed) -> list[str]:
    out = []
    if entry.tail_bytes:
        out.append(f"session {session_id}: ignored an incomplete last line ({entry.tail_bytes} bytes; an append "
                   "in progress, or one interrupted by a crash)")
    if entry.bad_count:
        shown = ", ".join(map(str, entry.bad_lines[:10]))
        out.append(f"session {session_id}: skipped {entry.bad_count} line(s) that are not turns "
                   f"(line {shown}); fix or remove them by hand")
    return out


def parse_duration(text: str) -> float:
    """``30d``, ``12h``, ``15m``, ``90s``, ``2w`` or plain seconds -> seconds."""
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
    value = str(text).strip().lower()
    try:
        seconds = float(value[:-1]) * units[value[-1]] if value and value[-1] in units else float(value)
    except ValueError:
        raise InvalidInput(f"duration {text!r} is not valid: use e.g. 30d, 12h, 15m, 90s or seconds") from None
    if not seconds > 0 or not math.isfinite(seconds):
        raise InvalidInput(f"duration {text!r} must be positive")
    return seconds


def session_history(workspace_root: str | os.PathLike[str], session_id: str) -> list[dict[str, Any]]:
    """The stored turns of ``session_id`` as build_context's ``history`` (stored session first;
    append any passed history after it)."""
    return SessionStore(workspace_root).history(session_id)


def history_with_session(workspace_root: str | os.PathLike[str], session_id: str | None,
                         history: list[dict[str, Any]] | None) -> list[dict[str, Any]] | None:
    """build_context's ``history`` for a call that names a session: the stored turns first, then the passed
    ones; without a session_id, the passed history unchanged. Raises ``NotFound``/``InvalidInput``."""
    if not session_id:
        return history
    return session_history(workspace_root, session_id) + list(history or [])
