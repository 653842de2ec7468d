"""Selection quality of build_context on the dev sets (bench/devsets), against two baselines.

Measure (see ../shared/data/README.md): every turn goes in as history, the question is the
query, reserve_ratio=0, notes and memory off; a question scores the share of its evidence
turns whose full text appears in the packed context; a set's figure is the mean over its
questions. Baselines: plain BM25 over the turns with the same analyzer (every query term, no
question-word filtering, no neighbours), packed greedily; and the most recent turns.

Run: python -m bench.quality [--data PATH] [--budgets 1000 2000 4000] [--sets NAME...]
     [--dev-only] [--ablate spreading recency] [--no-timing] [--sizes]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TypedDict

from bench.devsets import DEFAULT_LOCOMO, SET_NAMES, Conversation, DevSet, Turn, all_sets, load_locomo, strip_session
from context import TokenCounter, build_context
from context.select.relevance import LexicalScorer, terms_of
from notes_store.analysis.analyzer import query_terms

BUDGETS = (1000, 2000, 4000)
METHODS = ("build_context", "bm25", "recent")

Rows = dict[str, dict[int, list[float]]]            # method -> budget -> per-question recall
PerCategory = dict[int | str, dict[int, list[float]]]  # category -> budget -> build_context recall


class Evaluation(TypedDict):
    means: dict[str, dict[int, float]]   # method -> budget -> mean recall
    per_cat: PerCategory
    per_cat_bm25: PerCategory            # the same for plain BM25
    over_budget: int                     # build_context outputs over their budget (must stay 0)


class Timing(TypedDict):
    turns: int
    budget: int
    runs: int
    first_ms: float
    same_median_ms: float
    same_p95_ms: float
    growing_median_ms: float
    growing_p95_ms: float


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


def bm25_order(scorer: LexicalScorer, question: str) -> list[int]:
    """Plain BM25: the index's own query terms, no question-word filtering or neighbours."""
    scores = scorer.bm25({t: 1.0 for t in query_terms(question)})
    return [i for i in sorted(range(scorer.n), key=lambda i: -scores[i]) if scores[i] > 0]


def bm25_baseline(history: list[Turn], question: str, budget: int, counter: TokenCounter,
                  scorer: LexicalScorer) -> str:
    contents = [t["content"] for t in history]
    return pack_in_order(contents, bm25_order(scorer, question), budget, counter)


def recent_baseline(history: list[Turn], budget: int, counter: TokenCounter) -> str:
    contents = [t["content"] for t in history]
    return pack_in_order(contents, list(range(len(contents) - 1, -1, -1)), budget, counter)


@contextmanager
def ablated(parts: list[str]) -> Iterator[None]:
    """Switch parts of the selection off for a diagnosis run (restored afterwards)."""
    from context.select import profiles as select
    saved = dict(select.PROFILES)
    try:
        for name, prof in saved.items():
            if "spreading" in parts:
                prof = replace(prof, neighbour_weight=0.0)
            if "recency" in parts:
                prof = replace(prof, recency_weight=0.0, recent_turns=0)
            select.PROFILES[name] = prof
        yield
    finally:
        select.PROFILES.update(saved)


def evaluate_conversation(conv: Conversation, budgets: tuple[int, ...], counter: TokenCounter,
                          rows: Rows, per_cat: PerCategory,
                          methods: tuple[str, ...] = METHODS, per_cat_bm25: PerCategory | None = None) -> int:
    """Add each question's recall per method and budget to ``rows``; return outputs over budget."""
    scorer = LexicalScorer([terms_of(t["content"]) for t in conv.history])
    over = 0
    for q in conv.questions:
        for b in budgets:
            if "build_context" in methods:
                res = build_context(q["question"], history=conv.history, max_tokens=b, reserve_ratio=0,
                                    include_notes=False, include_memory=False)
                over += res.tokens > b or counter.count(res.context or "") > b
                r = recall(res.context or "", q["evidence"], conv.by_id)
                rows["build_context"][b].append(r)
                per_cat.setdefault(q["category"], {x: [] for x in budgets})[b].append(r)
            if "bm25" in methods:
                r = recall(bm25_baseline(conv.history, q["question"], b, counter, scorer), q["evidence"], conv.by_id)
                rows["bm25"][b].append(r)
                if per_cat_bm25 is not None:
                    per_cat_bm25.setdefault(q["category"], {x: [] for x in budgets})[b].append(r)
            if "recent" in methods:
                rows["recent"][b].append(recall(recent_baseline(conv.history, b, counter),
                                                q["evidence"], conv.by_id))
    return over


