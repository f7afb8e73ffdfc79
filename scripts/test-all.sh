#!/usr/bin/env bash
# The single test command (`npm test`, and CI through .ci/run):
#   1. system packages (chromium, postgresql-15, pgvector, pg_trgm)
#   2. prisma generate
#   3. typecheck, lint
#   4. unit tests (vitest project "unit")
#   5. integration tests on embedded PGlite (vitest project "integration")
#   6. integration tests again on a throwaway PostgreSQL 15 server (TEST_DATABASE_URL)
#   7. production build; then, on the same PostgreSQL server, the multi-instance test (vitest
#      project "multi": two `next start` instances, an S3 server on loopback) — needs the build
#   8. end-to-end tests (Playwright; playwright.config.ts starts the server)
# Fails fast: the first failing step ends the run. Whatever happens, the PostgreSQL cluster and
# any process this script started are stopped on exit, then a summary is printed whose last line
# is "N passed, N failed, N skipped" (test counts; a failed step that is not a test counts as one
# failure). Local development only: SKIP_PG=1 skips step 6, SKIP_E2E=1 skips step 7 (both are
# ignored when CI is set).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

export NEXT_TELEMETRY_DISABLED=1 # no network calls from next build/start
export CHECKPOINT_DISABLE=1      # no Prisma update check

REPORT_DIR=$(mktemp -d /tmp/ka-test-reports.XXXXXX)
MANIFEST="$REPORT_DIR/manifest.tsv"
# Every temporary directory the tests make (data directories of test servers and databases,
# ~1.4 GB per run) goes under the report directory, which is removed on exit.
export TMPDIR="$REPORT_DIR/tmp"
mkdir -p "$TMPDIR"
: >"$MANIFEST"
PG_STARTED=0
CURRENT_PID=""
CURRENT_LABEL=""
CURRENT_START=0
STEP_NO=0
RUN_START=$SECONDS

header() {
  STEP_NO=$((STEP_NO + 1))
  printf '\n========== [%d] %s ==========\n' "$STEP_NO" "$*"
}

# run LABEL KIND REPORT CMD...   KIND: step | vitest | playwright; REPORT: JSON file or "-".
# The command runs in the background so that a signal reaches our trap at once.
run() {
  local label=$1 kind=$2 report=$3 rc=0
  shift 3
  header "$label"
  CURRENT_LABEL=$label
  CURRENT_START=$SECONDS
  "$@" </dev/null &
  CURRENT_PID=$!
  wait "$CURRENT_PID" || rc=$?
  CURRENT_PID=""
  CURRENT_LABEL=""
  printf '%s\t%s\t%s\t%s\t%s\n' "$kind" "$report" "$rc" "$((SECONDS - CURRENT_START))" "$label" >>"$MANIFEST"
  if [[ $rc -ne 0 ]]; then
    printf '\n!!! FAILED: %s (exit %d)\n' "$label" "$rc" >&2
    exit 1
  fi
}

skipped_step() {
  header "$1"
  echo "skipped: $2"
  printf 'skip\t-\t0\t0\t%s\n' "$1" >>"$MANIFEST"
}

# Every process below this shell (Playwright's web server included: it runs in its own session,
# but stays Playwright's child). TERM first, KILL what is left after 10 s.
descendants() {
  ps -e -o pid=,ppid= | awk -v root="$$" '
    { kids[$2] = kids[$2] " " $1 }
    END {
      n = split(kids[root], queue, " ")
      for (i = 1; i <= n; i++) {
        print queue[i]
        m = split(kids[queue[i]], more, " ")
        for (j = 1; j <= m; j++) queue[++n] = more[j]
      }
    }'
}

pid_alive() {
  local state
  state=$(sed -n 's/^.*) \([A-Za-z]\).*$/\1/p' "/proc/$1/stat" 2>/dev/null) || return 1
  [[ -n "$state" && "$state" != Z && "$state" != X ]]
}

stop_descendants() {
  local pids="" pid
  for pid in $(descendants); do
    if pid_alive "$pid"; then pids+="$pid "; fi
  done
  [[ -n "$pids" ]] || return 0
  echo "stopping leftover processes: $pids" >&2
  # shellcheck disable=SC2086
  kill -TERM $pids 2>/dev/null || true
  for _ in $(seq 100); do
    local alive=0
    for pid in $pids; do
      if pid_alive "$pid"; then
        alive=1
        break
      fi
    done
    [[ $alive -eq 1 ]] || return 0
    sleep 0.1
  done
  # shellcheck disable=SC2086
  kill -KILL $pids 2>/dev/null || true
}

