"""A segment's long posting lists in one flat file beside it: one ``pread`` and ``frombytes`` per term.

Whoosh decodes a posting list 128 documents at a time in Python (a pickle, a zlib block and a
delta decode per block): ~40 ms for a common word at 100k notes, paid on the request path
whenever a query meets a word it has not seen lately. The child processes that build an index
(``parallel_build``) keep every posting list of the text field and write, beside each segment,
the lists of the words with at least ``MIN_POSTINGS`` documents (the ones worth it; short lists
are one Whoosh block anyway) as raw arrays. The file is named after its segment, so Whoosh's
own clean-up deletes it when a merge retires the segment; a missing or damaged file only means
the slow path.

Layout: ``MAGIC``, the header length (8 bytes, little-endian), a marshal'd list of
``(term, count, offset)``, then for each term ``count`` int32 document numbers and ``count``
float32 weights (term frequencies), in the machine's byte order (the file never leaves it).
"""

from __future__ import annotations

import marshal
import os
from array import array
from collections.abc import Mapping, Sequence
from pathlib import Path

FIELD = "text"
MAGIC = b"ctxpost1" + (b"L" if array("i").itemsize == 4 and __import__("sys").byteorder == "little" else b"B")
MIN_POSTINGS = 128
EXTENSION = "ctxpost"


def postings_path(folder: Path, segment_id: str) -> Path:
    """Where a segment's postings file lives: beside the segment, named after it."""
    return folder / f"{segment_id}.{EXTENSION}"


def write_postings(path: Path, lists: Mapping[bytes, tuple[Sequence[int], Sequence[float]]]) -> None:
    """Write the lists of ``MIN_POSTINGS`` documents or more (term -> ascending document numbers,
    term frequencies) to ``path``, atomically."""
    entries: list[tuple[str, int, int]] = []
    blobs: list[bytes] = []
    offset = 0
    for term, (ids, weights) in lists.items():
        if len(ids) < MIN_POSTINGS:
            continue
        blob = array("i", ids).tobytes() + array("f", weights).tobytes()
        entries.append((term.decode("utf-8"), len(ids), offset))
        blobs.append(blob)
        offset += len(blob)
    header = marshal.dumps(entries)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as fh:
        fh.write(MAGIC + len(header).to_bytes(8, "little") + header)
        fh.writelines(blobs)
    os.replace(tmp, path)


class PostingsFile:
    """Reads the lists ``write_postings`` wrote; ``get`` is None for a term it does not hold."""

    def __init__(self, path: Path) -> None:
        self.path = path
        with open(path, "rb") as fh:
            if fh.read(len(MAGIC)) != MAGIC:
                raise ValueError(f"{path.name}: not a postings file of this machine")
            size = int.from_bytes(fh.read(8), "little")
            raw = fh.read(size)
        if len(raw) != size:
            raise ValueError(f"{path.name}: truncated header")
        entries = marshal.loads(raw)
        self._base = len(MAGIC) + 8 + size
        self._terms: dict[str, tuple[int, int]] = {term: (count, offset) for term, count, offset in entries}

    def __len__(self) -> int:
        return len(self._terms)

    def get(self, term: str) -> tuple[array[int], array[float]] | None:
        found = self._terms.get(term)
        if found is None:
            return None
        count, offset = found
        try:
            fd = os.open(self.path, os.O_RDONLY)
            try:
                data = os.pread(fd, count * 8, self._base + offset)
            finally:
                os.close(fd)
        except OSError:
            return None
        if len(data) != count * 8:  # damaged or truncated: Whoosh's own lists are the truth
            return None
        ids: array[int] = array("i")
        ids.frombytes(data[:count * 4])
        weights: array[float] = array("f")
        weights.frombytes(data[count * 4:])
        return ids, weights


def open_postings(path: Path) -> PostingsFile | None:
    """The postings file at ``path``, or None when there is none or it cannot be read."""
    try:
        return PostingsFile(path)
    except (OSError, ValueError, EOFError, TypeError):
        return None
