"""Note id and tag completion from the completion index (``notes_store.index.completion``): the same
answers as the plain scan over every note (``server.completions.match_notes``, and the tag count it
replaced), after creates, updates, deletes and edits made behind the workspace's back; a keystroke reads
no note row, and a change makes the next generation from the previous one.

The names this file imports exist before the index did, so the structural test can be run against the
old code (where it fails: every keystroke read every row).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client
from mcp_types import PromptReference, ResourceTemplateReference

import server.completions as completions
from notes_store import open_workspace
from notes_store.index.catalogue import Catalogue, Entry
from notes_store.files.front_matter import dump_document, titled_body
from notes_store.notes import NoteHeader
from server.app import create_server

NOTE_REF = ResourceTemplateReference(type="ref/resource", uri="note://{note_id}")
TAG_REF = PromptReference(type="ref/prompt", name="resume_task")

# Title words: ASCII, CJK, a Greek final sigma and a dotted capital I (their lowercase depends on context /
# grows), punctuation, digits; ids in the store's form and hand-made file names.
WORDS = ["Auth", "auth", "refactor", "Database", "migration", "git", "commit", "GIT-commit", "plan", "notes",
         "数据", "模型", "重构", "ΣΊΣΥΦΟΣ", "İstanbul", "naïve", "Straße", "x_y", "(copy", "2)", "v1.2", "a", "ab"]
TAGS = ["auth", "Auth", "db", "中文", "x y", "ops", "Ops", "z"]


def _random_id(rng: random.Random, i: int) -> str:
    kind = rng.random()
    if kind < 0.6:
        return f"note_2026{rng.randrange(1, 13):02d}{rng.randrange(1, 29):02d}_{rng.randrange(240000):06d}_{i:08x}"
    if kind < 0.8:
        return f"{rng.choice(['alpha', 'Alpha', 'beta', 'notes', 'n'])}-{i}"
    return f"{rng.choice([w for w in WORDS if w.isascii() and w.isalpha()]).lower()}{i}"


def _random_note(rng: random.Random, i: int) -> dict[str, Any]:
    title = " ".join(rng.choice(WORDS) for _ in range(rng.randrange(1, 5)))
    stamp = f"2026-0{rng.randrange(1, 4)}-0{rng.randrange(1, 4)}T00:00:00+00:00"  # many alike: ties by id
    return {"id": _random_id(rng, i), "title": title, "type": "general",
            "tags": rng.sample(TAGS, rng.randrange(0, 3)), "created_at": stamp, "updated_at": stamp}


def _write(folder: Path, meta: dict[str, Any]) -> None:
    """A note file as the store writes it (in one rename, as editors that write a temp file do)."""
    tmp = folder / f".{meta['id']}.tmp"
    tmp.write_bytes(dump_document(meta, titled_body(meta["title"], "body")))
    os.replace(tmp, folder / f"{meta['id']}.md")


def _workspace(root: Path, count: int, seed: int) -> Any:
    rng = random.Random(seed)
    (root / "notes").mkdir(parents=True)
    for i in range(count):
        _write(root / "notes", _random_note(rng, i))
    ws = open_workspace(root)
    ws.rescan_interval = 0  # an edit in place is seen on the next look
    return ws


def _tags_by_scan(headers: list[NoteHeader], value: str) -> list[str]:
    """Tag completion as it was: count every note's tags on each keystroke."""
    counts: dict[str, int] = {}
    for n in headers:
        for t in n.tags:
            counts[t] = counts.get(t, 0) + 1
    want = value.strip().lower()
    return sorted((t for t in counts if t.lower().startswith(want)), key=lambda t: (-counts[t], t))


def _assert_same_answers(ws: Any, values: list[str]) -> None:
    headers = ws.notes.headers()
    for value in values:
        want = completions._answer(completions.match_notes(headers, value))
        got = completions.complete_note_ids(ws.notes, value)
        assert (got.values, got.total, got.has_more) == (want.values, want.total, want.has_more), value
        want = completions._answer(_tags_by_scan(headers, value))
        got = completions.complete_tags(ws.notes, value)
        assert (got.values, got.total, got.has_more) == (want.values, want.total, want.has_more), value


_ALPHABET = "".join(sorted(set("".join(WORDS) + "note_0123456789abcdefABCDEF-"))) + "  \t"
_word = st.builds(lambda w, k, up: (w.upper() if up else w.lower())[:k], st.sampled_from(WORDS),
                  st.integers(1, 8), st.booleans())
