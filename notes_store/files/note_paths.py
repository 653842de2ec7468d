"""Note ids that are paths: ``user/features/Daily notes`` is ``notes/user/features/Daily notes.md``.

Any Markdown file under ``notes/``, at any depth, is a note; its id is its path relative to ``notes/``
without ``.md`` (the same on every clone, and nothing is written to the file to give it one). This
module is the one place that turns ids into paths and back, so it is also the one place that keeps
them inside ``notes/``:

* ``check_note_id`` refuses ``..`` and ``.`` segments, absolute paths (``/x``, ``C:/x``), backslashes,
  NUL and other control characters, percent-encoded dots, slashes and backslashes (``%2e%2e``, a
  double encoding), empty segments, hidden segments (``.obsidian/x``: never scanned), and Unicode
  look-alikes of ``/``, ``\\`` and ``.`` (U+2215, U+FF0F, U+2024, U+FF0E, ...: whatever NFKC turns into
  one of them), each with an error that says what was wrong and how to fix it.
* ``safe_note_path`` joins an id to the folder and refuses one whose folders are symbolic links (a
  symlinked folder pointing outside), so that a write lands inside ``notes/`` or nowhere.
* ``filename_from_title`` names a file from a title as editors do: characters they forbid are dropped,
  spaces and CJK stay.
* ``encode_uri_id`` / ``decode_uri_id``: the one canonical RFC 3986 form of an id in a ``note://`` URI.
* ``IgnoreRules``: which folders and files a scan skips: ``.obsidian``, ``.git``, ``.trash`` and every
  other hidden name, plus the patterns of ``.ctxnotesignore`` and ``.gitignore`` files (the gitignore
  syntax: ``*``, ``?``, ``[...]``, ``**``, leading and trailing ``/``, ``!`` negation, comments).

Pure functions apart from ``safe_note_path`` (which looks at folders with ``lstat``); may import
``errors`` only.
"""

from __future__ import annotations

import os
import re
import stat
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..errors import InvalidInput

SUFFIX = ".md"
MAX_ID_CHARS = 1024          # a whole id (PATH_MAX is 4096 bytes; ids show up in every result)
MAX_SEGMENT_BYTES = 255 - len(SUFFIX)   # a file or folder name: NAME_MAX is 255 bytes, with ".md"
MAX_DEPTH = 32               # folders in an id
ALWAYS_SKIPPED = frozenset({".obsidian", ".git", ".trash", ".foam", ".vscode", ".ctxnotes"})

_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_ENCODED_RE = re.compile(r"%(2e|2f|5c|00)", re.IGNORECASE)
_DRIVE_RE = re.compile(r"^[A-Za-z]:(?:[/\\]|$)")
_SEPARATOR_LIKE = frozenset("/\\.")
_ELLIPSIS = "\u2026"   # "…" is typed in titles; NFKC makes it "...", never a segment of its own (see below)


def _shown(value: str) -> str:
    return repr(value if len(value) <= 80 else value[:80] + "…")


# Look-alikes NFKC leaves alone (from Unicode's confusables list for '/', '\\' and '.').
# Letters that merely look alike (katakana ノ, CJK radicals) stay: they are words in real file names.
_CONFUSABLES = frozenset("\u2044\u2215\u2571\u29f8\u1735"      # / (fraction slash, division slash, ...)
                         "\u2216\u2572\u29f5\u29f9"             # \\ (set minus, ...)
                         "\u0701\u0702\u2e31\ua4f8\ua60e\U00010a50\U0001d16d")   # . (Syriac, Lisu, Vai stops)


def _lookalike(ch: str) -> bool:
    """A character that is not ``/``, ``\\`` or ``.`` but looks like one: NFKC turns it into (a text holding)
    one, or it is on Unicode's list of their confusables."""
    if ch in _SEPARATOR_LIKE or ch.isascii():
        return False
    if ch in _CONFUSABLES:
        return True
    folded = unicodedata.normalize("NFKC", ch)
    return folded != ch and any(c in _SEPARATOR_LIKE for c in folded)


