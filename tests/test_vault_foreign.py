"""Pages we did not write (notes_store.files.foreign): metadata rules and byte-preserving edits."""

from __future__ import annotations

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from notes_store.files.foreign import (DELETE, edit_front_matter, page_from_text, parse_header, read_page,
                                       replace_body, set_first_heading, split_text)
from notes_store.files.front_matter import BadFile


def test_title_rules():
    assert page_from_text("---\ntitle: From FM\n---\n# Heading\n", "file").title == "From FM"
    page = page_from_text("Intro line\n\n## Sub\n# First H1 #\n", "file")
    assert (page.title, page.title_from) == ("First H1", "heading")
    assert page_from_text("```\n# not a heading\n```\ntext\n", "the file").title == "the file"
    assert page_from_text("---\ntitle: ''\n---\n# H\n", "f").title == "H"
    assert page_from_text("---\ntitle: 2026\n---\n", "f").title == "2026"
    assert page_from_text("", "空的").title_from == "file name"


@pytest.mark.parametrize(("value", "tags"), [
    ("[a, '#b', c]", ["a", "b", "c"]),
    ("a, b c", ["a", "b", "c"]),
    ("'#x #y'", ["x", "y"]),
    ("\n  - one\n  - '#two'\n  - 3", ["one", "two", "3"]),
    ("", []),
    ("{a: 1}", []),
])
def test_tags(value, tags):
    assert page_from_text(f"---\ntags: {value}\n---\nbody\n", "f").tags == tags


def test_aliases_description_headings_and_times():
    text = ("---\naliases: [Alpha, 阿尔法]\ndescription: What this page is about.\npermalink: /x/\n"
            "created: 2025-01-02\nmodified: 2025-03-04T05:06:07Z\n---\n# T\n\n## 第二节\n### Third ###\n")
    page = page_from_text(text, "f")
    assert page.aliases == ["Alpha", "阿尔法"]
    assert page.description == "What this page is about."
    assert page.headings == ["T", "第二节", "Third"]
    assert page.created == 1735776000.0 and page.updated == 1741064767.0
    assert page.meta["permalink"] == "/x/"
    assert page_from_text("---\nalias: One, Two\n---\n", "f").aliases == ["One", "Two"]
    assert page_from_text("---\ndate: not a date\n---\n", "f").created is None


def test_front_matter_edge_cases():
    assert not page_from_text("---\nno closing line\n", "f").has_front_matter   # a rule, not front matter
    page = page_from_text("---\nkey: [unclosed\n---\n# Body\n", "f")
    assert page.has_front_matter and page.meta == {} and "invalid YAML" in page.problems[0]
    assert page.body == "# Body\n" and page.title == "Body"
    page = page_from_text("---\n- a list\n---\nx", "f")
    assert page.problems and page.meta == {}
    bomb = "---\na: &a [1]\nb: *a\n---\n"
    assert "alias" in page_from_text(bomb, "f").problems[0] or "anchor" in page_from_text(bomb, "f").problems[0]
    assert page_from_text("\ufeff---\r\ntitle: BOM\r\n---\r\nx\r\n", "f").title == "BOM"
    assert page_from_text("---\n---\n# E\n", "f").title == "E"
    assert page_from_text("---\ntitle: a\n...\n# E\n", "f").title == "a"
    with pytest.raises(BadFile, match="UTF-8"):
        read_page(b"\xff\xfe", "f")
    with pytest.raises(BadFile, match="NUL"):
        read_page(b"a\x00b", "f")


ORIGINAL = ("---\r\n"
            "title: \"Quoted  title\"   # a comment\r\n"
            "aliases:\r\n"
            "- First\r\n"
            "- Second\r\n"
            "\r\n"
            "# section comment\r\n"
            "description: >\r\n"
            "  Folded text\r\n"
            "  over lines.\r\n"
            "permalink: /a/b/\r\n"
            "tags: [x,   y]\r\n"
            "---\r\n"
            "# Heading\r\n\r\nBody with  two spaces\r\nand [[links]].\r\n")


def header_of(raw: bytes) -> str:
    return split_text(raw.decode()).header_text


def test_edit_changes_only_the_given_key():
    raw = ORIGINAL.encode()
    out = edit_front_matter(raw, {"tags": ["x", "y", "新"]})
    text = out.decode()
    assert text == ORIGINAL.replace("tags: [x,   y]", "tags: [x, y, 新]")
    assert "\n" not in text.replace("\r\n", "")   # CRLF stays CRLF


