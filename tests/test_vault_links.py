"""Links (notes_store.links): extraction, resolution as editors do it, and the incremental index."""

from __future__ import annotations

import random
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from notes_store.links import (EMBED, MARKDOWN, WIKI, Link, LinkIndex, Resolver, blank_code_spans, extract_links,
                               normalise_path)


def targets(body: str) -> list[tuple[str, str]]:
    return [(link.target, link.kind) for link in extract_links(body)]


def test_every_link_form():
    body = """# Page

See [[Target]], [[Target|a label]], [[Target#Heading]], [[folder/Target]] and [[Target.md]].
An embed: ![[picture-note]] and ![[Other#^block]].
A Markdown link [other](other%20note.md), [up](../up.md#part), [abs](/top/level.md "Title").
<https://example.com> [web](https://example.com/a.md) [mail](mailto:x@y.md) [frag](#local)
![image](image.png) [not a note](file.pdf) [[]] [[#Only heading]]
| a | [[Table\\|label]] |

[ref]: refs/defined.md 'Defined'
"""
    found = extract_links(body)
    assert [(link.target, link.kind) for link in found] == [
        ("Target", WIKI), ("Target", WIKI), ("Target", WIKI), ("folder/Target", WIKI), ("Target", WIKI),
        ("picture-note", EMBED), ("Other", EMBED),
        ("other note.md", MARKDOWN), ("../up.md", MARKDOWN), ("/top/level.md", MARKDOWN),
        ("Table", WIKI), ("refs/defined.md", MARKDOWN)]
    assert found[1].label == "a label" and found[2].heading == "Heading" and found[6].heading == "^block"
    assert found[8].heading == "part" and found[10].label == "label"
    assert found[1].written == "[[Target|a label]]" and found[5].written == "![[picture-note]]"


def test_code_is_not_linked():
    body = """Before [[real]].

```markdown
[[in fence]] [x](fenced.md)
```

~~~~
[[in tilde fence]]
```
still inside
~~~~

Inline `[[in code]]` and ``[[double `tick` code]]`` but [[after code]].
    ``` not a fence opener when indented four spaces? it is text here [[indented]]
Unclosed ` backtick [[kept]]
"""
    assert [t for t, _k in targets(body)] == ["real", "after code", "indented", "kept"]


def test_unclosed_fence_hides_the_rest():
    assert targets("[[a]]\n```\n[[b]]\n[[c]]\n") == [("a", WIKI)]


def test_blank_code_spans_is_linear():
    hostile = "".join("`" * k + "a" for k in range(1, 1500))
    start = time.perf_counter()
    assert len(blank_code_spans(hostile)) == len(hostile)
    blank_code_spans("`" * 1_000_000)
    assert time.perf_counter() - start < 1.0


def test_extraction_is_bounded():
    body = "[[x]] " * 10_000
    assert len(extract_links(body)) == 2000
    assert extract_links("[[" + "a" * 5000 + "]]") == []
    start = time.perf_counter()
    extract_links("[" * 200_000 + "](" * 100_000 + "[[" * 100_000)
    assert time.perf_counter() - start < 3.0


@given(st.text(alphabet="[]()!#|`~\n ab.md/%", max_size=400))
@settings(max_examples=300, deadline=None)
def test_extraction_never_fails(text):
    for link in extract_links(text):
        assert link.target and "\n" not in link.target


def test_normalise_path():
    assert normalise_path("../b.md", "a/x") == "a/b.md"
    assert normalise_path("./b.md", "a") == "a/b.md"
    assert normalise_path("/b.md", "a/x") == "b.md"
    assert normalise_path("../../b.md", "a") is None
    assert normalise_path("..", "") is None


def make_resolver(ids, aliases=None):
    r = Resolver()
    for note_id in ids:
        r.add(note_id, (aliases or {}).get(note_id, ()))
    return r


def test_resolution_order():
    r = make_resolver(["Top", "a/Target", "b/Target", "a/Unique", "c/Other Note", "d/x"],
                      {"d/x": ["Nickname", "别名"]})
    res = r.resolve(Link("Unique"), "anything")
    assert res.target == "a/Unique"                                   # a unique file name
    assert r.resolve(Link("unique"), "x").target == "a/Unique"        # case-insensitively
    assert r.resolve(Link("a/Target"), "z").target == "a/Target"      # an exact path
    assert r.resolve(Link("Target"), "a/page").target == "a/Target"   # same folder wins a tie
    amb = r.resolve(Link("Target"), "z/page")
    assert amb.target is None and amb.reason == "ambiguous" and amb.candidates == ("a/Target", "b/Target")
    assert r.resolve(Link("nickname"), "x").target == "d/x"           # an alias
    assert r.resolve(Link("别名"), "x").target == "d/x"
    assert r.resolve(Link("Missing"), "x").reason == "missing"
    assert r.resolve(Link("other note"), "x").target == "c/Other Note"
    assert r.resolve(Link("Target.md", kind=MARKDOWN), "a/p").target == "a/Target"
    assert r.resolve(Link("../b/Target.md", kind=MARKDOWN), "a/p").target == "b/Target"
    assert r.resolve(Link("../../x.md", kind=MARKDOWN), "a/p").reason == "outside"
    assert r.resolve(Link("Top"), "a/p").target == "Top"