def note_id_problem(value: str) -> str | None:
    """Why ``value`` is not a note id as stored (a path relative to ``notes/`` without ``.md``); None if it is."""
    if not value:
        return "it is empty"
    if len(value) > MAX_ID_CHARS:
        return f"it is {len(value)} characters, over the limit of {MAX_ID_CHARS}"
    if "\x00" in value:
        return "it contains a NUL character"
    if _CONTROL_RE.search(value):
        return "it contains control characters (newlines, tabs, ...)"
    if "\\" in value:
        return "it contains a backslash; folders are separated by '/'"
    if _DRIVE_RE.match(value) or value.startswith("/"):
        return "it is an absolute path; ids are paths relative to the notes folder"
    if _ENCODED_RE.search(value):
        return "it contains a percent-encoded '.', '/', '\\' or NUL (%2e, %2f, %5c, %00); pass the id decoded"
    for ch in value:
        if _lookalike(ch) and ch != _ELLIPSIS:
            return (f"it contains {ch!r} (U+{ord(ch):04X}), a look-alike of '/', '\\' or '.'; "
                    "use plain characters")
    segments = value.split("/")
    if len(segments) > MAX_DEPTH + 1:
        return f"it is {len(segments) - 1} folders deep, over the limit of {MAX_DEPTH}"
    for seg in segments:
        if not seg:
            return "it has an empty folder name ('//', or a '/' at the start or end)"
        if seg in (".", ".."):
            return f"it has a {seg!r} segment; ids may not leave or re-enter folders"
        if seg.startswith("."):
            return f"it has a hidden name {seg!r} (starting with '.'), which is never read as a note"
        if seg != seg.strip():
            return f"the name {seg!r} starts or ends with spaces"
        folded = unicodedata.normalize("NFKC", seg)
        if folded.strip(".") == "" or folded.startswith("."):  # "…", "..…": dots once normalised
            return f"the name {seg!r} is made of dots once Unicode-normalised"
        if len(seg.encode("utf-8", "surrogatepass")) > MAX_SEGMENT_BYTES:
            return f"the name {seg[:40]!r}… is over {MAX_SEGMENT_BYTES} bytes"
        try:
            seg.encode("utf-8")
        except UnicodeEncodeError:
            return "it contains unpaired surrogate characters"
    return None


def is_note_id(value: str) -> bool:
    """Whether ``value`` is an id exactly as stored."""
    return note_id_problem(value) is None


def check_note_id(value: object, what: str = "note_id") -> str:
    """A caller's id, checked: surrounding spaces and a trailing ``.md`` are dropped; InvalidInput otherwise."""
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(f"{what} is required: pass the id returned by create/search/list "
                           "(a path under notes/ without .md, e.g. 'projects/Plan' or 'note_20260101_120000_ab12cd34')")
    text = value.strip()
    if text.endswith(SUFFIX) and len(text) > len(SUFFIX):
        text = text[:-len(SUFFIX)]
    problem = note_id_problem(text)
    if problem is not None:
        raise InvalidInput(f"{what} {_shown(text)} is not a valid id: {problem}. An id is a path under notes/ "
                           "without .md, e.g. 'projects/Plan'; use an id returned by search/list")
    return text


def id_to_relpath(note_id: str) -> str:
    """``a/b`` -> ``a/b.md`` (the caller has checked the id)."""
    return note_id + SUFFIX


def relpath_to_id(relpath: str) -> str | None:
    """The id of a file at ``relpath`` (POSIX, relative to ``notes/``), or None when it is not a note's path."""
    if not relpath.endswith(SUFFIX) or len(relpath) <= len(SUFFIX):
        return None
    note_id = relpath[:-len(SUFFIX)]
    return note_id if note_id_problem(note_id) is None else None


