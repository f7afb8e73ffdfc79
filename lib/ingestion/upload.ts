import "server-only";
import { createHash, randomUUID } from "node:crypto";
import { Readable, Transform, type TransformCallback } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as NodeWebReadableStream } from "node:stream/web";
import busboy from "busboy";
import { getEnv } from "@/lib/env";
import { AppError, isAppError, type ErrorCode } from "@/lib/errors";
import { Prisma, type KnowledgeFile, type PrismaClient } from "@/lib/generated/prisma/client";
import { normalizeDisplayName } from "./file-name";
import { kickRunner } from "./runner";
import { SNIFF_HEAD_BYTES, TextValidator, sniffFileType, type FileType } from "./sniff";
import { closeWriteStream, createTempFile, discardTempFile, getStorage } from "./storage";

// Multipart upload (SPEC §4 POST /v1/knowledges/{kb_id}/files, §12): busboy over the request
// body stream; each file is streamed to a temp file while it is hashed (sha256), counted and
// checked as UTF-8; nothing is buffered whole. Per-file size, files per request and the KB quota
// are enforced while streaming. After the body has been read completely, every accepted file is
// fsync'ed, renamed to its generated id and recorded (knowledge_files + ingestion_jobs) in one
// transaction per file; then the job runner is notified. A body rejected as a whole (not
// multipart, malformed, over the hard cap) leaves nothing behind.

export interface UploadLimits {
  maxFileBytes: number;
  maxFilesPerRequest: number;
  maxKbBytes: number;
}

export function defaultUploadLimits(): UploadLimits {
  const env = getEnv();
  return { maxFileBytes: env.MAX_FILE_BYTES, maxFilesPerRequest: env.MAX_FILES_PER_REQUEST, maxKbBytes: env.MAX_KB_BYTES };
}

/** Multipart overhead allowed on top of files × per-file limit (part headers, boundaries, fields). */
export const BODY_SLACK_BYTES = 1024 * 1024;

export function hardBodyCap(limits: UploadLimits): number {
  return limits.maxFilesPerRequest * limits.maxFileBytes + BODY_SLACK_BYTES + limits.maxFilesPerRequest * 4096;
}

export type UploadFileResult =
  | { ok: true; file: KnowledgeFile }
  | { ok: false; name: string; code: ErrorCode; message: string; existingFileId?: string };

export interface UploadResult {
  files: UploadFileResult[];
}

export interface ReceiveUploadOptions {
  knowledgeId: string;
  userId: string | null;
  db: PrismaClient;
  limits?: Partial<UploadLimits>;
  /** Storage root override (tests); defaults to DATA_DIR. */
  dataDir?: string;
  /** Called after the rows are committed (default: kickRunner). */
  notify?: () => void;
}

interface Staged {
  index: number;
  name: string;
  tempPath: string;
  size: number;
  sha256: string;
  fileType: FileType;
  mimeType: string;
}

const fmtBytes = (n: number) =>
  n >= 1024 * 1024 * 1024
    ? `${(n / 1024 / 1024 / 1024).toFixed(n % (1024 * 1024 * 1024) ? 1 : 0)} GB`
    : n >= 1024 * 1024
      ? `${(n / 1024 / 1024).toFixed(n % (1024 * 1024) ? 1 : 0)} MB`
      : `${Math.ceil(n / 1024)} KB`;

/** Counts body bytes and stops the request once it exceeds the hard cap. */
class BodyCap extends Transform {
  seen = 0;
  constructor(private readonly cap: number) {
    super();
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.seen += chunk.length;
    if (this.seen > this.cap) return cb(new AppError("PAYLOAD_TOO_LARGE", `The request body is larger than ${fmtBytes(this.cap)}.`));
    cb(null, chunk);
  }
}

