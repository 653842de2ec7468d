"""The memory store against real files and a real Whoosh index (time moved by a fake clock)."""

from __future__ import annotations

import json
import os
import re

import pytest

from notes_store import InvalidInput, NotFound, open_workspace
from notes_store.files.front_matter import dump_document, parse_document
from notes_store.memory.store import MemoryConfig
from server import cli

HOUR = 3600.0
DAY = 86400.0


@pytest.fixture
def mws(tmp_path, clock):
    ws = open_workspace(tmp_path / "ws", clock=clock)
    yield ws
    ws.close()


def open_ws(path, clock, **config):
    return open_workspace(path, clock=clock, memory_config=MemoryConfig(**config) if config else None)


def front(path):
    return parse_document(open(path, "rb").read()).meta


def rewrite(path, mutate_meta=None, content=None):
    """Edit a memory file the way an editor that saves via rename does."""
    doc = parse_document(open(path, "rb").read())
    meta = dict(doc.meta)
    if mutate_meta:
        mutate_meta(meta)
    body = doc.body if content is None else content + "\n"
    tmp = str(path) + ".edit"
    with open(tmp, "wb") as fh:
        fh.write(dump_document(meta, body))
    os.replace(tmp, path)


# -- add / read ---------------------------------------------------------------------

def test_add_read_round_trip_and_file_format(mws, clock):
    m = mws.memory.add("The user prefers tabs over spaces", memory_type="semantic", importance=0.9,
                       tags=["prefs", "style"], source="note_20251124_000000_deadbeef")
    assert re.fullmatch(r"mem_\d{8}_\d{6}_[0-9a-f]{8}", m.id)
    assert m.id.startswith("mem_20251124_")
    assert m.path.endswith(f"memory/{m.id}.md")
    assert open(m.path, encoding="utf-8").read() == (
        "---\n"
        f"id: {m.id}\n"
        "memory_type: semantic\n"
        "importance: 0.9\n"
        "tags: [prefs, style]\n"
        f"created_at: '{m.created_at}'\n"
        "source: note_20251124_000000_deadbeef\n"
        "---\n"
        "The user prefers tabs over spaces\n")
    got = mws.memory.read(m.id)
    assert got.to_dict() == m.to_dict()
    assert (got.content, got.memory_type, got.importance, got.tags, got.access_count, got.expires_at) == (
        "The user prefers tabs over spaces", "semantic", 0.9, ["prefs", "style"], 0, None)


def test_add_defaults_to_working_with_two_hour_ttl(mws, clock):
    m = mws.memory.add("scratch: trying approach B")
    assert (m.memory_type, m.importance, m.tags, m.source) == ("working", 0.5, [], None)
    created = clock.now - clock.now % 1
    from notes_store.validation import parse_time
    assert parse_time(m.expires_at, "x") - parse_time(m.created_at, "x") == 120 * 60
    assert parse_time(m.created_at, "x") == created
    assert front(m.path)["expires_at"] == m.expires_at


@pytest.mark.parametrize("kwargs, message", [
    ({"importance": 1.5}, "importance must be a number from 0.0 to 1.0"),
    ({"importance": -0.1}, "importance must be a number from 0.0 to 1.0"),
    ({"importance": "high"}, "importance must be a number"),
    ({"importance": True}, "importance must be a number"),
    ({"importance": float("nan")}, "importance must be a number"),
    ({"memory_type": "long_term"}, "use one of: working, episodic, semantic"),
    ({"tags": "a,b"}, "tags must be a list"),
    ({"memory_type": "semantic", "ttl_minutes": 10}, "ttl_minutes applies only to working memories"),
    ({"ttl_minutes": 0}, "ttl_minutes must be a number of minutes > 0"),
    ({"source": "two\nlines"}, "source must be one line"),
])
def test_add_rejects_bad_input_with_a_clear_message(mws, kwargs, message):
    with pytest.raises(InvalidInput, match=re.escape(message)):
        mws.memory.add("valid content", **kwargs)
    assert os.listdir(mws.folder("memory")) == []


@pytest.mark.parametrize("content", ["", "   \n\t", None])
def test_add_rejects_empty_content(mws, content):
    with pytest.raises(InvalidInput, match="content"):
        mws.memory.add(content)


