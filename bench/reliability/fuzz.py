"""Long fuzz run: random note and memory tool calls through the in-process MCP client, checked
against a model of what the store must hold.

    python -m bench.reliability.fuzz --calls 10000 [--seed 1] [--max-content-bytes 4096]

Prints calls, outcomes by kind, mismatches (with the first few spelled out) and the duration;
exits 1 when anything did not match. ``Driver`` is also the engine of the Hypothesis state
machine in ``tests/test_fuzz_stateful.py``.
"""

from __future__ import annotations

import argparse
import collections
import os
import random
import re
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .common import SyncClient, classify, error_text, server_for

NOTE_TYPES = ("task_state", "conclusion", "blocker", "action", "reference", "general")
MEMORY_TYPES = ("working", "episodic", "semantic")
CONTROL = re.compile(r"[\x00-\x1f\x7f]")
# Characters that stress YAML front matter, Markdown headings, the tokenizers and line handling.
NASTY = ["---", "--- ", ": ", "#", "# ", "'", '"', "{", "}", "[", "]", "&a", "*a", "!!python/object:os.system",
         "|", ">", "%", "@", "`", "\\", "\u2028", "\u0085", "\ufeff", "\u3000", "中文", "标题", "😀", "é", "\t",
         "\n", "\r", "\r\n", "\x00", "..", "/", "null", "~", "yes", "0x1F", "1e3", "2026-01-01"]


class Mismatch(AssertionError):
    """The store disagreed with the model."""


@dataclass
class NoteM:
    title: str
    content: str
    type: str
    tags: list[str]
    token: str


@dataclass
class MemM:
    content: str
    memory_type: str
    importance: float
    tags: list[str]
    token: str


@dataclass
class Model:
    notes: dict[str, NoteM] = field(default_factory=dict)
    memories: dict[str, MemM] = field(default_factory=dict)
    dead_notes: dict[str, str] = field(default_factory=dict)     # id -> its last token
    dead_tokens: list[str] = field(default_factory=list)         # tokens no live item holds any more


# -- the rules the tools promise (the model's idea of valid input) ---------------------------------------------

def title_ok(title: Any) -> bool:
    return (isinstance(title, str) and bool(title.strip()) and not CONTROL.search(title.strip())
            and len(title.strip()) <= 300)


def content_ok(content: Any, limit: int) -> bool:
    return isinstance(content, str) and "\x00" not in content and len(content.encode("utf-8")) <= limit


def norm_content(content: str) -> str:
    """What the store keeps: universal newlines (CRLF and lone CR become LF)."""
    return content.replace("\r\n", "\n").replace("\r", "\n")


def tags_ok(tags: Any) -> bool:
    if tags is None:
        return True
    if not isinstance(tags, list) or len(tags) > 50:
        return False
    for t in tags:
        if not isinstance(t, str) or not t.strip() or "," in t or CONTROL.search(t.strip()) or len(t.strip()) > 64:
            return False
    return True


def norm_tags(tags: list[str] | None) -> list[str]:
    return list(dict.fromkeys(t.strip() for t in tags or []))