summarize() {
  # shellcheck disable=SC2016  # JavaScript, not shell
  node -e '
    const fs = require("fs");
    const rows = fs.readFileSync(process.argv[1], "utf8").split("\n").filter(Boolean)
      .map((l) => { const [kind, report, rc, secs, label] = l.split("\t"); return { kind, report, rc: +rc, secs: +secs, label }; });
    const read = (f) => { try { return JSON.parse(fs.readFileSync(f, "utf8")); } catch { return null; } };
    let passed = 0, failed = 0, skipped = 0;
    console.log("\n========== Summary ==========");
    for (const r of rows) {
      let p = 0, f = 0, s = 0, note = "";
      if (r.kind === "vitest") {
        const j = read(r.report);
        if (j) { p = j.numPassedTests || 0; f = j.numFailedTests || 0; s = (j.numPendingTests || 0) + (j.numTodoTests || 0);
          if (j.numFailedTestSuites && !f) note = `${j.numFailedTestSuites} test file(s) failed`; }
        else if (r.rc !== 0) note = "no report";
      } else if (r.kind === "playwright") {
        const j = read(r.report);
        const st = j && j.stats;
        if (st) { p = (st.expected || 0) + (st.flaky || 0); f = st.unexpected || 0; s = st.skipped || 0;
          if (st.flaky) note = `${st.flaky} flaky`;
          if (j.errors && j.errors.length) note += `${note ? ", " : ""}${j.errors.length} global error(s)`; }
        else if (r.rc !== 0) note = "no report";
      }
      if (r.rc !== 0 && f === 0) { f = 1; note += `${note ? ", " : ""}counted as 1 failure`; } // a failed step with no failing test
      passed += p; failed += f; skipped += s;
      const status = r.kind === "skip" ? "SKIP" : r.rc === 0 ? "ok  " : "FAIL";
      const counts = r.kind === "vitest" || r.kind === "playwright" ? `  ${p} passed, ${f} failed, ${s} skipped` : "";
      console.log(`${status}  ${r.label.padEnd(44)} ${String(r.secs).padStart(4)}s${counts}${note ? "  (" + note + ")" : ""}`);
    }
    // What failed and why, in the last lines of the output (a CI log is often read from its tail):
    // each failed test (and the failed attempt of each flaky one) with the first lines of its error.
    const details = [];
    const clean = (m) => String(m || "").replace(/\u001b\[[0-9;]*m/g, "").split("\n").map((l) => l.trimEnd()).filter(Boolean).slice(0, 6).join("\n      ");
    for (const r of rows) {
      const j = read(r.report);
      if (!j) continue;
      if (r.kind === "vitest") {
        for (const file of j.testResults || []) {
          if (file.status === "failed" && !(file.assertionResults || []).some((a) => a.status === "failed")) details.push(`${r.label}: ${file.name}\n      ${clean(file.message)}`);
          for (const a of file.assertionResults || []) if (a.status === "failed") details.push(`${r.label}: ${a.fullName}\n      ${clean((a.failureMessages || [])[0])}`);
        }
      } else if (r.kind === "playwright") {
        const walk = (suite) => {
          for (const s of suite.suites || []) walk(s);
          for (const spec of suite.specs || []) for (const t of spec.tests || []) {
            if (t.status !== "unexpected" && t.status !== "flaky") continue;
            const bad = (t.results || []).find((x) => x.status !== "passed" && x.status !== "skipped");
            const err = bad && (bad.error || (bad.errors || [])[0]);
            details.push(`${r.label}${t.status === "flaky" ? " (flaky: passed on retry)" : ""}: ${spec.file}:${spec.line} ${spec.title}\n      ${clean(err && (err.message || err.value))}`);
          }
        };
        walk(j);
        for (const e of j.errors || []) details.push(`${r.label}: global error\n      ${clean(e.message || e.value)}`);
      }
    }
    if (details.length) console.log(`\nFailed or flaky:\n${details.slice(0, 10).map((d) => "  - " + d).join("\n")}`);
    console.log(`total time ${process.argv[2]}s`);
    console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
    process.exitCode = failed > 0 ? 3 : 0;
  ' "$MANIFEST" "$((SECONDS - RUN_START))"
}

on_exit() {
  local rc=$?
  trap - EXIT INT TERM
  set +e
  if [[ -n "$CURRENT_LABEL" ]]; then # interrupted in the middle of a step
    printf 'step\t-\t%s\t%s\t%s\n' "$((rc == 0 ? 1 : rc))" "$((SECONDS - CURRENT_START))" "$CURRENT_LABEL (interrupted)" >>"$MANIFEST"
  fi
  stop_descendants
  if [[ $PG_STARTED -eq 1 ]]; then
    bash scripts/pg-cluster.sh stop || echo "warning: could not stop the PostgreSQL cluster" >&2
  fi
  local src=0
  summarize || src=$?
  if [[ $src -ne 0 && $src -ne 3 ]]; then # the summary itself broke: never report a pass
    echo "summary failed (exit $src)" >&2
    echo "0 passed, 1 failed"
  fi
  if [[ $src -ne 0 && $rc -eq 0 ]]; then
    rc=1
  fi
  rm -rf "$REPORT_DIR"
  exit "$rc"
}
trap on_exit EXIT
trap 'echo "interrupted (SIGINT)" >&2; exit 130' INT
trap 'echo "terminated (SIGTERM)" >&2; exit 143' TERM

if [[ -n "${CI:-}" && "${CI}" != false && "${CI}" != 0 ]]; then
  for v in SKIP_PG SKIP_E2E; do
    if [[ -n "${!v:-}" ]]; then
      echo "warning: $v is ignored in CI" >&2
      unset "$v"
    fi
  done
fi

echo "node $(node --version), npm $(npm --version), CI=${CI:-}"

run "System packages (ensure-system-deps)" step - bash scripts/ensure-system-deps.sh
run "Prisma client (db:generate)" step - npm run db:generate
run "Typecheck (tsc --noEmit)" step - npm run typecheck
run "Lint (eslint)" step - npm run lint
run "Unit tests (vitest --project unit)" vitest "$REPORT_DIR/unit.json" \
  npx --no -- vitest run --project unit --reporter=default --reporter=json --outputFile.json="$REPORT_DIR/unit.json"
run "Integration tests on PGlite (vitest)" vitest "$REPORT_DIR/integration-pglite.json" \
  env -u TEST_DATABASE_URL npx --no -- vitest run --project integration \
  --reporter=default --reporter=json --outputFile.json="$REPORT_DIR/integration-pglite.json"

if [[ "${SKIP_PG:-}" == 1 ]]; then
  skipped_step "Integration tests on PostgreSQL 15 (vitest)" "SKIP_PG=1"
else
  PG_STARTED=1
  # shellcheck disable=SC2016  # $1 is expanded by the inner bash
  run "Start PostgreSQL 15 cluster" step - bash -c 'bash scripts/pg-cluster.sh start >"$1"' _ "$REPORT_DIR/pg-url"
  TEST_DATABASE_URL=$(tail -n 1 "$REPORT_DIR/pg-url")
  echo "TEST_DATABASE_URL=$TEST_DATABASE_URL"
  run "Integration tests on PostgreSQL 15 (vitest)" vitest "$REPORT_DIR/integration-pg.json" \
    env TEST_DATABASE_URL="$TEST_DATABASE_URL" npx --no -- vitest run --project integration \
    --reporter=default --reporter=json --outputFile.json="$REPORT_DIR/integration-pg.json"
fi

if [[ "${SKIP_E2E:-}" == 1 ]]; then
  skipped_step "Build + end-to-end tests (Playwright)" "SKIP_E2E=1"
else
  run "Production build (next build)" step - npm run build
fi

# Several instances need both the build and the PostgreSQL server (still running from step 6).
if [[ "${SKIP_PG:-}" == 1 || "${SKIP_E2E:-}" == 1 ]]; then
  skipped_step "Two instances on PostgreSQL + S3 (vitest multi)" "SKIP_PG=1 or SKIP_E2E=1"
else
  run "Two instances on PostgreSQL + S3 (vitest multi)" vitest "$REPORT_DIR/multi.json" \
    env TEST_DATABASE_URL="$TEST_DATABASE_URL" npx --no -- vitest run --project multi \
    --reporter=default --reporter=json --outputFile.json="$REPORT_DIR/multi.json"
fi
if [[ $PG_STARTED -eq 1 ]]; then
  run "Stop PostgreSQL 15 cluster" step - bash scripts/pg-cluster.sh stop
  PG_STARTED=0
fi

if [[ "${SKIP_E2E:-}" != 1 ]]; then
  run "End-to-end tests (playwright)" playwright "$REPORT_DIR/e2e.json" \
    env PLAYWRIGHT_JSON_OUTPUT_NAME="$REPORT_DIR/e2e.json" npx --no -- playwright test --reporter=list,json
fi