def test_read_errors(mws):
    with pytest.raises(NotFound, match="no memory with id 'mem_missing'"):
        mws.memory.read("mem_missing")
    with pytest.raises(InvalidInput, match="not a valid id"):
        mws.memory.read("../notes/x")
    with pytest.raises(InvalidInput, match="memory_id is required"):
        mws.memory.read("")


# -- TTL -------------------------------------------------------------------------------

def test_working_memory_expires_and_is_purged(mws, clock):
    m = mws.memory.add("temporary hypothesis about caching", ttl_minutes=30)
    keep = mws.memory.add("durable caching fact", memory_type="semantic")
    clock.advance(29 * 60)
    assert {h.memory.id for h in mws.memory.search("caching", touch=False).hits} == {m.id, keep.id}
    assert mws.memory.read(m.id).id == m.id
    clock.advance(61)
    summary = mws.memory.summary()
    assert summary.expired_unpurged == 1 and summary.by_type["working"]["count"] == 0
    assert os.path.exists(m.path)  # summary is read-only
    assert [h.memory.id for h in mws.memory.search("caching").hits] == [keep.id]
    assert not os.path.exists(m.path)
    with pytest.raises(NotFound):
        mws.memory.read(m.id)
    assert mws.memory.summary().expired_unpurged == 0
    assert mws.index_count("memory") == 1


def test_expired_memory_is_never_returned_by_read_list_or_consolidate(mws, clock):
    m = mws.memory.add("very important but short-lived", importance=0.95)
    clock.advance(121 * 60)
    with pytest.raises(NotFound, match="expired"):
        mws.memory.read(m.id)
    m2 = mws.memory.add("another important one", importance=0.95, ttl_minutes=1)
    clock.advance(61)
    assert mws.memory.list().total == 0
    assert mws.memory.consolidate().moved == []
    assert not os.path.exists(m2.path)


def test_ttl_default_is_configurable(tmp_path, clock):
    ws = open_ws(tmp_path / "w", clock, working_ttl_minutes=10)
    try:
        m = ws.memory.add("short")
        clock.advance(9 * 60)
        assert ws.memory.list().total == 1
        clock.advance(60)
        assert ws.memory.list().total == 0 and not os.path.exists(m.path)
    finally:
        ws.close()


def test_update_ttl_extends_a_working_memory(mws, clock):
    m = mws.memory.add("extend me")
    clock.advance(100 * 60)
    mws.memory.update(m.id, ttl_minutes=60)
    clock.advance(50 * 60)  # 150 min after creation: past the default TTL, within the new one
    assert mws.memory.read(m.id).content == "extend me"
    with pytest.raises(InvalidInput, match="only to working"):
        mws.memory.update(mws.memory.add("fact", memory_type="semantic").id, ttl_minutes=5)


# -- capacity ----------------------------------------------------------------------------

def test_capacity_evicts_lowest_value_but_never_the_new_one(tmp_path, clock):
    ws = open_ws(tmp_path / "w", clock, working_capacity=3)
    try:
        low = ws.memory.add("low", importance=0.2)
        mid = ws.memory.add("mid", importance=0.5)
        high = ws.memory.add("high", importance=0.9)
        assert ws.memory.list().total == 3
        newest = ws.memory.add("the new one has the lowest value", importance=0.0)
        assert newest.evicted == [low.id]
        assert not os.path.exists(low.path) and os.path.exists(newest.path)
        ids = {m.id for m in ws.memory.list(memory_type="working").memories}
        assert ids == {mid.id, high.id, newest.id}
        # Long-term memories do not count against the working capacity.
        ws.memory.add("episodic one", memory_type="episodic", importance=0.0)
        assert ws.memory.list(memory_type="working").total == 3
    finally:
        ws.close()


def test_capacity_eviction_weighs_recency(tmp_path, clock):
    ws = open_ws(tmp_path / "w", clock, working_capacity=2)
    try:
        old = ws.memory.add("old but important", importance=0.8, ttl_minutes=600)
        clock.advance(3 * HOUR)  # 3 half-lives: value 0.8 * 0.125 = 0.1
        fresh = ws.memory.add("fresh and modest", importance=0.3)  # value 0.3
        added = ws.memory.add("third", importance=0.5)
        assert added.evicted == [old.id]
        assert os.path.exists(fresh.path)
    finally:
        ws.close()


