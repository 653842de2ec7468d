"""``analysis.index_positions`` (the child build's analysis) is ``analyze`` in index mode, grouped by term:
the same terms, the same positions, first-seen order; and ``FastAdder`` feeds Whoosh exactly that."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from notes_store.index.whoosh_analyzer import ANALYZER
from notes_store.analysis.analyzer import analyze, index_positions

_PIECES = ["the", "running", "Ｄｅｐｌｏｙ", "我叔叔是厨师长", "华为Mate60", "👍🏽", "❤️", "a", "ａｂｃ", "x1",
           "此命令为", " ", "\n", ",", "。", "é", "Straße", "ﬁle", "日", "🇫🇷", "i", "don't", "Running", "RUNNING"]


def _grouped(text: str) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for term in analyze(text):
        out.setdefault(term.text, []).append(term.pos)
    return out


@given(st.lists(st.one_of(st.sampled_from(_PIECES), st.text(max_size=8)), max_size=40))
@settings(max_examples=500, deadline=None)
def test_index_positions_is_analyze_grouped(parts: list[str]) -> None:
    text = "".join(parts)
    got = index_positions(text)
    want = _grouped(text)
    assert got == want
    assert list(got) == list(want)  # first-seen order too


def test_index_positions_matches_the_whoosh_tokens() -> None:
    text = "Running the 数据模型 重构 🚀 twice: running RUNNING; ｄｅｐｌｏｙ deploy"
    tokens: dict[str, list[int]] = {}
    for token in ANALYZER(text, positions=True):
        tokens.setdefault(token.text, []).append(token.pos)
    assert index_positions(text) == tokens
    assert index_positions(text)["run"] == [0, 10, 11]  # 数据模型 and 重构 take a position per character
    assert index_positions("") == {}
