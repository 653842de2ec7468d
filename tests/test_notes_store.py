"""The note store against real files and a real Whoosh index."""

from __future__ import annotations

import multiprocessing
import os
import re
import shutil

import pytest

from notes_store import NOTE_TYPES, InvalidInput, NotFound, open_workspace
from notes_store.files.front_matter import dump_document, parse_document


def reopen(ws, **options):
    root = ws.root
    ws.close()
    return open_workspace(root, **options)


# -- the seven actions -----------------------------------------------------------

def test_create_read_round_trip(ws):
    note = ws.notes.create("First note", "Some *markdown* content", note_type="conclusion", tags=["a", "b"])
    assert re.fullmatch(r"note_\d{8}_\d{6}_[0-9a-f]{8}", note.id)
    assert os.path.exists(note.path) and note.path.endswith(f"notes/{note.id}.md")
    assert note.created_at == note.updated_at and note.created_at.endswith("+00:00")
    got = ws.notes.read(note.id)
    assert (got.title, got.type, got.tags, got.content) == ("First note", "conclusion", ["a", "b"],
                                                            "Some *markdown* content")


def test_file_format_is_readable_markdown(ws):
    note = ws.notes.create("Format", "line one\nline two", tags=["x"])
    text = open(note.path, encoding="utf-8").read()
    assert text == (
        "---\n"
        f"id: {note.id}\n"
        "title: Format\n"
        "type: general\n"
        "tags: [x]\n"
        f"created_at: '{note.created_at}'\n"
        f"updated_at: '{note.updated_at}'\n"
        "---\n"
        "# Format\n\nline one\nline two\n")


def test_chinese_and_emoji_round_trip_without_escapes(ws):
    note = ws.notes.create("数据模型 🎉", "已完成数据模型层的重构 ✅\n第二行", tags=["中文", "émoji 🎉"])
    raw = open(note.path, encoding="utf-8").read()
    assert "\\u" not in raw and "中文" in raw and "🎉" in raw
    got = reopen(ws).notes.read(note.id)
    assert (got.title, got.content, got.tags) == ("数据模型 🎉", "已完成数据模型层的重构 ✅\n第二行", ["中文", "émoji 🎉"])


def test_update_changes_only_what_changed(ws, clock, tmp_path):
    ws2 = open_workspace(tmp_path / "clocked", clock=clock)
    note = ws2.notes.create("Title", "body", tags=["t"])
    before = open(note.path, encoding="utf-8").read().splitlines()
    clock.advance(60)
    updated = ws2.notes.update(note.id, content="new body")
    after = open(note.path, encoding="utf-8").read().splitlines()
    changed = [(a, b) for a, b in zip(before, after) if a != b]
    assert len(before) == len(after)
    assert [a.split(":")[0] for a, _ in changed] == ["updated_at", "body"]
    assert updated.updated_at > note.updated_at and updated.created_at == note.created_at
    ws2.close()


def test_update_none_means_unchanged_and_empty_string_is_a_value(ws):
    note = ws.notes.create("T", "content", note_type="action", tags=["x"])
    ws.notes.update(note.id, title="T2")
    got = ws.notes.read(note.id)
    assert (got.title, got.content, got.type, got.tags) == ("T2", "content", "action", ["x"])
    ws.notes.update(note.id, content="", tags=[])
    got = ws.notes.read(note.id)
    assert got.content == "" and got.tags == []
    assert ws.notes.search("content").total == 0


def test_unchanged_update_keeps_bytes(ws):
    note = ws.notes.create("Stable", "text", tags=["a"])
    raw = open(note.path, "rb").read()
    ws.notes.update(note.id, title="Stable", content="text", tags=["a"])
    assert open(note.path, "rb").read() == raw


def test_serialisation_is_byte_stable():
    meta = {"id": "n1", "title": "数据: 'quoted' --- x", "type": "general", "tags": ["a b", "中文"],
            "created_at": "2026-11-29T15:30:00+00:00", "updated_at": "2026-11-29T15:30:00+00:00",
            "extra": {"nested": [1, 2]}}
    raw = dump_document(meta, "# t\n\nbody\n")
    doc = parse_document(raw)
    assert doc.meta == meta
    assert dump_document(doc.meta, doc.body) == raw