class Driver:
    """Runs one tool call, checks its outcome and the returned data against the model, updates the model.

    Every check failure raises ``Mismatch``; ``stats`` counts outcomes per tool and kind.
    """

    def __init__(self, client: SyncClient, root: Path, max_content_bytes: int) -> None:
        self.c = client
        self.root = root
        self.limit = max_content_bytes
        self.m = Model()
        self.stats: collections.Counter[str] = collections.Counter()
        self.calls = 0
        self._tok = 0
        self.exclude: set[str] = set()

    # -- plumbing ------------------------------------------------------------------------------------------
    def token(self) -> str:
        self._tok += 1
        return f"tk{self._tok:08d}{os.getpid() % 97:02d}x"

    def call(self, name: str, args: dict[str, Any], expect_ok: bool | None) -> Any:
        if name in self.exclude:
            return None
        self.calls += 1
        r = self.c.call(name, args)
        kind = classify(name, r)
        self.stats[f"{name}:{kind}"] += 1
        if kind == "internal_error":
            raise Mismatch(f"{name}({_short(args)}) gave an internal error: {error_text(r)!r}")
        if expect_ok is True and kind != "ok":
            raise Mismatch(f"{name}({_short(args)}) should succeed, got error: {error_text(r)[:300]}")
        if expect_ok is False and kind == "ok":
            raise Mismatch(f"{name}({_short(args)}) should fail, but succeeded: {r.structured_content}")
        return r

    def check(self, cond: bool, message: str) -> None:
        if not cond:
            raise Mismatch(message)

    # -- notes ---------------------------------------------------------------------------------------------
    def note_create(self, title: Any, body: str, note_type: str, tags: Any) -> None:
        tok = self.token()
        content = f"{body} {tok} {body}" if isinstance(body, str) else body
        ok = (title_ok(title) and content_ok(content, self.limit) and note_type in NOTE_TYPES and tags_ok(tags))
        before = self._files("notes")
        r = self.call("note_create", {"title": title, "content": content, "note_type": note_type, "tags": tags},
                      expect_ok=ok)
        if not ok:
            self.check(self._files("notes") == before, f"a refused note_create changed notes/: {_short(title)}")
            return
        s = r.structured_content
        n = NoteM(title.strip(), norm_content(content), note_type, norm_tags(tags), tok)
        self.check(s["id"] not in self.m.notes and s["id"] not in self.m.dead_notes, f"id reused: {s['id']}")
        self._same_note(s, n, "note_create")
        self.m.notes[s["id"]] = n

    def note_read(self, note_id: str) -> None:
        expect = note_id in self.m.notes
        r = self.call("note_read", {"note_id": note_id}, expect_ok=expect)
        if expect:
            self._same_note(r.structured_content, self.m.notes[note_id], "note_read", with_content=True)

    def note_update(self, note_id: str, title: Any = None, body: str | None = None,
                    note_type: str | None = None, tags: Any = None) -> None:
        args: dict[str, Any] = {"note_id": note_id}
        tok = None
        if title is not None:
            args["title"] = title
        if body is not None:
            tok = self.token()
            args["content"] = f"{body} {tok}"
        if note_type is not None:
            args["note_type"] = note_type
        if tags is not None:
            args["tags"] = tags
        ok = (note_id in self.m.notes and (title is None or title_ok(title))
              and (body is None or content_ok(args["content"], self.limit))
              and (note_type is None or note_type in NOTE_TYPES) and tags_ok(tags))
        before = self._files("notes")
        r = self.call("note_update", args, expect_ok=ok)
        if not ok:
            self.check(self._files("notes") == before, f"a refused note_update changed notes/ ({_short(args)})")
            return
        n = self.m.notes[note_id]
        new = NoteM(title.strip() if title is not None else n.title,
                    norm_content(args["content"]) if body is not None else n.content,
                    note_type or n.type, norm_tags(tags) if tags is not None else n.tags, tok or n.token)
        self._same_note(r.structured_content, new, "note_update", with_content=True)
        if tok:
            self.m.dead_tokens.append(n.token)
        self.m.notes[note_id] = new

    def note_delete(self, note_id: str) -> None:
        expect = note_id in self.m.notes
        r = self.call("note_delete", {"note_id": note_id}, expect_ok=expect)
        if expect:
            self.check(r.structured_content["deleted"] is True and r.structured_content["id"] == note_id,
                       f"note_delete said {r.structured_content}")
            n = self.m.notes.pop(note_id)
            self.m.dead_notes[note_id] = n.token
            self.m.dead_tokens.append(n.token)
            self.check(not (self.root / "notes" / f"{note_id}.md").exists(), f"{note_id} still on disk")

    def note_search_token(self, note_id: str) -> None:
        n = self.m.notes[note_id]
        r = self.call("note_search", {"query": n.token, "limit": 10}, expect_ok=True)
        if r is None:
            return
        ids = [h["id"] for h in r.structured_content["hits"]]
        self.check(ids == [note_id], f"search for {n.token} (in {note_id}) found {ids}")

    def search_dead_token(self, token: str) -> None:
        r = self.call("note_search", {"query": token}, expect_ok=True)
        self.check(r.structured_content["total"] == 0,
                   f"deleted/replaced token {token} still found: {[h['id'] for h in r.structured_content['hits']]}")
        r = self.call("memory_search", {"query": token}, expect_ok=True)
        self.check(r is None or not r.structured_content["hits"], f"forgotten memory token {token} still found")

    def note_list_all(self) -> None:
        r = self.call("note_list", {"limit": 1000}, expect_ok=True)
        s = r.structured_content
        got = {n["id"]: n for n in s["notes"]}
        self.check(s["total"] == len(self.m.notes) and set(got) == set(self.m.notes),
                   f"note_list ids differ: extra {sorted(set(got) - set(self.m.notes))}, "
                   f"missing {sorted(set(self.m.notes) - set(got))}")
        for note_id, n in self.m.notes.items():
            self._same_note(got[note_id], n, "note_list")

    def _same_note(self, s: dict[str, Any], n: NoteM, what: str, with_content: bool = False) -> None:
        got = (s["title"], s["type"], list(s["tags"]))
        want = (n.title, n.type, n.tags)
        self.check(got == want, f"{what} {s.get('id')}: (title, type, tags) {got!r} != model {want!r}")
        if with_content:
            self.check(s["content"] == n.content,
                       f"{what} {s.get('id')}: content {s['content']!r:.200} != model {n.content!r:.200}")

    # -- memories ------------------------------------------------------------------------------------------
    def memory_add(self, body: str, memory_type: str, importance: float, tags: Any) -> None:
        tok = self.token()
        content = f"{body} {tok}"
        ok = (content_ok(content, self.limit) and memory_type in MEMORY_TYPES and 0 <= importance <= 1
              and tags_ok(tags))
        before = self._files("memory")
        r = self.call("memory_add", {"content": content, "memory_type": memory_type, "importance": importance,
                                     "tags": tags}, expect_ok=ok)
        if not ok:
            self.check(self._files("memory") == before, "a refused memory_add changed memory/")
            return
        s = r.structured_content
        m = MemM(norm_content(content), memory_type, round(importance, 4), norm_tags(tags), tok)
        self._same_memory(s, m, "memory_add", with_content=True)
        for gone in s.get("evicted") or []:
            self.check(gone in self.m.memories and self.m.memories[gone].memory_type == "working" and gone != s["id"],
                       f"memory_add evicted {gone}, which is not an older working memory")
            self.m.dead_tokens.append(self.m.memories.pop(gone).token)
        self.m.memories[s["id"]] = m

    def memory_read(self, memory_id: str) -> None:
        expect = memory_id in self.m.memories
        r = self.call("memory_read", {"memory_id": memory_id}, expect_ok=expect)
        if expect:
            self._same_memory(r.structured_content, self.m.memories[memory_id], "memory_read", with_content=True)

    def memory_update(self, memory_id: str, body: str | None, importance: float | None, tags: Any) -> None:
        args: dict[str, Any] = {"memory_id": memory_id}
        tok = None
        if body is not None:
            tok = self.token()
            args["content"] = f"{body} {tok}"
        if importance is not None:
            args["importance"] = importance
        if tags is not None:
            args["tags"] = tags
        ok = (memory_id in self.m.memories and (body is None or content_ok(args["content"], self.limit))
              and tags_ok(tags) and len(args) > 1)
        r = self.call("memory_update", args, expect_ok=ok)
        if not ok:
            return
        m = self.m.memories[memory_id]
        new = MemM(norm_content(args["content"]) if body is not None else m.content, m.memory_type,
                   round(importance, 4) if importance is not None else m.importance,
                   norm_tags(tags) if tags is not None else m.tags, tok or m.token)
        self._same_memory(r.structured_content, new, "memory_update", with_content=True)
        if tok:
            self.m.dead_tokens.append(m.token)
        self.m.memories[memory_id] = new

    def memory_forget(self, memory_id: str) -> None:
        expect = memory_id in self.m.memories
        r = self.call("memory_forget", {"memory_id": memory_id}, expect_ok=expect)
        if expect:
            self.check(r.structured_content["count"] == 1, f"memory_forget said {r.structured_content}")
            self.m.dead_tokens.append(self.m.memories.pop(memory_id).token)

    def memory_search_token(self, memory_id: str) -> None:
        m = self.m.memories[memory_id]
        r = self.call("memory_search", {"query": m.token, "limit": 10}, expect_ok=True)
        if r is None:
            return
        ids = [h["id"] for h in r.structured_content["hits"]]
        self.check(ids == [memory_id], f"memory_search for {m.token} (in {memory_id}) found {ids}")

    def memory_consolidate(self, threshold: float) -> None:
        want = sorted(i for i, m in self.m.memories.items() if m.memory_type == "working" and m.importance >= threshold)
        r = self.call("memory_consolidate", {"from_type": "working", "to_type": "episodic",
                                             "importance_threshold": threshold}, expect_ok=True)
        moved = sorted(x["id"] for x in r.structured_content["moved"])
        self.check(moved == want, f"memory_consolidate(>= {threshold}) moved {moved}, model says {want}")
        for i in moved:
            m = self.m.memories[i]
            m.memory_type = "episodic"
            m.importance = min(1.0, round(m.importance * 1.1, 4))

    def memory_list_all(self) -> None:
        r = self.call("memory_list", {"limit": 1000}, expect_ok=True)
        s = r.structured_content
        got = {m["id"]: m for m in s["memories"]}
        self.check(set(got) == set(self.m.memories),
                   f"memory_list ids differ: extra {sorted(set(got) - set(self.m.memories))}, "
                   f"missing {sorted(set(self.m.memories) - set(got))}")
        for memory_id, m in self.m.memories.items():
            self._same_memory(got[memory_id], m, "memory_list", with_content=True)

    def _same_memory(self, s: dict[str, Any], m: MemM, what: str, with_content: bool = False) -> None:
        got = (s["memory_type"], s["importance"], list(s["tags"]))
        want = (m.memory_type, m.importance, m.tags)
        self.check(got == want, f"{what} {s.get('id')}: (type, importance, tags) {got!r} != model {want!r}")
        if with_content:
            self.check(s["content"] == m.content, f"{what} {s.get('id')}: content {s['content']!r:.200} != "
                                                  f"model {m.content!r:.200}")

    # -- hostile ids -----------------------------------------------------------------------------------------
    def hostile_id(self, tool: str, bad_id: str) -> None:
        key = "memory_id" if tool.startswith("memory") else "note_id"
        before = self._files("notes"), self._files("memory")
        self.call(tool, {key: bad_id}, expect_ok=False)
        self.check((self._files("notes"), self._files("memory")) == before, f"{tool}({bad_id!r}) changed files")

    # -- the files themselves --------------------------------------------------------------------------------
    def _files(self, folder: str) -> dict[str, bytes]:
        d = self.root / folder
        if not d.exists():
            return {}
        return {p.name: p.read_bytes() for p in d.iterdir()}

    def check_disk(self) -> None:
        notes = {p.stem for p in (self.root / "notes").glob("*.md")}
        self.check(notes == set(self.m.notes), f"notes/ holds {sorted(notes ^ set(self.m.notes))} unlike the model")
        mems = {p.stem for p in (self.root / "memory").glob("*.md")}
        self.check(mems == set(self.m.memories), f"memory/ differs from the model: {sorted(mems ^ set(self.m.memories))}")
        stray = [p.name for d in ("notes", "memory") for p in (self.root / d).iterdir() if p.name.startswith(".tmp-")]
        self.check(not stray, f"temp files left: {stray}")


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 160 else text[:157] + "..."


