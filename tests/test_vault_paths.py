"""Path ids (notes_store.files.note_paths): validation, URIs, file names from titles, skip rules."""

from __future__ import annotations

import os
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from notes_store.errors import InvalidInput
from notes_store.files.note_paths import (IgnoreRules, check_note_id, decode_uri_id, encode_uri_id,
                                          filename_from_title, is_note_id, join_id, note_id_problem,
                                          parse_ignore_rule, relpath_to_id, safe_note_path, walk_notes)

GOOD = ["note_20260101_120000_ab12cd34", "Daily notes", "user/features/wikilinks", "用户指南/快速开始",
        "a.b-c_d", "Projects/2026 Q1/Plan (draft)", "カタカナ/ノート", "Wait… what", "100% done"]


@pytest.mark.parametrize("value", GOOD)
def test_good_ids(value):
    assert note_id_problem(value) is None
    assert check_note_id(value) == value
    assert check_note_id(f"  {value}.md ") == value
    assert relpath_to_id(value + ".md") == value


@pytest.mark.parametrize(("value", "words"), [
    ("../secret", "'..'"),
    ("a/../../b", "'..'"),
    ("a/./b", "'.'"),
    ("/etc/passwd", "absolute"),
    ("C:/Windows/x", "absolute"),
    ("C:", "absolute"),
    ("a\\..\\b", "backslash"),
    ("a\x00b", "NUL"),
    ("a\nb", "control"),
    ("%2e%2e/secret", "percent-encoded"),
    ("a%2Fb", "percent-encoded"),
    ("%2E%2E", "percent-encoded"),
    ("a\u2215b", "look-alike"),         # DIVISION SLASH
    ("a\uff0fb", "look-alike"),         # FULLWIDTH SOLIDUS
    ("a\u2044b", "look-alike"),         # FRACTION SLASH
    ("\u2024\u2024/x", "look-alike"),   # ONE DOT LEADER
    ("a/\uff0e\uff0e/b", "look-alike"),  # FULLWIDTH FULL STOP
    ("\u2025/x", "look-alike"),         # TWO DOT LEADER
    ("a\uff3cb", "look-alike"),         # FULLWIDTH REVERSE SOLIDUS
    ("a//b", "empty"),
    ("a/", "empty"),
    (".obsidian/workspace", "hidden"),
    ("a/.trash/x", "hidden"),
    ("…", "dots"),
    ("a/ b", "spaces"),
    ("x" * 300, "bytes"),
    ("/".join(["a"] * 40), "deep"),
    ("a" * 2000, "characters"),
])
def test_bad_ids_are_refused_with_the_reason(value, words):
    problem = note_id_problem(value)
    assert problem is not None and words in problem
    with pytest.raises(InvalidInput) as err:
        check_note_id(value)
    assert "not a valid id" in str(err.value) and words in str(err.value)
    assert not is_note_id(value)


@pytest.mark.parametrize("value", [None, "", "   ", 5, ["a"]])
def test_missing_ids(value):
    with pytest.raises(InvalidInput, match="required"):
        check_note_id(value)


def test_relpath_to_id_refuses_non_notes():
    assert relpath_to_id("a/b.txt") is None
    assert relpath_to_id(".md") is None
    assert relpath_to_id(".git/x.md") is None
    assert relpath_to_id("a\\b.md") is None


@pytest.mark.parametrize("note_id", GOOD + ["a b/c+d=e&f?g#h", "emoji 🙂", "~tilde", "x%41"])
def test_uri_round_trip_and_canonical_form(note_id):
    if not is_note_id(note_id):
        return
    encoded = encode_uri_id(note_id)
    assert all(c.isascii() and (c.isalnum() or c in "-._~/%") for c in encoded)
    assert decode_uri_id(encoded) == note_id
    # one canonical form: upper-case hex, unreserved characters never encoded
    assert encoded == encoded.replace("%2f", "%2F")
    assert "%2D" not in encoded and "%7E" not in encoded


def test_uri_examples():
    assert encode_uri_id("Daily notes/2026-01-01") == "Daily%20notes/2026-01-01"
    assert encode_uri_id("用户") == "%E7%94%A8%E6%88%B7"
    assert decode_uri_id("%e7%94%a8%e6%88%b7") == "用户"      # lower-case hex is read, never written
    assert decode_uri_id("用户/指南") == "用户/指南"           # an IRI's raw text is read too