def test_unknown_front_matter_keys_are_preserved(ws):
    note = ws.notes.create("Keys", "body")
    text = open(note.path, encoding="utf-8").read()
    text = text.replace("---\n# Keys", "reviewer: ana\npriority: 2\n---\n# Keys")
    open(note.path, "w", encoding="utf-8").write(text)
    ws.notes.update(note.id, content="changed")
    text = open(note.path, encoding="utf-8").read()
    assert "reviewer: ana\npriority: 2\n---" in text
    assert ws.notes.read(note.id).extra == {"reviewer": "ana", "priority": 2}


def test_delete_removes_everywhere(ws):
    note = ws.notes.create("Doomed", "unique-word-xyzzy")
    assert ws.notes.search("xyzzy").total == 1
    assert ws.notes.delete(note.id)["deleted"] is True
    assert not os.path.exists(note.path)
    assert ws.notes.search("xyzzy").total == 0
    assert ws.notes.list().total == 0
    with pytest.raises(NotFound):
        ws.notes.read(note.id)
    with pytest.raises(NotFound):
        ws.notes.delete(note.id)
    assert ws.index_count() == 0


def test_ids_unique_and_never_reused(ws):
    ids = set()
    for i in range(60):
        note = ws.notes.create(f"n{i}", "x")
        ids.add(note.id)
        if i % 2:
            ws.notes.delete(note.id)
    assert len(ids) == 60
    assert all(ws.notes.create("again", "x").id not in ids for _ in range(20))


def test_summary(ws):
    ws.notes.create("a", "x", note_type="blocker", tags=["p", "q"])
    ws.notes.create("b", "x", note_type="blocker", tags=["p"])
    ws.notes.create("c", "x")
    s = ws.notes.summary().to_dict()
    assert s["total"] == 3
    assert s["by_type"]["blocker"] == 2 and s["by_type"]["general"] == 1
    assert set(s["by_type"]) == set(NOTE_TYPES)
    assert s["top_tags"][0] == {"tag": "p", "count": 2}
    assert len(s["recent"]) == 3 and "content" not in s["recent"][0]
    assert s["unreadable"] == []


# -- errors ------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, message", [
    ({"title": ""}, "title must not be empty"),
    ({"title": "   "}, "title must not be empty"),
    ({"title": "a\nb"}, "single line"),
    ({"title": "t", "note_type": "idea"}, "task_state, conclusion, blocker, action, reference, general"),
    ({"title": "t", "tags": "one"}, "list of strings"),
    ({"title": "t", "tags": [1]}, "tags must be strings"),
    ({"title": "t", "tags": ["a,b"]}, "commas"),
    ({"title": "t", "content": "x\x00y"}, "NUL"),
])
def test_create_rejects_bad_input(ws, kwargs, message):
    kwargs.setdefault("content", "c")
    with pytest.raises(InvalidInput, match=re.escape(message)):
        ws.notes.create(**kwargs)
    assert os.listdir(ws.root / "notes") == []


def test_content_size_limit(tmp_path):
    ws = open_workspace(tmp_path / "w", max_content_bytes=1000)
    with pytest.raises(InvalidInput, match="over the limit of 1000 bytes"):
        ws.notes.create("big", "x" * 1001)
    ws.notes.create("ok", "x" * 1000)
    ws.close()


@pytest.mark.parametrize("bad_id", ["../etc/passwd", "/etc/passwd", "a/../../b", "..", "x\x00y", "a\nb", ""])
def test_hostile_ids_are_refused(ws, bad_id):
    for call in (ws.notes.read, ws.notes.delete, lambda i: ws.notes.update(i, title="x")):
        with pytest.raises(InvalidInput):
            call(bad_id)


def test_not_found_errors_say_what_to_do(ws):
    with pytest.raises(NotFound, match="note_search or note_list"):
        ws.notes.read("note_20260101_000000_deadbeef")
    with pytest.raises(NotFound):
        ws.notes.update("note_20260101_000000_deadbeef", title="x")


def test_bad_filters_and_paging(ws):
    with pytest.raises(InvalidInput, match="query must not be empty"):
        ws.notes.search("  ")
    with pytest.raises(InvalidInput, match="limit"):
        ws.notes.search("x", limit=0)
    with pytest.raises(InvalidInput, match="offset"):
        ws.notes.list(offset=-1)
    with pytest.raises(InvalidInput, match="ISO 8601"):
        ws.notes.search("x", updated_after="yesterday")
    with pytest.raises(InvalidInput, match="one of"):
        ws.notes.list(sort="random")
    with pytest.raises(InvalidInput, match="one of"):
        ws.notes.search("x", note_type="nope")


# -- search ------------------------------------------------------------------------------