# -- search ----------------------------------------------------------------------------------

def test_chinese_word_found_inside_a_sentence(mws):
    m = mws.memory.add("已完成数据模型层的重构", memory_type="episodic")
    mws.memory.add("用户喜欢简洁的回答", memory_type="semantic")
    hits = mws.memory.search("重构").hits
    assert [h.memory.id for h in hits] == [m.id]
    assert [h.memory.id for h in mws.memory.search("数据模型").hits] == [m.id]
    fallback = mws.memory.search("模型层的重建")  # not in any memory as a whole: any-word fallback
    assert fallback.matched == "any" and [h.memory.id for h in fallback.hits] == [m.id]


def test_decay_ordering_matches_the_documented_trade_off(tmp_path, clock):
    # Equal relevance (same words, same length); episodic half-life 7 days.
    def scenario(age_days):
        ws = open_ws(tmp_path / f"w{age_days}", clock)
        try:
            old = ws.memory.add("deploy checklist alpha", memory_type="episodic", importance=0.9)
            clock.advance(age_days * DAY)
            fresh = ws.memory.add("deploy checklist bravo", memory_type="episodic", importance=0.2)
            hits = ws.memory.search("deploy checklist", touch=False).hits
            assert {h.relevance for h in hits} == {1.0}
            return [h.memory.id for h in hits], old.id, fresh.id, hits
        finally:
            ws.close()

    order, old, fresh, hits = scenario(7)   # one half-life: 0.25*0.5 + 0.25*0.9 > 0.25*1 + 0.25*0.2
    assert order == [old, fresh]
    assert hits[0].recency == pytest.approx(0.5, abs=1e-3) and hits[1].recency == pytest.approx(1.0)
    assert hits[0].score == pytest.approx(0.5 + 0.125 + 0.225, abs=1e-3)
    order, old, fresh, _ = scenario(21)     # three half-lives: the fresh one wins
    assert order == [fresh, old]


def test_semantic_memories_do_not_decay(mws, clock):
    m = mws.memory.add("the database is postgres", memory_type="semantic", importance=0.5)
    clock.advance(365 * DAY)
    hit = mws.memory.search("postgres").hits[0]
    assert hit.memory.id == m.id and hit.recency == 1.0


def test_min_importance_is_honoured(mws):
    by_imp = {imp: mws.memory.add(f"widget note {imp}", memory_type="episodic", importance=imp).id
              for imp in (0.3, 0.6, 0.9)}
    got = {h.memory.id for h in mws.memory.search("widget", min_importance=0.6, limit=10).hits}
    assert got == {by_imp[0.6], by_imp[0.9]}
    assert mws.memory.search("widget", min_importance=0.95).hits == []
    with pytest.raises(InvalidInput, match="min_importance must be a number from 0.0 to 1.0"):
        mws.memory.search("widget", min_importance=2)


def test_search_filters_type_limits_and_falls_back_to_any_word(mws):
    w = mws.memory.add("parser bug in tokenizer", memory_type="working")
    e = mws.memory.add("parser rewrite shipped", memory_type="episodic")
    assert [h.memory.id for h in mws.memory.search("parser", memory_type="episodic").hits] == [e.id]
    assert len(mws.memory.search("parser", limit=1).hits) == 1
    r = mws.memory.search("tokenizer shipped")
    assert r.matched == "any" and {h.memory.id for h in r.hits} == {w.id, e.id}
    assert mws.memory.search("nonexistentword").matched == "none"
    for bad in ("", "   "):
        with pytest.raises(InvalidInput, match="query must not be empty"):
            mws.memory.search(bad)
    with pytest.raises(InvalidInput, match="limit"):
        mws.memory.search("parser", limit=0)
    with pytest.raises(InvalidInput, match="use one of"):
        mws.memory.search("parser", memory_type="long")


def test_notes_and_memories_do_not_mix(mws):
    mws.notes.create("Zebra note", "zebra facts")
    m = mws.memory.add("zebra memory", memory_type="semantic")
    assert [h.memory.id for h in mws.memory.search("zebra").hits] == [m.id]
    assert [h.note.title for h in mws.notes.search("zebra").hits] == ["Zebra note"]


