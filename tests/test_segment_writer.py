"""``segment_writer.FastAdder`` writes the segment Whoosh's own ``add_document`` writes: the same files,
byte for byte (segment ids fixed), for notes with CJK, emoji, stop words, repeats, empty bodies and
terms common enough to fill several posting blocks. Real Whoosh indexes in tmp dirs."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from whoosh.codec.base import Segment
from whoosh.filedb.filestore import FileStorage

from notes_store.index import whoosh_backend as wb
from notes_store.index.schema import INDEX_NAME, schema
from notes_store.index.backend import IndexEntry
from notes_store.index.segment_writer import FastAdder

WORDS = ("deploy the schema 重构 数据模型 🚀 ✅️ running runs ran ｄｅｐｌｏｙ alias of ls "
         "this command is an 此命令为 的别名 a an and x y z 42 2to3 naïve café").split()


def _entries(n: int, seed: int) -> list[IndexEntry]:
    rnd = random.Random(seed)
    out = []
    for i in range(n):
        body = " ".join(rnd.choice(WORDS) for _ in range(rnd.randrange(0, 60)))
        if i % 17 == 0:
            body = ""  # a note with a title only
        if i % 5 == 0:
            body += "\n" + "".join(rnd.choice("数据模型重构别名命令") for _ in range(rnd.randrange(1, 30)))
        out.append(IndexEntry(key=f"notes/n{i:05d}.md", kind="note" if i % 9 else "memory",
                              type=rnd.choice(["general", "blocker", "decision"]),
                              tags=rnd.sample(["t1", "t2", "团队", "x-y"], rnd.randrange(0, 3)),
                              updated=1_700_000_000 + i * 1.5, title=f"note {i} {rnd.choice(WORDS)}",
                              text=body))
    return out


def _build(folder: Path, entries: list[IndexEntry], fast: bool) -> dict[str, bytes]:
    folder.mkdir()
    storage = FileStorage(str(folder), supports_mmap=False)
    ix = storage.create_index(schema(), indexname=INDEX_NAME)
    writer = ix.writer(limitmb=1)  # a small pool: Whoosh's side spills and merges sorted runs
    adder = FastAdder(writer) if fast else None
    for entry in entries:
        doc = wb._doc(entry)
        if adder is not None:
            adder.add(doc)
        else:
            writer.add_document(**doc)
    writer.commit(merge=False)
    ix.close()
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if not p.name.endswith(".lock")}


@pytest.mark.parametrize("n, seed", [(1, 1), (40, 2), (700, 3)])
def test_fast_adder_writes_the_same_segment_as_whoosh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      n: int, seed: int) -> None:
    monkeypatch.setattr(Segment, "_random_id", classmethod(lambda cls, size=16: "fixedsegmentid00"))
    monkeypatch.setattr(FileStorage, "file_modified", lambda self, name: 0.0)  # the compound file notes it
    entries = _entries(n, seed)
    stock = _build(tmp_path / "stock", entries, fast=False)
    fast = _build(tmp_path / "fast", entries, fast=True)
    assert sorted(stock) == sorted(fast)
    assert any(name.endswith(".seg") for name in stock)
    for name in stock:
        assert fast[name] == stock[name], name


def test_fast_adder_lists_are_the_text_postings(tmp_path: Path) -> None:
    """The lists handed to the postings file are the text field's postings as Whoosh reads them back."""
    entries = _entries(300, 4)
    folder = tmp_path / "ix"
    folder.mkdir()
    ix = FileStorage(str(folder), supports_mmap=False).create_index(schema(), indexname=INDEX_NAME)
    writer = ix.writer()
    adder = FastAdder(writer)
    for entry in entries:
        adder.add(wb._doc(entry))
    writer.commit(merge=False)
    lists = adder.text_lists()
    with ix.searcher() as searcher:
        reader = searcher.reader()
        terms = {t for t in reader.lexicon("text")}
        assert terms == set(lists)
        for term in list(terms)[:50]:
            matcher = reader.postings("text", term.decode("utf-8"))
            ids = list(matcher.all_ids())
            assert ids == list(lists[term][0])
    ix.close()


def test_fast_adder_refuses_an_unknown_field(tmp_path: Path) -> None:
    folder = tmp_path / "ix"
    folder.mkdir()
    ix = FileStorage(str(folder), supports_mmap=False).create_index(schema(), indexname=INDEX_NAME)
    writer = ix.writer()
    adder = FastAdder(writer)
    with pytest.raises(ValueError, match="no field named 'nope'"):
        adder.add({"key": "k", "nope": "x"})
    writer.cancel()
    ix.close()
