"""The benchmark corpus: tldr pages as notes, description queries and the LoCoMo history.

A page becomes a note titled with the command name. Half of the pages (a fixed
half, by a hash of the page) lose their first ``>`` description line: that line
is the query whose right answer is the page (the quality figure, and the
"removed descriptions" latency class). The other half keep it, as real pages
do, and their descriptions are the "kept descriptions" class: such a query
finds its own words in the notes, which is what an agent searching for text it
wrote sees. English pages come from ``tldr/pages/common``, Chinese ones from
``tldr/pages.zh/common``. To reach N notes the pages are reused with a suffix
(`` (copy k)`` in the title, a ``copy k`` line in the body).

Everything here is deterministic (fixed seeds) so two runs index the same notes
and ask the same queries.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any
from collections.abc import Iterator

REPO = Path(__file__).resolve().parent.parent
DEFAULT_DATA = REPO.parent / "shared" / "data"

# Common Chinese words for single-word queries (each occurs in several pages.zh/common pages).
ZH_WORDS = ("文件", "目录", "压缩", "网络", "进程", "用户", "密码", "服务器", "下载", "配置",
            "显示", "删除", "安装", "容器", "分支", "端口", "权限", "日志", "镜像", "内存")
_ALIAS_RE = re.compile(r"^(This command is an alias of|此命令为) `[^`]+`")
_WORD_RE = re.compile(r"[A-Za-z][a-z]{4,}")
_STOP = {"which", "their", "files", "about", "other", "using", "there", "these", "command", "commands",
         "information", "utility", "program", "manage", "tool", "tools", "based", "various"}


@dataclass
class Page:
    lang: str          # "en" | "zh"
    name: str          # file stem, e.g. "tar"
    title: str         # the "# " heading
    description: str   # the first "> " line, without "> "
    body: str          # the page without heading and first description line

    @property
    def key(self) -> str:
        return f"{self.lang}:{self.name}"

    @property
    def keeps_description(self) -> bool:
        """A fixed half of the pages keeps its description in the note (by a hash, so stable across sizes)."""
        return hashlib.sha1(self.key.encode()).digest()[0] % 2 == 0


@dataclass
class CorpusNote:
    id: str            # file stem: tldr_<lang>_<name>[_<copy>]
    page: Page
    copy: int          # 0 = the original page

    @property
    def title(self) -> str:
        return self.page.title if self.copy == 0 else f"{self.page.title} (copy {self.copy})"

    @property
    def content(self) -> str:
        body = f"> {self.page.description}\n\n{self.page.body}" if self.page.keeps_description else self.page.body
        return body if self.copy == 0 else f"{body}\n\ncopy {self.copy}"

    @property
    def tags(self) -> list[str]:
        return ["tldr", self.page.lang]


def data_dir(explicit: str | os.PathLike[str] | None = None) -> Path | None:
    """The shared data folder (``--data``, else ``../shared/data`` from the repo root) if it has tldr pages."""
    path = Path(explicit) if explicit else DEFAULT_DATA
    return path if (path / "tldr" / "pages" / "common").is_dir() else None


def parse_page(lang: str, path: Path) -> Page | None:
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    title = path.stem
    desc_i = None
    for i, line in enumerate(lines):
        if line.startswith("# ") and title == path.stem:
            title = line[2:].strip() or path.stem
        elif line.startswith("> "):
            desc_i = i
            break
    if desc_i is None:
        return None
    description = lines[desc_i][2:].strip()
    body_lines = [ln for j, ln in enumerate(lines) if j != desc_i and not ln.startswith("# ")]
    body = "\n".join(body_lines).strip()
    if not description or not body:
        return None
    return Page(lang, path.stem, title, description, body)


def load_pages(data: Path) -> tuple[list[Page], list[Page]]:
    """(English pages, Chinese pages), sorted by name."""
    out = []
    for lang, folder in (("en", data / "tldr" / "pages" / "common"), ("zh", data / "tldr" / "pages.zh" / "common")):
        pages = [parse_page(lang, p) for p in sorted(folder.glob("*.md"))] if folder.is_dir() else []
        out.append([p for p in pages if p is not None])
    return out[0], out[1]


def corpus(en: list[Page], zh: list[Page], n: int, seed: int = 7) -> list[CorpusNote]:
    """``n`` notes: every page once (shuffled, English and Chinese mixed in proportion) before any copy.

    For n smaller than the page count, a random but fixed subset keeps the
    English/Chinese mix of the full set.
    """
    rng = random.Random(seed)
    en_s, zh_s = en[:], zh[:]
    rng.shuffle(en_s)
    rng.shuffle(zh_s)
    total = len(en_s) + len(zh_s)
    # Interleave: position i takes from zh when the zh share so far falls behind its proportion.
    mixed: list[Page] = []
    ie = iz = 0
    while ie < len(en_s) or iz < len(zh_s):
        if iz < len(zh_s) and (ie >= len(en_s) or iz * total < len(zh_s) * (ie + iz + 1)):
            mixed.append(zh_s[iz])
            iz += 1
        else:
            mixed.append(en_s[ie])
            ie += 1
    notes = []
    for i in range(n):
        page = mixed[i % total]
        copy = i // total
        suffix = f"_{copy}" if copy else ""
        safe = re.sub(r"[^A-Za-z0-9_.-]", "_", page.name)
        if safe != page.name:  # e.g. "[" and "[[": keep ids distinct
            safe += "_" + hashlib.sha1(page.name.encode()).hexdigest()[:6]
        notes.append(CorpusNote(f"tldr_{page.lang}_{safe}{suffix}", page, copy))
    return notes


def write_workspace(root: Path, notes: list[CorpusNote]) -> None:
    """Lay the notes out as ctxnotes files (same bytes the store would write), without an index.

    Files are written directly (no store, no fsync): 100,000 notes take seconds, not minutes.
    """
    from notes_store.files.front_matter import dump_document, titled_body
    folder = root / "notes"
    folder.mkdir(parents=True, exist_ok=True)
    stamp = "2025-01-01T00:00:00+00:00"
    for n in notes:
        meta = {"id": n.id, "title": n.title, "type": "reference", "tags": n.tags,
                "created_at": stamp, "updated_at": stamp}
        with open(folder / f"{n.id}.md", "wb") as fh:
            fh.write(dump_document(meta, titled_body(n.title, n.content)))


def write_plain(root: Path, notes: list[CorpusNote]) -> None:
    """The same notes as plain Markdown (``# title`` + body), for the peers."""
    root.mkdir(parents=True, exist_ok=True)
    for n in notes:
        (root / f"{n.id}.md").write_text(f"# {n.title}\n\n{n.content}\n", encoding="utf-8")


def description_queries(notes: list[CorpusNote], lang: str, limit: int, seed: int = 11,
                        kept: bool = False) -> list[tuple[str, str]]:
    """(description, page key) for original pages of ``lang`` present in ``notes``; a fixed sample of ``limit``.

    ``kept=False``: pages whose description was removed from the note (the quality queries);
    ``kept=True``: pages that keep it (the query's words are all in the note).
    """
    pages = [n.page for n in notes if n.copy == 0 and n.page.lang == lang and n.page.keeps_description == kept]
    rng = random.Random(seed)
    if len(pages) > limit:
        pages = rng.sample(pages, limit)
    return [(p.description, p.key) for p in pages]


def common_word_queries(notes: list[CorpusNote], count: int, seed: int = 17) -> list[str]:
    """Alias-page descriptions (``此命令为 `nm` 的别名。``, ``This command is an alias of `let`.``), half each language.

    Hundreds of pages share every word but the command name, so few notes hold every word and the
    "some words" path collects many hits: the case a search engine must keep bounded.
    """
    out: list[str] = []
    for lang in ("zh", "en"):
        descs = sorted({n.page.description for n in notes
                        if n.copy == 0 and n.page.lang == lang and _ALIAS_RE.match(n.page.description)})
        rng = random.Random(seed)
        out += rng.sample(descs, min(len(descs), count - len(out) if lang == "en" else count // 2))
    return out


def long_queries(notes: list[CorpusNote], count: int, seed: int = 19) -> list[str]:
    """A page's description and its first three example lines as one query (~25-60 words), both languages."""
    pages = sorted({n.page.key: n.page for n in notes if n.copy == 0}.values(), key=lambda p: p.key)
    rng = random.Random(seed)
    rng.shuffle(pages)
    out = []
    for p in pages:
        examples = [ln[2:].strip() for ln in p.body.split("\n") if ln.startswith("- ")][:3]
        if len(examples) == 3:
            out.append(" ".join([p.description, *examples]))
        if len(out) == count:
            break
    return out


def word_queries(notes: list[CorpusNote], lang: str, count: int, seed: int = 13) -> list[str]:
    if lang == "zh":
        return list(ZH_WORDS[:count])
    words: dict[str, int] = {}
    for n in notes:
        if n.copy == 0 and n.page.lang == "en":
            for w in _WORD_RE.findall(n.page.description):
                w = w.lower()
                if w not in _STOP:
                    words[w] = words.get(w, 0) + 1
    common = sorted(w for w, c in words.items() if c >= 3)
    rng = random.Random(seed)
    return rng.sample(common, min(count, len(common)))


# Query classes for latency, in report order: (key, label).
QUERY_CLASSES = (
    ("desc_en", "descriptions removed from the notes, English"),
    ("desc_zh", "descriptions removed from the notes, Chinese"),
    ("kept_en", "descriptions kept in the notes, English"),
    ("kept_zh", "descriptions kept in the notes, Chinese"),
    ("word_en", "single words, English"),
    ("word_zh", "single words, Chinese"),
    ("common", "common words (alias pages: `此命令为 `nm` 的别名。`)"),
    ("long", "long queries (description + 3 examples)"),
)


def latency_queries(notes: list[CorpusNote], per_kind: int = 25) -> dict[str, list[str]]:
    """Queries for latency, by class (see ``QUERY_CLASSES``)."""
    return {
        "desc_en": [q for q, _ in description_queries(notes, "en", per_kind, seed=21)],
        "desc_zh": [q for q, _ in description_queries(notes, "zh", per_kind, seed=22)],
        "kept_en": [q for q, _ in description_queries(notes, "en", per_kind, seed=23, kept=True)],
        "kept_zh": [q for q, _ in description_queries(notes, "zh", per_kind, seed=24, kept=True)],
        "word_en": word_queries(notes, "en", per_kind),
        "word_zh": word_queries(notes, "zh", per_kind),
        "common": common_word_queries(notes, per_kind),
        "long": long_queries(notes, per_kind),
    }


_EVIDENCE_RE = re.compile(r"D:?(\d+):0*(\d+)")


def locomo_history(data: Path, turns: int = 600) -> tuple[list[dict[str, Any]], list[str]]:
    """(history of ``turns`` turns, questions): conv-26 repeated with suffixes; oldest first."""
    raw = json.loads((data / "locomo" / "conv-26.json").read_text(encoding="utf-8"))
    conv = raw["conversation"]
    a = conv["speaker_a"]
    sessions = sorted(int(k.split("_")[1]) for k in conv if re.fullmatch(r"session_\d+", k))
    base = []
    for s in sessions:
        when = datetime.strptime(conv[f"session_{s}_date_time"], "%I:%M %p on %d %B, %Y")
        for t in conv[f"session_{s}"]:
            base.append({"role": "user" if t["speaker"] == a else "assistant",
                         "content": f"{t['speaker']}: {t['text']}", "timestamp": when})
    history: list[dict[str, Any]] = []
    k = 0
    while len(history) < turns:
        for t in base:
            history.append(dict(t, content=t["content"] if k == 0 else f"{t['content']} ({k})"))
            if len(history) == turns:
                break
        k += 1
    questions = [q["question"] for q in raw["qa"] if q.get("category") in (1, 2, 3, 4)]
    return history, questions


def iter_update_texts(count: int) -> Iterator[str]:
    for i in range(count):
        yield f"Updated by the benchmark, round {i} ({time.time_ns()}): 基准测试更新 {i}."


def as_sent(turn: dict[str, Any]) -> dict[str, Any]:
    """The turn as JSON carries it (an MCP client's history): a ``datetime`` timestamp as an ISO 8601 string.

    The turn cache keeps str/None values only, so a history of Python datetimes measures the uncached
    gather path, and one of strings the path a client's calls take."""
    stamp = turn.get("timestamp")
    return dict(turn, timestamp=stamp.isoformat()) if isinstance(stamp, datetime) else turn
