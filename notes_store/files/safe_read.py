"""Reading a workspace file without trusting it: regular files only, never blocking, bounded.

A workspace may come from an untrusted repository: a FIFO named ``x.md`` would block a plain
``open()`` forever, a symbolic link could point anywhere, and a 50 MB file must not be read whole.
Every read of a note, memory or session file goes through ``read_regular_file``.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from .front_matter import BadFile

_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def read_regular_file(path: Path | str, max_bytes: int) -> tuple[bytes, os.stat_result]:
    """Return (bytes, stat) of ``path`` if it is a regular file of at most ``max_bytes`` bytes.

    Raises ``FileNotFoundError`` when it is gone and ``BadFile`` (with the reason, for
    "unreadable files" listings) when it is a link, a FIFO, a device, a folder or too large.
    ``O_NONBLOCK`` makes opening a FIFO return at once; ``fstat`` on the open descriptor
    checks what was actually opened, so a swap between check and open cannot fool it.
    """
    try:
        fd = os.open(path, _FLAGS)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise BadFile("is a symbolic link; links are not followed (copy the file in instead)") from None
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            raise FileNotFoundError(exc.errno, exc.strerror, str(path)) from None
        if exc.errno in (errno.ENXIO, errno.EISDIR):
            raise BadFile("is not a regular file (a socket, device or folder); remove it or rename it "
                          "so it does not end in .md") from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise BadFile("is not a regular file (a FIFO, socket, device or folder); remove it or "
                          "rename it so it does not end in .md")
        if st.st_size > max_bytes:
            raise BadFile(f"file is {st.st_size} bytes, over the limit of {max_bytes} bytes "
                          "(CTXNOTES_MAX_CONTENT_BYTES sets the limit); split it into smaller notes")
        chunks: list[bytes] = []
        remaining = max_bytes + 1  # one byte more tells a file that grew past the limit
        while remaining > 0:
            chunk = os.read(fd, min(remaining, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
        data = b"".join(chunks)
        if len(data) > max_bytes:
            raise BadFile(f"file grew past the limit of {max_bytes} bytes while being read")
        return data, st
    finally:
        os.close(fd)
