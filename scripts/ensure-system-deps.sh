#!/usr/bin/env bash
# Installs the Debian packages the test suite needs, when they are missing:
#   - chromium        (/usr/bin/chromium, driven by Playwright)
#   - postgresql-15   (server binaries + contrib, incl. pg_trgm)
#   - pgvector for PG 15 (not packaged in bookworm: built from Debian trixie's source package)
#
# Idempotent and fast (file checks only) when everything is present; `apt-get update` runs only
# when something has to be installed. Works as root without stdin (CI); as another user it uses
# sudo when it has to install. Set KA_DEPS_CHECK_ONLY=1 to only report what is missing and the
# packages it would install (exit 1 when something is missing).
# The paths it checks can be moved with PG_BIN, PG_LIB, PG_EXT, PG_CONFIG, CHROMIUM and CJK_FONT
# (the test e2e/integration/foundation/ensure-system-deps.test.ts points them at fake trees).
set -euo pipefail

export DEBIAN_FRONTEND=noninteractive

PG_MAJOR=15
PG_BIN="${PG_BIN:-/usr/lib/postgresql/${PG_MAJOR}/bin}"
PG_LIB="${PG_LIB:-/usr/lib/postgresql/${PG_MAJOR}/lib}"
PG_EXT="${PG_EXT:-/usr/share/postgresql/${PG_MAJOR}/extension}"
PG_CONFIG="${PG_CONFIG:-${PG_BIN}/pg_config}"
PGXS_MK="${PG_LIB}/pgxs/src/makefiles/pgxs.mk"
CHROMIUM="${CHROMIUM:-/usr/bin/chromium}"
CJK_FONT="${CJK_FONT:-/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc}"
TRIXIE_SRC_LIST=/etc/apt/sources.list.d/ka-trixie-src.sources

