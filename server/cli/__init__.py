"""The ``ctxnotes`` command line: a thin skin over the libraries, one subcommand per tool.

Each command group lives in its own module (``notes``, ``memory``,
``context``, ...) with a ``register(subparsers)`` function; a command's
handler receives the parsed args and an open workspace and returns
``(data, text)``: ``data`` is printed with ``--json``, ``text`` otherwise.
Expected failures print one line on stderr and exit 2.
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import os
import sys
from pathlib import Path
from typing import Any
from collections.abc import Callable, Sequence

EXIT_USAGE = 2
COMMAND_MODULES = ("server.cli.notes", "server.cli.memory", "server.cli.context", "server.cli.serve", "server.cli.git",
                   "server.cli.sessions")

Handler = Callable[[argparse.Namespace, Any], "tuple[Any, str]"]


class CommandError(Exception):
    """A user-facing CLI failure (bad argument value, unreadable input file, ...)."""


def workspace_path(explicit: str | None) -> Path:
    """--workspace, else $CTXNOTES_WORKSPACE, else ./workspace."""
    return Path(explicit or os.environ.get("CTXNOTES_WORKSPACE") or "workspace")


def open_from_args(args: argparse.Namespace) -> Any:
    from notes_store import open_workspace
    return open_workspace(workspace_path(args.workspace), git_autocommit=getattr(args, "git_autocommit", None))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ctxnotes",
        description="Persistent notes and memory for AI agents, served over MCP, plus a context builder.")
    parser.add_argument("--workspace", "-w", metavar="DIR",
                        help="workspace folder (default: $CTXNOTES_WORKSPACE, else ./workspace)")
    parser.add_argument("--json", action="store_true", help="print results as JSON")
    parser.add_argument("--verbose", "-v", action="store_true", help="log details to stderr")
    parser.add_argument("--git-autocommit", action=argparse.BooleanOptionalAction, default=None,
                        help="commit each note/memory write to Git (default: git_autocommit in "
                             "<workspace>/.ctxnotes.yaml or $CTXNOTES_GIT_AUTOCOMMIT; else off)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def _print_json(data: Any) -> None:
    json.dump(data, sys.stdout, ensure_ascii=False, indent=2, default=str)
    sys.stdout.write("\n")


def _refuse_unknown(parser: argparse.ArgumentParser, args: argparse.Namespace, extras: list[str]) -> None:
    """Exit with a usage error naming each unknown option or argument and, where it is clear, the option
    meant (from the command's own options: ``--limt`` → ``--limit``); nothing is run."""
    import difflib
    command = parser
    while True:  # the (sub)command that was parsed: its options are the ones the caller meant
        sub = next((a for a in command._actions if isinstance(a, argparse._SubParsersAction)), None)
        chosen = getattr(args, sub.dest, None) if sub is not None and sub.dest != argparse.SUPPRESS else None
        if sub is None or chosen not in sub.choices:
            break
        command = sub.choices[chosen]
    options = [o for a in command._actions + parser._actions for o in a.option_strings if o.startswith("--")]
    problems = []
    value_of_unknown = False  # the word after an unknown option is taken as its value, not reported again
    for extra in extras:
        if not extra.startswith("-"):
            if not value_of_unknown:
                problems.append(f"unexpected argument {extra!r}")
            value_of_unknown = False
            continue
        value_of_unknown = "=" not in extra
        name = extra.split("=", 1)[0]
        wanted = "--" + name.lstrip("-").replace("_", "-")
        meant = wanted if wanted in options else next(iter(difflib.get_close_matches(wanted, options, 1, 0.7)), None)
        problems.append(f"unknown option {name!r}" + (f": did you mean {meant!r}?" if meant else ""))
    command.error("; ".join(problems) + f" (see {command.prog} --help)")


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args, extras = parser.parse_known_args(argv)
    if extras:
        _refuse_unknown(parser, args, extras)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, stream=sys.stderr,
                        format="ctxnotes: %(message)s")
    from notes_store.errors import StoreError  # here, not at import: keeps `ctxnotes serve` start-up light

    handler: Handler | None = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        if getattr(args, "no_workspace", False):
            data, text = handler(args, None)
        else:
            ws = open_from_args(args)
            try:
                data, text = handler(args, ws)
                for warning in ws.take_warnings():
                    print(f"ctxnotes: warning: {warning}", file=sys.stderr)
            finally:
                ws.close()
    except (StoreError, CommandError, ValueError) as exc:
        print(f"ctxnotes: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    if data is None and text is None:
        return 0
    try:
        if args.json:
            _print_json(data)
        elif text:
            print(text)
        sys.stdout.flush()
    except BrokenPipeError:  # e.g. `ctxnotes note list | head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


if __name__ == "__main__":
    # Under `python -m server.cli` this file runs as __main__; re-import it so the
    # command modules and this entry point share one CommandError class.
    from server.cli import main as _main

    sys.exit(_main())
