"""``files.front_matter._simple_meta`` (the front matter fast path) reads what ``yaml.load`` reads, or declines:
checked on tricky generated headers and on the headers our writer produces (which it must take)."""

from __future__ import annotations

import yaml
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from notes_store.files.front_matter import _Loader, _simple_meta, dump_document, parse_document

_KEYS = ["id", "title", "type", "tags", "created_at", "x", "y", "on", "yes", "null", "No", "_k", "a1", "True"]
_VALUES = ["plain", "two words", "2to3", "yes", "No", "null", "~", "1e3", "0x1F", "1_000", "2025-01-01", "12:30",
           "a #b", "a: b", "'it''s'", "'unterminated", "[a, yes]", "[]", "[a,b]", "[ a ]", "foo  bar", "-x", ".5",
           "+1", "_x", "x.y", "a/b", "(x)", "é", "数据", "True", "on", "Off", "'数据 模型'", "'a'b'", "''", "'  '",
           "[tldr, en]", "[1, 2]", "[a b, c]", "trailing ", "0", "007", "1.5", "-", "a-b", "'#x'", "'2025-01-01'",
           "[x, 'y']", "[数据]", "a\tb", "x\u00a0y", "'a\u200bb'", "12", "0o17", "=", "<<", "!tag x", "&a x", "*a"]


@given(st.lists(st.tuples(st.sampled_from(_KEYS), st.sampled_from(_VALUES)), min_size=1, max_size=8),
       st.sampled_from(["", " ", ":"]))
@settings(max_examples=800, deadline=None)
def test_the_fast_path_reads_what_yaml_reads(pairs: list[tuple[str, str]], glitch: str) -> None:
    header = "".join(f"{k}:{glitch if glitch == ':' else ''} {v}\n" for k, v in pairs)
    fast = _simple_meta(header)
    if fast is None:
        return
    assert fast == yaml.load(header, Loader=_Loader), header
    assert [type(v) for v in fast.values()] == [type(v) for v in yaml.load(header, Loader=_Loader).values()]


_WORDS = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=12)


@given(st.dictionaries(st.sampled_from(["id", "title", "type", "note", "created_at"]), _WORDS, min_size=1),
       st.lists(st.sampled_from(["tldr", "en", "zh", "team-a", "数据", "v1.2"]), max_size=4))
@settings(max_examples=300, deadline=None)
def test_written_documents_read_back_the_same_either_way(meta: dict[str, str], tags: list[str]) -> None:
    meta = {**meta, "tags": tags}
    raw = dump_document(meta, "# body\n")
    assume(raw.count(b"---\n") == 2)  # a value holding the fence itself is no case for the fast path
    header = raw.decode("utf-8").split("---\n", 2)[1]
    fast = _simple_meta(header)
    if fast is not None:
        assert fast == yaml.load(header, Loader=_Loader)
    assert parse_document(raw).meta == yaml.load(header, Loader=_Loader)


def test_the_writers_usual_header_takes_the_fast_path() -> None:
    raw = dump_document({"id": "tldr_en_2to3", "title": "2to3", "type": "reference", "tags": ["tldr", "en"],
                         "created_at": "2025-01-01T00:00:00+00:00", "updated_at": "2025-01-01T00:00:00+00:00"},
                        "# 2to3\n")
    header = raw.decode("utf-8").split("---\n", 2)[1]
    assert _simple_meta(header) == {"id": "tldr_en_2to3", "title": "2to3", "type": "reference",
                                    "tags": ["tldr", "en"], "created_at": "2025-01-01T00:00:00+00:00",
                                    "updated_at": "2025-01-01T00:00:00+00:00"}
    assert _simple_meta("title: 'it''s'\ntags: []\n") == {"title": "it's", "tags": []}
    for declined in ("title: yes\n", "a: &x 1\n", "a:\n  b: 1\n", "n: 12\n", "t: [a, 1]\n", "t: 'x\n"):
        assert _simple_meta(declined) is None, declined
