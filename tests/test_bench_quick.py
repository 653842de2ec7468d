"""The benchmark suite's quick mode runs end to end, so the suite cannot rot.

Needs the shared data (../shared/data/tldr, locomo) beside the repo: skipped when it is absent.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
DATA = REPO.parent / "shared" / "data"

pytestmark = pytest.mark.skipif(not (DATA / "tldr" / "pages" / "common").is_dir(),
                                reason=f"shared benchmark data not found at {DATA}")


def test_corpus_is_deterministic_and_mixed():
    from bench import corpus as C
    en, zh = C.load_pages(DATA)
    assert len(en) > 1000 and len(zh) > 100
    a = C.corpus(en, zh, 300)
    b = C.corpus(en, zh, 300)
    assert [n.id for n in a] == [n.id for n in b]
    assert len({n.id for n in a}) == 300
    assert 0.1 < sum(n.page.lang == "zh" for n in a) / 300 < 0.3
    # The description is the query: it must not be in the indexed text.
    for n in a[:50]:
        assert n.page.description not in n.content
    big = C.corpus(en, zh, len(en) + len(zh) + 10)
    assert len({n.id for n in big}) == len(big) and big[-1].copy == 1


def test_quick_mode_end_to_end(tmp_path):
    out = tmp_path / "quick.json"
    proc = subprocess.run([sys.executable, "-m", "bench", "--quick", "--scratch", str(tmp_path / "scratch"),
                           "--out", str(out)], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "| figure |" in proc.stdout
    res = json.loads(out.read_text(encoding="utf-8"))
    (size, entry), = res["sizes"].items()
    ours = entry["ours"]
    assert ours["notes"] == int(size) == 300
    assert ours["cold_index"]["notes_per_s"]["p50"] > 0
    assert ours["reopen"]["seconds"]["p50"] > 0
    assert ours["search"]["all"]["n"] > 0 and ours["search"]["all"]["p95"] > 0
    for lang in ("en", "zh"):
        q = ours["quality"][lang]
        assert q["queries"] > 0 and 0.3 <= q["top10"] <= 1  # a sanity floor, not a quality target
    assert ours["writes"]["create_per_s"] > 0 and ours["writes"]["update_ms"]["n"] > 0
    assert ours["build_context"]["history_only"]["ms"]["n"] > 0
    mcp = ours["mcp"]
    assert "error" not in mcp, mcp.get("error")
    assert "note_search" in mcp["tools"]
    assert mcp["search"]["all"]["n"] > 0 and mcp["create_per_s"] > 0
    assert mcp["rss_mb"] and mcp["rss_mb"] > 10
    assert entry["peers"] == {}  # quick mode runs no peers