log() { printf '[ensure-system-deps] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

have_chromium() { [[ -x "$CHROMIUM" ]]; }
# A CJK font so Chinese renders in browser screenshots (the flow gallery) instead of boxes.
have_cjk_font() { [[ -f "$CJK_FONT" ]]; }
have_postgres() { [[ -x "$PG_BIN/postgres" && -x "$PG_BIN/initdb" && -x "$PG_BIN/pg_ctl" && -x "$PG_BIN/psql" ]]; }
have_pg_trgm() { [[ -f "$PG_EXT/pg_trgm.control" && -f "$PG_LIB/pg_trgm.so" ]]; }
have_pgvector() { [[ -f "$PG_EXT/vector.control" && -f "$PG_LIB/vector.so" ]]; }
# The build needs the server headers (postgres.h, from postgresql-server-dev-15), not only
# pg_config and pgxs.mk: an image can carry those two without the headers.
have_pg_server_headers() {
  local inc
  inc=$("$PG_CONFIG" --includedir-server 2>/dev/null) || return 1
  [[ -n "$inc" && -f "$inc/postgres.h" ]]
}
have_pgvector_build_deps() {
  [[ -x "$PG_CONFIG" && -f "$PGXS_MK" ]] && have_pg_server_headers && command -v make >/dev/null &&
    command -v gcc >/dev/null && command -v dpkg-source >/dev/null
}

list_missing() {
  missing=()
  have_chromium || missing+=(chromium)
  have_cjk_font || missing+=(fonts-wqy-zenhei)
  have_postgres || missing+=("postgresql-${PG_MAJOR}")
  have_pg_trgm || missing+=(pg_trgm)
  have_pgvector || missing+=(pgvector)
}

list_missing
if [[ ${#missing[@]} -eq 0 ]]; then
  log "ok: chromium, postgresql-${PG_MAJOR}, pg_trgm, pgvector present"
  exit 0
fi

# The Debian packages that provide what is missing (pgvector: its build dependencies; the
# source package comes from trixie).
plan_packages() {
  pkgs=()
  have_chromium || pkgs+=(chromium fonts-liberation)
  have_cjk_font || pkgs+=(fonts-wqy-zenhei)
  if ! have_postgres || ! have_pg_trgm; then
    pkgs+=("postgresql-${PG_MAJOR}" "postgresql-client-${PG_MAJOR}")
  fi
  if ! have_pgvector && ! have_pgvector_build_deps; then
    pkgs+=("postgresql-server-dev-${PG_MAJOR}" make gcc libc6-dev dpkg-dev)
  fi
}

log "missing: ${missing[*]}"
if [[ "${KA_DEPS_CHECK_ONLY:-}" == 1 ]]; then
  plan_packages
  log "would install: ${pkgs[*]:-nothing}$(have_pgvector || echo ', then build pgvector')"
  exit 1
fi

SUDO=()
if [[ $EUID -ne 0 ]]; then
  command -v sudo >/dev/null || die "not root and no sudo: cannot install ${missing[*]}"
  SUDO=(sudo -n)
fi

# One installer at a time (apt has its own lock, but the pgvector build must not race either).
exec 9>/tmp/ka-ensure-system-deps.lock
flock -w 900 9 || die "timed out waiting for /tmp/ka-ensure-system-deps.lock"
list_missing # another run may have installed things while we waited
if [[ ${#missing[@]} -eq 0 ]]; then
  log "ok: installed meanwhile by another run"
  exit 0
fi

build_dir=""
cleanup() {
  [[ -z "$build_dir" ]] || rm -rf "$build_dir"
  # Only needed for the pgvector download: keep later `apt-get update`s from fetching trixie.
  [[ ! -e "$TRIXIE_SRC_LIST" ]] || "${SUDO[@]}" rm -f "$TRIXIE_SRC_LIST"
}
trap cleanup EXIT

APT_OPTS=(-y -q -o DPkg::Lock::Timeout=300 -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold)
apt_get() { "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get "${APT_OPTS[@]}" "$@" </dev/null; }

plan_packages
if ! have_postgres || ! have_pg_trgm; then
  # No default "main" cluster (and so no server on port 5432): tests make their own clusters.
  if [[ ! -d /etc/postgresql/${PG_MAJOR}/main ]]; then
    "${SUDO[@]}" mkdir -p /etc/postgresql-common/createcluster.d
    echo 'create_main_cluster = false' |
      "${SUDO[@]}" tee /etc/postgresql-common/createcluster.d/ka-no-main-cluster.conf >/dev/null
  fi
fi
need_pgvector=0
if ! have_pgvector; then
  need_pgvector=1
  # pgvector is not in bookworm: take the source package from trixie (deb-src only, no binaries).
  cat <<'EOF' | "${SUDO[@]}" tee "$TRIXIE_SRC_LIST" >/dev/null
# Added by scripts/ensure-system-deps.sh to fetch the pgvector source package (deb-src only).
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
fi

log "apt-get update"
apt_get update

if [[ ${#pkgs[@]} -gt 0 ]]; then
  log "apt-get install ${pkgs[*]}"
  apt_get install --no-install-recommends "${pkgs[@]}"
fi

# A package can be "installed" per dpkg while its files are gone; reinstall once in that case.
if ! have_postgres || ! have_pg_trgm; then
  log "postgresql-${PG_MAJOR} files missing after install: reinstalling"
  apt_get install --reinstall --no-install-recommends "postgresql-${PG_MAJOR}"
fi
if ! have_chromium; then
  log "chromium files missing after install: reinstalling"
  apt_get install --reinstall --no-install-recommends chromium
fi

if [[ $need_pgvector -eq 1 ]]; then
  have_pgvector_build_deps || die "pgvector build dependencies still missing after install"
  build_dir=$(mktemp -d /tmp/ka-pgvector-build.XXXXXX)
  (
    cd "$build_dir"
    log "apt-get source --download-only pgvector (from trixie)"
    # apt warns that the download runs unsandboxed as root; harmless.
    apt-get -q source --download-only pgvector </dev/null
    dscs=(pgvector_*.dsc)
    [[ -f "${dscs[0]}" ]] || die "no pgvector .dsc downloaded"
    dsc=${dscs[-1]}
    log "extracting $dsc"
    dpkg-source --no-check -x "$dsc" src >/dev/null
    cd src
    log "building pgvector $(sed -n 's/^Version: //p' "../$dsc") for PostgreSQL ${PG_MAJOR}"
    # OPTFLAGS="" drops upstream's -march=native: the build stays valid on any x86-64 CPU.
    make -s -j"$(nproc)" PG_CONFIG="$PG_CONFIG" OPTFLAGS="" >/dev/null
    "${SUDO[@]}" make -s PG_CONFIG="$PG_CONFIG" OPTFLAGS="" install >/dev/null
  )
fi

installed=("${missing[@]}")
list_missing
[[ ${#missing[@]} -eq 0 ]] || die "still missing after install: ${missing[*]}"
log "installed: ${installed[*]}"