# What a person types: an id's prefix (None: resolved against the ids of the moment, so that what is drawn
# does not depend on them), title-word prefixes (one or two words, any case), stray text.
_recipes = st.tuples(st.integers(0, 10 ** 6), st.integers(0, 30),
                     st.one_of(st.none(), _word, st.lists(_word, min_size=1, max_size=3).map(" ".join),
                               st.text(alphabet=_ALPHABET, max_size=6), st.builds(lambda v: f"  {v} ", _word)))


def _values(data: st.DataObject, ids: list[str], count: int) -> list[str]:
    out = []
    for pick, k, free in (data.draw(_recipes) for _ in range(count)):
        out.append(free if free is not None else (ids[pick % len(ids)][:k] if ids else ""))
    return out


# -- the same answers ------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def big_ws(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    ws = _workspace(tmp_path_factory.mktemp("completion") / "ws", 400, seed=1)
    yield ws
    ws.close()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_answers_are_the_scans_on_random_prefixes(big_ws: Any, data: st.DataObject) -> None:
    ids = sorted(h.id for h in big_ws.notes.headers())
    _assert_same_answers(big_ws, _values(data, ids, 5))


def test_answers_for_every_prefix_of_every_id_and_word(big_ws: Any) -> None:
    headers = big_ws.notes.headers()
    values = {h.id[:k] for h in headers[:60] for k in range(len(h.id) + 1)}
    values |= {w[:k] for h in headers[:60] for w in h.title.split() for k in range(1, len(w) + 1)}
    values |= {"", " ", "n", "note_", "NOTE", "zzz", "auth data", "数", "σ", "i̇", "\U0010ffff", "note_\U0010ffff"}
    _assert_same_answers(big_ws, sorted(values))


# -- after changes -----------------------------------------------------------------------------------------

