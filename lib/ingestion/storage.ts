import "server-only";
import { randomUUID } from "node:crypto";
import { createReadStream, createWriteStream, type ReadStream, type WriteStream } from "node:fs";
import { mkdir, open, readFile, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import { getEnv } from "@/lib/env";

// Originals are kept under ${DATA_DIR}/files/<kb_id>/<generated id> (SPEC §3): generated ids
// only, never the user's file name. A file is written to a temp name in the same directory,
// fsync'ed, renamed into place and the directory fsync'ed, so an acknowledged upload survives a
// crash. storage_key in knowledge_files is "<kb_id>/<file id>".

const SAFE_ID = /^[A-Za-z0-9_-]{1,100}$/;

export function filesRoot(dataDir = getEnv().DATA_DIR): string {
  return path.resolve(dataDir, "files");
}

function assertId(kind: string, id: string): void {
  if (!SAFE_ID.test(id)) throw new Error(`Invalid ${kind} id for storage: ${JSON.stringify(id).slice(0, 60)}`);
}

export function storageKeyFor(knowledgeId: string, fileId: string): string {
  assertId("knowledge", knowledgeId);
  assertId("file", fileId);
  return `${knowledgeId}/${fileId}`;
}

/** Absolute path of a stored original; rejects anything that is not "<id>/<id>". */
export function storagePath(storageKey: string, dataDir?: string): string {
  const parts = storageKey.split("/");
  if (parts.length !== 2) throw new Error("Invalid storage key");
  assertId("knowledge", parts[0]!);
  assertId("file", parts[1]!);
  return path.join(filesRoot(dataDir), parts[0]!, parts[1]!);
}

async function fsyncDir(dir: string): Promise<void> {
  try {
    const fh = await open(dir, "r");
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  } catch {
    // Some platforms cannot fsync a directory; the rename itself is still atomic.
  }
}

export interface TempFile {
  path: string;
  stream: WriteStream;
}

/** A temp file next to where the original will live (same file system, so rename is atomic). */
export async function createTempFile(knowledgeId: string, dataDir?: string): Promise<TempFile> {
  assertId("knowledge", knowledgeId);
  const dir = path.join(filesRoot(dataDir), knowledgeId);
  await mkdir(dir, { recursive: true });
  const p = path.join(dir, `.tmp-${randomUUID()}`);
  return { path: p, stream: createWriteStream(p, { flags: "wx", mode: 0o600 }) };
}

/** Ends the write stream and waits until its data is handed to the OS. */
export function closeWriteStream(ws: WriteStream): Promise<void> {
  return new Promise((resolve, reject) => {
    if (ws.closed) return resolve();
    ws.once("error", reject);
    ws.once("close", () => resolve());
    ws.end();
  });
}

/** fsync the temp file, rename it to its final generated name, fsync the directory. */
export async function commitTempFile(tempPath: string, knowledgeId: string, fileId: string, dataDir?: string): Promise<string> {
  const key = storageKeyFor(knowledgeId, fileId);
  const fh = await open(tempPath, "r+");
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
  const dest = storagePath(key, dataDir);
  await rename(tempPath, dest);
  await fsyncDir(path.dirname(dest));
  return key;
}

export async function discardTempFile(tempPath: string): Promise<void> {
  await rm(tempPath, { force: true });
}

/** Write a whole buffer durably (used by the sample seeder). */
export async function storeBuffer(knowledgeId: string, fileId: string, data: Uint8Array, dataDir?: string): Promise<string> {
  const tmp = await createTempFile(knowledgeId, dataDir);
  await new Promise<void>((resolve, reject) => {
    tmp.stream.once("error", reject);
    tmp.stream.write(data, (e) => (e ? reject(e) : resolve()));
  });
  await closeWriteStream(tmp.stream);
  try {
    return await commitTempFile(tmp.path, knowledgeId, fileId, dataDir);
  } catch (e) {
    await discardTempFile(tmp.path);
    throw e;
  }
}

export function openStoredReadStream(storageKey: string, dataDir?: string): ReadStream {
  return createReadStream(storagePath(storageKey, dataDir));
}

export function readStoredFile(storageKey: string, dataDir?: string): Promise<Buffer> {
  return readFile(storagePath(storageKey, dataDir));
}

export async function storedFileSize(storageKey: string, dataDir?: string): Promise<number | null> {
  try {
    return (await stat(storagePath(storageKey, dataDir))).size;
  } catch {
    return null;
  }
}

export async function deleteStoredFile(storageKey: string, dataDir?: string): Promise<void> {
  await rm(storagePath(storageKey, dataDir), { force: true });
}

/** Leftover temp files of uploads interrupted by a crash (none of them was acknowledged). */
export async function cleanupTempFiles(dataDir?: string, olderThanMs = 60 * 60 * 1000): Promise<number> {
  const { readdir } = await import("node:fs/promises");
  const root = filesRoot(dataDir);
  let removed = 0;
  let kbs: string[] = [];
  try {
    kbs = await readdir(root);
  } catch {
    return 0;
  }
  for (const kb of kbs) {
    if (!SAFE_ID.test(kb)) continue;
    let names: string[] = [];
    try {
      names = await readdir(path.join(root, kb));
    } catch {
      continue;
    }
    for (const n of names) {
      if (!n.startsWith(".tmp-")) continue;
      const p = path.join(root, kb, n);
      try {
        const st = await stat(p);
        if (Date.now() - st.mtimeMs > olderThanMs) {
          await rm(p, { force: true });
          removed++;
        }
      } catch {
        /* raced with another cleanup */
      }
    }
  }
  return removed;
}
