"""The benchmark suite's quick mode runs end to end, so the suite cannot rot.

Needs the shared data (../shared/data/tldr, locomo) beside the repo: skipped when it is absent.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent
DATA = REPO.parent / "shared" / "data"
if str(REPO) not in sys.path:  # bench/ is not an installed package: `.venv/bin/pytest` must still import it
    sys.path.insert(0, str(REPO))

pytestmark = pytest.mark.skipif(not (DATA / "tldr" / "pages" / "common").is_dir(),
                                reason=f"shared benchmark data not found at {DATA}")


def test_corpus_is_deterministic_and_mixed() -> None:
    from bench import corpus as C
    en, zh = C.load_pages(DATA)
    assert len(en) > 1000 and len(zh) > 100
    a = C.corpus(en, zh, 300)
    b = C.corpus(en, zh, 300)
    assert [n.id for n in a] == [n.id for n in b]
    assert len({n.id for n in a}) == 300
    assert 0.1 < sum(n.page.lang == "zh" for n in a) / 300 < 0.3
    # Half of the pages keep their description (a query whose words are in the note), half lose it
    # (the quality query: its words must not be in the indexed text).
    assert 0.35 < sum(n.page.keeps_description for n in a) / 300 < 0.65
    for n in a[:80]:
        assert (n.page.description in n.content) == n.page.keeps_description
    big = C.corpus(en, zh, len(en) + len(zh) + 10)
    assert len({n.id for n in big}) == len(big) and big[-1].copy == 1


def test_query_classes_come_from_the_corpus() -> None:
    from bench import corpus as C
    en, zh = C.load_pages(DATA)
    notes = C.corpus(en, zh, 2000)
    q = C.latency_queries(notes, per_kind=10)
    assert [k for k, _ in C.QUERY_CLASSES] == list(q)
    assert all(len(v) >= 5 for v in q.values()), {k: len(v) for k, v in q.items()}
    content = {n.page.key: n.content for n in notes if n.copy == 0}
    for lang in ("en", "zh"):
        assert all(d in content[k] for d, k in C.description_queries(notes, lang, 50, kept=True))
        assert not any(d in content[k] for d, k in C.description_queries(notes, lang, 50, kept=False))
    assert any(d.startswith("此命令为 `") for d in q["common"]) and any(d.startswith("This command") for d in q["common"])
    assert min(len(x) for x in q["long"]) >= 40


def test_targets_differ_by_size() -> None:
    from bench import report
    ours = {"mcp": {"search": {"all": {"p95": 25.0}}}}
    assert "MISS" in report.check("mcp_search_p95", 25.0, 10000)
    assert "PASS" in report.check("mcp_search_p95", 25.0, 100000)
    assert report.check("mcp_search_p95", 25.0, 1000) == ""
    table = report.readme_table({10000: ours, 100000: ours})
    row = next(line for line in table.splitlines() if line.startswith("| search per MCP stdio call p95"))
    assert "25.0 ✗" in row and "25.0 ✓" in row and "≤ 20" in row and "≤ 30" in row


def test_quick_mode_end_to_end(tmp_path: Path) -> None:
    out = tmp_path / "quick.json"
    proc = subprocess.run([sys.executable, "-m", "bench", "--quick", "--scratch", str(tmp_path / "scratch"),
                           "--out", str(out)], cwd=REPO, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "| figure |" in proc.stdout and "| query class |" in proc.stdout
    res = json.loads(out.read_text(encoding="utf-8"))
    (size, entry), = res["sizes"].items()
    ours = entry["ours"]
    assert ours["notes"] == int(size) == 300
    assert ours["cold_index"]["notes_per_s"]["p50"] > 0
    assert ours["reopen"]["seconds"]["p50"] > 0
    for kind in ("desc_en", "kept_zh", "common", "long", "kept", "all"):
        assert ours["search"][kind]["n"] > 0 and ours["search"][kind]["p99"] >= ours["search"][kind]["p50"] > 0
    assert all(p["total"] > 0 for p in ours["probes"])
    for lang in ("en", "zh"):
        q = ours["quality"][lang]
        assert q["queries"] > 0 and 0.3 <= q["top10"] <= 1  # a sanity floor, not a quality target
    assert ours["writes"]["create_per_s"] > 0 and ours["writes"]["update_ms"]["n"] > 0
    assert ours["build_context"]["history_only"]["ms"]["n"] > 0
    mcp = ours["mcp"]
    assert "error" not in mcp, mcp.get("error")
    assert "build_context_error" not in mcp, mcp.get("build_context_error")
    assert "note_search" in mcp["tools"]
    assert mcp["cold_index"]["notes_per_s"] > 0 and mcp["restart"]["first_search_ms"]["n"] == 1
    assert mcp["search"]["common"]["n"] > 0 and mcp["note_list_ms"]["p50"] > 0 and mcp["create_per_s"] > 0
    assert mcp["rss"]["peak_mb"] > 10 and mcp["rss_restarted"]["peak_mb"] > 10
    assert mcp["rss_after_cold_index"]["now_mb"] <= mcp["rss_after_cold_index"]["peak_mb"]
    assert entry["peers"] == {} and "concurrency" not in res  # quick mode runs no peers, no HTTP loads


def test_concurrent_clients_lose_nothing_and_read_their_writes(tmp_path: Path) -> None:
    """A small mixed load over real HTTP: no errors, every acknowledged write kept, every create found."""
    from bench import concurrency as K
    from bench import corpus as C
    en, zh = C.load_pages(DATA)
    assert {"create", "search", "update", "read"} <= set(K.plan("mixed", 0, 12) + K.plan("mixed", 1, 12))
    res = K.run_load("mixed", tmp_path, C.corpus(en, zh, 40), clients=2, calls=12, load_timeout=90,
                     progress=lambda _m: None)
    assert "error" not in res, res["error"]
    assert res["calls"] == 24 and res["errors"] == 0, res.get("error_samples")
    assert res["ryw"]["creates_acked"] > 0 and res["ryw"]["found"] == res["ryw"]["creates_acked"]
    assert res["verify"] == {"missing": [], "stale": [], "missing_on_disk": []}
    assert res["calls_per_s"] > 0 and res["ops"]["update"]["n"] > 0


def test_call_layers_add_up(tmp_path: Path) -> None:
    """The per-call floor breakdown measures every layer on a real workspace and a real stdio child."""
    import anyio

    from bench import call_layers
    from bench import corpus as C
    en, zh = C.load_pages(DATA)
    C.write_workspace(tmp_path / "ws", C.corpus(en, zh, 30))
    async def bounded() -> dict[str, Any]:
        with anyio.fail_after(120):
            return await call_layers.measure(tmp_path / "ws", 20)

    res = anyio.run(bounded)
    for layer in ("library", "memory_ping", "memory_note_list", "stdio_ping", "stdio_note_list"):
        assert res[layer]["n"] == 20 and res[layer]["p50"] > 0, layer
    assert res["stdio_note_list"]["p50"] > res["library"]["p50"]
    assert "| note_list per stdio call" in call_layers.render(res)
