"""Hostile files and heavy inputs (issue 17): FIFOs, YAML bombs, deep nesting, oversized files, long queries.

Every call that could block runs in a thread joined with a timeout, so a regression fails instead of
hanging the suite.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import pytest

from notes_store import InvalidInput, NotFound, StoreError, open_workspace
from notes_store.files.front_matter import MAX_DEPTH, MAX_FRONT_MATTER_BYTES

TIMEOUT = 5.0


def within(fn: Callable[[], Any], seconds: float = TIMEOUT) -> Any:
    """Run ``fn`` in a thread; fail if it has not returned within ``seconds``; re-raise what it raised."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # handed to the test thread
            box["error"] = exc

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), f"call still running after {seconds} s"
    if "error" in box:
        raise box["error"]
    return box.get("value")


@pytest.fixture
def ws(tmp_path):
    w = open_workspace(tmp_path / "ws")
    yield w
    within(w.close, 20)  # a close stuck behind a blocked read fails the test instead of hanging it


def write(path, text: str) -> None:
    path.write_bytes(text.encode("utf-8"))


BILLION_LAUGHS = (
    'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
    "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
    "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
    "e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n"
    "f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n"
    "g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n"
    "h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\n"
    "i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]\n"
)


def nested(depth: int, flow: bool) -> str:
    if flow:
        return "x: " + "[" * depth + "]" * depth + "\n"
    return "x:\n" + "".join("  " * i + "k:\n" for i in range(1, depth)) + "  " * depth + "k: 1\n"


# -- FIFOs -------------------------------------------------------------------------------

def test_fifo_note_is_unreadable_at_once_and_the_workspace_keeps_working(ws):
    good = ws.notes.create("Good note", "the mango plan")
    os.mkfifo(ws.folder("note") / "fifo.md")
    for call in (lambda: ws.notes.read("fifo"),
                 lambda: ws.notes.update("fifo", content="x"),
                 lambda: ws.notes.update("fifo", content="x", expected_revision="0123456789ab")):
        with pytest.raises(InvalidInput, match="unreadable: is not a regular file"):
            within(call)
    # Nothing is held: other calls go on.
    assert within(lambda: ws.notes.search("mango")).hits[0].note.id == good.id
    assert within(lambda: ws.notes.create("After", "x")).title == "After"
    summary = within(ws.notes.summary)
    assert {"path": "notes/fifo.md", "reason": summary.unreadable[0]["reason"]} == summary.unreadable[0]
    assert "not a regular file" in summary.unreadable[0]["reason"]
    assert within(lambda: ws.notes.delete("fifo"))["deleted"]  # a FIFO can be deleted
    assert not os.path.lexists(ws.folder("note") / "fifo.md")


def test_fifo_memory_never_blocks_recall_and_is_listed(ws):
    good = ws.memory.add("the papaya fact", memory_type="semantic")
    os.mkfifo(ws.folder("memory") / "mem_fifo.md")
    with pytest.raises(InvalidInput, match="unreadable: is not a regular file"):
        within(lambda: ws.memory.read("mem_fifo"))
    assert [h.memory.id for h in within(lambda: ws.memory.search("papaya")).hits] == [good.id]
    assert [m.id for m in within(ws.memory.list).memories] == [good.id]
    assert "memory/mem_fifo.md" in {u["path"] for u in within(ws.memory.summary).unreadable}
    assert within(lambda: ws.memory.forget(memory_id="mem_fifo")).removed[0].id == "mem_fifo"


def test_a_memory_replaced_by_a_fifo_after_indexing_is_skipped_not_fatal(ws):
    kept = ws.memory.add("guava one", memory_type="semantic")
    doomed = ws.memory.add("guava two", memory_type="semantic")
    os.unlink(doomed.path)
    os.mkfifo(doomed.path)
    hits = within(lambda: ws.memory.search("guava")).hits
    assert [h.memory.id for h in hits] == [kept.id]
    assert f"memory/{doomed.id}.md" in {u["path"] for u in within(ws.memory.summary).unreadable}