export async function receiveUpload(request: Request, opts: ReceiveUploadOptions): Promise<UploadResult> {
  const limits: UploadLimits = { ...defaultUploadLimits(), ...(opts.limits ?? {}) };
  const { db, knowledgeId } = opts;
  const contentType = request.headers.get("content-type") ?? "";
  if (!/^multipart\/form-data\s*;/i.test(contentType) || !/boundary=/i.test(contentType)) {
    throw new AppError("INVALID_PARAMS", "Upload the files as multipart/form-data (field name \"files\").");
  }
  if (!request.body) throw new AppError("INVALID_PARAMS", "The request has no body.");
  const cap = hardBodyCap(limits);
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > cap) {
    throw new AppError("PAYLOAD_TOO_LARGE", `The request body (${fmtBytes(declared)}) is larger than ${fmtBytes(cap)}: at most ${limits.maxFilesPerRequest} files of ${fmtBytes(limits.maxFileBytes)} each.`);
  }

  const kb = await db.knowledge.findUnique({ where: { id: knowledgeId }, select: { id: true } });
  if (!kb) throw new AppError("KNOWLEDGE_NOT_FOUND");
  const used = await kbBytes(db, knowledgeId);

  const results: Array<UploadFileResult | undefined> = [];
  const staged: Staged[] = [];
  const temps = new Set<string>();
  const pending: Promise<void>[] = [];
  let acceptedBytes = 0;
  let fileIndex = 0;
  // Content already staged in this request, by sha256. Files are read concurrently and finish in
  // any order; the first in request order is the one kept, whichever finished first.
  const seenHashes = new Map<string, Staged>();
  // Files refused as a copy of another in this request; their messages name the kept file,
  // which is known only once every file has been read.
  const twins: { index: number; name: string; sha256: string }[] = [];

  let bb: busboy.Busboy;
  try {
    bb = busboy({
      headers: { "content-type": contentType },
      defParamCharset: "utf8",
      limits: {
        fileSize: limits.maxFileBytes,
        files: limits.maxFilesPerRequest + 50,
        fields: 50,
        fieldSize: 64 * 1024,
        parts: limits.maxFilesPerRequest + 100,
        headerPairs: 50,
      },
    });
  } catch (e) {
    throw new AppError("INVALID_PARAMS", `Malformed multipart request: ${(e as Error).message}`);
  }

  const handleFile = async (index: number, name: string, stream: Readable): Promise<void> => {
    const tmp = await createTempFile(knowledgeId, opts.dataDir);
    temps.add(tmp.path);
    const hash = createHash("sha256");
    const validator = new TextValidator();
    let head = Buffer.alloc(0);
    let size = 0;
    let overQuota = false;
    let truncated = false;
    stream.once("limit", () => {
      truncated = true;
    });
    const remaining = () => limits.maxKbBytes - used - acceptedBytes;
    const meter = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        if (truncated || overQuota) return cb(); // drain without writing
        size += chunk.length;
        if (size > remaining()) {
          overQuota = true;
          return cb();
        }
        hash.update(chunk);
        validator.push(chunk);
        if (head.length < SNIFF_HEAD_BYTES) head = Buffer.concat([head, chunk.subarray(0, SNIFF_HEAD_BYTES - head.length)]);
        cb(null, chunk);
      },
    });
    try {
      await pipeline(stream, meter, tmp.stream);
    } catch (e) {
      await closeWriteStream(tmp.stream).catch(() => {});
      throw e;
    }
    if (truncated || (stream as Readable & { truncated?: boolean }).truncated) {
      results[index] = { ok: false, name, code: "FILE_TOO_LARGE", message: `"${name}" is larger than the ${fmtBytes(limits.maxFileBytes)} limit per file.` };
      return;
    }
    if (overQuota) {
      results[index] = {
        ok: false,
        name,
        code: "KNOWLEDGE_QUOTA_EXCEEDED",
        message: `"${name}" does not fit: the knowledge base may hold ${fmtBytes(limits.maxKbBytes)} and ${fmtBytes(Math.max(0, remaining()))} are left. Delete files or use another knowledge base.`,
      };
      return;
    }
    let sniffed: { fileType: FileType; mimeType: string };
    try {
      sniffed = await sniffFileType({ name, size, head, text: validator.finish(), source: { path: tmp.path } });
    } catch (e) {
      if (isAppError(e)) {
        results[index] = { ok: false, name, code: e.code, message: e.message };
        return;
      }
      throw e;
    }
    const sha256 = hash.digest("hex");
    const entry: Staged = { index, name, tempPath: tmp.path, size, sha256, ...sniffed };
    const twin = seenHashes.get(sha256);
    if (twin && twin.index < index) {
      twins.push({ index, name, sha256 });
      return;
    }
    if (twin) {
      // A later file of the request finished first: it becomes the duplicate (its temp file is
      // discarded with the others). Same content, same size: the quota count stays right.
      staged.splice(staged.indexOf(twin), 1);
      twins.push(twin);
    } else {
      acceptedBytes += size;
    }
    seenHashes.set(sha256, entry);
    staged.push(entry);
  };

  bb.on("file", (_field: string, stream: Readable, info: busboy.FileInfo) => {
    // Busboy may destroy the stream (body cut off) before handleFile has piped it anywhere;
    // the pipeline reports that error, this listener only keeps it from being "unhandled".
    stream.on("error", () => {});
    // A file input left empty is sent as a part with filename="": not a file.
    if (!info.filename) {
      stream.resume();
      return;
    }
    const index = fileIndex++;
    const name = normalizeDisplayName(info.filename);
    if (index >= limits.maxFilesPerRequest) {
      stream.resume();
      results[index] = {
        ok: false,
        name,
        code: "INVALID_PARAMS",
        message: `Too many files in one request: at most ${limits.maxFilesPerRequest} are accepted; "${name}" was skipped. Upload it again separately.`,
      };
      return;
    }
    const p = handleFile(index, name, stream).catch((e) => {
      stream.resume();
      // Let the request-level error (cap, malformed body) win; otherwise report this file.
      if (!results[index]) {
        results[index] = { ok: false, name, code: isAppError(e) ? e.code : "INTERNAL_ERROR", message: isAppError(e) ? e.message : `"${name}" could not be stored.` };
      }
      if (isAppError(e) && e.code === "PAYLOAD_TOO_LARGE") throw e;
    });
    pending.push(p);
  });
  bb.on("field", () => {
    /* form fields are ignored */
  });

  const cleanupTemps = async () => {
    await Promise.all([...temps].map((t) => discardTempFile(t).catch(() => {})));
    temps.clear();
  };

  try {
    const body = Readable.fromWeb(request.body as unknown as NodeWebReadableStream<Uint8Array>);
    await pipeline(body, new BodyCap(cap), bb);
    await Promise.all(pending);
  } catch (e) {
    await Promise.allSettled(pending);
    await cleanupTemps();
    if (isAppError(e)) throw e;
    throw new AppError("INVALID_PARAMS", `The multipart body is malformed or was cut off (${(e as Error).message}).`);
  }

  if (fileIndex === 0) {
    await cleanupTemps();
    throw new AppError("INVALID_PARAMS", "The request contains no files.");
  }

  for (const t of twins) {
    results[t.index] = { ok: false, name: t.name, code: "FILE_DUPLICATE", message: `"${t.name}" has the same content as "${seenHashes.get(t.sha256)?.name}" in this upload; it was stored once.` };
  }

  // Commit accepted files in request order: the original into storage (local: fsync + rename;
  // S3: streamed into the bucket), then one transaction per file.
  staged.sort((a, b) => a.index - b.index);
  const storage = await getStorage(opts.dataDir);
  let committed = 0;
  for (const s of staged) {
    const fileId = randomUUID();
    let storageKey: string | null = null;
    try {
      storageKey = await storage.commit(s.tempPath, knowledgeId, fileId);
      temps.delete(s.tempPath);
      const row = await recordFile(db, {
        fileId,
        knowledgeId,
        userId: opts.userId,
        name: s.name,
        fileType: s.fileType,
        mimeType: s.mimeType,
        size: s.size,
        sha256: s.sha256,
        storageKey,
        maxKbBytes: limits.maxKbBytes,
      });
      results[s.index] = { ok: true, file: row };
      committed++;
    } catch (e) {
      if (storageKey) await storage.delete(storageKey).catch(() => {}); // else the orphan sweep removes it
      if (isAppError(e)) {
        results[s.index] = {
          ok: false,
          name: s.name,
          code: e.code,
          message: e.message,
          ...(e.details && typeof e.details === "object" && "existingFileId" in e.details ? { existingFileId: String((e.details as { existingFileId: string }).existingFileId) } : {}),
        };
      } else {
        results[s.index] = { ok: false, name: s.name, code: "INTERNAL_ERROR", message: `"${s.name}" could not be saved; try again.` };
      }
    }
  }
  await cleanupTemps();
  if (committed > 0) (opts.notify ?? kickRunner)();
  return { files: results.filter((r): r is UploadFileResult => !!r) };
}

