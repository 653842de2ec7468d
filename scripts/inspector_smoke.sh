#!/usr/bin/env bash
# Drive `ctxnotes serve` (stdio) with the MCP Inspector CLI: tools/list, then one call of each note tool.
# Usage: scripts/inspector_smoke.sh            (NPM_PREFIX=/tmp/ctxnotes-npm by default)
set -u
HERE="$(cd "$(dirname "$0")/.." && pwd)"
NPM_PREFIX="${NPM_PREFIX:-/tmp/ctxnotes-npm}"
INSPECTOR_VERSION="2.12.0"
PY="${PYTHON:-$HERE/.venv/bin/python}"
[ -x "$PY" ] || PY="$(command -v python3)"
WS="$(mktemp -d /tmp/ctxnotes-inspector.XXXXXX)"
trap 'rm -rf "$WS"' EXIT
FAILS=0

if [ ! -d "$NPM_PREFIX/node_modules/@modelcontextprotocol/inspector" ]; then
  echo "installing @modelcontextprotocol/inspector@$INSPECTOR_VERSION into $NPM_PREFIX" >&2
  mkdir -p "$NPM_PREFIX"
  npm install --prefix "$NPM_PREFIX" --no-audit --no-fund "@modelcontextprotocol/inspector@$INSPECTOR_VERSION" >&2 \
    || { echo "FAIL install inspector"; exit 1; }
fi

inspect() {  # inspect ARGS... : run the Inspector CLI against a fresh stdio server; prints its JSON output
  (cd "$NPM_PREFIX" && npx --no-install @modelcontextprotocol/inspector --cli \
     "$PY" -m server.cli serve --workspace "$WS" "$@" 2>/dev/null)
}

step() {  # step NAME CHECK_PYTHON_EXPR ARGS... : run, then check the JSON output with a Python expression on `r`
  local name="$1" check="$2"; shift 2
  local out rc
  out="$(cd "$HERE" && inspect "$@")"; rc=$?
  if [ $rc -eq 0 ] && printf '%s' "$out" | "$PY" -c "import json,sys; r=json.load(sys.stdin); sys.exit(0 if ($check) else 1)" 2>/dev/null; then
    echo "PASS $name"
  else
    echo "FAIL $name (exit $rc): $(printf '%s' "$out" | head -c 400)"
    FAILS=$((FAILS + 1))
  fi
  LAST="$out"
}

field() { printf '%s' "$LAST" | "$PY" -c "import json,sys; print(json.load(sys.stdin)['structuredContent']['$1'])"; }

step "tools/list" "{'note_create','note_read','note_update','note_delete','note_search','note_list','note_summary'} <= {t['name'] for t in r['tools']}" \
  --method tools/list
step "note_create" "r['structuredContent']['title'] == 'Inspector smoke' and not r.get('isError')" \
  --method tools/call --tool-name note_create --tool-args-json '{"title":"Inspector smoke","content":"checked by the MCP Inspector CLI zebra","note_type":"conclusion","tags":["smoke"]}'
ID="$(field id 2>/dev/null || echo missing)"
step "note_read" "r['structuredContent']['id'] == '$ID' and 'zebra' in r['structuredContent']['content']" \
  --method tools/call --tool-name note_read --tool-arg "note_id=$ID"
step "note_update" "r['structuredContent']['type'] == 'blocker'" \
  --method tools/call --tool-name note_update --tool-args-json "{\"note_id\":\"$ID\",\"note_type\":\"blocker\"}"
step "note_search" "r['structuredContent']['hits'][0]['id'] == '$ID'" \
  --method tools/call --tool-name note_search --tool-arg query=zebra
step "note_list" "r['structuredContent']['total'] == 1" \
  --method tools/call --tool-name note_list --tool-args-json '{"note_type":"blocker","limit":5}'
step "note_summary" "r['structuredContent']['by_type']['blocker'] == 1" \
  --method tools/call --tool-name note_summary
step "note_delete" "r['structuredContent']['deleted'] is True" \
  --method tools/call --tool-name note_delete --tool-arg "note_id=$ID"
# An expected error: the Inspector exits non-zero (5) when a tool returns isError.
out="$(cd "$HERE" && inspect --method tools/call --tool-name note_read --tool-arg "note_id=$ID")"; rc=$?
if [ $rc -ne 0 ] && printf '%s' "$out" | grep -q "no note with id"; then echo "PASS note_read after delete is a tool error"
else echo "FAIL note_read after delete (exit $rc): $(printf '%s' "$out" | head -c 300)"; FAILS=$((FAILS + 1)); fi

if [ $FAILS -eq 0 ]; then echo "inspector smoke: all steps passed"; else echo "inspector smoke: $FAILS step(s) failed"; fi
exit $FAILS