def test_hits_record_an_access_in_the_sidecar_leaving_files_and_index_alone(mws, clock):
    ms = [mws.memory.add(f"filler memory number {i}", memory_type="episodic") for i in range(15)]
    target = mws.memory.add("the unique kiwi fact", memory_type="episodic")
    mws.flush()
    before = {m.id: open(m.path, "rb").read() for m in [*ms, target]}
    index_files = {p: p.stat().st_mtime_ns for p in (mws.index_dir / "whoosh").rglob("*")} \
        if (mws.index_dir / "whoosh").exists() else None
    clock.advance(HOUR)
    hit = mws.memory.search("kiwi").hits[0]
    mws.flush()
    assert hit.memory.access_count == 1 and hit.memory.last_accessed_at != target.last_accessed_at
    assert hit.recency < 1.0  # scored on the access before this one
    assert hit.memory.revision == target.revision  # the file did not change
    assert {m.id: open(m.path, "rb").read() for m in [*ms, target]} == before
    if index_files is not None:  # nothing was re-indexed
        assert {p: p.stat().st_mtime_ns for p in (mws.index_dir / "whoosh").rglob("*")} == index_files
    assert "access_count" not in front(target.path) and "last_accessed_at" not in front(target.path)
    assert mws.memory.search("kiwi", touch=False).hits[0].memory.access_count == 1
    assert mws.memory.read(target.id).access_count == 1  # read does not count
    assert mws.memory.read(target.id).last_accessed_at == hit.memory.last_accessed_at
    # The recency of the next search is computed from this access (1 h ago), not from the creation (2 h).
    clock.advance(HOUR)
    again = mws.memory.search("kiwi", touch=False).hits[0]
    assert again.recency == pytest.approx(0.5 ** (1 / (24 * 7))) == pytest.approx(hit.recency)
    assert all(mws.memory.read(m.id).access_count == 0 for m in ms)


# -- forget ------------------------------------------------------------------------------------

def test_forget_by_id(mws):
    m = mws.memory.add("forget me", memory_type="episodic")
    dry = mws.memory.forget(m.id, dry_run=True)
    assert [x.id for x in dry.removed] == [m.id] and os.path.exists(m.path)
    res = mws.memory.forget(m.id)
    assert res.to_dict()["count"] == 1 and res.removed[0].content == "forget me"
    assert not os.path.exists(m.path)
    assert mws.memory.search("forget").hits == []
    with pytest.raises(NotFound, match="nothing was forgotten"):
        mws.memory.forget(m.id)


@pytest.mark.parametrize("kwargs, message", [
    ({}, "give either memory_id"),
    ({"memory_id": "mem_x", "strategy": "time_based"}, "not both"),
    ({"strategy": "random"}, "use one of: importance_based, time_based, capacity_based"),
    ({"strategy": "importance_based", "threshold": 1.2}, "threshold must be a number from 0.0 to 1.0"),
    ({"strategy": "time_based", "max_age_days": 0}, "max_age_days must be a number of days > 0"),
    ({"strategy": "capacity_based", "capacity": -1}, "capacity must be a whole number >= 0"),
    ({"strategy": "capacity_based", "memory_type": "other"}, "use one of: working, episodic, semantic"),
])
def test_forget_rejects_bad_input(mws, kwargs, message):
    with pytest.raises(InvalidInput, match=re.escape(message)):
        mws.memory.forget(**kwargs)


def test_forget_importance_based_with_dry_run(mws):
    low = mws.memory.add("trivia", memory_type="episodic", importance=0.05)
    edge = mws.memory.add("edge", memory_type="semantic", importance=0.1)
    mws.memory.add("keeper", memory_type="episodic", importance=0.8)
    dry = mws.memory.forget(strategy="importance_based", dry_run=True)
    assert [m.id for m in dry.removed] == [low.id] and dry.dry_run and os.path.exists(low.path)
    res = mws.memory.forget(strategy="importance_based", threshold=0.1)
    assert [m.id for m in res.removed] == [low.id] and not os.path.exists(low.path)
    assert os.path.exists(edge.path)  # "below" the threshold is strict
    assert mws.memory.summary().total == 2


