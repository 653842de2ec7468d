"""Hypothesis drives random sequences of note and memory tool calls through the in-process MCP client and
checks every answer, and the store after every step, against a model (``bench.reliability.fuzz.Driver``).

Every call must return a result or a clean tool error (never the SDK's bare "Error executing tool X");
after every step ``note_list``/``memory_list`` must match the model (ids, titles, types, tags, contents)
and the files on disk must be exactly the live items. The long run is
``python -m bench.reliability.fuzz --calls 10000``.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from bench.reliability.common import SyncClient, server_for
from bench.reliability.fuzz import CONTROL, HOSTILE_IDS, MEMORY_TYPES, NASTY, NOTE_TYPES, Driver

LIMIT = 2048  # the workspace's max_content_bytes: small, so oversize content is cheap to send

# Text that stresses front matter, headings, tokenizers and line handling, plus plain words. Valid input
# comes first (Hypothesis favours, and shrinks towards, the first alternatives); broken input follows.
printable = st.characters(exclude_categories=("Cc", "Cs"))
chunks = st.one_of(st.text(alphabet="abcdefgh 中文", min_size=1, max_size=8), st.sampled_from(NASTY),
                   st.text(min_size=1, max_size=6))
text = st.lists(chunks, max_size=6).map("".join)  # may hold control characters: fine in content
line_chunks = st.one_of(st.text(alphabet="abcdefgh 中文", min_size=1, max_size=8),
                        st.sampled_from([x for x in NASTY if not CONTROL.search(x)]),
                        st.text(printable, min_size=1, max_size=6))
line = st.lists(line_chunks, max_size=6).map("".join)


def mostly(valid, invalid):
    """Valid input 7 times in 8: Hypothesis otherwise spends most calls on the (many) ways to be invalid."""
    return st.integers(0, 7).flatmap(lambda k: invalid if k == 0 else valid)


titles = mostly(st.one_of(st.builds(lambda a, b: f"{a}T{b}", line, line), st.sampled_from(["---", "--- x ---",
                                                                                         "!!python/object:os.system"])),
                st.one_of(st.builds(lambda a, b: f"{a}T{b}", text, text), st.integers(),
                          st.sampled_from(["", "   ", "a\nb", "t" * 301])))
bodies = mostly(text, st.sampled_from(["x" * (LIMIT + 1), "nul\x00", ""]))
tag = mostly(st.one_of(st.sampled_from(["auth", "中文", "x y", " pad ", "---", "a:b", "[x]", "#h", "null", "- x"]),
                       st.text(printable, min_size=1, max_size=8)),
             st.sampled_from(["a,b", "", "   ", "t\nx", "x" * 65]))
tags = mostly(st.one_of(st.lists(tag, max_size=3), st.none()), st.sampled_from([[1], "single", {"a": 1}]))
note_types = mostly(st.sampled_from(NOTE_TYPES), st.just("bogus"))


class ToolCalls(RuleBasedStateMachine):
    @initialize()
    def start(self) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="ctxnotes-fsm-"))
        self._server_cm = server_for(self.tmp / "ws", max_content_bytes=LIMIT)
        server = self._server_cm.__enter__()
        self.client = SyncClient(server).__enter__()
        self.d = Driver(self.client, self.tmp / "ws", LIMIT)

    def teardown(self) -> None:
        if hasattr(self, "client"):
            self.client.__exit__(None, None, None)
            self._server_cm.__exit__(None, None, None)
            shutil.rmtree(self.tmp, ignore_errors=True)

    # -- notes ------------------------------------------------------------------------------------------------
    @rule(title=titles, body=bodies, note_type=note_types, tags=tags)
    def note_create(self, title, body, note_type, tags) -> None:
        self.d.note_create(title, body, note_type, tags)

    @precondition(lambda self: self.d.m.notes)
    @rule(data=st.data())
    def note_read(self, data) -> None:
        self.d.note_read(data.draw(st.sampled_from(sorted(self.d.m.notes))))

    @precondition(lambda self: self.d.m.notes)
    @rule(data=st.data(), title=st.none() | titles, body=st.none() | bodies,
          note_type=st.none() | st.sampled_from(NOTE_TYPES), tags=tags)
    def note_update(self, data, title, body, note_type, tags) -> None:
        self.d.note_update(data.draw(st.sampled_from(sorted(self.d.m.notes))), title, body, note_type, tags)

    @precondition(lambda self: self.d.m.notes)
    @rule(data=st.data())
    def note_delete(self, data) -> None:
        self.d.note_delete(data.draw(st.sampled_from(sorted(self.d.m.notes))))

    @precondition(lambda self: self.d.m.notes)
    @rule(data=st.data())
    def note_search(self, data) -> None:
        self.d.note_search_token(data.draw(st.sampled_from(sorted(self.d.m.notes))))

    @precondition(lambda self: self.d.m.dead_notes)
    @rule(data=st.data(), read=st.booleans())
    def ghost(self, data, read) -> None:
        ghost = data.draw(st.sampled_from(sorted(self.d.m.dead_notes)))
        (self.d.note_read if read else self.d.note_delete)(ghost)

    @precondition(lambda self: self.d.m.dead_tokens)
    @rule(data=st.data())
    def dead_token_not_found(self, data) -> None:
        self.d.search_dead_token(data.draw(st.sampled_from(self.d.m.dead_tokens)))

    @rule(tool=st.sampled_from(["note_read", "note_delete", "memory_read", "memory_forget"]),
          bad_id=st.sampled_from(HOSTILE_IDS))
    def hostile_id(self, tool, bad_id) -> None:
        self.d.hostile_id(tool, bad_id)

    # -- memories ---------------------------------------------------------------------------------------------
    @rule(body=bodies, memory_type=st.sampled_from(MEMORY_TYPES),
          importance=st.floats(0, 1, allow_nan=False), tags=tags)
    def memory_add(self, body, memory_type, importance, tags) -> None:
        self.d.memory_add(body, memory_type, importance, tags)

    @precondition(lambda self: self.d.m.memories)
    @rule(data=st.data())
    def memory_read(self, data) -> None:
        self.d.memory_read(data.draw(st.sampled_from(sorted(self.d.m.memories))))

    @precondition(lambda self: self.d.m.memories)
    @rule(data=st.data(), body=st.none() | bodies, importance=st.none() | st.floats(0, 1, allow_nan=False),
          tags=tags)
    def memory_update(self, data, body, importance, tags) -> None:
        self.d.memory_update(data.draw(st.sampled_from(sorted(self.d.m.memories))), body, importance, tags)

    @precondition(lambda self: self.d.m.memories)
    @rule(data=st.data())
    def memory_forget(self, data) -> None:
        self.d.memory_forget(data.draw(st.sampled_from(sorted(self.d.m.memories))))

    @precondition(lambda self: self.d.m.memories)
    @rule(data=st.data())
    def memory_search(self, data) -> None:
        self.d.memory_search_token(data.draw(st.sampled_from(sorted(self.d.m.memories))))

    @rule(threshold=st.sampled_from([0.7, 0.9, 1.0]))
    def memory_consolidate(self, threshold) -> None:
        self.d.memory_consolidate(threshold)

    # -- after every step ---------------------------------------------------------------------------------------
    @invariant()
    def store_matches_model(self) -> None:
        if hasattr(self, "d"):
            self.d.note_list_all()
            self.d.memory_list_all()
            self.d.check_disk()


TestToolCalls = ToolCalls.TestCase
TestToolCalls.settings = settings(max_examples=15, stateful_step_count=20, deadline=None,
                                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
