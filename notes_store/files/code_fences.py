"""Which lines of a Markdown body are fenced code, as CommonMark reads them: one reader for the
headings of a page, its title heading and its links, so they never disagree about a code block."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def in_code(lines: Iterable[str]) -> Iterator[bool]:
    """For each line, whether it belongs to a fenced code block, its fences included. Three or more
    backticks or tildes open one; the same character, at least as many and nothing after them, close it;
    an unclosed fence runs to the end of the body. Lines may keep their line endings."""
    fence: str | None = None
    for line in lines:
        m = FENCE_RE.match(line)
        if fence is not None:
            if (m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence)
                    and not line.strip()[len(m.group(1)):].strip()):
                fence = None
            yield True
        elif m:
            fence = m.group(1)
            yield True
        else:
            yield False