change = st.one_of(
    st.tuples(st.just("create"), st.integers(0, 10 ** 6)),
    st.tuples(st.just("update"), st.integers(0, 10 ** 6)),
    st.tuples(st.just("delete"), st.integers(0, 10 ** 6)),
    st.tuples(st.just("edit"), st.integers(0, 10 ** 6)),       # a file rewritten behind the workspace's back
    st.tuples(st.just("drop"), st.integers(0, 10 ** 6)),       # a file added behind its back
    st.tuples(st.just("unlink"), st.integers(0, 10 ** 6)),     # a file deleted behind its back
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(changes=st.lists(change, min_size=1, max_size=12), data=st.data())
def test_answers_stay_the_scans_after_changes(changes: list[tuple[str, int]], data: st.DataObject) -> None:
    root = Path(tempfile.mkdtemp(prefix="ctxnotes-compl-"))
    ws = _workspace(root / "ws", 40, seed=len(changes))
    try:
        folder = ws.root / "notes"
        ws.notes.completions()  # a first generation, for the changes to step from
        for step, (what, pick) in enumerate(changes):
            rng = random.Random(pick)
            live = sorted(h.id for h in ws.notes.headers())
            target = live[pick % len(live)] if live else None
            if what == "create":
                ws.notes.create(" ".join(rng.sample(WORDS, 2)), tags=rng.sample(TAGS, 1))
            elif what == "update" and target:
                ws.notes.update(target, title=" ".join(rng.sample(WORDS, 3)))
            elif what == "delete" and target:
                ws.notes.delete(target)
            elif what == "edit" and target:  # any updated_at: the row may land anywhere in the order
                _write(folder, {**_random_note(rng, 0), "id": target})
            elif what == "drop":
                _write(folder, _random_note(rng, 10_000 + step))
            elif what == "unlink" and target:
                os.unlink(folder / f"{target}.md")
            ids = sorted(h.id for h in ws.notes.headers())
            _assert_same_answers(ws, _values(data, ids, 3) + ["", "n", "a", "auth"])
            index = ws.notes.completions()
            assert _view(index) == _view(type(index)._whole(0, index.entries, None))
    finally:
        ws.close()
        shutil.rmtree(root, ignore_errors=True)


def _view(index: Any) -> tuple[Any, ...]:
    """What an index holds, by id rather than by position (positions differ between a stepped and a whole
    index), after checking that its positions agree with one another."""
    log_ids, positions = index.log_ids, list(index.positions)
    assert positions == sorted(positions, reverse=True) and all(log_ids[p] for p in positions)
    assert len(positions) == len(index.entries) == len(index.ids)
    assert [log_ids[p] for p in index.id_positions] == index.ids == sorted(index.ids)
    live = set(positions)
    grams = {}
    for gram, held in index.grams.items():
        assert list(held) == sorted(set(held)) and set(held) <= live and held
        grams[gram] = [log_ids[p] for p in held]
    for p in positions:
        title = index.log_titles[p]
        assert {g for g, held in index.grams.items() if p in held} == {
            g for w in title.split() for g in [*w, *(w[i:i + 2] for i in range(len(w) - 1))]}
    return [(log_ids[p], index.log_titles[p]) for p in positions], grams, index.tag_counts


# -- stepping from one generation to the next (no workspace) ------------------------------------------------

def _entry(meta: dict[str, Any]) -> Entry:
    return Entry(f"notes/{meta['id']}.md", "note", "/nowhere", 0, 0, raw=json.dumps(meta))


def _headers(entries: list[Entry]) -> list[NoteHeader]:
    return [NoteHeader(e.fields()["id"], e.fields()["title"], e.fields()["tags"]) for e in entries]


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 10 ** 9), size=st.integers(0, 60), rounds=st.integers(1, 6), data=st.data())
def test_stepped_index_is_the_whole_one(seed: int, size: int, rounds: int, data: st.DataObject) -> None:
    from notes_store.index.completion import NoteCompletions

    rng = random.Random(seed)
    entries = [_entry(_random_note(rng, i)) for i in range(size)]
    index = NoteCompletions.make(1, entries)
    serial = size
    for version in range(2, rounds + 2):
        entries = list(entries)
        for _ in range(rng.randrange(0, 5)):  # rows leave, come and change, at any place in the order
            action = rng.random()
            if action < 0.35 and entries:
                del entries[rng.randrange(len(entries))]
            elif action < 0.7:
                serial += 1
                entries.insert(rng.randrange(len(entries) + 1) if rng.random() < 0.5 else 0,
                               _entry(_random_note(rng, serial)))
            elif entries:
                old = entries.pop(rng.randrange(len(entries)))
                entries.insert(rng.randrange(len(entries) + 1) if rng.random() < 0.5 else 0,
                               _entry({**old.fields(), "title": rng.choice(WORDS)}))
        if rng.random() < 0.1 and len(entries) > 1:  # unchanged rows trading places: made whole
            i = rng.randrange(len(entries) - 1)
            entries[i], entries[i + 1] = entries[i + 1], entries[i]
        previous, seen = index, _view(index)
        index = NoteCompletions.make(version, entries, index)
        assert _view(index) == _view(NoteCompletions.make(version, entries))
        assert _view(previous) == seen  # a step leaves the previous generation as it was (readers may hold it)
        headers = _headers(entries)
        for value in _values(data, [h.id for h in headers], 4):
            want = completions.match_notes(headers, value)
            assert index.complete(value, 100) == (want[:100], len(want)), value
            assert index.complete(value, 3) == (want[:3], len(want)), value
            assert index.tags(value) == _tags_by_scan(headers, value)


def test_a_step_reads_only_the_rows_that_changed(monkeypatch: pytest.MonkeyPatch) -> None:
    from notes_store.index.completion import NoteCompletions

    rng = random.Random(5)
    entries = [_entry(_random_note(rng, i)) for i in range(200)]
    index = NoteCompletions.make(1, entries)
    changed = _entry({**entries[150].fields(), "title": "Changed title"})
    new = _entry(_random_note(rng, 999))
    entries = [new, changed, *entries[:150], *entries[151:]]  # one created, one updated (both newest now)
    reads = _count_reads(monkeypatch)
    stepped = NoteCompletions.make(2, entries, index)
    assert reads["n"] <= 3  # the two new rows, and the replaced one's tags
    assert stepped.complete("changed", 100) == ([changed.id], 1)


# -- through an MCP session ----------------------------------------------------------------------------------

