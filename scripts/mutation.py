"""Hand-picked mutation pass (issue 12): break one guarantee at a time and check a test notices.

    .venv/bin/python scripts/mutation.py                 # every mutation, in a fresh copy at /tmp/mut
    .venv/bin/python scripts/mutation.py --only fsio     # names containing "fsio"
    .venv/bin/python scripts/mutation.py --list

The repository is exported with ``git archive HEAD`` into ``--copy`` (never the checkout itself); each
mutation replaces one exact snippet (which must occur exactly once), runs the tests that guard that code
(``pytest -x``, with a timeout), and restores the file. A mutation is "killed" when the tests fail,
"survived" when they pass. Prints one line per mutation and a summary; exits 1 if any survived.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PYTHON = REPO / ".venv" / "bin" / "python"


@dataclass(frozen=True)
class Mutation:
    name: str
    path: str
    old: str
    new: str
    tests: tuple[str, ...]


FSIO_TESTS = ("tests/test_guarantees_durability.py", "tests/test_guarantees_lock.py",
              "tests/test_reliability_store.py", "tests/test_notes_store.py")
HOST_TESTS = ("tests/test_security.py::test_host_and_origin_rules",
              "tests/test_security.py::test_wildcard_bind_checks_host_and_origin",
              "tests/test_security.py::test_http_token_default_loopback_and_foreign_host_origin",
              "tests/test_server_transports.py::test_http_without_token_roundtrip_and_dns_rebinding")
TOKEN_TESTS = ("tests/test_security.py::test_http_token_default_loopback_and_foreign_host_origin",
               "tests/test_security.py::test_http_token_flag_through_the_cli",
               "tests/test_http_limits.py::test_unauthenticated_and_foreign_requests_refused_before_the_body",
               "tests/test_server_transports.py::test_http_with_token")
LIMIT_TESTS = ("tests/test_http_limits.py",)
BUDGET_TESTS = ("tests/test_context_build.py", "tests/test_context_properties.py")
MEMORY_TESTS = ("tests/test_memory.py",)

FS, HS, CS = "notes_store/fsio.py", "server/http_security.py", "server/cli_serve.py"
MUTATIONS = [
    # -- notes_store/fsio.py: durable writes and the workspace lock
    Mutation("fsio: fsync_dir is a no-op", FS,
             '    """Make a rename or unlink in ``folder`` survive a power cut."""\n',
             '    """Make a rename or unlink in ``folder`` survive a power cut."""\n    return\n', FSIO_TESTS),
    Mutation("fsio: no fsync of the new file's bytes", FS,
             "                view = view[written:]\n            os.fsync(fd)\n",
             "                view = view[written:]\n", FSIO_TESTS),
    Mutation("fsio: folder fsync before the rename", FS,
             "        os.replace(tmp, path)\n        fsync_dir(folder)\n",
             "        fsync_dir(folder)\n        os.replace(tmp, path)\n", FSIO_TESTS),
    Mutation("fsio: unlink not made durable", FS,
             "        os.unlink(path)\n        fsync_dir(path.parent)\n",
             "        os.unlink(path)\n", FSIO_TESTS),
    Mutation("fsio: temp file left behind on a failed write", FS,
             "        with contextlib.suppress(OSError):\n            os.unlink(tmp)\n",
             "        pass\n", FSIO_TESTS),
    Mutation("fsio: no flock", FS,
             "                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)\n",
             "                pass\n", FSIO_TESTS),
    Mutation("fsio: crash leftovers (temp files) never removed", FS,
             "        if entry.name.startswith(TEMP_PREFIX):\n",
             "        if False:\n", FSIO_TESTS),
    # -- server/http_security.py: Host/Origin, token, body budget
    Mutation("http: any Host name accepted", HS,
             '    return host == "localhost" or _is_ip_literal(host) or host in allowed\n',
             "    return True\n", HOST_TESTS),
    Mutation("http: --allowed-host names ignored", HS,
             '    return host == "localhost" or _is_ip_literal(host) or host in allowed\n',
             '    return host == "localhost" or _is_ip_literal(host)\n', HOST_TESTS),
    Mutation("http: Host with a port suffix not checked", HS,
             "    host, sep, port = value.partition(\":\")\n",
             "    host, sep, port = value.partition(\":\")\n    return host.lower() if sep else (host.lower() or None)\n",
             HOST_TESTS),
    Mutation("http: Origin never checked", HS,
             "    if value is None:\n        return True\n    try:\n        parts = urlsplit(value.strip())\n",
             "    return True\n    try:\n        parts = urlsplit(value.strip())\n", HOST_TESTS),
    Mutation("http: Origin scheme not checked", HS,
             'if parts.scheme not in ("http", "https") or ', "if ", HOST_TESTS),
    Mutation("http: --allowed-host not lower-cased", HS,
             "        name = raw.strip().lower()\n", "        name = raw.strip()\n", HOST_TESTS),
    Mutation("http: Host/Origin middleware not applied", HS,
             "    return HostOriginMiddleware(wrapped, allowed_hosts)\n", "    return wrapped\n", HOST_TESTS),
    Mutation("http: token ignored", HS,
             "    if token:\n        wrapped = BearerTokenMiddleware(wrapped, token)\n", "", TOKEN_TESTS),
    Mutation("http: token prefix accepted", HS,
             "        if given and hmac.compare_digest(given, self._expected):\n",
             "        if given and self._expected.startswith(given[:12]):\n", TOKEN_TESTS),
    Mutation("http: token checked after reading the body", HS,
             "    wrapped: ASGIApp = BodyBudgetMiddleware(app, limits or HttpLimits())\n    if token:\n"
             "        wrapped = BearerTokenMiddleware(wrapped, token)\n",
             "    wrapped: ASGIApp = app\n    if token:\n        wrapped = BearerTokenMiddleware(wrapped, token)\n"
             "    wrapped = BodyBudgetMiddleware(wrapped, limits or HttpLimits())\n", TOKEN_TESTS),
    Mutation("http: declared length not checked against the cap", HS,
             "        if declared > limits.max_body_bytes:\n", "        if False:\n", LIMIT_TESTS),
    Mutation("http: declared length off by one", HS,
             "        if declared > limits.max_body_bytes:\n", "        if declared > limits.max_body_bytes + 1:\n",
             LIMIT_TESTS),
    Mutation("http: received bytes not checked against the cap", HS,
             "                    if size > limits.max_body_bytes:\n", "                    if False:\n", LIMIT_TESTS),
    Mutation("http: declared length not reserved from the budget", HS,
             "        reserved = declared\n        self.buffered += reserved\n",
             "        reserved = 0\n", LIMIT_TESTS),
    Mutation("http: no body deadline", HS,
             "            with anyio.move_on_after(limits.body_timeout) as deadline:\n",
             "            with anyio.move_on_after(None) as deadline:\n", LIMIT_TESTS),
    Mutation("http: budget never released", HS,
             "        finally:\n            self.buffered -= reserved\n", "        finally:\n            pass\n",
             LIMIT_TESTS),
    Mutation("http: open-connection cap not applied", HS,
             "            if len(self.connections) > limits.max_open_connections:\n",
             "            if False:\n", LIMIT_TESTS),
    Mutation("http: silent connections never closed", HS,
             "            if self.cycle is None and not self.transport.is_closing():  # no request head yet\n",
             "            if False:\n", LIMIT_TESTS),
    # -- server/cli_serve.py: the flags reach the server
    Mutation("serve: no connection cap", CS,
             "limit_concurrency=limits.max_connections + 1,", "limit_concurrency=None,", LIMIT_TESTS),
    Mutation("serve: SSE responses by default", CS,
             "json_response=options.json_response,", "json_response=False,", LIMIT_TESTS),
    Mutation("serve: --max-sessions ignored", CS,
             "max_sessions=limits.max_sessions,", "max_sessions=10_000,", LIMIT_TESTS),
    Mutation("serve: --stateless ignored", CS,
             "stateless_http=options.stateless,", "stateless_http=False,", LIMIT_TESTS),
    Mutation("serve: --git-autocommit dropped", CS,
             '    git_autocommit = getattr(args, "git_autocommit", None)\n', "    git_autocommit = None\n",
             ("tests/test_security.py::test_serve_git_autocommit_flag_through_the_cli",)),
    Mutation("serve: --token flag ignored", CS,
             '        token = args.token or os.environ.get("CTXNOTES_TOKEN") or None\n',
             '        token = os.environ.get("CTXNOTES_TOKEN") or None\n',
             ("tests/test_security.py::test_http_token_flag_through_the_cli",)),
    Mutation("serve: --allowed-host dropped", CS,
             "allowed_hosts=tuple(args.allowed_host),", "allowed_hosts=(),",
             ("tests/test_security.py::test_wildcard_bind_checks_host_and_origin",)),
    # -- notes_store/analysis.py: Chinese words inside sentences
    Mutation("analysis: CJK indexed as single characters (no bigrams)", "notes_store/analysis.py",
             "if i + 1 < n:", "if False:",
             ("tests/test_guarantees_text.py",)),
    Mutation("analysis: CJK queries split into single characters", "notes_store/analysis.py",
             "if not query or n == 1:", "if True:",
             ("tests/test_guarantees_text.py",)),
    # -- context/builder.py: the exact-count budget check
    Mutation("budget: final loop tolerates 50 tokens over", "context/builder.py",
             "    while tokens > budget:\n", "    while tokens > budget + 50:\n", BUDGET_TESTS),
    Mutation("budget: top-up accepts 50 tokens over", "context/builder.py",
             "        if trial <= budget:\n", "        if trial <= budget + 50:\n", BUDGET_TESTS),
    Mutation("budget: reserve ratio ignored", "context/builder.py",
             "    budget = math.floor(max_tokens * (1 - reserve_ratio))\n", "    budget = max_tokens\n", BUDGET_TESTS),
    # -- notes_store/memory.py: working-memory expiry
    Mutation("memory: nothing ever expires", "notes_store/memory.py",
             '        return bool(row["memory_type"] == "working" and self._expires_ts(row) <= now)\n',
             "        return False\n", MEMORY_TESTS),
    Mutation("memory: expiry boundary (< instead of <=)", "notes_store/memory.py",
             '        return bool(row["memory_type"] == "working" and self._expires_ts(row) <= now)\n',
             '        return bool(row["memory_type"] == "working" and self._expires_ts(row) < now)\n', MEMORY_TESTS),
    Mutation("memory: a minute of grace after expiry", "notes_store/memory.py",
             '        return bool(row["memory_type"] == "working" and self._expires_ts(row) <= now)\n',
             '        return bool(row["memory_type"] == "working" and self._expires_ts(row) + 60 <= now)\n',
             MEMORY_TESTS),
    Mutation("memory: every type expires", "notes_store/memory.py",
             '        return bool(row["memory_type"] == "working" and self._expires_ts(row) <= now)\n',
             "        return bool(self._expires_ts(row) <= now)\n", MEMORY_TESTS),
]


def export_copy(dest: Path) -> None:
    """A fresh copy of HEAD plus the working tree's versions of the mutated files' tests (none: HEAD only)."""
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(REPO), "archive", "HEAD"], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)


def run(m: Mutation, copy: Path, timeout: float) -> tuple[str, float, str]:
    target = copy / m.path
    original = target.read_text(encoding="utf-8")
    count = original.count(m.old)
    if count != 1:
        return "not-applied", 0.0, f"snippet found {count} times"
    target.write_text(original.replace(m.old, m.new), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("CTXNOTES_")}
    started = time.monotonic()
    try:
        proc = subprocess.run([str(PYTHON), "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *m.tests],
                              cwd=copy, capture_output=True, text=True, timeout=timeout, env=env)
        outcome = "survived" if proc.returncode == 0 else "killed"
        lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("FAILED") or ln.startswith("ERROR")]
        detail = lines[0] if lines else proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
    except subprocess.TimeoutExpired:
        outcome, detail = "killed", f"tests did not finish within {timeout:g} s (hang counts as detected)"
    finally:
        target.write_text(original, encoding="utf-8")
    return outcome, time.monotonic() - started, detail


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--copy", type=Path, default=Path("/tmp/mut"), help="where to export the copy (default /tmp/mut)")
    ap.add_argument("--only", default="", help="run the mutations whose name contains this text")
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds per mutation's tests (default 900)")
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args(argv)
    chosen = [m for m in MUTATIONS if args.only in m.name]
    if args.list:
        for m in chosen:
            print(f"{m.name}  [{m.path}]  -> {' '.join(m.tests)}")
        return 0
    if args.copy.resolve() == REPO.resolve():
        raise SystemExit("refusing to mutate the checkout itself: give --copy a scratch folder")
    export_copy(args.copy)
    results = []
    for m in chosen:
        outcome, seconds, detail = run(m, args.copy, args.timeout)
        results.append((m, outcome))
        print(f"{outcome:11s} {seconds:6.1f} s  {m.name}  |  {detail[:160]}", flush=True)
    survived = [m.name for m, o in results if o != "killed"]
    print(f"\n{len(results) - len(survived)} of {len(results)} mutations killed; "
          f"survivors: {survived or 'none'}; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 1 if survived else 0


if __name__ == "__main__":
    sys.exit(main())