def test_chinese_compound_inside_sentence(ws):
    target = ws.notes.create("进展", "已完成数据模型层的重构")
    ws.notes.create("其他", "今天讨论了模型的部署和数据的备份")
    for query in ("重构", "数据模型", "模型层"):
        result = ws.notes.search(query)
        assert result.hits and result.hits[0].note.id == target.id, query
        assert result.total_all_words == 1
    # "数据模型" is a phrase: the other note has 数据 and 模型 but not together, so it
    # only follows as a partial match.
    result = ws.notes.search("数据模型")
    assert result.matched == "any" and result.total == 2 and result.hits[1].note.title == "其他"
    assert ws.notes.search("重构").matched == "all"


def test_mixed_language_and_title_weight(ws):
    in_title = ws.notes.create("Kubernetes upgrade", "planning notes")
    in_body = ws.notes.create("Planning", "we talked about the kubernetes upgrade and many other things too")
    hits = ws.notes.search("kubernetes upgrade").hits
    assert [h.note.id for h in hits] == [in_title.id, in_body.id]
    mixed = ws.notes.create("部署 checklist", "先检查 kubernetes 集群的状态")
    assert ws.notes.search("集群 kubernetes").hits[0].note.id == mixed.id


def test_stemming_phrases_and_fallback(ws):
    a = ws.notes.create("Runner", "The tests were running slowly on CI")
    b = ws.notes.create("Other", "slowly the dog ran home")
    assert ws.notes.search("run test").hits[0].note.id == a.id
    phrase = ws.notes.search('"running slowly"')
    assert phrase.hits[0].note.id == a.id and phrase.total_all_words == 1
    assert ws.notes.search('"slowly running"').total_all_words == 0
    fallback = ws.notes.search("slowly zebra")
    assert fallback.matched == "any" and fallback.total_all_words == 0
    assert {h.note.id for h in fallback.hits} == {a.id, b.id}
    partial = ws.notes.search("slowly dog")
    assert [h.note.id for h in partial.hits] == [b.id, a.id] and partial.total_all_words == 1
    assert "**slowly**" in fallback.hits[0].snippet


def test_search_filters_and_paging(ws, tmp_path, clock):
    w = open_workspace(tmp_path / "f", clock=clock)
    ids = []
    for i in range(25):
        clock.advance(3600)
        ids.append(w.notes.create(f"report {i}", "weekly report text", note_type="action" if i % 2 else "general",
                                  tags=["even"] if i % 2 == 0 else ["odd", "x"]).id)
    r = w.notes.search("report", limit=10)
    assert r.total == 25 and len(r.hits) == 10
    seen = {h.note.id for off in (0, 10, 20) for h in w.notes.search("report", limit=10, offset=off).hits}
    assert seen == set(ids)
    assert w.notes.search("report", note_type="action").total == 12
    assert w.notes.search("report", tags=["odd", "x"]).total == 12
    assert w.notes.search("report", tags=["even", "x"]).total == 0
    middle = w.notes.read(ids[10]).updated_at
    assert w.notes.search("report", updated_after=middle, limit=100).total == 15
    assert w.notes.search("report", updated_before=middle, limit=100).total == 11
    listed = w.notes.list(note_type="general", limit=5, offset=5)
    assert listed.total == 13 and len(listed.notes) == 5
    newest = w.notes.list(limit=1).notes[0]
    assert newest.id == ids[-1] and newest.content is None
    assert w.notes.list(sort="created_asc", limit=1).notes[0].id == ids[0]
    w.close()


# -- the index follows the files ----------------------------------------------------------

def test_persistence_across_reopen(ws):
    note = ws.notes.create("Persist", "durable words")
    ws = reopen(ws)
    assert ws.notes.search("durable").hits[0].note.id == note.id
    assert ws.index_count() == 1


def test_outside_add_edit_delete_picked_up_without_restart(ws):
    ws.rescan_interval = 0  # in-place edits are found by the periodic scan; make it immediate here
    note = ws.notes.create("Original", "alpha")
    path = ws.root / "notes" / "hand-made.md"
    path.write_text("---\nid: hand-made\ntitle: Written by hand\ntags: [manual]\n---\n# Written by hand\n\nbravo\n",
                    encoding="utf-8")
    assert ws.notes.search("bravo").hits[0].note.id == "hand-made"
    assert ws.notes.list(tags=["manual"]).total == 1
    text = open(note.path, encoding="utf-8").read().replace("alpha", "charlie")
    with open(note.path, "w", encoding="utf-8") as fh:  # in place, like many editors
        fh.write(text)
    assert ws.notes.search("charlie").total == 1 and ws.notes.search("alpha").total == 0
    os.unlink(path)
    assert ws.notes.search("bravo").total == 0
    assert ws.index_count() == 1