def _count_reads(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Count reads of catalogue rows' fields (``Entry.meta``, and ``Entry.fields`` where it exists)."""
    reads = {"n": 0}
    meta = Entry.meta
    assert isinstance(meta, property) and meta.fget is not None
    getter = meta.fget

    def counted_meta(self: Entry) -> dict[str, Any]:
        reads["n"] += 1
        return getter(self)

    monkeypatch.setattr(Entry, "meta", property(counted_meta))
    fields = getattr(Entry, "fields", None)
    if fields is not None:
        def counted_fields(self: Entry) -> dict[str, Any]:
            reads["n"] += 1
            return fields(self)

        monkeypatch.setattr(Entry, "fields", counted_fields)
    return reads


async def _complete(client: Client, value: str) -> Any:
    return (await client.complete(NOTE_REF, {"name": "note_id", "value": value})).completion


@pytest.mark.anyio
async def test_a_second_keystroke_reads_no_note(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Structural: once the first keystroke has read the notes, the next ones (another value, a tag, a
    memory written meanwhile) read no catalogue row; the old scan read every row on every keystroke."""
    _workspace(tmp_path / "ws", 60, seed=2).close()
    server = create_server(tmp_path / "ws")
    try:
        async with Client(server, mode="legacy") as c:
            assert (await _complete(c, "a")).total > 0
            await c.call_tool("memory_add", {"content": "a fact, not a note"})
            reads = _count_reads(monkeypatch)
            for value in ("au", "aut", "note_2026", "zz", ""):
                await _complete(c, value)
            await c.complete(TAG_REF, {"name": "tag", "value": "a"})
            assert reads["n"] == 0
    finally:
        server.workspace_handle.close()  # type: ignore[attr-defined]


@pytest.mark.anyio
async def test_answers_after_tool_writes_and_outside_edits(tmp_path: Path) -> None:
    _workspace(tmp_path / "ws", 30, seed=3).close()
    server = create_server(tmp_path / "ws")
    handle = server.workspace_handle  # type: ignore[attr-defined]
    values = ["", "n", "note_", "auth", "migra", "Database mig", "zebra", "数据", "ZEBRA crossing"]

    async def same() -> None:
        ws = handle.get()
        headers = ws.notes.headers()
        for value in values:
            want = completions._answer(completions.match_notes(headers, value))
            got = await _complete(c, value)
            assert (got.values, got.total, got.has_more) == (want.values, want.total, want.has_more), value
            got = (await c.complete(TAG_REF, {"name": "tag", "value": value[:1]})).completion
            assert got.values == _tags_by_scan(headers, value[:1])[:100]

    try:
        async with Client(server, mode="legacy") as c:
            await same()
            handle.get().rescan_interval = 0
            made = (await c.call_tool("note_create", {"title": "Zebra crossing", "tags": ["zoo"]})).structured_content
            await same()
            assert (await _complete(c, "zebra")).values == [made["id"]]
            await c.call_tool("note_update", {"note_id": made["id"], "title": "Database migration plan"})
            await same()
            assert (await _complete(c, "zebra")).total == 0
            assert (await _complete(c, "migration plan")).values[0] == made["id"]
            await c.call_tool("note_delete", {"note_id": made["id"]})
            await same()
            assert made["id"] not in (await _complete(c, "")).values
            folder = tmp_path / "ws" / "notes"
            victim = sorted(p.stem for p in folder.glob("*.md"))[0]
            path = folder / f"{victim}.md"
            path.write_text(path.read_text(encoding="utf-8").replace("title:", "title: Zebra", 1)
                            .replace("\n# ", "\n# Zebra ", 1), encoding="utf-8")  # in place
            await same()
            assert victim in (await _complete(c, "zebra")).values
            _write(folder, {"id": "hand-made", "title": "Zebra by hand", "type": "general", "tags": ["zoo"]})
            await same()
            assert (await _complete(c, "hand")).values == ["hand-made"]
            os.unlink(folder / "hand-made.md")
            await same()
            assert (await _complete(c, "hand")).total == 0
    finally:
        handle.close()


# -- the catalogue's per-kind version -------------------------------------------------------------------------

def test_kind_version_changes_only_with_rows_of_that_kind() -> None:
    cat = Catalogue()
    start = cat.kind_version("note")
    assert cat.kind_version("memory") == start
    cat["memories/m.md"] = Entry("memories/m.md", "memory", "/r", 1, 1, meta={})
    assert cat.kind_version("note") == start and cat.kind_version("memory") != start
    cat["notes/a.md"] = Entry("notes/a.md", "note", "/r", 1, 1, meta={})
    one = cat.kind_version("note")
    assert one != start
    cat.pop("notes/missing.md")
    assert cat.kind_version("note") == one
    cat.pop("notes/a.md")
    two = cat.kind_version("note")
    assert two != one
    cat.replace_all({})
    assert cat.kind_version("note") not in (start, one, two)
    assert Catalogue().kind_version("note") != cat.kind_version("note")  # one counter for all catalogues