# -- the random long run -----------------------------------------------------------------------------------------

HOSTILE_IDS = ["../x", "../../etc/passwd", "/etc/passwd", "a/b", "..", "x\x00y", "a\nb", "", " ", "C:\\x",
               "note\u2028x", "%2e%2e%2fx", "x" * 200]


def rand_text(rnd: random.Random, n: int) -> str:
    parts = []
    for _ in range(rnd.randrange(n + 1)):
        if rnd.random() < 0.3:
            parts.append(rnd.choice(NASTY))
        else:
            parts.append("".join(rnd.choice("abcdefghij klmnop中文") for _ in range(rnd.randrange(1, 8))))
    return "".join(parts)


def rand_title(rnd: random.Random) -> Any:
    x = rnd.random()
    if x < 0.03:
        return ""
    if x < 0.06:
        return "two\nlines"
    if x < 0.08:
        return "t" * 301
    if x < 0.1:
        return 123
    return (rand_text(rnd, 6) or "t").replace("\n", " ") if rnd.random() < 0.7 else rand_text(rnd, 6) or "t"


def rand_tags(rnd: random.Random) -> Any:
    x = rnd.random()
    if x < 0.3:
        return None
    if x < 0.33:
        return [1, 2]
    if x < 0.35:
        return "not-a-list"
    if x < 0.37:
        return ["a,b"]
    return [rnd.choice(["auth", "db", "中文", "x y", "t-1", " pad ", "#h", "---", "a:b", "[x]", "ü"])
            for _ in range(rnd.randrange(4))]


