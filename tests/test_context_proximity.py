"""context.select.proximity: runs of the query's words, measured on word codes that start again when the
code table is full; a call never compares codes of two generations."""

from __future__ import annotations

import pytest

from context.select import proximity as X

QUERY = "where did my uncle open his noodle restaurant"
TEXTS = ["my uncle open his noodle restaurant downtown last spring",
         "my uncle likes noodles", "the restaurant near the office is closed",
         "did you open the window", "nothing in common here at all"]


def _fresh(monkeypatch: pytest.MonkeyPatch, max_codes: int) -> None:
    """Empty code tables (restored after the test) holding at most ``max_codes`` words."""
    monkeypatch.setattr(X, "MAX_CODES", max_codes)
    for name in ("_word_codes", "_code_words", "_raw_codes"):
        monkeypatch.setattr(X, name, {})
    X._units_cache.clear()


def test_codes_starting_again_mid_call_give_the_same_runs(monkeypatch):
    _fresh(monkeypatch, 60_000)
    expected = X.proximity(QUERY, TEXTS, range(len(TEXTS)))
    assert expected[0] == 1.0 and 3 not in expected   # the long run leads; "did ... open" holds no content
    # A table nearly full of other words: coding the candidates starts the codes again after the
    # query was coded. Before, the query kept its old codes, which then named other words.
    _fresh(monkeypatch, 40)
    X.units(" ".join(f"filler{k}" for k in range(36)))
    before = getattr(X, "_generation", 0)
    assert X.proximity(QUERY, TEXTS, range(len(TEXTS))) == expected
    assert X._generation > before                        # the codes did start again during the call


def test_a_call_whose_words_overflow_the_table_twice_gets_no_proximity(monkeypatch):
    _fresh(monkeypatch, 8)
    assert X.proximity(QUERY, TEXTS, range(len(TEXTS))) == {}