def evaluate(ds: DevSet, budgets: tuple[int, ...], methods: tuple[str, ...] = METHODS) -> Evaluation:
    """Mean recall per method and budget over every question of ``ds``, build_context's per category."""
    counter = TokenCounter("cl100k_base")
    rows: Rows = {m: {b: [] for b in budgets} for m in methods}
    per_cat: PerCategory = {}
    per_cat_bm25: PerCategory = {}
    over = sum(evaluate_conversation(c, budgets, counter, rows, per_cat, methods, per_cat_bm25) for c in ds.conversations)
    means = {m: {b: statistics.mean(v) if v else 0.0 for b, v in by_b.items()} for m, by_b in rows.items()}
    return {"means": means, "per_cat": per_cat, "per_cat_bm25": per_cat_bm25, "over_budget": over}


def timing(turns: int = 600, budget: int = 2000, runs: int = 40, data: Path = DEFAULT_LOCOMO,
           as_json: bool = False) -> Timing:
    """build_context latency with a ``turns``-turn history (conv-26, or a generated log without it,
    extended by repeating it with distinct suffixes): first call on a new history; the same history
    asked different questions; an agent loop where the history grows by one turn per call.

    ``as_json``: timestamps as ISO strings, as an MCP client sends them (the turn cache keeps those);
    otherwise Python datetimes, which bypass it. Each shape has its own suffixes, so both first calls
    are on texts never seen."""
    from bench.corpus import as_sent
    if data.is_file():
        conv = strip_session(load_locomo(data))
    else:
        from bench.devsets.statement_logs import generate_log
        conv = generate_log("en", 1)
    history, questions = conv.history, conv.questions
    mark = "[{}]" if as_json else "({})"
    long = [dict(t, content=f"{t['content']} {mark.format(k)}" if k or as_json else t["content"], id=f"{t['id']}#{k}")
            for k in range(turns // len(history) + 2) for t in history]
    if as_json:
        long = [as_sent(t) for t in long]
    t0 = time.perf_counter()
    build_context(questions[0]["question"], history=long[:turns], max_tokens=budget)
    first = (time.perf_counter() - t0) * 1000

    def measure(history_for: Callable[[int], list[Turn]]) -> list[float]:
        times = []
        for k, q in enumerate((questions * 2)[:runs]):
            hist = history_for(k)
            t0 = time.perf_counter()
            build_context(q["question"], history=hist, max_tokens=budget)
            times.append((time.perf_counter() - t0) * 1000)
        return sorted(times)

    same = measure(lambda k: long[:turns])
    growing = measure(lambda k: long[k + 1:turns + k + 1])

    def p95(ts: list[float]) -> float:
        return ts[int(0.95 * (len(ts) - 1))]

    return {"turns": turns, "budget": budget, "runs": runs, "first_ms": first,
            "same_median_ms": statistics.median(same), "same_p95_ms": p95(same),
            "growing_median_ms": statistics.median(growing), "growing_p95_ms": p95(growing)}


def _span(xs: list[int]) -> str:
    return f"{xs[0]} / {int(statistics.median(xs))} / {xs[-1]}"


def print_sizes(sets: list[DevSet]) -> None:
    """Histories, questions, and turns and tokens per history (min / median / max) of each set."""
    counter = TokenCounter("cl100k_base")
    print(f"{'set':<31}{'hist':>5}{'q':>6}   {'turns/history':<18}{'tokens/history':<22}")
    for ds in sets:
        turns = sorted(len(c.history) for c in ds.conversations)
        toks = sorted(counter.count("\n".join(t["content"] for t in c.history)) for c in ds.conversations)
        print(f"{ds.name + ' [' + ds.split + ']':<31}{len(ds.conversations):>5}{ds.n_questions:>6}   "
              f"{_span(turns):<18}{_span(toks):<22}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_LOCOMO, help=f"LoCoMo conversation (default {DEFAULT_LOCOMO})")
    ap.add_argument("--budgets", type=int, nargs="+", default=list(BUDGETS))
    ap.add_argument("--sets", nargs="+", choices=SET_NAMES, metavar="SET",
                    help=f"only these sets ({', '.join(SET_NAMES)})")
    ap.add_argument("--dev-only", action="store_true", help="leave the held-out sets out (while tuning)")
    ap.add_argument("--ablate", nargs="+", default=[], choices=("spreading", "recency"),
                    help="diagnosis: switch neighbour spreading and/or recency off")
    ap.add_argument("--no-timing", action="store_true")
    ap.add_argument("--sizes", action="store_true", help="only print each set's size (turns, questions, tokens)")
    args = ap.parse_args(argv)
    budgets = tuple(args.budgets)
    if not args.data.is_file():
        print(f"(LoCoMo data not found at {args.data}: the conv-26 sets are left out; pass --data PATH)")
    sets = [s for s in all_sets(args.data, held_out=not args.dev_only)
            if not args.sets or s.name in args.sets]
    if args.sizes:
        print_sizes(sets)
        return 0
    print("evidence-turn recall in the packed context (reserve_ratio=0, notes and memory off)"
          + (f"; ablated: {', '.join(args.ablate)}" if args.ablate else ""))
    print(f"{'set':<31}{'method':<15}" + "".join(f"{b:>8,}" for b in budgets))
    over_total = 0
    with ablated(args.ablate):
        for ds in sets:
            res = evaluate(ds, budgets)
            over_total += res["over_budget"]
            label = f"{ds.name} [{ds.split}]"
            sub = f"{len(ds.conversations)} hist, {ds.n_questions} q"
            for k, m in enumerate(METHODS):
                head = label if k == 0 else (sub if k == 1 else "")
                print(f"{head:<31}{m:<15}" + "".join(f"{res['means'][m][b]:>8.3f}" for b in budgets))
            ratio = [res["means"]["build_context"][b] / res["means"]["bm25"][b] if res["means"]["bm25"][b]
                     else float("inf") for b in budgets]
            print(f"{'':<31}{'ratio to bm25':<15}" + "".join(f"{r:>8.2f}" for r in ratio))
            if "asked" not in ds.name and (ds.name in ("conv26", "en-dialogue", "en-longchat", "en-reunion")
                                           or ds.name.endswith(("memlog", "daily", "diary", "lifelog", "written"))):
                for c, by_b in sorted(res["per_cat"].items(), key=lambda kv: str(kv[0])):
                    name = f"  category {c}" if isinstance(c, int) else f"  {c}"
                    print(f"{'':<31}{name:<15}" + "".join(f"{statistics.mean(by_b[b]):>8.3f}" for b in budgets))
            elif "asked" in ds.name:
                # Per question kind, build_context / plain BM25 (the kinds of bench.devsets.asked_logs).
                for c, by_b in sorted(res["per_cat"].items(), key=lambda kv: str(kv[0])):
                    base = res["per_cat_bm25"].get(c, {})
                    print(f"{'':<31}{'  ' + str(c):<15}" + "".join(
                        f"{statistics.mean(by_b[b]):>8.3f}" + (f"/{statistics.mean(base[b]):.3f}" if base.get(b) else "")
                        for b in budgets))
    print(f"outputs over budget: {over_total}")
    if not args.no_timing:
        for as_json, shape in ((True, "ISO-string timestamps, as JSON sends them"),
                               (False, "Python datetime timestamps: the uncached gather path")):
            t = timing(data=args.data, as_json=as_json)
            print(f"build_context latency, {t['turns']}-turn history ({shape}), {t['budget']}-token budget, "
                  f"{t['runs']} runs each:")
            print(f"  first call on a new {t['turns']}-turn history:  {t['first_ms']:.1f} ms")
            print(f"  same history, new questions:          median {t['same_median_ms']:.1f} ms, "
                  f"p95 {t['same_p95_ms']:.1f} ms")
            print(f"  history growing one turn per call:    median {t['growing_median_ms']:.1f} ms, "
                  f"p95 {t['growing_p95_ms']:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