def rand_body(rnd: random.Random, limit: int) -> str:
    x = rnd.random()
    if x < 0.02:
        return "x" * (limit + 1)
    if x < 0.04:
        return "nul\x00byte"
    return rand_text(rnd, 12)


def random_step(d: Driver, rnd: random.Random) -> None:
    notes, mems = sorted(d.m.notes), sorted(d.m.memories)
    op = rnd.choices(["n_create", "n_read", "n_update", "n_delete", "n_search", "n_list", "m_add", "m_read",
                      "m_update", "m_forget", "m_search", "m_list", "m_consolidate", "dead", "hostile", "ghost"],
                     weights=[16, 8, 10, 5, 8, 2, 10, 5, 5, 3, 5, 2, 1, 3, 3, 2])[0]
    if op == "n_create" or (not notes and op.startswith("n_")):
        d.note_create(rand_title(rnd), rand_body(rnd, d.limit), rnd.choice(NOTE_TYPES + ("bogus",)), rand_tags(rnd))
    elif op == "n_read":
        d.note_read(rnd.choice(notes))
    elif op == "n_update":
        fields = rnd.sample(["title", "body", "type", "tags"], rnd.randrange(1, 5))
        d.note_update(rnd.choice(notes), title=rand_title(rnd) if "title" in fields else None,
                      body=rand_body(rnd, d.limit) if "body" in fields else None,
                      note_type=rnd.choice(NOTE_TYPES) if "type" in fields else None,
                      tags=rand_tags(rnd) if "tags" in fields else None)
    elif op == "n_delete":
        d.note_delete(rnd.choice(notes))
    elif op == "n_search":
        d.note_search_token(rnd.choice(notes))
    elif op == "n_list":
        d.note_list_all()
    elif op == "m_add" or (not mems and op.startswith("m_") and op not in ("m_list", "m_consolidate")):
        d.memory_add(rand_text(rnd, 8), rnd.choice(MEMORY_TYPES), round(rnd.random(), 3), rand_tags(rnd))
    elif op == "m_read":
        d.memory_read(rnd.choice(mems))
    elif op == "m_update":
        d.memory_update(rnd.choice(mems), rand_text(rnd, 6) if rnd.random() < 0.5 else None,
                        round(rnd.random(), 3) if rnd.random() < 0.5 else None,
                        rand_tags(rnd) if rnd.random() < 0.5 else None)
    elif op == "m_forget":
        d.memory_forget(rnd.choice(mems))
    elif op == "m_search":
        d.memory_search_token(rnd.choice(mems))
    elif op == "m_list":
        d.memory_list_all()
    elif op == "m_consolidate":
        d.memory_consolidate(round(rnd.uniform(0.7, 1.0), 2))
    elif op == "dead" and d.m.dead_tokens:
        d.search_dead_token(rnd.choice(d.m.dead_tokens))
    elif op == "ghost" and d.m.dead_notes:
        ghost = rnd.choice(sorted(d.m.dead_notes))
        rnd.choice([d.note_read, d.note_delete])(ghost)
    else:
        d.hostile_id(rnd.choice(["note_read", "note_delete", "memory_read", "memory_forget"]), rnd.choice(HOSTILE_IDS))


