#!/usr/bin/env bash
# `npm start`: builds once (and again when the sources changed), then serves the app on
# HOST:PORT (default 127.0.0.1:3000) with the embedded database under DATA_DIR (./data).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export NEXT_TELEMETRY_DISABLED=1 CHECKPOINT_DISABLE=1
# The app stops gracefully itself on SIGTERM (lib/server/boot.ts); without this, Next exits as
# soon as its connections are closed, before claimed jobs are released.
export NEXT_MANUAL_SIG_HANDLE=true
HOST="${HOST:-127.0.0.1}"
PORT="${PORT:-3000}"
export HOST PORT
# How long an idle keep-alive connection stays open (Node's default is 5 s). Longer than the 60 s
# idle timeout of common load balancers, so they never reuse a connection the server is closing;
# and a browser that opened the assistant usually still has its connection when the question
# comes. A new connection costs more than its handshake on a busy server: Node accepts one new
# connection per event-loop turn, so under load it waits behind other requests' work
# (docs/benchmarks.md, "Chat").
KEEP_ALIVE_TIMEOUT_MS="${KEEP_ALIVE_TIMEOUT_MS:-65000}"
if [[ ! "$KEEP_ALIVE_TIMEOUT_MS" =~ ^[1-9][0-9]{0,6}$ ]]; then
  echo "[start] KEEP_ALIVE_TIMEOUT_MS must be a whole number of milliseconds (1 to 9999999), got '$KEEP_ALIVE_TIMEOUT_MS'" >&2
  exit 1
fi

# Outside a git checkout (a source archive) the stamp cannot see changes: it builds on the first
# start only (run `npm run build` after changing the sources).
stamp=$(git rev-parse HEAD 2>/dev/null || echo unknown)$({ git status --porcelain 2>/dev/null || true; } | sha256sum | cut -c1-12)
# --no-build (`npm run start:server`): serve the existing build as it is.
if [[ "${1:-}" != "--no-build" ]] && [[ ! -f .next/BUILD_ID || "$(cat .next/ka-build-stamp 2>/dev/null)" != "$stamp" ]]; then
  echo "[start] building the app (first start or sources changed)…"
  npm run build
  echo "$stamp" > .next/ka-build-stamp
fi
echo "[start] serving http://${HOST}:${PORT}"
exec node node_modules/next/dist/bin/next start -H "$HOST" -p "$PORT" --keepAliveTimeout "$KEEP_ALIVE_TIMEOUT_MS"