def safe_note_path(folder: Path, note_id: str, *, create_folders: bool = False) -> Path:
    """``folder/<id>.md`` for a checked id, refusing folders on the way that are symbolic links or not folders.

    A folder link inside ``notes/`` could point anywhere (``notes/x -> /etc``); such an id is refused, so a
    read, write or delete by id stays inside ``notes/``. ``create_folders`` makes missing folders (mode 0o777
    less the umask) for a write; each one made is checked again after ``mkdir``, so a race cannot swap in a link.
    """
    problem = note_id_problem(note_id)
    if problem is not None:
        raise InvalidInput(f"note_id {_shown(note_id)} is not a valid id: {problem}")
    parts = note_id.split("/")
    current = folder
    for name in parts[:-1]:
        current = current / name
        try:
            st = os.lstat(current)
        except FileNotFoundError:
            if not create_folders:
                break  # the file is not there either: the caller's open says so
            try:
                os.mkdir(current)
            except FileExistsError:
                pass
            st = os.lstat(current)
        if stat.S_ISLNK(st.st_mode):
            raise InvalidInput(f"note_id {_shown(note_id)} goes through {name!r}, a symbolic link; links are "
                               "not followed (ids stay inside the notes folder): use the real folder's path")
        if not stat.S_ISDIR(st.st_mode):
            raise InvalidInput(f"note_id {_shown(note_id)} goes through {name!r}, which is a file, not a folder")
    return folder.joinpath(*parts[:-1], parts[-1] + SUFFIX)


# -- file names from titles ---------------------------------------------------------------------
# Obsidian refuses * " \ / < > : | ? in file names and # ^ [ ] | in names it links to; Windows refuses
# the same set plus trailing dots and spaces. Control characters and look-alikes of '/', '\' and '.' go too.
_FORBIDDEN_IN_NAME = frozenset('*"\\/<>:|?#^[]')
_WINDOWS_RESERVED = frozenset({"CON", "PRN", "AUX", "NUL", *(f"COM{i}" for i in range(1, 10)),
                               *(f"LPT{i}" for i in range(1, 10))})
MAX_NAME_BYTES = 200   # room for " 2" suffixes under NAME_MAX


def filename_from_title(title: str, *, fallback: str = "Untitled") -> str:
    """A file name (without ``.md``) for a note titled ``title``, as editors name new notes.

    Spaces, case and CJK stay; characters editors forbid in names are dropped (a ``/`` does not make a
    folder), runs of spaces become one, leading dots and spaces go, and the name is cut to
    ``MAX_NAME_BYTES`` bytes at a character boundary. The result is always one valid id segment.
    """
    kept = []
    for ch in title:
        if ch in _FORBIDDEN_IN_NAME or _CONTROL_RE.match(ch) or (_lookalike(ch) and ch != _ELLIPSIS):
            kept.append(" ")
        elif unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"):
            continue
        else:
            kept.append(" " if ch.isspace() else ch)
    name = " ".join("".join(kept).split())
    name = name.lstrip(". " + _ELLIPSIS).rstrip(". ")
    encoded = name.encode("utf-8")
    if len(encoded) > MAX_NAME_BYTES:
        name = encoded[:MAX_NAME_BYTES].decode("utf-8", "ignore").rstrip(". ")
    if name.upper().split(".")[0] in _WINDOWS_RESERVED:
        name += "_"
    if not name or note_id_problem(name) is not None:
        name = fallback
    return name


def join_id(folder: str, name: str) -> str:
    """``folder/name`` (or ``name`` for the top folder), checked as a whole (a trailing ``/`` is dropped; a
    leading one is an absolute path, refused)."""
    folder = folder.strip().rstrip("/")
    note_id = f"{folder}/{name}" if folder else name
    return check_note_id(note_id, "folder")


# -- note:// URIs ---------------------------------------------------------------------------------
_UNRESERVED = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")


def encode_uri_id(note_id: str) -> str:
    """The id as a URI path: every byte of its UTF-8 that is not unreserved (RFC 3986 section 2.3) nor a
    ``/`` between segments is percent-encoded with upper-case hex digits, the one canonical form."""
    out = []
    for byte in note_id.encode("utf-8"):
        if byte in _UNRESERVED or byte == 0x2F:
            out.append(chr(byte))
        else:
            out.append(f"%{byte:02X}")
    return "".join(out)


