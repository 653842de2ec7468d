#!/usr/bin/env bash
# Record each turn of an agent conversation in a ctxnotes session and print the packed context for the
# next model call. Wire it into your agent client's hooks:
#
#   agent_hook_recipe.sh user SESSION_ID       < prompt.txt   # record the user's turn, print the context for it
#   agent_hook_recipe.sh assistant SESSION_ID  < reply.txt    # record the model's reply
#   agent_hook_recipe.sh tool SESSION_ID NAME  < output.txt   # record a tool result
#   agent_hook_recipe.sh prompt-hook           < event.json   # {"session_id": ..., "prompt": ...} on stdin
#                                                             # (the shape of Claude Code's UserPromptSubmit hook)
#
# Environment: CTXNOTES (the command, default `ctxnotes`), CTXNOTES_WORKSPACE (the workspace folder),
# CTXNOTES_HOOK_MAX_TOKENS (context budget, default 2000).
# Every append is durable before the command returns; a failed append exits non-zero with a one-line reason.
set -euo pipefail

CTXNOTES=${CTXNOTES:-ctxnotes}
MAX_TOKENS=${CTXNOTES_HOOK_MAX_TOKENS:-2000}

die() { echo "agent_hook_recipe: $*" >&2; exit 2; }

now() { date -u +%Y-%m-%dT%H:%M:%SZ; }

record() {  # record ROLE SESSION_ID [NAME] ; content on stdin
  local role=$1 sid=$2 name=${3:-}
  if [[ -n $name ]]; then
    $CTXNOTES session append "$sid" --role "$role" --name "$name" --timestamp "$(now)" --content - >/dev/null
  else
    $CTXNOTES session append "$sid" --role "$role" --timestamp "$(now)" --content - >/dev/null
  fi
}

context_for() {  # context_for SESSION_ID QUERY : the packed context on stdout
  local sid=$1 query=$2
  if $CTXNOTES context --help 2>/dev/null | grep -q -- '--session'; then
    $CTXNOTES context --session "$sid" --max-tokens "$MAX_TOKENS" "$query"
  else  # older ctxnotes: pass the stored session as the history file (the same turns, the same packing)
    local hist
    hist=$(mktemp)
    trap 'rm -f "$hist"' RETURN
    $CTXNOTES session history "$sid" >"$hist"
    $CTXNOTES context --history "$hist" --max-tokens "$MAX_TOKENS" "$query"
  fi
}

mode=${1:-}
case $mode in
  user)
    [[ $# -ge 2 ]] || die "usage: $0 user SESSION_ID < prompt"
    prompt=$(cat)
    [[ -n ${prompt//[[:space:]]/} ]] || die "empty prompt on stdin"
    printf '%s' "$prompt" | record user "$2"
    context_for "$2" "$prompt"
    ;;
  assistant)
    [[ $# -ge 2 ]] || die "usage: $0 assistant SESSION_ID < reply"
    record assistant "$2"
    ;;
  tool)
    [[ $# -ge 3 ]] || die "usage: $0 tool SESSION_ID TOOL_NAME < output"
    record tool "$2" "$3"
    ;;
  prompt-hook)
    event=$(cat)
    fields=$(printf '%s' "$event" | python3 -c '
import json, sys
e = json.load(sys.stdin)
sid, prompt = e.get("session_id"), e.get("prompt")
if not isinstance(sid, str) or not isinstance(prompt, str) or not prompt.strip():
    sys.exit("the event needs string fields session_id and prompt")
print(sid)
sys.stdout.write(prompt)') || die "could not read the hook event (JSON with session_id and prompt)"
    sid=${fields%%$'\n'*}
    prompt=${fields#*$'\n'}
    printf '%s' "$prompt" | record user "$sid"
    context_for "$sid" "$prompt"
    ;;
  *)
    die "usage: $0 user|assistant|tool|prompt-hook ... (see the comments at the top)"
    ;;
esac