@pytest.mark.parametrize(("uri", "words"), [
    ("%2e%2e/secret", "'..'"),
    ("%2E%2E%2Fsecret", "encoded '/'"),
    ("a%2fb", "encoded '/'"),
    ("..%2Fsecret", "encoded '/'"),
    ("%252e%252e/x", "percent-encoded"),   # double encoding: decoded once, still refused
    ("a%00b", "NUL"),
    ("a%5Cb", "backslash"),
    ("%E2%88%95etc", "look-alike"),        # U+2215 encoded
    ("%ZZ", "two hex digits"),
    ("a%", "two hex digits"),
    ("%FF%FE", "UTF-8"),
    ("/etc/passwd", "absolute"),
    ("%2Fetc/passwd", "encoded '/'"),
    ("a.md", "canonical"),
])
def test_bad_uris(uri, words):
    with pytest.raises(InvalidInput) as err:
        decode_uri_id(uri)
    assert words in str(err.value)


@given(st.text(min_size=1, max_size=40))
@settings(max_examples=300, deadline=None)
def test_any_valid_id_round_trips_through_a_uri(text):
    if is_note_id(text):
        assert decode_uri_id(encode_uri_id(text)) == text


@pytest.mark.parametrize(("title", "name"), [
    ("Meeting notes", "Meeting notes"),
    ("What: a/b? <x>", "What a b x"),
    ("会议记录：第一季度", "会议记录：第一季度"),
    ("../../etc/passwd", "etc passwd"),
    ("..", "Untitled"),
    ("a\u2215b\uff0fc", "a b c"),
    ("  .hidden  ", "hidden"),
    ("tab\there\nnewline", "tab here newline"),
    ("CON", "CON_"),
    ("[[link]] #tag ^block |pipe", "link tag block pipe"),
    ("", "Untitled"),
    ("…and then", "and then"),
])
def test_filename_from_title(title, name):
    assert filename_from_title(title) == name
    assert is_note_id(name)


@given(st.text(max_size=300))
@settings(max_examples=500, deadline=None)
def test_filename_from_any_title_is_one_valid_segment(title):
    name = filename_from_title(title)
    assert is_note_id(name) and "/" not in name
    assert len(name.encode()) <= 200


def test_join_id():
    assert join_id("projects/2026", "Plan") == "projects/2026/Plan"
    assert join_id("", "Plan") == "Plan"
    assert join_id("projects/", "Plan") == "projects/Plan"
    for folder in ("../x", "a/../../b", "a\\b", "\uff0e\uff0e", "/projects"):
        with pytest.raises(InvalidInput):
            join_id(folder, "Plan")


def test_safe_note_path_refuses_symlinked_folders(tmp_path):
    notes = tmp_path / "notes"
    outside = tmp_path / "outside"
    notes.mkdir()
    outside.mkdir()
    (notes / "real").mkdir()
    os.symlink(outside, notes / "link")
    (notes / "file.md").write_text("x")
    assert safe_note_path(notes, "real/x") == notes / "real" / "x.md"
    assert safe_note_path(notes, "missing/x") == notes / "missing" / "x.md"
    with pytest.raises(InvalidInput, match="symbolic link"):
        safe_note_path(notes, "link/x")
    with pytest.raises(InvalidInput, match="not a folder"):
        safe_note_path(notes, "file.md/x")
    with pytest.raises(InvalidInput):
        safe_note_path(notes, "../outside/x")
    path = safe_note_path(notes, "new/deeper/x", create_folders=True)
    assert path.parent.is_dir() and str(path).startswith(str(notes))
    with pytest.raises(InvalidInput, match="symbolic link"):
        safe_note_path(notes, "link/deeper/x", create_folders=True)
    assert list(outside.iterdir()) == []


# -- skip rules ------------------------------------------------------------------------------------
def rules_of(text: str, base: str = "") -> IgnoreRules:
    rules = IgnoreRules()
    rules.add_text(text, base)
    return rules