def run(calls: int, seed: int, max_content_bytes: int, keep: bool = False,
        exclude: tuple[str, ...] = ()) -> dict[str, Any]:
    rnd = random.Random(seed)
    root = Path(tempfile.mkdtemp(prefix="ctxnotes-fuzz-")) / "ws"
    mismatches: list[str] = []
    started = time.monotonic()
    with server_for(root, max_content_bytes=max_content_bytes) as server, SyncClient(server) as client:
        d = Driver(client, root, max_content_bytes)
        d.exclude = set(exclude)
        steps = 0
        while d.calls < calls:
            steps += 1
            try:
                random_step(d, rnd)
                if steps % 250 == 0:
                    d.note_list_all()
                    d.memory_list_all()
                    d.check_disk()
            except Mismatch as exc:
                mismatches.append(str(exc))
                # Resynchronise: the model can no longer be trusted for that item, so start a fresh model
                # from what the store says rather than cascading the same error.
                d.m = _model_from_store(d)
        try:
            d.note_list_all()
            d.memory_list_all()
            d.check_disk()
        except Mismatch as exc:
            mismatches.append(str(exc))
        # Reopen from the files alone: everything acknowledged must still be there.
        server.workspace_handle.close()
    with server_for(root, max_content_bytes=max_content_bytes) as server2, SyncClient(server2) as client2:
        d2 = Driver(client2, root, max_content_bytes)
        d2.m = d.m
        d2.exclude = set(exclude)
        try:
            d2.note_list_all()
            d2.memory_list_all()
            for note_id in list(d.m.notes)[:200]:
                d2.note_read(note_id)
                d2.note_search_token(note_id)
        except Mismatch as exc:
            mismatches.append(f"after reopen: {exc}")
        d.stats.update(d2.stats)
        total_calls = d.calls + d2.calls
    if not keep:
        shutil.rmtree(root.parent, ignore_errors=True)
    by_kind: collections.Counter[str] = collections.Counter()
    for key, n in d.stats.items():
        by_kind[key.split(":")[1]] += n
    return {"calls": total_calls, "seed": seed, "outcomes": dict(by_kind), "per_tool": dict(sorted(d.stats.items())),
            "mismatches": mismatches, "notes_live": len(d.m.notes), "memories_live": len(d.m.memories),
            "seconds": round(time.monotonic() - started, 1), "workspace": str(root) if keep else None}


