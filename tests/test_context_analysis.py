"""The shared analyzer: NFKC folding, emoji terms, and the same terms with and without Whoosh."""

from __future__ import annotations

import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from notes_store.index.whoosh_analyzer import ANALYZER
from notes_store.analysis.analyzer import analyze, index_terms, query_terms


def test_full_width_latin_folds_to_ascii_in_text_and_query():
    assert index_terms("ｄｅｐｌｏｙ the service") == index_terms("deploy the service")
    assert query_terms("ｄｅｐｌｏｙ") == ["deploy"]


def test_emoji_are_terms_and_emoji_only_queries_have_terms():
    assert "🚀" in index_terms("ship it 🚀 today")
    assert query_terms("🚀") == ["🚀"]
    assert query_terms("✅️") == ["✅"]  # the variation selector belongs to the emoji


def test_whoosh_adapter_yields_exactly_the_pure_terms_with_original_spans():
    text = "Ｄｅｐｌｏｙ 重构了数据层 and ran tests ✅"
    pure = [(t.text, t.pos, text[t.start:t.end]) for t in analyze(text)]
    adapted = [(t.text, t.pos, text[t.startchar:t.endchar])
               for t in ANALYZER(text, positions=True, chars=True)]
    assert adapted == pure
    assert ("deploy", 0, "Ｄｅｐｌｏｙ") in pure


def test_pure_analysis_does_not_load_the_index_engine():
    # notes_store/__init__ loads the store and its index; the analysis module itself (and the modules it
    # imports from the package) must not: the package is stood in for by an empty one.
    code2 = ("import sys, types; pkg = types.ModuleType('notes_store'); pkg.__path__ = ['notes_store']; "
             "sys.modules['notes_store'] = pkg; import notes_store.analysis.analyzer as m; m.index_terms('gave x'); "
             "print('whoosh' in sys.modules, 'whoosh.analysis' in sys.modules)")
    out2 = subprocess.run([sys.executable, "-c", code2], capture_output=True, text=True, timeout=60)
    assert out2.returncode == 0, out2.stderr
    assert out2.stdout.strip() == "False False"


_PIECES = ["the", "running", "Ｄｅｐｌｏｙ", "我叔叔是厨师长", "华为Mate60", "👍🏽", "❤️", "a", "ａｂｃ", "x1",
           "此命令为", " ", "\n", ",", "。", "é", "Straße", "ﬁle", "日", "🇫🇷", "i", "don't"]


@given(st.lists(st.one_of(st.sampled_from(_PIECES), st.text(max_size=8)), max_size=30))
@settings(max_examples=400, deadline=None)
def test_index_terms_is_the_index_mode_of_analyze(parts: list[str]) -> None:
    text = "".join(parts)
    assert index_terms(text) == [t.text for t in analyze(text)]


def test_numbers_are_their_own_stems_and_keep_out_of_the_word_cache() -> None:
    """A long history's ids and amounts are mostly distinct: cached, they would push the words out."""
    from whoosh.lang.porter2 import stem

    from notes_store.analysis.analyzer import _stem_cached, stem_word
    stem_word("running")
    words = _stem_cached.cache_info().currsize
    numbers = [str(n * 7919) for n in range(5000)] + ["007", "2026"]
    assert [stem_word(n) for n in numbers] == [stem(n) for n in numbers] == numbers
    assert _stem_cached.cache_info().currsize == words
    assert stem_word("running") == "run" and stem_word("3rd") == stem("3rd") and stem_word("１２") == stem("１２")