@pytest.mark.parametrize(("patterns", "path", "is_dir", "ignored"), [
    ("drafts/", "drafts", True, True),
    ("drafts/", "drafts", False, False),          # trailing '/': folders only
    ("drafts/", "a/drafts", True, True),          # no other '/': any depth
    ("/drafts", "a/drafts", True, False),         # leading '/': from the ignore file's folder only
    ("/drafts", "drafts", True, True),
    ("*.tmp.md", "a/b/x.tmp.md", False, True),
    ("*.md\n!keep.md", "keep.md", False, False),  # negation
    ("*.md\n!keep.md", "other.md", False, True),
    ("a/*/c", "a/b/c", True, True),
    ("a/*/c", "a/b/x/c", True, False),            # '*' never crosses '/'
    ("a/**/c", "a/b/x/c", True, True),
    ("a/**/c", "a/c", True, True),                # '**' matches zero folders
    ("**/build", "x/y/build", True, True),
    ("abc/**", "abc/x", False, True),
    ("abc/**", "abc", True, False),
    ("# comment\n\n", "# comment", False, False),
    ("\\#hash.md", "#hash.md", False, True),
    ("\\!bang.md", "!bang.md", False, True),
    ("f?o.md", "foo.md", False, True),
    ("f?o.md", "fo.md", False, False),
    ("[abc]x.md", "bx.md", False, True),
    ("[!abc]x.md", "bx.md", False, False),
    ("[a-c]x.md", "cx.md", False, True),
    ("trailing.md   ", "trailing.md", False, True),   # trailing spaces dropped
    ("私人/", "私人", True, True),
])
def test_gitignore_subset(patterns, path, is_dir, ignored):
    assert rules_of(patterns).ignored(path, is_dir) is ignored


def test_hidden_names_always_skipped_and_nested_rules_apply_to_their_folder():
    rules = rules_of("")
    for name in (".obsidian", ".git", ".trash", ".hidden.md"):
        assert rules.ignored(name, True)
    rules = rules_of("secret.md", base="team")
    assert rules.ignored("team/secret.md", False)
    assert rules.ignored("team/x/secret.md", False)
    assert not rules.ignored("secret.md", False)
    rules = rules_of("/top.md", base="team")
    assert rules.ignored("team/top.md", False) and not rules.ignored("team/x/top.md", False)


def test_ignored_path_checks_folders():
    rules = rules_of("private/\n!private/x.md")
    assert rules.ignored_path("private/x.md")       # a skipped folder's files cannot be re-included
    assert rules.ignored_path("a/.obsidian/x.md")
    assert not rules.ignored_path("a/b.md")


def test_hostile_patterns_stay_cheap():
    rules = rules_of("*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b\n" + "**/" * 200 + "z")
    name = "a" * 250
    start = time.perf_counter()
    for _ in range(100):
        assert not rules.ignored(name, False)
        assert not rules.ignored("/".join(["a"] * 30), False)
    assert time.perf_counter() - start < 2.0
    assert parse_ignore_rule("x" * 5000) is None
    many = rules_of("\n".join(f"p{i}" for i in range(5000)))
    assert many.dropped == 4000


def test_walk_notes(tmp_path):
    root = tmp_path / "notes"
    for rel in ("a.md", "sub/b.md", "sub/deeper/c.md", "用户/指南.md", ".obsidian/app.md", ".trash/old.md",
                "drafts/d.md", "sub/skip.md", "x.txt", "sub/.hidden.md", "e f.md"):
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x")
    (root / ".gitignore").write_text("drafts/\n")
    (root / "sub" / ".ctxnotesignore").write_text("skip.md\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "leak.md").write_text("x")
    os.symlink(outside, root / "linked")
    os.symlink(outside / "leak.md", root / "leak.md")
    found = sorted(rel for rel, _de in walk_notes(root))
    assert found == ["a.md", "e f.md", "leak.md", "sub/b.md", "sub/deeper/c.md", "用户/指南.md"]
    links = [rel for rel, de in walk_notes(root) if de.is_symlink()]
    assert links == ["leak.md"]   # yielded for the caller to report, never entered or read here
    assert len(list(walk_notes(root, max_files=2))) == 2