def test_forget_time_based_spares_recently_accessed(mws, clock):
    stale = mws.memory.add("stale mango detail", memory_type="episodic")
    used = mws.memory.add("used papaya detail", memory_type="episodic")
    clock.advance(20 * DAY)
    assert mws.memory.search("papaya").hits[0].memory.id == used.id
    clock.advance(15 * DAY)  # both created 35 days ago; papaya accessed 15 days ago
    young = mws.memory.add("young detail", memory_type="episodic")
    res = mws.memory.forget(strategy="time_based", max_age_days=30)
    assert [m.id for m in res.removed] == [stale.id]
    assert os.path.exists(used.path) and os.path.exists(young.path)


def test_forget_capacity_based_keeps_best_per_type(mws):
    ep = {imp: mws.memory.add(f"episode {imp}", memory_type="episodic", importance=imp).id for imp in (0.1, 0.5, 0.9)}
    se = {imp: mws.memory.add(f"fact {imp}", memory_type="semantic", importance=imp).id for imp in (0.2, 0.7)}
    res = mws.memory.forget(strategy="capacity_based", capacity=1, dry_run=True)
    assert {m.id for m in res.removed} == {ep[0.1], ep[0.5], se[0.2]}
    res = mws.memory.forget(strategy="capacity_based", capacity=1, memory_type="semantic")
    assert [m.id for m in res.removed] == [se[0.2]]
    assert mws.memory.list().total == 4


# -- consolidate ----------------------------------------------------------------------------

def test_consolidate_working_to_episodic_clamps_importance(mws):
    top = mws.memory.add("critical finding", importance=0.95)
    good = mws.memory.add("useful finding", importance=0.8)
    meh = mws.memory.add("passing thought", importance=0.5)
    res = mws.memory.consolidate()
    moved = {m.memory.id: m for m in res.moved}
    assert set(moved) == {top.id, good.id} and res.criterion == "importance >= 0.7"
    assert moved[top.id].memory.importance == 1.0 and moved[top.id].importance_before == 0.95
    assert moved[good.id].memory.importance == pytest.approx(0.88)
    for mid in (top.id, good.id):
        m = mws.memory.read(mid)
        assert m.memory_type == "episodic" and m.expires_at is None
        assert "expires_at" not in front(m.path) and front(m.path)["importance"] <= 1.0
    assert mws.memory.read(meh.id).memory_type == "working"
    assert mws.memory.consolidate().moved == []  # nothing left to move


def test_consolidate_episodic_to_semantic_by_access_count(mws, clock):
    often = mws.memory.add("often used lychee fact", memory_type="episodic", importance=0.3)
    rare = mws.memory.add("rarely used durian fact", memory_type="episodic", importance=0.9)
    for _ in range(3):
        mws.memory.search("lychee")
    mws.memory.search("durian")
    dry = mws.memory.consolidate("episodic", "semantic", dry_run=True)
    assert [m.memory.id for m in dry.moved] == [often.id] and mws.memory.read(often.id).memory_type == "episodic"
    res = mws.memory.consolidate("episodic", "semantic")
    assert [m.memory.id for m in res.moved] == [often.id] and res.criterion == "access_count >= 3"
    got = mws.memory.read(often.id)
    assert (got.memory_type, got.importance, got.access_count) == ("semantic", 0.33, 3)
    assert mws.memory.read(rare.id).memory_type == "episodic"


@pytest.mark.parametrize("args, message", [
    (("semantic", "working"), "only move to longer-lived types"),
    (("episodic", "episodic"), "only move to longer-lived types"),
    (("short", "episodic"), "from_type 'short' is not allowed"),
])
def test_consolidate_rejects_bad_pairs(mws, args, message):
    with pytest.raises(InvalidInput, match=re.escape(message)):
        mws.memory.consolidate(*args)


# -- update / list / summary -------------------------------------------------------------------

def test_update_changes_fields_and_keeps_hand_added_keys(mws):
    m = mws.memory.add("first version", memory_type="episodic", tags=["a"])
    rewrite(m.path, lambda meta: meta.__setitem__("reviewed_by", "alice"))
    got = mws.memory.update(m.id, content="second version", importance=0.7, tags=["b", "c"])
    assert (got.content, got.importance, got.tags, got.extra) == ("second version", 0.7, ["b", "c"],
                                                                 {"reviewed_by": "alice"})
    assert list(front(m.path))[-1] == "reviewed_by"
    assert [h.memory.id for h in mws.memory.search("second").hits] == [m.id]
    assert mws.memory.search("first").hits == []
    with pytest.raises(InvalidInput, match="nothing to update"):
        mws.memory.update(m.id)
    with pytest.raises(InvalidInput, match="importance"):
        mws.memory.update(m.id, importance=3)
    with pytest.raises(NotFound):
        mws.memory.update("mem_nope", importance=0.3)


