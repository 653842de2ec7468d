"""Short highlighted extracts of a text around the words a query matched."""

from __future__ import annotations

from .analysis import ANALYZER

MAX_SCAN_CHARS = 20_000


def make_snippet(text: str, terms: set[str], width: int = 180, mark: str = "**") -> str:
    """The ``width``-character window of ``text`` with the most distinct query terms, matches marked.

    Falls back to the start of the text when nothing matches (e.g. a title-only hit).
    """
    scan = text[:MAX_SCAN_CHARS]
    matches: list[tuple[int, int, str]] = []
    if terms:
        for tok in ANALYZER(scan, chars=True, positions=False):
            if tok.text in terms:
                matches.append((tok.startchar, tok.endchar, tok.text))
    if not matches:
        flat = " ".join(text[:width * 2].split())
        return flat[:width] + ("…" if len(flat) > width else "")
    best_start, best_score = matches[0][0], -1
    j = 0
    for i, (start, _end, _t) in enumerate(matches):
        while matches[j][0] < start - width // 3:
            j += 1
        window = {t for s, _e, t in matches[j:] if s < start - width // 3 + width}
        if len(window) > best_score:
            best_score, best_start = len(window), max(0, start - width // 3)
        if i > 200:
            break
    end = min(len(scan), best_start + width)
    # Overlapping CJK unigrams/bigrams: merge spans before marking.
    spans: list[list[int]] = []
    for s, e, _t in sorted(matches):
        if s < best_start or e > end:
            continue
        if spans and s <= spans[-1][1]:
            spans[-1][1] = max(spans[-1][1], e)
        else:
            spans.append([s, e])
    out, pos = [], best_start
    for s, e in spans:
        out.append(scan[pos:s])
        out.append(f"{mark}{scan[s:e]}{mark}")
        pos = e
    out.append(scan[pos:end])
    snippet = " ".join("".join(out).split())
    return ("…" if best_start > 0 else "") + snippet + ("…" if end < len(text) else "")
