"""One settings object: explicit flag > environment variable > ``<workspace>/.ctxnotes.yaml`` > default.

Every knob ctxnotes reads from outside the code is listed in ``FIELDS`` with the sources it may come
from, and ``load_settings`` is the one place meant to read ``os.environ`` or ``.ctxnotes.yaml`` for
them (``open_workspace`` resolves its options here). Secrets
(the HTTP token) and the workspace location are never taken from ``.ctxnotes.yaml``: that file lives
in the workspace and may come from someone else's repository.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


from .errors import InvalidInput, StorageError

log = logging.getLogger("ctxnotes.settings")

CONFIG_FILE = ".ctxnotes.yaml"
MAX_CONFIG_BYTES = 64 * 1024
DEFAULT_MAX_CONTENT_BYTES = 1 << 20
DEFAULT_RESCAN_INTERVAL = 2.0


def parse_bool(value: Any) -> bool | None:
    """``1/true/yes/on`` -> True, ``0/false/no/off/""`` -> False, anything else -> None."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off", ""):
        return False
    return None


def env_bytes(name: str, default: int) -> int:
    """A positive number of bytes from environment variable ``name`` (unset or blank: ``default``); the
    workspace's own read of ``CTXNOTES_MAX_CONTENT_BYTES`` when no setting was passed."""
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    try:
        number = int(value)
        if number <= 0:
            raise ValueError
    except ValueError:
        raise StorageError(f"{name}={value!r} must be a positive whole number of bytes") from None
    return number


def _to_bool(value: Any, name: str) -> bool:
    parsed = parse_bool(value)
    if parsed is None:
        raise InvalidInput(f"{name}={value!r} must be one of 1/true/yes/on or 0/false/no/off")
    return parsed


def _to_positive_int(value: Any, name: str) -> int:
    try:
        number = int(str(value).strip()) if not isinstance(value, bool) else -1
    except ValueError:
        number = -1
    if number <= 0:
        raise InvalidInput(f"{name}={value!r} must be a positive whole number")
    return number


def _to_seconds(value: Any, name: str) -> float:
    """Seconds >= 0 (0: rescan before every read)."""
    try:
        number = float(str(value).strip()) if not isinstance(value, bool) else -1.0
    except ValueError:
        number = -1.0
    if not 0 <= number < float("inf"):
        raise InvalidInput(f"{name}={value!r} must be a number of seconds >= 0")
    return number


def _to_text(value: Any, name: str) -> str | None:
    text = str(value).strip()
    return text or None


@dataclass(frozen=True)
class Field:
    """One setting: its environment variable, its ``.ctxnotes.yaml`` key (None: not allowed there)."""

    env: str | None
    config_key: str | None
    default: Any
    convert: Callable[[Any, str], Any]


FIELDS: dict[str, Field] = {
    "workspace": Field("CTXNOTES_WORKSPACE", None, None, _to_text),
    "max_content_bytes": Field("CTXNOTES_MAX_CONTENT_BYTES", "max_content_bytes", DEFAULT_MAX_CONTENT_BYTES,
                               _to_positive_int),
    "git_autocommit": Field("CTXNOTES_GIT_AUTOCOMMIT", "git_autocommit", False, _to_bool),
    "inotify": Field(None, None, True, _to_bool),  # off with CTXNOTES_NO_INOTIFY=1 (see load_settings)
    "rescan_interval": Field(None, "rescan_interval", DEFAULT_RESCAN_INTERVAL, _to_seconds),
    "token": Field("CTXNOTES_TOKEN", None, None, _to_text),
}
NO_INOTIFY_ENV = "CTXNOTES_NO_INOTIFY"


@dataclass(frozen=True)
class Settings:
    """Resolved settings, and where each value came from (``flag``, ``environment``, ``.ctxnotes.yaml``,
    ``default``) for ``doctor`` and error messages."""

    workspace: str | None = None
    max_content_bytes: int = DEFAULT_MAX_CONTENT_BYTES
    git_autocommit: bool = False
    inotify: bool = True
    rescan_interval: float = DEFAULT_RESCAN_INTERVAL
    token: str | None = field(default=None, repr=False)
    sources: Mapping[str, str] = field(default_factory=dict)

    @property
    def max_file_bytes(self) -> int:
        """The one size limit on a note or memory file read from disk (content plus front matter)."""
        return max_file_bytes(self.max_content_bytes)

    def to_dict(self) -> dict[str, Any]:
        """The settings for display; the token is never shown, only whether one is set."""
        return {"workspace": self.workspace, "max_content_bytes": self.max_content_bytes,
                "git_autocommit": self.git_autocommit, "inotify": self.inotify,
                "rescan_interval": self.rescan_interval, "token_set": self.token is not None,
                "sources": dict(self.sources)}


def max_file_bytes(max_content_bytes: int) -> int:
    """Files may hold up to twice the content limit: room for front matter and the title line."""
    return 2 * max_content_bytes


def read_config(root: str | os.PathLike[str]) -> dict[str, Any]:
    """``<workspace>/.ctxnotes.yaml`` as a dict ({} when missing; a warning is logged when unreadable).

    Read like any workspace file (regular files only, bounded), and with the same front-matter bounds
    (no anchors or aliases).
    """
    from .files.front_matter import BadFile, parse_document  # late: document imports nothing from here
    from .files.safe_read import read_regular_file

    path = Path(root) / CONFIG_FILE
    try:
        raw, _st = read_regular_file(path, MAX_CONFIG_BYTES)
        # The front-matter reader gives .ctxnotes.yaml the same bounds (no anchors, depth, size).
        data = parse_document(b"---\n" + raw.replace(b"\r\n", b"\n").rstrip(b"\n") + b"\n---\n").meta
    except FileNotFoundError:
        return {}
    except (OSError, BadFile) as exc:
        log.warning("ignoring %s: %s", path, exc)
        return {}
    return data


def load_settings(root: str | os.PathLike[str] | None = None, *, environ: Mapping[str, str] | None = None,
                  **flags: Any) -> Settings:
    """Resolve every setting: a flag given here (not None) > environment > ``.ctxnotes.yaml`` in ``root``
    > default. Raises ``InvalidInput`` naming the variable or key when a value is malformed."""
    unknown = set(flags) - set(FIELDS)
    if unknown:
        raise InvalidInput(f"unknown setting(s): {', '.join(sorted(unknown))}; known: {', '.join(FIELDS)}")
    env = os.environ if environ is None else environ
    config = read_config(root) if root is not None else {}
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for name, spec in FIELDS.items():
        if flags.get(name) is not None:
            values[name], sources[name] = spec.convert(flags[name], name), "flag"
        elif name == "inotify" and env.get(NO_INOTIFY_ENV, "").strip():
            # Any value but an explicit false turns inotify off (as it always has).
            values[name], sources[name] = parse_bool(env[NO_INOTIFY_ENV]) is False, "environment"
        elif spec.env is not None and env.get(spec.env, "").strip():
            values[name], sources[name] = spec.convert(env[spec.env], spec.env), "environment"
        elif spec.config_key is not None and config.get(spec.config_key) is not None:
            where = f"{CONFIG_FILE} key {spec.config_key}"
            values[name], sources[name] = spec.convert(config[spec.config_key], where), CONFIG_FILE
        else:
            values[name], sources[name] = spec.default, "default"
    return Settings(**values, sources=sources)
