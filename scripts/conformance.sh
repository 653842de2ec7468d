#!/usr/bin/env bash
# Run the MCP conformance suite's server scenarios against `ctxnotes serve --http` on a free port.
# Usage: scripts/conformance.sh [SCENARIO...]   (NPM_PREFIX=/tmp/ctxnotes-npm by default)
set -u
HERE="$(cd "$(dirname "$0")/.." && pwd)"
NPM_PREFIX="${NPM_PREFIX:-/tmp/ctxnotes-npm}"
CONFORMANCE_VERSION="0.1.16"
PY="${PYTHON:-$HERE/.venv/bin/python}"
[ -x "$PY" ] || PY="$(command -v python3)"
SCENARIOS=("$@")
[ ${#SCENARIOS[@]} -gt 0 ] || SCENARIOS=(server-initialize ping tools-list resources-list prompts-list
  dns-rebinding-protection server-sse-multiple-streams resources-subscribe resources-unsubscribe completion-complete)
WS="$(mktemp -d /tmp/ctxnotes-conformance.XXXXXX)"
LOG="$WS.server.log"
SERVER_PID=""
cleanup() { [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null; rm -rf "$WS"; }
trap cleanup EXIT

# Conformance 0.1.16 needs Node 22: the npm package node@22 brings its own binary into node_modules/.bin.
if ! grep -q '"version": "'"$CONFORMANCE_VERSION"'"' "$NPM_PREFIX/node_modules/@modelcontextprotocol/conformance/package.json" 2>/dev/null \
   || [ ! -x "$NPM_PREFIX/node_modules/.bin/node" ]; then
  echo "installing @modelcontextprotocol/conformance@$CONFORMANCE_VERSION into $NPM_PREFIX" >&2
  mkdir -p "$NPM_PREFIX"
  npm install --prefix "$NPM_PREFIX" --no-audit --no-fund node@22 "@modelcontextprotocol/conformance@$CONFORMANCE_VERSION" >&2 \
    || { echo "FAIL install conformance"; exit 1; }
fi

PORT="$("$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
(cd "$HERE" && exec env -u CTXNOTES_TOKEN "$PY" -m server.cli serve --http --host 127.0.0.1 --port "$PORT" --workspace "$WS") \
  >"$LOG" 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 100); do
  "$PY" -c "import socket,sys; socket.create_connection(('127.0.0.1',$PORT),0.2)" 2>/dev/null && break
  kill -0 "$SERVER_PID" 2>/dev/null || { echo "FAIL server did not start:"; cat "$LOG"; exit 1; }
  sleep 0.1
done
URL="http://127.0.0.1:$PORT/mcp"
export PATH="$NPM_PREFIX/node_modules/.bin:$PATH"
echo "node: $(node --version)"
echo "server: $URL (workspace $WS)"

FAILS=0
for S in "${SCENARIOS[@]}"; do
  echo "=== $S"
  if (cd "$NPM_PREFIX" && npx --no-install conformance server --url "$URL" --scenario "$S"); then
    echo "PASS $S"
  else
    echo "FAIL $S"; FAILS=$((FAILS + 1))
  fi
done
echo "conformance: $(( ${#SCENARIOS[@]} - FAILS ))/${#SCENARIOS[@]} scenarios passed"
rm -f "$LOG"
exit $FAILS
