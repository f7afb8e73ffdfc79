import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";

// scripts/ensure-system-deps.sh decides what to install from file checks. Its detection runs
// here against fake directory trees (KA_DEPS_CHECK_ONLY=1: it reports and installs nothing), one
// per partial state a machine can be in, instead of uninstalling real packages on a shared
// machine. The case that broke `npm test` (issue 24): PostgreSQL 15 with pg_config and pgxs.mk
// but without the server headers, where the pgvector build stopped at postgres.h.

const SCRIPT = path.resolve(import.meta.dirname, "../../../scripts/ensure-system-deps.sh");

interface Tree {
  root: string;
  env: Record<string, string>;
}

function touch(p: string, executable = false): void {
  mkdirSync(path.dirname(p), { recursive: true });
  writeFileSync(p, executable ? "#!/bin/sh\nexit 0\n" : "");
  if (executable) chmodSync(p, 0o755);
}

/** A PostgreSQL install of one major version under root, with the parts asked for. */
function postgres(root: string, major: number, parts: { server?: boolean; headers?: boolean; pgvector?: boolean }): void {
  const bin = path.join(root, `usr/lib/postgresql/${major}/bin`);
  const lib = path.join(root, `usr/lib/postgresql/${major}/lib`);
  const ext = path.join(root, `usr/share/postgresql/${major}/extension`);
  const inc = path.join(root, `usr/include/postgresql/${major}/server`);
  if (parts.server) {
    for (const b of ["postgres", "initdb", "pg_ctl", "psql"]) touch(path.join(bin, b), true);
    touch(path.join(ext, "pg_trgm.control"));
    touch(path.join(lib, "pg_trgm.so"));
    // pg_config and pgxs.mk come with the server here, as on the machine that failed.
    mkdirSync(bin, { recursive: true });
    writeFileSync(path.join(bin, "pg_config"), `#!/bin/sh\n[ "$1" = --includedir-server ] && echo ${inc}\n`);
    chmodSync(path.join(bin, "pg_config"), 0o755);
    touch(path.join(lib, "pgxs/src/makefiles/pgxs.mk"));
  }
  if (parts.headers) touch(path.join(inc, "postgres.h"));
  if (parts.pgvector) {
    touch(path.join(ext, "vector.control"));
    touch(path.join(lib, "vector.so"));
  }
}

function tree(setup: (root: string) => void, extras: { chromium?: boolean; font?: boolean } = { chromium: true, font: true }): Tree {
  const root = mkdtempSync(path.join(tmpdir(), "ka-deps-"));
  setup(root);
  if (extras.chromium) touch(path.join(root, "usr/bin/chromium"), true);
  if (extras.font) touch(path.join(root, "usr/share/fonts/wqy-zenhei.ttc"));
  return {
    root,
    env: {
      PG_BIN: path.join(root, "usr/lib/postgresql/15/bin"),
      PG_LIB: path.join(root, "usr/lib/postgresql/15/lib"),
      PG_EXT: path.join(root, "usr/share/postgresql/15/extension"),
      CHROMIUM: path.join(root, "usr/bin/chromium"),
      CJK_FONT: path.join(root, "usr/share/fonts/wqy-zenhei.ttc"),
    },
  };
}

function check(t: Tree, pathPrefix?: string): { code: number | null; out: string; missing: string; plan: string } {
  const r = spawnSync("bash", [SCRIPT], {
    env: { ...process.env, ...t.env, KA_DEPS_CHECK_ONLY: "1", PATH: `${pathPrefix ? pathPrefix + ":" : ""}${process.env.PATH}` },
    encoding: "utf8",
  });
  const out = r.stdout + r.stderr;
  return {
    code: r.status,
    out,
    missing: /missing: (.*)/.exec(out)?.[1] ?? "",
    plan: /would install: (.*)/.exec(out)?.[1] ?? "",
  };
}

describe("ensure-system-deps detection on partial states", () => {
  it("nothing installed: everything is missing, the server headers are planned for the pgvector build", () => {
    const r = check(tree(() => {}, {}));
    expect(r.code).toBe(1);
    expect(r.missing).toBe("chromium fonts-wqy-zenhei postgresql-15 pg_trgm pgvector");
    expect(r.plan.split(/[ ,]+/)).toEqual(expect.arrayContaining(["chromium", "fonts-wqy-zenhei", "postgresql-15", "postgresql-server-dev-15", "gcc", "make"]));
    expect(r.plan).toMatch(/then build pgvector$/);
  });

  it("PostgreSQL 15 with pg_config and pgxs.mk but no postgres.h: installs postgresql-server-dev-15", () => {
    const r = check(tree((root) => postgres(root, 15, { server: true })));
    expect(r.code).toBe(1);
    expect(r.missing).toBe("pgvector");
    expect(r.plan).toMatch(/^postgresql-server-dev-15 /);
    expect(r.plan).not.toMatch(/postgresql-15 /); // the server itself is there
  });

  it("PostgreSQL 15 with its headers but no pgvector: builds pgvector without installing anything", () => {
    const r = check(tree((root) => postgres(root, 15, { server: true, headers: true })));
    expect(r.code).toBe(1);
    expect(r.missing).toBe("pgvector");
    expect(r.plan).toBe("nothing, then build pgvector");
  });

  it("PostgreSQL 15 with pgvector: nothing to do", () => {
    const r = check(tree((root) => postgres(root, 15, { server: true, pgvector: true })));
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/ok: chromium, postgresql-15, pg_trgm, pgvector present/);
  });

  it("another major version beside it (16, complete, its pg_config first on PATH) does not count for 15", () => {
    const t = tree((root) => {
      postgres(root, 16, { server: true, headers: true, pgvector: true });
      postgres(root, 15, { server: true });
    });
    // A pg_config of 16 on PATH, as postgresql-common's wrapper may resolve to the newest.
    const pathDir = path.join(t.root, "usr/bin");
    writeFileSync(path.join(pathDir, "pg_config"), `#!/bin/sh\necho ${path.join(t.root, "usr/include/postgresql/16/server")}\n`);
    chmodSync(path.join(pathDir, "pg_config"), 0o755);
    const r = check(t, pathDir);
    expect(r.code).toBe(1);
    expect(r.missing).toBe("pgvector");
    expect(r.plan).toMatch(/^postgresql-server-dev-15 /);
    expect(r.plan).not.toMatch(/16/);
  });

  it("only another major version installed: PostgreSQL 15 is installed next to it", () => {
    const r = check(tree((root) => postgres(root, 16, { server: true, headers: true, pgvector: true })));
    expect(r.code).toBe(1);
    expect(r.missing).toBe("postgresql-15 pg_trgm pgvector");
    expect(r.plan).toMatch(/postgresql-15 postgresql-client-15 postgresql-server-dev-15/);
  });
});