_PCT_RE = re.compile(rb"%([0-9A-Fa-f]{2})")


def decode_uri_id(text: str, what: str = "note id in the URI") -> str:
    """Inverse of ``encode_uri_id``, strict: a ``%`` not followed by two hex digits, bytes that are not UTF-8,
    an encoded ``/`` (``%2F``: a slash inside a name) and anything ``check_note_id`` refuses once decoded
    (``%2e%2e``, ``%00``, ...) are InvalidInput. Raw non-ASCII text (an IRI) is accepted as is."""
    raw = text.encode("utf-8", "surrogatepass")
    if b"%" in raw:
        stripped = _PCT_RE.sub(b"", raw)
        if b"%" in stripped:
            raise InvalidInput(f"{what} {_shown(text)} has a '%' not followed by two hex digits; "
                               "percent-encode it as %25")
        if re.search(rb"%2[fF]", raw):
            raise InvalidInput(f"{what} {_shown(text)} holds an encoded '/' (%2F); a name cannot contain '/', "
                               "write folders with a plain '/'")
        raw = _PCT_RE.sub(lambda m: bytes([int(m.group(1), 16)]), raw)
    try:
        decoded = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidInput(f"{what} {_shown(text)} does not decode to UTF-8 text") from None
    if decoded != decoded.strip() or decoded.endswith(SUFFIX):
        raise InvalidInput(f"{what} {_shown(text)} is not canonical: no surrounding spaces and no .md")
    return check_note_id(decoded, what)


# -- what a scan skips ----------------------------------------------------------------------------
IGNORE_FILES = (".ctxnotesignore", ".gitignore")
MAX_IGNORE_FILE_BYTES = 64 * 1024
MAX_IGNORE_RULES = 1000
MAX_PATTERN_CHARS = 1024


def is_skipped_name(name: str) -> bool:
    """A folder or file name no scan enters: hidden names (``.obsidian``, ``.git``, ``.trash``, temp files)."""
    return name.startswith(".") or name in ALWAYS_SKIPPED


class _Glob:
    """One path segment of a gitignore pattern: ``*`` and ``?`` (never ``/``), ``[...]`` classes, literals.

    Matched by a two-pointer scan with one backtrack point (the classic wildcard algorithm): time is
    O(len(name) * len(pattern)) at worst, whatever the pattern, so a hostile ``*a*a*a*a*b`` costs little.
    """

    __slots__ = ("tokens", "literal")

    def __init__(self, text: str) -> None:
        tokens: list[tuple[str, str | tuple[bool, str]]] = []
        i = 0
        literal = True
        while i < len(text):
            ch = text[i]
            if ch == "\\" and i + 1 < len(text):
                tokens.append(("c", text[i + 1]))
                i += 2
                continue
            if ch == "*":
                literal = False
                if not tokens or tokens[-1][0] != "*":
                    tokens.append(("*", ""))
            elif ch == "?":
                literal = False
                tokens.append(("?", ""))
            elif ch == "[":
                end = text.find("]", i + 2)
                if end == -1:
                    tokens.append(("c", ch))
                else:
                    literal = False
                    body = text[i + 1:end]
                    negate = body[:1] in ("!", "^")
                    if negate:
                        body = body[1:]
                    tokens.append(("[", (negate, _expand_class(body))))
                    i = end + 1
                    continue
            else:
                tokens.append(("c", ch))
            i += 1
        self.tokens = tokens
        self.literal = "".join(str(t[1]) for t in tokens) if literal else None

    def match(self, name: str) -> bool:
        if self.literal is not None:
            return name == self.literal
        tokens = self.tokens
        t = n = 0
        star_t = -1
        star_n = 0
        while n < len(name):
            if t < len(tokens):
                kind, arg = tokens[t]
                if kind == "*":
                    star_t, star_n = t, n
                    t += 1
                    continue
                if kind == "?" or (kind == "c" and arg == name[n]) or (
                        kind == "[" and isinstance(arg, tuple) and (name[n] in arg[1]) != arg[0]):
                    t += 1
                    n += 1
                    continue
            if star_t >= 0:
                star_n += 1
                n = star_n
                t = star_t + 1
                continue
            return False
        while t < len(tokens) and tokens[t][0] == "*":
            t += 1
        return t == len(tokens)