def test_copied_in_file_found_by_other_open_workspace(tmp_path):
    a = open_workspace(tmp_path / "w")
    b = open_workspace(tmp_path / "w")
    note = a.notes.create("From A", "shared secret words")
    assert b.notes.search("secret").hits[0].note.id == note.id  # read-your-writes across handles
    b.notes.delete(note.id)
    assert a.notes.search("secret").total == 0
    a.close(), b.close()


def test_malformed_files_reported_others_work(ws):
    good = ws.notes.create("Good", "fine words")
    folder = ws.root / "notes"
    (folder / "badyaml.md").write_text("---\ntitle: [unclosed\n---\nbody\n", encoding="utf-8")
    (folder / "noid.md").write_text("---\ntitle: x\n---\nbody\n", encoding="utf-8")
    (folder / "binary.md").write_bytes(b"\xff\xfe\x00\x01garbage")
    (folder / "unsafe.md").write_text("---\nid: unsafe\nx: !!python/object/apply:os.system ['true']\n---\n",
                                      encoding="utf-8")
    (folder / "mismatch.md").write_text("---\nid: other\ntitle: x\n---\n", encoding="utf-8")
    assert ws.notes.search("fine").hits[0].note.id == good.id
    summary = ws.notes.summary()
    unreadable = {p["path"]: p["reason"] for p in summary.unreadable}
    assert set(unreadable) == {"notes/binary.md"}   # not text; any other Markdown page is a note
    assert "UTF-8" in unreadable["notes/binary.md"]
    problems = {p["id"]: p["reason"] for p in summary.front_matter_problems}
    assert set(problems) == {"badyaml", "unsafe"} and "invalid YAML" in problems["badyaml"]
    assert ws.notes.list().total == 5
    assert ws.notes.read("badyaml").content == "body\n"          # its front matter is ignored, not run
    assert ws.notes.read("mismatch").id == "mismatch"           # the path is the id; its 'id' key is the page's own
    assert ws.notes.read("noid").title == "x"


def test_symlink_outside_workspace_not_followed(ws, tmp_path):
    secret = tmp_path / "secret.md"
    secret.write_text("---\nid: link\ntitle: secret\n---\ntopsecret\n", encoding="utf-8")
    os.symlink(secret, ws.root / "notes" / "link.md")
    assert ws.notes.search("topsecret").total == 0
    assert any("symbolic link" in p["reason"] for p in ws.notes.summary().unreadable)
    with pytest.raises(InvalidInput, match="symbolic link"):
        ws.notes.read("link")


@pytest.mark.parametrize("damage", ["truncate", "garbage", "delete_folder"])
def test_corrupt_index_is_rebuilt(ws, damage):
    notes = [ws.notes.create(f"note {i}", f"searchable payload {i}") for i in range(5)]
    ws.close()
    index_dir = ws.root / ".index" / "whoosh"
    if damage == "delete_folder":
        shutil.rmtree(index_dir)
    else:
        for name in os.listdir(index_dir):
            path = index_dir / name
            if damage == "truncate":
                open(path, "wb").close()
            else:
                path.write_bytes(os.urandom(64))
    ws = open_workspace(ws.root)
    assert ws.notes.search("payload", limit=10).total == 5
    assert ws.index_count() == 5
    assert any("rebuil" in e for e in ws.events)
    assert {n.id for n in notes} == {n.id for n in ws.notes.list(limit=10).notes}
    ws.close()


def test_index_folder_deleted_while_open(ws):
    ws.notes.create("still here", "phoenix")
    ws.flush()
    shutil.rmtree(ws.root / ".index" / "whoosh")
    assert ws.notes.search("phoenix").total == 1


def test_leftover_temp_files_cleaned_on_open(ws):
    stray = ws.root / "notes" / ".tmp-note_x.md.123.456"
    stray.write_text("half a note", encoding="utf-8")
    ws = reopen(ws)
    assert not stray.exists()
    ws.close()


def _create_many(root, prefix, count):
    ws = open_workspace(root)
    for i in range(count):
        ws.notes.create(f"{prefix} {i}", f"concurrent {prefix} body")
    ws.close()


