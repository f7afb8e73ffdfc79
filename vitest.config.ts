import path from "node:path";
import { defineConfig } from "vitest/config";

const alias = {
  "@": path.resolve(import.meta.dirname),
  // "server-only" throws outside a React Server bundle; tests run server modules directly.
  "server-only": path.resolve(import.meta.dirname, "e2e/support/server-only-stub.ts"),
};

export default defineConfig({
  resolve: { alias },
  test: {
    projects: [
      {
        resolve: { alias },
        test: { name: "unit", include: ["lib/**/*.test.ts", "components/**/*.test.ts"], environment: "node" },
      },
      {
        resolve: { alias },
        test: {
          name: "integration",
          include: ["e2e/integration/**/*.test.ts"],
          environment: "node",
          testTimeout: 60_000,
          hookTimeout: 120_000,
          // One database per file; files run one at a time to stay within 2 cores.
          fileParallelism: false,
          // Lets memory-bound tests collect garbage before they measure.
          execArgv: ["--expose-gc"],
          // Temporary directories under one per-run directory, removed at the end.
          globalSetup: ["e2e/support/temp-dir-setup.ts"],
        },
      },
      {
        // Several `next start` instances on one PostgreSQL server (TEST_DATABASE_URL) and an S3
        // server: needs the production build; scripts/test-all.sh runs it after `next build`.
        resolve: { alias },
        test: {
          name: "multi",
          include: ["e2e/multi/**/*.test.ts"],
          environment: "node",
          testTimeout: 180_000,
          hookTimeout: 120_000,
          fileParallelism: false,
          globalSetup: ["e2e/support/temp-dir-setup.ts"],
        },
      },
    ],
  },
});
