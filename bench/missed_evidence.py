"""What the evidence turns build_context leaves out have in common with their question (a diagnosis, not a score).

For each question of the chosen sets (dev splits unless ``--held-out``), at one budget: every evidence turn not
in the packed context is counted by what it shares with the question after analysis (stemmed words, Chinese
bigrams): a content word; only a speaker's name; only function words (the query terms the selection drops);
nothing. Turns that share no content word are out of reach of lexical selection (the issue's "做什么工作" →
"厨师长"); ``--show`` prints the ones that do, which are the ones worth reading.

Run: python -m bench.missed_evidence [--sets en-reunion en-written conv26] [--budget 1000] [--held-out] [--show]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter

from bench.devsets import SET_NAMES, all_sets
from context import build_context
from context.select.relevance import terms_of, terms_of_query


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--sets", nargs="+", choices=SET_NAMES, default=["en-reunion", "en-written", "conv26"])
    ap.add_argument("--budget", type=int, default=1000)
    ap.add_argument("--held-out", action="store_true", help="the held-out splits instead of the dev ones")
    ap.add_argument("--show", action="store_true", help="print the missed turns that share a content word")
    args = ap.parse_args(argv)
    split = "held-out" if args.held_out else "dev"
    for ds in all_sets():
        if ds.name not in args.sets or ds.split != split:
            continue
        counts: Counter[str] = Counter()
        for conv in ds.conversations:
            names = {w for t in conv.history if ":" in t["content"][:40]
                     for w in terms_of(t["content"].split(":", 1)[0])}
            for q in conv.questions:
                res = build_context(q["question"], history=conv.history, max_tokens=args.budget, reserve_ratio=0,
                                    include_notes=False, include_memory=False)
                packed = res.context or ""
                asked, content = set(terms_of(q["question"])), set(terms_of_query(q["question"]))
                for e in q["evidence"]:
                    if conv.by_id[e] in packed:
                        counts["in the context"] += 1
                        continue
                    shared = asked & set(terms_of(conv.by_id[e]))
                    words = (shared & content) - names
                    kind = ("shares a content word" if words else "shares only a speaker's name" if shared & names
                            else "shares only function words" if shared else "shares nothing")
                    counts[kind] += 1
                    if words and args.show:
                        print(f"  [{q['category']}] {q['question']}  shared {sorted(words)}\n"
                              f"      {conv.by_id[e][:160]}")
        missed = sum(v for k, v in counts.items() if k != "in the context")
        parts = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()) if k != "in the context")
        print(f"{ds.name} [{split}] at {args.budget:,} tokens: {counts['in the context']} evidence turns in the "
              f"context, {missed} missed: {parts}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