def test_edit_adds_and_deletes_keys_keeping_the_rest():
    raw = ORIGINAL.encode()
    out = edit_front_matter(raw, {"updated_at": "2026-01-01T00:00:00+00:00", "permalink": DELETE})
    text = out.decode()
    assert "permalink" not in text
    assert text.endswith("---\r\n# Heading\r\n\r\nBody with  two spaces\r\nand [[links]].\r\n")
    assert "updated_at: '2026-01-01T00:00:00+00:00'\r\n---\r\n" in text
    assert "# section comment\r\n" in text and 'title: "Quoted  title"   # a comment\r\n' in text
    meta = parse_header(header_of(out))
    assert meta["aliases"] == ["First", "Second"] and meta["description"] == "Folded text over lines.\n"


def test_edit_replaces_a_block_value_and_a_quoted_key():
    raw = b"---\n'title': Old\ntags:\n  - a\n  - b\nother: 1\n---\nbody\n"
    out = edit_front_matter(raw, {"title": "New: with colon", "tags": ["c"]})
    assert out == b"---\n'title': 'New: with colon'\ntags: [c]\nother: 1\n---\nbody\n"


def test_edit_adds_front_matter_only_when_needed():
    raw = b"# Title\r\n\r\nText\r\n"
    assert edit_front_matter(raw, {"title": DELETE}) == raw
    out = edit_front_matter(raw, {"tags": ["a"]})
    assert out == b"---\r\ntags: [a]\r\n---\r\n# Title\r\n\r\nText\r\n"
    assert edit_front_matter(b"\xef\xbb\xbfbody", {"k": "v"}) == b"\xef\xbb\xbf---\nk: v\n---\nbody"


def test_irregular_front_matter_is_rewritten_whole_never_half():
    raw = b"---\n? complex key\n: value\ntitle: x\n---\nbody\n"
    out = edit_front_matter(raw, {"title": "y"})
    meta = parse_header(header_of(out))
    assert meta == {"complex key": "value", "title": "y"}
    assert out.endswith(b"---\nbody\n")
    with pytest.raises(BadFile, match="cannot be changed safely"):
        edit_front_matter(b"---\nkey: [unclosed\n---\nbody\n", {"title": "y"})


def test_duplicate_keys_keep_yaml_meaning():
    out = edit_front_matter(b"---\na: 1\nb: 2\na: 3\n---\n", {"a": "new"})
    assert parse_header(header_of(out)) == {"a": "new", "b": 2}


def test_replace_body_keeps_front_matter_bytes_and_line_endings():
    raw = ORIGINAL.encode()
    out = replace_body(raw, "# Heading\n\nNew body\n")
    assert out == (ORIGINAL.split("---\r\n# Heading")[0] + "---\r\n# Heading\r\n\r\nNew body\r\n").encode()
    assert replace_body(b"plain\n", "x\ny\n") == b"x\ny\n"
    assert replace_body(b"plain\r\n", "x\ny\n") == b"x\r\ny\r\n"


def test_set_first_heading():
    raw = b"---\ntitle_x: 1\n---\n```\n# code\n```\nintro\n# Old title #\r\nrest\n"
    assert set_first_heading(raw, "New") == b"---\ntitle_x: 1\n---\n```\n# code\n```\nintro\n# New\r\nrest\n"
    assert set_first_heading(b"## only h2\n", "x") is None


# Text PyYAML itself round-trips (no control characters, NEL or line separators: those are its own business).
texts = st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")), max_size=30)
values = st.one_of(texts, st.integers(), st.booleans(), st.none(), st.lists(texts, max_size=4))
keys = st.text(alphabet="abcdefghij_ -", min_size=1, max_size=8).filter(lambda k: k.strip() == k and k[0] != "-")


@given(st.dictionaries(keys, values, max_size=5), st.dictionaries(keys, values, max_size=3),
       st.sampled_from(["\n", "\r\n"]), texts)
@settings(max_examples=300, deadline=None)
def test_edits_read_back_as_meant_and_leave_the_body(existing, changes, nl, body):
    header = yaml.safe_dump(existing, allow_unicode=True, sort_keys=False).replace("\n", nl) if existing else ""
    raw = f"---{nl}{header}---{nl}{body}".encode()
    out = edit_front_matter(raw, changes)
    split = split_text(out.decode())
    assert split.body == body
    expected = dict(existing)
    expected.update(changes)
    assert parse_header(split.header_text) == expected
    if not changes:
        assert out == raw


def test_headings_title_and_links_read_code_fences_alike() -> None:
    """A fence followed by other text does not close a code block (CommonMark): the headings, the title
    heading and the links of a page all see the same code block."""
    from notes_store.files.foreign import headings_of, set_first_heading
    from notes_store.links import extract_links

    body = "```python\n# not a heading [[Inside]]\n``` trailing\n# still code\n```\n# Real\n\nSee [[Outside]].\n"
    assert headings_of(body) == [(1, "Real")]
    assert set_first_heading(body.encode(), "New") == body.replace("# Real", "# New").encode()
    assert [link.target for link in extract_links(body)] == ["Outside"]
