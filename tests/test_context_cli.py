"""``ctxnotes context`` as the README shows it, as a real subprocess."""

from __future__ import annotations

import json

from helpers import run_cli

HISTORY = [
    {"role": "user", "content": "The backfill keeps failing at about 2k rows a minute.",
     "timestamp": "2026-11-27T10:00:00Z"},
    {"role": "assistant", "content": "That is the API rate limit; I asked infra for a quota increase.",
     "timestamp": "2026-11-27T10:02:00Z"},
]


def test_context_command_as_in_the_readme(tmp_path):
    ws = tmp_path / "ws"
    hist = tmp_path / "history.json"
    hist.write_text(json.dumps(HISTORY), encoding="utf-8")
    run = run_cli(["--workspace", str(ws), "context", "Why is the backfill blocked and what is next?",
                   "--history", str(hist), "--max-tokens", "600"])
    assert run.returncode == 0, run.stderr
    assert "API rate limit" in run.stdout and "[Task]" in run.stdout
    assert "of 480 tokens" in run.stdout  # the report line: budget = 600 * (1 - 0.2)

    run = run_cli(["--workspace", str(ws), "--json", "context", "Why is the backfill blocked?",
                   "--history", str(hist), "--format", "messages"])
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert data["tokens"] <= data["budget"]
    assert data["messages"][-1] == {"role": "user", "content": "Why is the backfill blocked?"}
    assert any("API rate limit" in m["content"] for m in data["messages"])


def test_context_command_bad_input_is_one_line_exit_2(tmp_path):
    hist = tmp_path / "history.json"
    hist.write_text(json.dumps([{"role": "robot", "content": "hi"}]), encoding="utf-8")
    run = run_cli(["--workspace", str(tmp_path / "ws"), "context", "q", "--history", str(hist)])
    assert run.returncode == 2
    assert "role 'robot'" in run.stderr and "Traceback" not in run.stderr
    run = run_cli(["--workspace", str(tmp_path / "ws"), "context", "q", "--history", str(tmp_path / "none.json")])
    assert run.returncode == 2 and "cannot read history file" in run.stderr
