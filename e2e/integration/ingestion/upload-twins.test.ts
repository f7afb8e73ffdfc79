// Files of one upload are read concurrently and finish in any order. When two hold the same
// content, the one kept must be the first in request order, not whichever finished first. The
// content-type check of the first file is held back here so that the second always finishes
// first (the real check still runs); before the fix the first file was the one refused.
import { readdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { fixture, openTestEnv, type TestEnv } from "./helpers";

vi.mock("@/lib/ingestion/sniff", async (importOriginal) => {
  const real = await importOriginal<typeof import("@/lib/ingestion/sniff")>();
  return {
    ...real,
    sniffFileType: async (a: Parameters<typeof real.sniffFileType>[0]) => {
      if (a.name.startsWith("slow-")) await new Promise((r) => setTimeout(r, 150));
      return real.sniffFileType(a);
    },
  };
});

describe("identical files in one upload", () => {
  let t: TestEnv;
  beforeAll(async () => {
    t = await openTestEnv();
  });
  afterAll(async () => t?.close());

  it("keeps the first in request order even when a later one is read first", async () => {
    const kb = await t.newKb();
    const res = await t.upload(kb, [
      { name: "slow-one.md", data: fixture("guide.md") },
      { name: "two.md", data: fixture("guide.md") },
      { name: "other.md", data: "# Other\n\nDifferent content." },
      { name: "three.md", data: fixture("guide.md") },
    ]);
    expect(res.files.map((f) => (f.ok ? `ok ${f.file.name}` : `${f.code} ${f.name}`))).toEqual([
      "ok slow-one.md",
      "FILE_DUPLICATE two.md",
      "ok other.md",
      "FILE_DUPLICATE three.md",
    ]);
    expect(res.files[1]).toMatchObject({ message: expect.stringContaining('same content as "slow-one.md"') });
    expect(res.files[3]).toMatchObject({ message: expect.stringContaining('same content as "slow-one.md"') });
    // One stored copy per content; the refused twins' temporary files are gone.
    expect(await t.db.knowledgeFile.count({ where: { knowledgeId: kb } })).toBe(2);
    expect(readdirSync(path.join(t.dataDir, "files", kb))).toHaveLength(2);
  });
});
