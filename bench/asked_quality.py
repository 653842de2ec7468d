"""Recall per question kind, build_context beside plain BM25, on the asked logs (``bench.devsets.asked_logs``)
and, once it exists, the written held-out set ``bench/devsets/written/zh_asked_1.json``.

Measured as bench.quality measures (reserve_ratio 0, notes and memory off, text format).

Run: python -m bench.asked_quality [--langs zh en] [--split dev held-out] [--budgets 1000 2000] [--written]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Sequence

from bench.devsets import DEV_SEEDS, HELD_OUT_SEEDS, load_written_log
from bench.devsets.asked_logs import CATEGORIES, asked_log_set
from bench.devsets.model import DevSet
from bench.quality import bm25_baseline, recall
from context import TokenCounter, build_context
from context.select.relevance import LexicalScorer, terms_of


def evaluate(ds: DevSet, budgets: Sequence[int]) -> tuple[dict[str, dict[str, dict[int, list[float]]]], int]:
    """method -> kind -> budget -> recalls ("all" as a kind too); outputs over budget."""
    counter = TokenCounter("cl100k_base")
    out: dict[str, dict[str, dict[int, list[float]]]] = {"ours": {}, "bm25": {}}
    over = 0
    for conv in ds.conversations:
        scorer = LexicalScorer([terms_of(t["content"]) for t in conv.history])
        for q in conv.questions:
            kind = str(q["category"])
            for b in budgets:
                res = build_context(q["question"], history=conv.history, max_tokens=b, reserve_ratio=0,
                                    include_notes=False, include_memory=False)
                over += res.tokens > b or counter.count(res.context or "") > b
                r = recall(res.context or "", q["evidence"], conv.by_id)
                p = recall(bm25_baseline(conv.history, q["question"], b, counter, scorer), q["evidence"], conv.by_id)
                for method, v in (("ours", r), ("bm25", p)):
                    for k in (kind, "all"):
                        out[method].setdefault(k, {x: [] for x in budgets})[b].append(v)
    return out, over


def report(ds: DevSet, budgets: Sequence[int]) -> int:
    res, over = evaluate(ds, budgets)
    print(f"{ds.name} [{ds.split}] {len(ds.conversations)} hist, {ds.n_questions} q   "
          + "".join(f"{b:>7}/bm25 " for b in budgets))
    kinds = ["all"] + [k for k in CATEGORIES if k in res["ours"]] + sorted(k for k in res["ours"]
                                                                          if k not in CATEGORIES and k != "all")
    for k in kinds:
        n = len(res["ours"][k][budgets[0]])
        cells = "".join(f"{statistics.mean(res['ours'][k][b]):>7.3f}/{statistics.mean(res['bm25'][k][b]):.3f}"
                        for b in budgets)
        print(f"  {k:<12}{n:>4} {cells}")
    return over


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--langs", nargs="+", default=["zh", "en"])
    ap.add_argument("--split", nargs="+", default=["dev", "held-out"])
    ap.add_argument("--budgets", type=int, nargs="+", default=[1000, 2000])
    ap.add_argument("--written", action="store_true", help="also the written set (held out: after tuning only)")
    args = ap.parse_args(argv)
    over = 0
    for lang in args.langs:
        for split in args.split:
            seeds = DEV_SEEDS if split == "dev" else HELD_OUT_SEEDS
            over += report(asked_log_set(lang, seeds, split), args.budgets)
    if args.written:
        from bench.devsets import WRITTEN, WRITTEN_ASKED
        path = WRITTEN / WRITTEN_ASKED["zh-asked-written"]
        for stamped in (False, True):
            ds = DevSet("zh-asked-written" + (" (timestamps)" if stamped else ""), "held-out",
                        [load_written_log(path, stamped)])
            over += report(ds, args.budgets)
    print(f"outputs over budget: {over}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
