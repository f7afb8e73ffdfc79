import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase } from "@/lib/db/client";

describe("database", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "ka-db-"));
  const handleP = openDatabase({ databaseUrl: process.env.TEST_DATABASE_URL, dataDir: dir });
  afterAll(async () => (await handleP).close());

  it("applies migrations and supports vector + trigram queries", async () => {
    const { prisma } = await handleP;
    const u = await prisma.user.create({ data: { id: `u-${Date.now()}`, email: `a${Date.now()}@x.test`, name: "A" } });
    expect(u.name).toBe("A");
    const rows = await prisma.$queryRaw<{ d: number }[]>`SELECT ('[1,2,3]'::vector <=> '[1,2,4]'::vector)::float8 AS d`;
    expect(rows[0]!.d).toBeGreaterThan(0);
    const sim = await prisma.$queryRaw<{ s: number }[]>`SELECT similarity('知识库助手', '知识库')::float8 AS s`;
    expect(sim[0]!.s).toBeGreaterThan(0);
  });
});
