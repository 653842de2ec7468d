"""Selection quality of build_context on a long LoCoMo conversation, against two baselines.

Measure (see ../shared/data/README.md): every turn goes in as history, the
question is the query, reserve_ratio=0; a question scores the share of its
evidence turns whose full text ("<speaker>: <text>") appears in the packed
context; the table averages over the questions of categories 1-4.

Run: python -m bench.quality [--data PATH] [--budgets 1000 2000 4000]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from datetime import datetime
from pathlib import Path

from context import TokenCounter, build_context
from context.relevance import LexicalScorer, terms_of
from notes_store.analysis import query_terms

REPO = Path(__file__).resolve().parent.parent
DEFAULT_DATA = REPO.parent / "shared" / "data" / "locomo" / "conv-26.json"
BUDGETS = (1000, 2000, 4000)
CATEGORIES = (1, 2, 3, 4)
_EVIDENCE_RE = re.compile(r"D:?(\d+):0*(\d+)")


def load_conversation(path: Path, quiet: bool = False) -> tuple[list[dict], dict[str, str], list[dict]]:
    """(history turns, dia_id -> turn content, questions of categories 1-4)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    conv = data["conversation"]
    a, b = conv["speaker_a"], conv["speaker_b"]
    sessions = sorted(int(k.split("_")[1]) for k in conv
                       if re.fullmatch(r"session_\d+", k))
    history, by_id = [], {}
    for n in sessions:
        when = datetime.strptime(conv[f"session_{n}_date_time"], "%I:%M %p on %d %B, %Y")
        for turn in conv[f"session_{n}"]:
            content = f"{turn['speaker']}: {turn['text']}"
            role = "user" if turn["speaker"] == a else "assistant" if turn["speaker"] == b else "user"
            dia = "D{}:{}".format(*_EVIDENCE_RE.match(turn["dia_id"]).groups())
            history.append({"role": role, "content": content, "timestamp": when, "id": dia})
            by_id[dia] = content
    questions = []
    skipped = 0
    for qa in data["qa"]:
        if qa.get("category") not in CATEGORIES:
            continue
        ids = sorted({f"D{s}:{t}" for ev in qa.get("evidence", []) for s, t in _EVIDENCE_RE.findall(ev)})
        ids = [i for i in ids if i in by_id]
        if ids:
            questions.append({"question": qa["question"], "evidence": ids, "category": qa["category"]})
        else:
            skipped += 1
    if skipped and not quiet:
        print(f"({skipped} questions of categories 1-4 list no evidence turn and are not scored)")
    return history, by_id, questions


def recall(packed: str, evidence: list[str], by_id: dict[str, str]) -> float:
    return sum(by_id[e] in packed for e in evidence) / len(evidence)


def pack_in_order(contents: list[str], order: list[int], budget: int, counter: TokenCounter) -> str:
    """Whole turns in the given order, skipping any that do not fit; exact count on the joined text."""
    lines: list[str] = []
    used = 0
    for i in order:
        cost = counter.count(contents[i]) + 1
        if used + cost <= budget:
            lines.append(contents[i])
            used += cost
    text = "\n".join(lines)
    while lines and counter.count(text) > budget:  # never happens with +1 per line; guard anyway
        lines.pop()
        text = "\n".join(lines)
    return text


def bm25_baseline(history: list[dict], question: str, budget: int, counter: TokenCounter,
                  scorer: LexicalScorer) -> str:
    contents = [t["content"] for t in history]
    # Plain BM25: the index's own query terms, no question-word filtering or neighbours.
    scores = scorer.bm25({t: 1.0 for t in query_terms(question)})
    order = sorted(range(len(contents)), key=lambda i: -scores[i])
    return pack_in_order(contents, [i for i in order if scores[i] > 0], budget, counter)


def recent_baseline(history: list[dict], budget: int, counter: TokenCounter) -> str:
    contents = [t["content"] for t in history]
    order = list(range(len(contents) - 1, -1, -1))
    return pack_in_order(contents, order, budget, counter)