def test_list_filters_sorts_and_pages(mws, clock):
    ids = []
    for i, (t, imp) in enumerate([("working", 0.1), ("episodic", 0.9), ("semantic", 0.5), ("episodic", 0.4)]):
        ids.append(mws.memory.add(f"item {i}", memory_type=t, importance=imp).id)
        clock.advance(10)
    page = mws.memory.list(limit=2)
    assert page.total == 4 and [m.id for m in page.memories] == [ids[3], ids[2]]
    assert page.memories[0].content == "item 3"
    assert [m.id for m in mws.memory.list(offset=2, limit=5).memories] == [ids[1], ids[0]]
    assert [m.id for m in mws.memory.list(memory_type="episodic", sort="importance_desc").memories] == [ids[1], ids[3]]
    assert [m.id for m in mws.memory.list(sort="created_asc").memories] == ids
    with pytest.raises(InvalidInput, match="sort"):
        mws.memory.list(sort="random")
    with pytest.raises(InvalidInput, match="limit"):
        mws.memory.list(limit=0)


def test_summary(mws, clock):
    assert mws.memory.summary().to_dict()["oldest"] is None
    a = mws.memory.add("a", memory_type="episodic", importance=0.2)
    clock.advance(5)
    mws.memory.add("b", memory_type="episodic", importance=0.6)
    clock.advance(5)
    c = mws.memory.add("c", memory_type="semantic", importance=1.0)
    s = mws.memory.summary().to_dict()
    assert s["total"] == 3 and s["expired_unpurged"] == 0
    assert s["by_type"]["episodic"] == {"count": 2, "mean_importance": 0.4}
    assert s["by_type"]["semantic"] == {"count": 1, "mean_importance": 1.0}
    assert s["by_type"]["working"] == {"count": 0, "mean_importance": None}
    assert (s["oldest"]["id"], s["newest"]["id"]) == (a.id, c.id)


# -- files on disk -----------------------------------------------------------------------------

def test_hand_edits_are_picked_up_without_reopening(mws):
    m = mws.memory.add("the server runs on port 8080", memory_type="semantic", importance=0.4)
    assert mws.memory.search("8080").hits
    rewrite(m.path, lambda meta: meta.update(importance=0.95, tags=["ops"]),
            content="the server runs on port 9090")
    hits = mws.memory.search("9090").hits
    assert [h.memory.id for h in hits] == [m.id] and hits[0].memory.importance == 0.95
    assert mws.memory.search("8080").hits == []
    assert mws.memory.search("9090", min_importance=0.9).hits
    # A memory written by hand with only an id and text.
    path = mws.folder("memory") / "mem_by_hand.md"
    path.write_text("---\nid: mem_by_hand\nmemory_type: semantic\n---\nhandwritten guava fact\n", encoding="utf-8")
    got = mws.memory.search("guava").hits[0].memory
    assert (got.id, got.importance, got.access_count) == ("mem_by_hand", 0.5, 1)
    assert "access_count" not in front(path)  # recall never rewrites the file
    assert mws.memory.read("mem_by_hand").access_count == 1


def test_in_place_edit_is_picked_up_on_rescan(tmp_path, clock):
    ws = open_workspace(tmp_path / "w", clock=clock, rescan_interval=0)
    try:
        m = ws.memory.add("original plum text", memory_type="episodic")
        raw = open(m.path, encoding="utf-8").read().replace("original plum", "edited cherry")
        with open(m.path, "w", encoding="utf-8") as fh:  # in place: the folder's mtime does not change
            fh.write(raw)
        assert [h.memory.id for h in ws.memory.search("cherry").hits] == [m.id]
    finally:
        ws.close()