def _expand_class(body: str) -> str:
    chars: list[str] = []
    i = 0
    while i < len(body):
        if i + 2 < len(body) and body[i + 1] == "-":
            lo, hi = ord(body[i]), ord(body[i + 2])
            if hi - lo <= 4096:
                chars.extend(chr(c) for c in range(lo, hi + 1))
            i += 3
        else:
            chars.append(body[i])
            i += 1
    return "".join(chars)


@dataclass(frozen=True)
class _Rule:
    base: tuple[str, ...]       # the folder of the ignore file, as segments relative to the scan root
    segments: tuple[_Glob | None, ...]   # None is ``**`` (any number of segments)
    negate: bool
    dir_only: bool
    anchored: bool

    def matches(self, parts: tuple[str, ...], is_dir: bool) -> bool:
        if self.dir_only and not is_dir:
            return False
        if parts[:len(self.base)] != self.base:
            return False
        rel = parts[len(self.base):]
        if not rel:
            return False
        if not self.anchored:
            glob = self.segments[0]
            return glob is not None and glob.match(rel[-1])
        return _match_segments(self.segments, rel)


def _match_segments(pattern: tuple[_Glob | None, ...], parts: tuple[str, ...]) -> bool:
    """Segments against segments, ``None`` matching zero or more: a DP of len(pattern) x len(parts)."""
    reach = [False] * (len(parts) + 1)
    reach[0] = True
    for glob in pattern:
        nxt = [False] * (len(parts) + 1)
        if glob is None:
            seen = False
            for j in range(len(parts) + 1):
                seen = seen or reach[j]
                nxt[j] = seen
        else:
            for j in range(len(parts)):
                if reach[j] and glob.match(parts[j]):
                    nxt[j + 1] = True
        reach = nxt
        if not any(reach):
            return False
    return reach[len(parts)]


def parse_ignore_rule(line: str, base: tuple[str, ...] = ()) -> _Rule | None:
    """One line of a ``.gitignore``: None for blanks, comments and lines that match nothing."""
    if len(line) > MAX_PATTERN_CHARS:
        return None
    line = line.rstrip("\r\n")
    # Trailing spaces go unless escaped with a backslash.
    stripped = line.rstrip(" ")
    if stripped.endswith("\\") and len(stripped) < len(line):
        stripped += " "
    line = stripped
    if not line or line.startswith("#"):
        return None
    negate = line.startswith("!")
    if negate:
        line = line[1:]
    elif line.startswith(("\\#", "\\!")):
        line = line[1:]
    dir_only = line.endswith("/")
    line = line.rstrip("/")
    if not line:
        return None
    anchored = "/" in line
    line = line.lstrip("/")
    if not line:
        return None
    pieces = line.split("/")
    segments: list[_Glob | None] = []
    for piece in pieces:
        if piece == "**":
            if not segments or segments[-1] is not None:
                segments.append(None)
        elif piece:
            segments.append(_Glob(piece))
    if not segments:
        return None
    if segments[-1] is None:        # "abc/**": everything inside, not abc itself
        segments.append(_Glob("*"))
    return _Rule(base, tuple(segments), negate, dir_only, anchored)