def evaluate(path: Path, budgets: tuple[int, ...]) -> dict:
    history, by_id, questions = load_conversation(path)
    counter = TokenCounter("cl100k_base")
    scorer = LexicalScorer([terms_of(t["content"]) for t in history])
    rows = {name: {b: [] for b in budgets} for name in ("build_context", "bm25", "recent")}
    per_cat = {b: {c: [] for c in CATEGORIES} for b in budgets}
    over_budget = 0
    for q in questions:
        for b in budgets:
            res = build_context(q["question"], history=history, max_tokens=b, reserve_ratio=0)
            over_budget += res.tokens > b or counter.count(res.context) > b
            r = recall(res.context, q["evidence"], by_id)
            rows["build_context"][b].append(r)
            per_cat[b][q["category"]].append(r)
            rows["bm25"][b].append(recall(bm25_baseline(history, q["question"], b, counter, scorer),
                                          q["evidence"], by_id))
            rows["recent"][b].append(recall(recent_baseline(history, b, counter), q["evidence"], by_id))
    return {"questions": len(questions), "turns": len(history), "rows": rows, "per_cat": per_cat,
            "over_budget": over_budget}


def timing(path: Path, turns: int = 600, budget: int = 2000, runs: int = 40) -> dict:
    """build_context latency with a ``turns``-turn history (the conversation, extended by
    repeating it with distinct suffixes), in three situations:
    the first call on a history not seen before (texts not yet counted); the same history asked
    different questions; and an agent loop where the history grows by one turn per call."""
    history, _, questions = load_conversation(path, quiet=True)
    long = [dict(t, content=f"{t['content']} ({k})" if k else t["content"], id=f"{t['id']}#{k}")
            for k in range(turns // len(history) + 2) for t in history]
    t0 = time.perf_counter()
    build_context(questions[0]["question"], history=long[:turns], max_tokens=budget)
    first = (time.perf_counter() - t0) * 1000

    def measure(history_for) -> list[float]:
        times = []
        for k, q in enumerate((questions * 2)[:runs]):
            hist = history_for(k)
            t0 = time.perf_counter()
            build_context(q["question"], history=hist, max_tokens=budget)
            times.append((time.perf_counter() - t0) * 1000)
        return sorted(times)

    same = measure(lambda k: long[:turns])
    growing = measure(lambda k: long[k + 1:turns + k + 1])
    p95 = lambda ts: ts[int(0.95 * (len(ts) - 1))]  # noqa: E731
    return {"turns": turns, "budget": budget, "runs": runs, "first_ms": first,
            "same_median_ms": statistics.median(same), "same_p95_ms": p95(same),
            "growing_median_ms": statistics.median(growing), "growing_p95_ms": p95(growing)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA, help=f"LoCoMo conversation (default {DEFAULT_DATA})")
    ap.add_argument("--budgets", type=int, nargs="+", default=list(BUDGETS))
    args = ap.parse_args(argv)
    if not args.data.is_file():
        print(f"LoCoMo data not found at {args.data}; pass --data PATH (see shared/data/README.md). "
              f"Nothing measured.")
        return 0
    budgets = tuple(args.budgets)
    res = evaluate(args.data, budgets)
    print(f"LoCoMo {args.data.name}: {res['turns']} turns, {res['questions']} questions (categories 1-4); "
          f"evidence-turn recall in the packed context, reserve_ratio=0")
    print(f"{'method':<16}" + "".join(f"{b:>9,}" for b in budgets))
    for name, by_budget in res["rows"].items():
        print(f"{name:<16}" + "".join(f"{statistics.mean(by_budget[b]):>9.3f}" for b in budgets))
    print("build_context by category (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop):")
    for c in CATEGORIES:
        print(f"  category {c} (n={len(res['per_cat'][budgets[0]][c]):>3})" +
              "".join(f"{statistics.mean(res['per_cat'][b][c]):>9.3f}" for b in budgets))
    print(f"outputs over budget: {res['over_budget']}")
    t = timing(args.data)
    print(f"build_context latency, {t['turns']}-turn history, {t['budget']}-token budget, {t['runs']} runs each:")
    print(f"  first call on a new 600-turn history:  {t['first_ms']:.1f} ms")
    print(f"  same history, new questions:          median {t['same_median_ms']:.1f} ms, p95 {t['same_p95_ms']:.1f} ms")
    print(f"  history growing one turn per call:    median {t['growing_median_ms']:.1f} ms, "
          f"p95 {t['growing_p95_ms']:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