def test_bad_files_are_reported_not_returned(mws):
    good = mws.memory.add("good apricot memory", memory_type="episodic")
    folder = mws.folder("memory")
    (folder / "mem_bad1.md").write_text("---\nid: mem_bad1\nimportance: 7\n---\napricot\n", encoding="utf-8")
    (folder / "mem_bad2.md").write_text("---\nid: mem_bad2\nmemory_type: eternal\n---\napricot\n", encoding="utf-8")
    (folder / "mem_bad3.md").write_text("no front matter apricot\n", encoding="utf-8")
    assert [h.memory.id for h in mws.memory.search("apricot").hits] == [good.id]
    unreadable = {p["path"]: p["reason"] for p in mws.memory.summary().unreadable}
    assert set(unreadable) == {"memory/mem_bad1.md", "memory/mem_bad2.md", "memory/mem_bad3.md"}
    assert "importance 7" in unreadable["memory/mem_bad1.md"]
    assert "eternal" in unreadable["memory/mem_bad2.md"]
    with pytest.raises(InvalidInput, match="fix the file by hand"):
        mws.memory.read("mem_bad1")
    assert [m.id for m in mws.memory.forget("mem_bad1").removed] == ["mem_bad1"]
    assert not (folder / "mem_bad1.md").exists()


def test_persistence_across_reopen(tmp_path, clock):
    ws = open_ws(tmp_path / "w", clock)
    m = ws.memory.add("已完成数据模型层的重构", memory_type="episodic", importance=0.7, tags=["重构"])
    ws.memory.search("重构")
    ws.close()
    ws = open_ws(tmp_path / "w", clock)
    try:
        got = ws.memory.read(m.id)
        assert (got.content, got.importance, got.tags, got.access_count) == (
            "已完成数据模型层的重构", 0.7, ["重构"], 1)
        assert [h.memory.id for h in ws.memory.search("数据模型").hits] == [m.id]
        assert ws.index_count("memory") == 1
    finally:
        ws.close()


def test_config_is_validated():
    with pytest.raises(InvalidInput, match="working_capacity"):
        MemoryConfig(working_capacity=0)
    with pytest.raises(InvalidInput, match="half_life_hours"):
        MemoryConfig(half_life_hours={"working": -1})


# -- CLI -----------------------------------------------------------------------------------------

def run(capsys, ws_dir, *argv):
    code = cli.main(["--workspace", str(ws_dir), "--json", *argv])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if code == 0 and out.strip() else None), err


def test_cli_round_trip(tmp_path, capsys):
    d = tmp_path / "cliws"
    code, added, _ = run(capsys, d, "memory", "add", "已完成数据模型层的重构", "--type", "episodic",
                         "--importance", "0.8", "--tag", "a,b", "--source", "session-1")
    assert code == 0 and added["memory_type"] == "episodic" and added["tags"] == ["a", "b"]
    mid = added["id"]
    code, found, _ = run(capsys, d, "memory", "search", "重构")
    assert code == 0 and [h["id"] for h in found["hits"]] == [mid]
    assert set(found["hits"][0]["score_parts"]) == {"relevance", "recency", "importance", "bm25"}
    code, got, _ = run(capsys, d, "memory", "read", mid)
    assert code == 0 and got["access_count"] == 1 and got["source"] == "session-1"
    code, upd, _ = run(capsys, d, "memory", "update", mid, "--importance", "0.3", "--clear-tags")
    assert code == 0 and (upd["importance"], upd["tags"]) == (0.3, [])
    code, _, _ = run(capsys, d, "memory", "add", "working note", "--importance", "0.9")
    code, cons, _ = run(capsys, d, "memory", "consolidate", "--dry-run")
    assert code == 0 and cons["count"] == 1 and cons["dry_run"] is True
    code, listed, _ = run(capsys, d, "memory", "list", "--type", "episodic")
    assert code == 0 and [m["id"] for m in listed["memories"]] == [mid]
    code, summ, _ = run(capsys, d, "memory", "summary")
    assert code == 0 and summ["total"] == 2 and summ["by_type"]["working"]["count"] == 1
    code, dry, _ = run(capsys, d, "memory", "forget", "--strategy", "importance_based", "--threshold", "0.5", "-n")
    assert code == 0 and [m["id"] for m in dry["removed"]] == [mid]
    code, gone, _ = run(capsys, d, "memory", "forget", mid)
    assert code == 0 and gone["count"] == 1
    assert not (d / "memory" / f"{mid}.md").exists()


