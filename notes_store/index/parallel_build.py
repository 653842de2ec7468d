"""Build a fresh Whoosh index in child processes: the build's CPU spread over cores, its memory never the server's.

``build_parallel`` starts ``workers`` children (``python -m notes_store.index.parallel_build FOLDER``), deals the
documents out to them in chunks over their stdin (pickled), and each child writes one segment into a
folder of its own. The segments are then moved into the index folder and listed in one table of
contents: a combine without a merge (no document is read twice). A child writes its segment with
``segment_writer.FastAdder`` (Whoosh's files, without Whoosh's per-posting work); its memory (every
posting list of its half) goes back to the system when it exits, so a server that rebuilt its index
stays near its steady size.

Protocol: the parent writes pickled lists of document dicts (``whoosh_backend._doc``) and closes stdin;
the child commits and exits 0. Anything else (a traceback on its stderr, a non-zero exit) is a failed
build, reported with the child's last words.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import pickle
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

class BuildUnavailable(OSError):
    """No child process could be started (no interpreter to run, process limit): build in process instead."""


CHUNK = 250        # documents per message to a child: big enough to amortise pickling, small enough to balance
PIPE_BYTES = 1 << 20  # a child's stdin pipe: the parent parses on while a child works through a chunk


class _Child:
    """One build process and the folder it writes its segment to."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.log: IO[bytes] = tempfile.TemporaryFile()
        package_root = str(Path(__file__).resolve().parent.parent)
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH", "")) if p)
        self.proc = subprocess.Popen([sys.executable, "-m", "notes_store.index.parallel_build", str(folder)],
                                     stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=self.log,
                                     env=env, close_fds=True)
        assert self.proc.stdin is not None
        with contextlib.suppress(OSError, AttributeError):  # Linux: room for a few chunks in the pipe
            fcntl.fcntl(self.proc.stdin.fileno(), fcntl.F_SETPIPE_SZ, PIPE_BYTES)
        self.sent = 0

    def send(self, docs: list[dict[str, Any]]) -> None:
        assert self.proc.stdin is not None
        try:
            pickle.dump(docs, self.proc.stdin, protocol=pickle.HIGHEST_PROTOCOL)
        except BrokenPipeError:
            self.proc.wait()
            raise OSError(f"an index build process stopped early: {self.last_words()}") from None
        self.sent += len(docs)

    def end_input(self) -> None:
        """No more documents: the child commits its segment (while the others commit theirs)."""
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.close()
        except BrokenPipeError:
            pass

    def finish(self) -> None:
        self.end_input()
        if self.proc.wait() != 0:
            raise OSError(f"an index build process failed (exit {self.proc.returncode}): {self.last_words()}")

    def last_words(self) -> str:
        self.log.seek(0)
        text = self.log.read().decode("utf-8", "replace").strip().splitlines()
        return " | ".join(text[-3:]) or "no message"

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def close(self) -> None:
        self.log.close()
        shutil.rmtree(self.folder, ignore_errors=True)


def build_parallel(folder: Path, index_name: str, schema: Any, docs: Iterable[dict[str, Any]],
                   workers: int) -> int:
    """Index ``docs`` with ``workers`` child processes into the (empty, created) index in ``folder``.

    Returns the number of documents. Raises ``BuildUnavailable`` (before reading any of ``docs``) when
    no child can be started, ``OSError`` when one fails.
    """
    from whoosh.filedb.filestore import FileStorage
    from whoosh.index import TOC

    children: list[_Child] = []
    count = 0
    try:
        for i in range(max(1, workers)):
            build_dir = folder / f".build-{i}"  # dot names: Whoosh's file cleaning leaves them alone
            shutil.rmtree(build_dir, ignore_errors=True)
            try:
                children.append(_Child(build_dir))
            except OSError as exc:  # nothing has been read from ``docs`` yet
                raise BuildUnavailable(f"cannot start an index build process: {exc}") from exc
        turn = 0
        for chunk in _chunks(docs, CHUNK):
            # Round-robin: a pipe write blocks only once that child's pipe is full (a few chunks behind),
            # so the parent (which parses the files) rarely waits and never runs far ahead.
            children[turn % len(children)].send(chunk)
            turn += 1
            count += len(chunk)
        for child in children:  # every child commits at once: each holds half the postings
            child.end_input()
        for child in children:
            child.finish()
        segments = []
        storage = FileStorage(str(folder), supports_mmap=False)
        for child in children:
            if not child.sent:
                continue
            sub = FileStorage(str(child.folder), supports_mmap=False)
            toc = TOC.read(sub, index_name)
            for segment in toc.segments:
                for name in os.listdir(child.folder):
                    if name.startswith(segment.segment_id() + "."):
                        os.replace(child.folder / name, folder / name)
                segments.append(segment)
        latest = TOC._latest_generation(storage, index_name)
        TOC(schema, segments, latest + 1).write(storage, index_name)
        return count
    finally:
        for child in children:
            child.kill()
            child.close()


def _chunks(docs: Iterable[dict[str, Any]], size: int) -> Iterator[list[dict[str, Any]]]:
    chunk: list[dict[str, Any]] = []
    for doc in docs:
        chunk.append(doc)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _child_main(folder: str) -> int:
    """In the child: read chunks from stdin until EOF, add them to one writer, commit one segment,
    and beside it the segment's long posting lists in ``postings_file``'s format."""
    from whoosh.filedb.filestore import FileStorage
    from whoosh.index import TOC

    from .postings_file import write_postings, postings_path
    from .segment_writer import FastAdder
    from .schema import INDEX_NAME, schema

    path = Path(folder)
    path.mkdir(parents=True, exist_ok=True)
    storage = FileStorage(folder, supports_mmap=False)
    ix = storage.create_index(schema(), indexname=INDEX_NAME)
    writer = ix.writer()
    adder = FastAdder(writer)  # Whoosh's own segment, without its per-posting pool and lookups
    add = adder.add
    stdin = sys.stdin.buffer
    try:
        while True:
            try:
                chunk = pickle.load(stdin)
            except EOFError:
                break
            for doc in chunk:
                add(doc)
    except BaseException:
        writer.cancel()
        raise
    writer.commit(merge=False)
    ix.close()
    for segment in TOC.read(storage, INDEX_NAME).segments:
        write_postings(postings_path(path, segment.segment_id()), adder.text_lists())
    return 0


if __name__ == "__main__":
    sys.exit(_child_main(sys.argv[1]))
