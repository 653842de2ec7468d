"""``ctxnotes session ...``, ``ctxnotes stats`` and the agent hook recipe script, run for real."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from notes_store.sessions import SessionStore
from server import cli

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "agent_hook_recipe.sh"
MODULE = "server.cli.sessions"
# The real `ctxnotes` entry point; the session commands are added when cli.py does not list them yet.
ENTRY = ("import sys, server.cli as c; m = 'server.cli.sessions'\n"
         "c.COMMAND_MODULES = c.COMMAND_MODULES if m in c.COMMAND_MODULES else c.COMMAND_MODULES + (m,)\n"
         "sys.exit(c.main())")


@pytest.fixture
def run(tmp_path, monkeypatch, capsys):
    if MODULE not in cli.COMMAND_MODULES:
        monkeypatch.setattr(cli, "COMMAND_MODULES", cli.COMMAND_MODULES + (MODULE,))
    ws = tmp_path / "ws"

    def call(*argv: str, stdin: str | None = None) -> tuple[int, str, str]:
        if stdin is not None:
            import io
            monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        code = cli.main(["--workspace", str(ws), *argv])
        out, err = capsys.readouterr()
        return code, out, err
    call.ws = ws  # type: ignore[attr-defined]
    return call


def test_append_show_history_list_delete(run):
    assert run("session", "append", "s1", "--role", "user", "--content", "The backfill is slow")[0] == 0
    code, out, _ = run("session", "append", "s1", "--role", "assistant", "--content", "-", "--id", "a1",
                       stdin="It hits the rate limit.\n")
    assert code == 0 and "stored turn a1 in session s1 (2 turns)" in out
    code, out, _ = run("session", "append", "s1", "--role", "assistant", "--content", "It hits the rate limit.\n",
                       "--id", "a1")
    assert code == 0 and "already stored" in out
    code, out, _ = run("session", "show", "s1")
    assert "[turn-0] user: The backfill is slow" in out and "[a1] assistant: It hits the rate limit." in out
    code, out, _ = run("session", "history", "s1")
    assert json.loads(out) == [{"role": "user", "content": "The backfill is slow", "id": "turn-0"},
                               {"role": "assistant", "content": "It hits the rate limit.\n", "id": "a1"}]
    code, out, _ = run("--json", "session", "list")
    assert json.loads(out)["sessions"][0]["turns"] == 2
    assert run("session", "delete", "s1")[0] == 0
    code, _, err = run("session", "delete", "s1")
    assert code == 2 and err.startswith("ctxnotes: error: no session 's1'") and len(err.splitlines()) == 1


@pytest.mark.parametrize("argv, message", [
    (("session", "append", "../x", "--role", "user", "--content", "x"), "not a valid id"),
    (("session", "append", "s", "--role", "user", "--content", "  "), "content is empty"),
    (("session", "append", "s", "--role", "user", "--content", "x", "--timestamp", "noon"), "not ISO 8601"),
    (("session", "show", "nothing"), "no session 'nothing'"),
    (("session", "prune", "--older-than", "someday"), "not valid"),
    (("session", "import", "s", "/does/not/exist.json"), "no such file"),
])
def test_bad_input_is_one_line_and_exit_2(run, argv, message):
    code, _, err = run(*argv)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_import_json_jsonl_and_openai_messages(run, tmp_path):
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps([{"role": "user", "content": "one", "timestamp": "2026-11-30T10:00:00Z"},
                                 {"role": "assistant", "content": "two"}]))
    assert run("session", "import", "a", str(plain))[0] == 0
    lines = tmp_path / "turns.jsonl"
    lines.write_text('{"role": "user", "content": "three"}\n{"role": "assistant", "content": "four"}\n')
    assert run("session", "import", "a", str(lines))[0] == 0
    openai = tmp_path / "messages.json"
    openai.write_text(json.dumps({"messages": [
        {"role": "developer", "content": "Be brief."},
        {"role": "user", "content": [{"type": "text", "text": "What is 6*7?"}, {"type": "image_url", "image_url": {}}]},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "calc", "arguments": "{\"x\": \"6*7\"}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "42"},
        {"role": "assistant", "content": ""},
        {"role": "assistant", "content": "42."}]}))
    code, out, _ = run("session", "import", "a", str(openai))
    assert code == 0 and "imported 5 turn(s)" in out and "1 message(s) without content skipped" in out
    store = SessionStore(run.ws)
    hist = store.turns("a", limit=100).turns
    assert [t["role"] for t in hist] == ["user", "assistant", "user", "assistant", "system", "user", "assistant",
                                         "tool", "assistant"]
    assert hist[0]["timestamp"] == "2026-11-30T10:00:00Z"
    assert hist[5]["content"] == "What is 6*7?\n[image_url]" and "calc" in hist[6]["content"]
    assert hist[7]["tool_call_id"] == "c1"
    # Importing a session file (its own format, with received_at) into another session works too, and a
    # second import of the same file is skipped by id.
    exported = run.ws / "sessions" / "a.jsonl"
    assert run("session", "import", "b", str(exported))[0] == 0
    code, out, _ = run("session", "import", "b", str(exported))
    assert "imported 0 turn(s)" in out and "9 already stored" in out
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"role": "user", "content": "ok"}] * 3 + [{"role": "wizard", "content": "x"}]))
    code, _, err = run("session", "import", "c", str(bad))
    assert code == 2 and "turn 3 of" in err and "wizard" in err


def test_import_in_batches_and_prune(run, tmp_path):
    many = tmp_path / "many.json"
    many.write_text(json.dumps([{"role": "user", "content": f"turn {i}"} for i in range(1234)]))
    code, out, _ = run("session", "import", "big", str(many))
    assert code == 0 and "(1234 turns)" in out
    assert SessionStore(run.ws).version("big") == (1234, "turn-1233")
    old = run.ws / "sessions" / "big.jsonl"
    os.utime(old, (1_000_000_000, 1_000_000_000))
    run("session", "append", "fresh", "--role", "user", "--content", "hi")
    code, out, _ = run("session", "prune", "--older-than", "30d", "--dry-run")
    assert "would delete 1 session(s)" in out and old.exists()
    code, out, _ = run("--json", "session", "prune", "--older-than", "30d")
    assert json.loads(out)["deleted"] == ["big"] and not old.exists()


def test_stats_reads_the_build_log(run):
    from context import build_context
    from server.tools.build_log import record_build
    res = build_context("why?", history=[{"role": "user", "content": "because of the quota"}], max_tokens=200)
    record_build(run.ws, res, 0.02)
    record_build(run.ws, res, 0.04, session_id="s")
    code, out, _ = run("stats")
    assert code == 0 and "2 build(s)" in out and "1 over a stored session" in out and "p95 40.0" in out
    code, out, _ = run("--json", "stats")
    assert json.loads(out)["builds"] == 2


# -- the hook recipe, as a real shell script ---------------------------------------------------------------

def _script_env(tmp_path: Path) -> dict[str, str]:
    shim = tmp_path / "ctxnotes"
    shim.write_text(f"#!/bin/sh\nexec {sys.executable} -c \"{ENTRY}\" \"$@\"\n")
    shim.chmod(0o755)
    return {**os.environ, "CTXNOTES": str(shim), "CTXNOTES_WORKSPACE": str(tmp_path / "ws"),
            "PYTHONPATH": str(ROOT), "CTXNOTES_HOOK_MAX_TOKENS": "800"}


def _hook(env: dict[str, str], *args: str, stdin: str) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(SCRIPT), *args], input=stdin, env=env, cwd=ROOT, capture_output=True,
                          text=True, timeout=120)


def test_the_hook_recipe_records_turns_and_injects_context(tmp_path):
    env = _script_env(tmp_path)
    r = _hook(env, "user", "chat-7", stdin="The nightly backfill keeps failing at about 2k rows a minute.")
    assert r.returncode == 0, r.stderr
    r = _hook(env, "assistant", "chat-7", stdin="That is the API rate limit; I asked infra for a quota increase.")
    assert r.returncode == 0, r.stderr
    r = _hook(env, "tool", "chat-7", "ticket", stdin="INFRA-12 quota increase: approved for Friday")
    assert r.returncode == 0, r.stderr
    r = _hook(env, "user", "chat-7", stdin="When will the backfill quota be raised?")
    assert r.returncode == 0, r.stderr
    # The packed context for the new prompt carries the earlier turns from the stored session.
    assert "rate limit" in r.stdout and "approved for Friday" in r.stdout and "When will the backfill" in r.stdout
    assert "tokens" in r.stdout.splitlines()[-1]
    turns = SessionStore(tmp_path / "ws").turns("chat-7").turns
    assert [t["role"] for t in turns] == ["user", "assistant", "tool", "user"]
    assert turns[2]["name"] == "ticket" and all(t.get("timestamp") for t in turns)

    event = json.dumps({"session_id": "0b9f5c1e-claude", "prompt": "Summarise the backfill problem",
                        "hook_event_name": "UserPromptSubmit"})
    r = _hook(env, "prompt-hook", stdin=event)
    assert r.returncode == 0, r.stderr
    assert "Summarise the backfill problem" in r.stdout
    assert SessionStore(tmp_path / "ws").turns("0b9f5c1e-claude").total == 1

    r = _hook(env, "user", "chat-7", stdin="   ")
    assert r.returncode == 2 and "empty prompt" in r.stderr
    r = _hook(env, "user", "../escape", stdin="hello")
    assert r.returncode != 0 and "not a valid id" in r.stderr