def _model_from_store(d: Driver) -> Model:
    m = Model(dead_notes=d.m.dead_notes)
    r = d.c.call("note_list", {"limit": 1000}).structured_content
    for n in r["notes"]:
        full = d.c.call("note_read", {"note_id": n["id"]}).structured_content
        tok = re.findall(r"tk\d{10}x", full["content"])
        m.notes[n["id"]] = NoteM(full["title"], full["content"], full["type"], full["tags"], tok[-1] if tok else "")
    r = d.c.call("memory_list", {"limit": 1000}).structured_content
    for x in r["memories"]:
        tok = re.findall(r"tk\d{10}x", x["content"])
        m.memories[x["id"]] = MemM(x["content"], x["memory_type"], x["importance"], x["tags"], tok[-1] if tok else "")
    return m


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.reliability.fuzz", description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-content-bytes", type=int, default=4096,
                    help="the workspace's content limit (small, so oversize inputs are cheap)")
    ap.add_argument("--keep", action="store_true", help="keep the workspace folder")
    ap.add_argument("--exclude", action="append", default=[], metavar="TOOL",
                    help="do not call this tool (repeatable), e.g. to look past a known failure")
    args = ap.parse_args(argv)
    import logging
    logging.basicConfig(level=logging.ERROR, stream=sys.stderr)
    out = run(args.calls, args.seed, args.max_content_bytes, args.keep, tuple(args.exclude))
    print(f"calls: {out['calls']} (seed {out['seed']}) in {out['seconds']} s"
          + (f"; excluded: {', '.join(args.exclude)}" if args.exclude else ""))
    print("outcomes: " + ", ".join(f"{k} {v}" for k, v in sorted(out["outcomes"].items())))
    errors = {k: v for k, v in out["per_tool"].items() if not k.endswith(":ok")}
    print("errors by tool and kind: " + (", ".join(f"{k} {v}" for k, v in errors.items()) or "none"))
    print(f"live at the end: {out['notes_live']} notes, {out['memories_live']} memories")
    print(f"mismatches: {len(out['mismatches'])}")
    for text in out["mismatches"][:10]:
        print(f"  - {text}")
    if out["workspace"]:
        print(f"workspace kept at {out['workspace']}")
    return 1 if out["mismatches"] or out["outcomes"].get("internal_error") else 0


if __name__ == "__main__":
    sys.exit(main())