def test_cli_text_output(tmp_path, capsys):
    d = tmp_path / "cliws"
    assert cli.main(["-w", str(d), "memory", "add", "plain text output check", "-t", "semantic"]) == 0
    assert capsys.readouterr().out.startswith("added mem_")
    assert cli.main(["-w", str(d), "memory", "search", "plain"]) == 0
    out = capsys.readouterr().out
    assert "1 of 1 matching memory(ies)" in out and "relevance 1.00" in out


@pytest.mark.parametrize("argv, message", [
    (["memory", "add", "x", "--importance", "1.5"], "importance must be a number from 0.0 to 1.0"),
    (["memory", "read", "mem_missing"], "no memory with id 'mem_missing'"),
    (["memory", "forget"], "give a memory id, or --strategy"),
    (["memory", "add"], "give the text to remember"),
    (["memory", "search", "x", "--limit", "0"], "limit must be"),
    (["memory", "update", "mem_missing"], "nothing to update"),
])
def test_cli_errors_exit_2(tmp_path, capsys, argv, message):
    code, _, err = run(capsys, tmp_path / "cliws", *argv)
    assert code == 2 and message in err and "Traceback" not in err


# -- several processes -----------------------------------------------------------------------------

def _add_and_search(root, prefix, count):
    ws = open_workspace(root, memory_config=MemoryConfig(working_capacity=16))
    for i in range(count):
        ws.memory.add(f"{prefix} scratch {i}", importance=0.5)
        assert ws.memory.search("sharedfact").hits
    ws.close()


def test_two_processes_share_capacity_and_access_counts(tmp_path):
    import multiprocessing
    root = tmp_path / "w"
    ws = open_workspace(root)
    shared = ws.memory.add("the sharedfact everyone reads", memory_type="semantic")
    ws.close()
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_add_and_search, args=(root, p, 12)) for p in ("alpha", "beta")]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    ws = open_workspace(root)
    try:
        assert ws.memory.read(shared.id).access_count == 24  # no lost updates
        assert ws.memory.list(memory_type="working").total == 16
        assert len(os.listdir(root / "memory")) == 17
        assert ws.index_count("memory") == 17
    finally:
        ws.close()


def test_partial_candidate_pool_ranks_like_a_full_one(mws):
    # 80 matches (the first pool is 50): low text relevance paired with high importance,
    # so the best few by score are not the best few by BM25.
    for i in range(80):
        words = " ".join(["apple"] * (1 + i % 8) + ["filler"] * (8 - i % 8))
        mws.memory.add(f"{words} {i}", memory_type="semantic", importance=round(1 - (i % 8) / 8, 3))
    full = mws.memory.search("apple", limit=100, touch=False)
    few = mws.memory.search("apple", limit=3, touch=False)
    assert full.candidates == few.candidates == 80 and len(full.hits) == 80
    assert [h.memory.id for h in few.hits] == [h.memory.id for h in full.hits[:3]]
    assert full.hits[0].relevance < 1.0  # importance did reorder the BM25 ranking


def test_completion_and_purge_look_at_the_rows_only_when_they_changed_or_one_expired(mws, clock, monkeypatch):
    """Every memory call starts with the purge, and completion asks ``ids`` per keystroke: both scanned (and
    sorted) every memory row each time."""
    short = mws.memory.add("short lived", ttl_minutes=10)
    longer = mws.memory.add("longer lived", ttl_minutes=60)
    fact = mws.memory.add("a fact", memory_type="semantic")
    assert mws.memory.ids() == sorted([fact.id, longer.id, short.id], reverse=True)  # same second: by id
    scans = []
    real = mws.entries

    def entries(kind):
        scans.append(kind)
        return real(kind)

    monkeypatch.setattr(mws, "entries", entries)
    for prefix in ("", "m", "mem_", short.id[:6]):
        assert set(mws.memory.ids(prefix)) >= ({short.id} if short.id.startswith(prefix) else set())
    assert scans == []                                   # nothing changed, nothing expired: no row read
    clock.advance(11 * 60)                               # the short one expires: the purge looks, once
    assert short.id not in mws.memory.ids()
    assert not os.path.exists(short.path)
    assert set(mws.memory.ids()) == {fact.id, longer.id} and len(scans) >= 1
    after = len(scans)
    mws.memory.ids("m")
    assert len(scans) == after                           # and then no more
    mws.memory.add("new one", memory_type="semantic")    # a change: read again
    assert len(mws.memory.ids()) == 3 and len(scans) > after