def test_path_suffix_links():
    r = make_resolver(["house/todo", "work/todo", "x/house/todo-list"])
    assert r.resolve(Link("house/todo"), "elsewhere").target == "house/todo"
    r = make_resolver(["projects/house/todo", "work/todo"])
    assert r.resolve(Link("house/todo"), "elsewhere").target == "projects/house/todo"   # a path suffix
    assert r.resolve(Link("todo"), "elsewhere").reason == "ambiguous"


def index_of(pages: dict[str, str], aliases: dict[str, list[str]] | None = None) -> LinkIndex:
    index = LinkIndex()
    for note_id, body in pages.items():
        index.update(note_id, extract_links(body), (aliases or {}).get(note_id, ()))
    return index


def test_backlinks_cycles_and_duplicates():
    index = index_of({"a": "[[b]] [[b]] [[c]]", "b": "[[a]]", "c": "[[c]] [[a]]", "x/dup": "", "y/dup": "[[dup]]"})
    assert index.links_from("a") == ["b", "c"]
    assert index.links_to("a") == ["b", "c"]
    assert index.links_to("c") == ["a", "c"]       # a note may link to itself
    assert index.links_to("b") == ["a"]
    assert index.links_from("y/dup") == ["y/dup"]   # same folder wins: itself
    assert index.stats() == {"notes": 5, "links": 7, "resolved": 7, "unresolved": 0}


def test_incremental_updates_re_resolve_what_changed():
    index = index_of({"a": "[[Later]] [[Alias]] [[Shared]]", "one/Shared": ""})
    assert [u.link.target for u in index.unresolved()] == ["Later", "Alias"]
    index.update("notes/Later", [])                              # the target appears: resolved
    assert index.links_from("a") == ["notes/Later", "one/Shared"]   # in order of appearance
    index.update("z", [], aliases=["alias"])                     # an alias appears
    assert index.links_to("z") == ["a"]
    index.update("two/Shared", [])                               # a second file of that name: ambiguous now
    unresolved = index.unresolved("a")
    assert [(u.link.target, u.reason) for u in unresolved] == [("Shared", "ambiguous")]
    assert index.links_to("one/Shared") == []
    index.remove("two/Shared")                                   # and unique again
    assert index.links_to("one/Shared") == ["a"]
    index.update("z", [], aliases=[])                            # the alias goes
    assert index.links_to("z") == [] and index.unresolved("a")[0].link.target == "Alias"
    index.remove("notes/Later")
    assert index.links_to("notes/Later") == [] and len(index.unresolved("a")) == 2
    index.update("a", extract_links("nothing now"))
    assert index.unresolved() == [] and index.stats()["links"] == 0
    index.rename("one/Shared", "three/Shared", [], [])
    assert "three/Shared" in index and "one/Shared" not in index


def test_random_updates_match_a_rebuild():
    rng = random.Random(7)
    names = [f"f{i % 3}/n{i}" for i in range(30)] + ["f0/n1b", "f1/n1"]

    def body() -> str:
        picks = rng.sample(names, 3)
        forms = [f"[[{p}]]" if rng.random() < 0.5 else f"[[{p.rsplit('/', 1)[1]}]]" for p in picks]
        return " ".join(forms) + f" [[alias{rng.randrange(5)}]]"

    live = LinkIndex()
    pages: dict[str, tuple[str, list[str]]] = {}
    for step in range(400):
        note_id = rng.choice(names)
        if rng.random() < 0.25 and note_id in pages:
            del pages[note_id]
            live.remove(note_id)
        else:
            aliases = [f"alias{rng.randrange(5)}"] if rng.random() < 0.3 else []
            pages[note_id] = (body(), aliases)
            live.update(note_id, extract_links(pages[note_id][0]), aliases)
        if step % 50 == 49:
            fresh = LinkIndex()
            for nid, (text, aliases) in pages.items():
                fresh.update(nid, extract_links(text), aliases)
            for nid in names:
                assert live.links_to(nid) == fresh.links_to(nid), nid
                assert live.links_from(nid) == fresh.links_from(nid), nid
            assert live.stats() == fresh.stats()


def test_resolve_for_a_filter():
    index = index_of({"docs/Guide": "", "b": "[[Guide]]"}, {"docs/Guide": ["Handbook"]})
    assert index.resolve("Guide").target == "docs/Guide"
    assert index.resolve("handbook").target == "docs/Guide"
    assert index.resolve("docs/Guide.md").target == "docs/Guide"
    assert index.resolve("").target is None


def test_many_notes_link_to_one_update_is_quick():
    index = LinkIndex()
    for i in range(20_000):
        index.update(f"pages/p{i}", [Link("index")])
    start = time.perf_counter()
    index.update("index", [])
    index.update("pages/p5", [Link("index"), Link("p6")])
    assert time.perf_counter() - start < 1.0
    assert index.backlink_count("index") == 20_000