async function kbBytes(db: Pick<PrismaClient, "knowledgeFile">, knowledgeId: string): Promise<number> {
  const agg = await db.knowledgeFile.aggregate({ where: { knowledgeId }, _sum: { size: true } });
  return Number(agg._sum.size ?? 0n);
}

interface RecordFileArgs {
  fileId: string;
  knowledgeId: string;
  userId: string | null;
  name: string;
  fileType: FileType;
  mimeType: string;
  size: number;
  sha256: string;
  storageKey: string;
  maxKbBytes: number;
}

/**
 * One transaction: lock the KB row (serialises concurrent uploads into one KB), check
 * duplicate content and the quota, insert the file (queued / pending) and its job.
 */
export async function recordFile(db: PrismaClient, a: RecordFileArgs): Promise<KnowledgeFile> {
  try {
    return await db.$transaction(async (tx) => {
      const locked = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM knowledges WHERE id = ${a.knowledgeId} FOR UPDATE`;
      if (!locked.length) throw new AppError("KNOWLEDGE_NOT_FOUND");
      const dup = await tx.knowledgeFile.findFirst({ where: { knowledgeId: a.knowledgeId, sha256: a.sha256 }, select: { id: true, name: true } });
      if (dup) {
        throw new AppError("FILE_DUPLICATE", `"${a.name}" has the same content as "${dup.name}", which is already in this knowledge base.`, { existingFileId: dup.id });
      }
      const used = await kbBytes(tx, a.knowledgeId);
      if (used + a.size > a.maxKbBytes) {
        throw new AppError("KNOWLEDGE_QUOTA_EXCEEDED", `"${a.name}" does not fit: the knowledge base may hold ${fmtBytes(a.maxKbBytes)} and ${fmtBytes(Math.max(0, a.maxKbBytes - used))} are left.`);
      }
      const file = await tx.knowledgeFile.create({
        data: {
          id: a.fileId,
          knowledgeId: a.knowledgeId,
          name: a.name,
          fileType: a.fileType,
          mimeType: a.mimeType,
          size: BigInt(a.size),
          sha256: a.sha256,
          storageKey: a.storageKey,
          status: "queued",
          embeddingStatus: "pending",
          uploadedById: a.userId,
        },
      });
      await tx.ingestionJob.create({
        data: { id: randomUUID(), knowledgeId: a.knowledgeId, fileId: a.fileId, status: "queued", stage: "queued", percent: 0, message: "Waiting to be parsed" },
      });
      await tx.knowledge.update({ where: { id: a.knowledgeId }, data: { updatedAt: new Date() } });
      return file;
    });
  } catch (e) {
    if (e instanceof Prisma.PrismaClientKnownRequestError && e.code === "P2002") {
      throw new AppError("FILE_DUPLICATE", `"${a.name}" has the same content as a file already in this knowledge base.`);
    }
    throw e;
  }
}