class IgnoreRules:
    """The skip rules of one scan root (``notes/``): hidden names always, then ignore-file patterns.

    Rules are added per folder (``add_file``) as a scan goes down, so a nested ``.gitignore`` applies to its
    folder only; the last matching rule decides, and a skipped folder is never entered (nothing under it
    can be re-included, as in Git). At most ``MAX_IGNORE_RULES`` rules in all.
    """

    def __init__(self) -> None:
        self._rules: list[_Rule] = []
        self.dropped = 0   # rules past the bound, for doctor

    def __bool__(self) -> bool:
        return bool(self._rules)

    def add_text(self, text: str, base: str = "") -> None:
        """Add the patterns of one ignore file that sits in folder ``base`` (relative to the root, POSIX)."""
        base_parts = tuple(p for p in base.split("/") if p)
        for line in text.splitlines():
            rule = parse_ignore_rule(line, base_parts)
            if rule is None:
                continue
            if len(self._rules) >= MAX_IGNORE_RULES:
                self.dropped += 1
                continue
            self._rules.append(rule)

    def add_file(self, path: Path, base: str = "") -> None:
        """Read an ignore file (a regular file, at most ``MAX_IGNORE_FILE_BYTES``; anything else is skipped)."""
        flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
        try:
            fd = os.open(path, flags)
        except OSError:
            return
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                return
            data = os.read(fd, MAX_IGNORE_FILE_BYTES)
        except OSError:
            return
        finally:
            os.close(fd)
        self.add_text(data.decode("utf-8", "replace"), base)

    def add_folder(self, folder: Path, base: str = "") -> None:
        """The ignore files found in ``folder`` (whose path relative to the root is ``base``)."""
        for name in IGNORE_FILES:
            self.add_file(folder / name, base)

    def ignored(self, relpath: str, is_dir: bool) -> bool:
        """Whether the entry at ``relpath`` itself is skipped (its folders are not looked at: a walk prunes them)."""
        parts = tuple(relpath.split("/"))
        if is_skipped_name(parts[-1]):
            return True
        result = False
        for rule in self._rules:
            if rule.negate == result and rule.matches(parts, is_dir):
                result = not rule.negate
        return result

    def ignored_path(self, relpath: str) -> bool:
        """Whether a file at ``relpath`` is skipped, itself or through any of its folders."""
        parts = relpath.split("/")
        for i in range(1, len(parts)):
            if self.ignored("/".join(parts[:i]), True):
                return True
        return self.ignored(relpath, False)


def walk_notes(root: Path, rules: IgnoreRules | None = None, *, max_files: int | None = None,
               max_depth: int = MAX_DEPTH, folders: list[tuple[str, int]] | None = None,
               strict: bool = False) -> Iterable[tuple[str, os.DirEntry[str]]]:
    """``(relpath, entry)`` of every ``*.md`` entry under ``root`` that the rules keep, depth first (in the order the folders list them).

    Entries whose path is not a valid id (``relpath_to_id`` is None: a name with a backslash or a control
    character) are yielded too, for the caller to list as unreadable rather than skip in silence. Symbolic links to folders are never entered (a link pointing outside stays outside); links and other
    non-regular ``*.md`` entries are yielded so the caller can report them. Ignore files in each folder are
    read as it is entered. ``root``'s own ignore files are read when ``rules`` is None.

    ``folders``, when given, receives ``(relpath, mtime_ns)`` of every folder entered (``""`` for ``root``):
    adding, removing or renaming an entry changes its folder's mtime. ``strict``: a folder that cannot be
    listed raises (a scan must not take its files for deleted); otherwise it is skipped.
    """
    if rules is None:
        rules = IgnoreRules()
        rules.add_folder(root)
    stack: list[tuple[Path, str, int]] = [(root, "", 0)]
    count = 0
    while stack:
        folder, base, depth = stack.pop()
        if base:
            rules.add_folder(folder, base)
        try:
            if folders is not None:
                folders.append((base, os.stat(folder).st_mtime_ns))
            with os.scandir(folder) as it:
                entries = list(it)
        except FileNotFoundError:
            continue
        except OSError:
            if strict:
                raise
            continue
        subfolders = []
        for de in entries:
            name = de.name
            if name.startswith(".") or name in ALWAYS_SKIPPED:
                continue
            rel = f"{base}/{name}" if base else name
            try:
                is_dir = de.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if rules and rules.ignored(rel, is_dir):
                continue
            if is_dir:
                if depth < max_depth:
                    subfolders.append((Path(de.path), rel, depth + 1))
            elif name.endswith(SUFFIX) and len(name) > len(SUFFIX):
                yield rel, de
                count += 1
                if max_files is not None and count >= max_files:
                    return
        stack.extend(reversed(subfolders))
