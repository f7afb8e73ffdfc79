import "server-only";
import { randomUUID } from "node:crypto";
import { createReadStream, createWriteStream, type ReadStream, type WriteStream } from "node:fs";
import { mkdir, open, readdir, readFile, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import { getEnv } from "@/lib/env";
import { AppError } from "@/lib/errors";

// Where uploaded originals live, behind one interface (OriginalStorage): local disk (default)
// or an S3-compatible bucket (STORAGE=s3, storage-s3.ts) shared by several instances.
//
// Keys are "<kb_id>/<file id>" (storage_key in knowledge_files): generated ids only, never the
// user's file name (SPEC §3). An upload is first staged in a local temp file (it is hashed,
// sniffed and checked there), then committed: on local disk fsync'ed, renamed into
// ${DATA_DIR}/files/<kb_id>/<file id> and the directory fsync'ed; in S3 streamed into the
// bucket. The row is written only after the commit, so there is never a row without its
// original; an original without its row (a crash between the two) is removed by the sweep at
// start (sweepOrphanOriginals).

/** One stored original as listed by the orphan sweep. */
export interface StoredOriginal {
  key: string;
  modifiedAt: Date;
}

export interface OriginalStorage {
  readonly kind: "local" | "s3";
  /** Start-up check: reachable, credentials accepted, writable. Throws a message for the operator. */
  check(): Promise<void>;
  /** Makes a staged temp file (see createTempFile) the durable original of a file and consumes
   *  the temp file; returns the key. On failure the temp file is the caller's to discard. */
  commit(tempPath: string, knowledgeId: string, fileId: string): Promise<string>;
  /** Stores a whole buffer durably (the sample seeder). */
  put(knowledgeId: string, fileId: string, data: Uint8Array): Promise<string>;
  /** A stream of the original; ORIGINAL_NOT_FOUND when it is gone. */
  openRead(storageKey: string): Promise<Readable>;
  /** Runs fn with a local path of the original (parsers read files); ORIGINAL_NOT_FOUND when gone. */
  withLocalFile<T>(storageKey: string, fn: (filePath: string) => Promise<T>): Promise<T>;
  delete(storageKey: string): Promise<void>;
  /** Removes every original of a deleted KB. */
  deleteKnowledge(knowledgeId: string): Promise<void>;
  /** Every stored original (the orphan sweep). */
  list(): AsyncIterable<StoredOriginal>;
  /** Releases connections. */
  close?(): void;
}

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

export function originalMissing(storageKey: string): AppError {
  return new AppError("ORIGINAL_NOT_FOUND", undefined, { storageKey });
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

/** Originals on this machine's disk under DATA_DIR/files (the default; one instance). */
export class LocalStorage implements OriginalStorage {
  readonly kind = "local" as const;
  constructor(private readonly dataDir?: string) {}

  async check(): Promise<void> {
    await mkdir(filesRoot(this.dataDir), { recursive: true });
  }

  commit(tempPath: string, knowledgeId: string, fileId: string): Promise<string> {
    return commitTempFile(tempPath, knowledgeId, fileId, this.dataDir);
  }

  put(knowledgeId: string, fileId: string, data: Uint8Array): Promise<string> {
    return storeBuffer(knowledgeId, fileId, data, this.dataDir);
  }

  async openRead(storageKey: string): Promise<Readable> {
    const p = storagePath(storageKey, this.dataDir);
    // Opened before the response starts, so a missing file is an error envelope, not a cut body.
    const fh = await open(p, "r").catch((e: NodeJS.ErrnoException) => {
      throw e.code === "ENOENT" ? originalMissing(storageKey) : e;
    });
    return fh.createReadStream();
  }

  async withLocalFile<T>(storageKey: string, fn: (filePath: string) => Promise<T>): Promise<T> {
    if ((await storedFileSize(storageKey, this.dataDir)) === null) throw originalMissing(storageKey);
    return fn(storagePath(storageKey, this.dataDir));
  }

  delete(storageKey: string): Promise<void> {
    return deleteStoredFile(storageKey, this.dataDir);
  }

  async deleteKnowledge(knowledgeId: string): Promise<void> {
    storageKeyFor(knowledgeId, "x"); // validates the id: generated ids only, no path tricks
    await rm(path.join(filesRoot(this.dataDir), knowledgeId), { recursive: true, force: true });
  }

  async *list(): AsyncIterable<StoredOriginal> {
    const root = filesRoot(this.dataDir);
    const kbs = await readdir(root).catch(() => [] as string[]);
    for (const kb of kbs) {
      if (!SAFE_ID.test(kb)) continue;
      const names = await readdir(path.join(root, kb)).catch(() => [] as string[]);
      for (const n of names) {
        if (!SAFE_ID.test(n)) continue; // temp files (".tmp-…") are cleanupTempFiles' job
        const st = await stat(path.join(root, kb, n)).catch(() => null);
        if (st?.isFile()) yield { key: `${kb}/${n}`, modifiedAt: st.mtime };
      }
    }
  }
}

// One S3 storage per process (its client keeps connections), on globalThis as Next bundles
// this module more than once.
const g = globalThis as unknown as { __kaS3Storage?: OriginalStorage };

/**
 * The storage of this process: STORAGE=s3 → the bucket (uploads still stage temp files under
 * dataDir); otherwise local disk under dataDir (default DATA_DIR; tests pass their own).
 */
export async function getStorage(dataDir?: string): Promise<OriginalStorage> {
  const env = getEnv();
  if (env.STORAGE !== "s3") return new LocalStorage(dataDir);
  if (!g.__kaS3Storage) {
    const { S3Storage } = await import("./storage-s3");
    g.__kaS3Storage = new S3Storage({
      endpoint: env.S3_ENDPOINT,
      region: env.S3_REGION,
      bucket: env.S3_BUCKET!,
      prefix: env.S3_PREFIX,
      accessKeyId: env.S3_ACCESS_KEY_ID!,
      secretAccessKey: env.S3_SECRET_ACCESS_KEY!,
      forcePathStyle: env.S3_FORCE_PATH_STYLE,
    });
  }
  return g.__kaS3Storage;
}

/** Closes the bucket client's connections (shutdown; tests that change STORAGE/S3_*). */
export function closeStorage(): void {
  g.__kaS3Storage?.close?.();
  g.__kaS3Storage = undefined;
}

export const resetStorageForTests = closeStorage;