# -- YAML bombs and nesting ----------------------------------------------------------------

def test_yaml_aliases_and_anchors_are_refused(ws):
    good = ws.notes.create("Fine", "the lychee note")
    folder = ws.folder("note")
    write(folder / "laughs.md", f"---\nid: laughs\ntitle: lychee\n{BILLION_LAUGHS}---\nlychee\n")
    big = "x" * 500_000
    write(folder / "tagbomb.md", f"---\nid: tagbomb\nanchor: &s \"{big}\"\ntags: [{', '.join(['*s'] * 300)}]\n"
                                 "---\nlychee\n")
    start = time.monotonic()
    # Markdown pages whose front matter is refused (never built): read as pages, the refusal reported.
    for note_id in ("laughs", "tagbomb"):
        assert within(partial(ws.notes.read, note_id)).content == "lychee\n"
        with pytest.raises(InvalidInput) as err:
            within(partial(ws.notes.update, note_id, title="changed"))
        assert "cannot be changed safely" in str(err.value)
        assert "anchor" in str(err.value) or "alias" in str(err.value) or "front matter is" in str(err.value)
    summary = within(ws.notes.summary)
    assert summary.unreadable == []
    problems = {p["path"]: p["reason"] for p in summary.front_matter_problems}
    assert set(problems) == {"notes/laughs.md", "notes/tagbomb.md"} and "anchor" in problems["notes/laughs.md"]
    assert {h.note.id for h in within(lambda: ws.notes.search("lychee")).hits} == {good.id, "laughs", "tagbomb"}
    assert time.monotonic() - start < TIMEOUT


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 350, 999, 5000])
@pytest.mark.parametrize("flow", [True, False])
def test_deep_nesting_is_a_clear_error_never_a_recursion_error(ws, depth, flow):
    path = ws.folder("note") / "deep.md"
    write(path, f"---\nid: deep\ntitle: deep\n{nested(depth, flow)}---\nbody\n")
    if path.stat().st_size > ws.notes.files.max_file_bytes:   # over the size bound: unreadable, unopened
        with pytest.raises(InvalidInput, match="over the limit"):
            within(lambda: ws.notes.read("deep"))
        assert "notes/deep.md" in {u["path"] for u in within(ws.notes.summary).unreadable}
        return
    assert within(lambda: ws.notes.read("deep")).content == "body\n"   # a page; its front matter is refused
    with pytest.raises(InvalidInput) as err:
        within(lambda: ws.notes.update("deep", title="x"))
    assert "cannot be changed safely" in str(err.value) and not isinstance(err.value, RecursionError)
    problems = {p["path"]: p["reason"] for p in within(ws.notes.summary).front_matter_problems}
    assert any(reason in problems["notes/deep.md"] for reason in
               ("nested", "front matter is", "invalid YAML", "over the limit"))


def test_nesting_within_the_limit_is_read(ws):
    write(ws.folder("note") / "ok.md", f"---\nid: ok\ntitle: ok\n{nested(MAX_DEPTH - 2, True)}---\nbody\n")
    assert ws.notes.read("ok").content == "body"


@pytest.mark.parametrize("front, reason", [
    ("tags: [" + ", ".join(f"t{i}" for i in range(201)) + "]\n", "tags"),
    ("extra: [" + ", ".join("1" for _ in range(1001)) + "]\n", "items"),
    ("".join(f"k{i}: 1\n" for i in range(201)), "keys"),
    ("big: '" + "y" * (MAX_FRONT_MATTER_BYTES + 10) + "'\n", "over the limit"),
])
def test_front_matter_bounds_give_a_reason(ws, front, reason):
    write(ws.folder("note") / "bounded.md", f"---\nid: bounded\ntitle: b\n{front}---\nbody\n")
    if reason == "tags":   # valid YAML, ours, past our own bound on tags: unreadable, with the reason
        with pytest.raises(InvalidInput, match=reason):
            within(lambda: ws.notes.read("bounded"))
        found = {u["path"]: u["reason"] for u in within(ws.notes.summary).unreadable}
    else:                  # refused by the YAML bounds: read as a page, the reason reported
        assert within(lambda: ws.notes.read("bounded")).content == "body\n"
        found = {u["path"]: u["reason"] for u in within(ws.notes.summary).front_matter_problems}
    assert reason in found["notes/bounded.md"]