def test_two_processes_create_at_once(tmp_path):
    root = tmp_path / "w"
    open_workspace(root).close()
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_create_many, args=(root, p, 40)) for p in ("alpha", "beta")]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    ws = open_workspace(root)
    assert len(os.listdir(root / "notes")) == 80
    assert ws.notes.search("concurrent", limit=100).total == 80
    assert ws.notes.search("alpha", limit=100).total == 40
    assert ws.index_count() == 80
    ws.close()


def test_background_watcher_picks_up_in_place_edits(ws):
    import time
    note = ws.notes.create("Watched", "original words")
    ws.flush()
    ws.start_watching(interval=0.05)
    with open(note.path, "r+", encoding="utf-8") as fh:  # same size, in place: no folder mtime change
        text = fh.read().replace("original", "replaced")
        fh.seek(0)
        fh.write(text)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and ws.notes.search("replaced").total == 0:
        time.sleep(0.05)
    assert ws.notes.search("replaced").total == 1
    assert ws.notes.search("original").total == 0


def test_read_your_writes_across_handles_within_one_clock_tick(tmp_path):
    # Folder mtimes are coarse (a clock tick): writes in quick succession from two
    # handles must still be seen through the change token, not the periodic rescan.
    a = open_workspace(tmp_path / "w", rescan_interval=1000)
    b = open_workspace(tmp_path / "w", rescan_interval=1000)
    for i in range(30):
        writer, reader = (a, b) if i % 2 else (b, a)
        writer.notes.create(f"tick {i}", f"tokenword{i}")
        assert reader.notes.search(f"tokenword{i}").total == 1, i
        assert reader.notes.list(limit=100).total == i + 1
    a.close(), b.close()


def test_memory_access_updates_do_not_commit_the_index_on_every_search(ws):
    ws.memory.add("the quarterly report is due friday", memory_type="semantic")
    assert ws.memory.search("quarterly report").hits  # opens a searcher on the committed index
    generation = ws._index._generation
    for _ in range(4):
        assert ws.memory.search("quarterly report").hits
    assert ws._index._generation == generation  # no commit, no new searcher
    assert ws.memory.search("quarterly report", limit=1).hits[0].memory.access_count == 6


def test_question_words_do_not_decide_the_match(ws):
    answer = ws.notes.create("Storage decision", "We picked Postgres for the database")
    ws.notes.create("Standup", "What did the intern do? What was hard? Which tasks were done?")
    result = ws.notes.search("what database did we pick?")
    assert result.hits[0].note.id == answer.id
    assert result.matched == "all" and result.total == 1
    # a query made only of question words still searches with them
    assert ws.notes.search("what did").hits[0].note.title == "Standup"


@pytest.mark.parametrize("inotify", [True, False], ids=["inotify", "periodic-scan"])
def test_outside_changes_seen_with_and_without_inotify(tmp_path, monkeypatch, inotify):
    if not inotify:
        monkeypatch.setenv("CTXNOTES_NO_INOTIFY", "1")
    ws = open_workspace(tmp_path / "w", rescan_interval=0 if not inotify else 1000)
    assert (ws._inotify is not None) == inotify  # Linux: inotify is there unless switched off
    note = ws.notes.create("Edited", "before")
    with open(note.path, "r+", encoding="utf-8") as fh:  # in place, same size
        text = fh.read().replace("before", "after!")
        fh.seek(0)
        fh.write(text)
    (ws.root / "notes" / "dropped.md").write_text("---\nid: dropped\ntitle: Dropped in\n---\nfresh words\n",
                                                  encoding="utf-8")
    assert ws.notes.search("after").total == 1 and ws.notes.search("before").total == 0
    assert ws.notes.search("fresh").total == 1
    os.unlink(ws.root / "notes" / "dropped.md")
    assert ws.notes.search("fresh").total == 0
    shutil.rmtree(ws.root / "notes")  # the whole folder replaced, e.g. by a checkout
    (ws.root / "notes").mkdir()
    assert ws.notes.list().total == 0
    ws.close()


def test_snippets_mark_whole_words_and_chinese_terms():
    from notes_store.analysis.analyzer import query_terms
    from notes_store.index.snippets import make_snippet
    text = "Prerun checks. The tests were Running slowly; x_running too. 已完成数据模型层的重构"
    snippet = make_snippet(text, set(query_terms("run 数据模型")), width=200)
    assert "**Running**" in snippet and "x_**running**" in snippet
    assert "Pre**run**" not in snippet and "Prerun" in snippet
    assert "**数据模型**" in snippet
    assert make_snippet("nothing to see", set(query_terms("absent"))) == "nothing to see"