def test_unreadable_memory_files_never_break_memory_search_or_list(ws):
    good = ws.memory.add("the tamarind fact", memory_type="semantic", importance=0.7)
    folder = ws.folder("memory")
    write(folder / "mem_laughs.md", f"---\nid: mem_laughs\nmemory_type: semantic\n{BILLION_LAUGHS}---\ntamarind\n")
    write(folder / "mem_deep.md", f"---\nid: mem_deep\n{nested(600, True)}---\ntamarind\n")
    write(folder / "mem_binary.md", "---\nid: mem_binary\n---\n")
    (folder / "mem_binary.md").write_bytes(b"\xff\xfe tamarind")
    for _ in range(2):
        result = within(lambda: ws.memory.search("tamarind"))
        assert [h.memory.id for h in result.hits] == [good.id]
        assert [m.id for m in within(ws.memory.list).memories] == [good.id]
    reasons = {u["path"]: u["reason"] for u in within(ws.memory.summary).unreadable}
    assert set(reasons) == {"memory/mem_laughs.md", "memory/mem_deep.md", "memory/mem_binary.md"}
    assert "anchor" in reasons["memory/mem_laughs.md"] and "nested" in reasons["memory/mem_deep.md"]


# -- one size limit on every read path ------------------------------------------------------

def test_oversized_files_are_unreadable_and_never_read_whole(tmp_path):
    w = open_workspace(tmp_path / "ws", max_content_bytes=1000)
    try:
        for kind, item_id, read in (("note", "huge", w.notes.read), ("memory", "mem_huge", w.memory.read)):
            path = w.folder(kind) / f"{item_id}.md"
            write(path, f"---\nid: {item_id}\n---\nstart\n")
            os.truncate(path, 8 << 30)  # 8 GiB, sparse: reading it whole would take minutes
            with pytest.raises(InvalidInput, match="over the limit of 2000 bytes"):
                within(partial(read, item_id))
        assert "notes/huge.md" in {u["path"] for u in w.notes.summary().unreadable}
        assert "memory/mem_huge.md" in {u["path"] for u in w.memory.summary().unreadable}
        # Just inside the limit is fine.
        note = w.notes.create("fits", "z" * 1000)
        assert w.notes.read(note.id).content == "z" * 1000
    finally:
        w.close()


# -- queries -------------------------------------------------------------------------------

def test_long_queries_are_refused_with_the_limit(ws):
    ws.notes.create("Query target", "alpha beta")
    ws.memory.add("alpha beta", memory_type="semantic")
    long_text = "alpha " * 400
    many_terms = " ".join(f"w{i}" for i in range(150))
    for search in (ws.notes.search, ws.memory.search):
        with pytest.raises(InvalidInput, match="over the limit of 2000"):
            within(partial(search, long_text))
        with pytest.raises(InvalidInput, match="search terms, over the limit of 100"):
            within(partial(search, many_terms))
        with pytest.raises(InvalidInput, match="search terms"):
            within(partial(search, "\"" + "重构数据模型层" * 20 + "\""))
        assert within(partial(search, "alpha beta"))  # a normal query still works


def test_store_errors_are_store_errors(ws):
    os.mkfifo(ws.folder("note") / "pipe.md")
    with pytest.raises(StoreError):
        within(lambda: ws.notes.read("pipe"))
    with pytest.raises(NotFound):
        within(lambda: ws.notes.read("missing"))


def test_conflict_report_never_opens_a_fifo(ws):
    from notes_store.sync.git import find_conflicts
    ws.notes.create("Plain", "text")
    os.mkfifo(ws.folder("note") / "fifo.md")
    os.mkfifo(ws.folder("memory") / "mem_fifo.md")
    assert within(lambda: find_conflicts(ws)) == []
