import "server-only";
import { randomUUID } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { AppError, isAppError } from "@/lib/errors";
import { originalMissing, storageKeyFor, storagePath, type OriginalStorage, type StoredOriginal } from "./storage";

// Originals in an S3-compatible bucket (STORAGE=s3), so that every instance serves every file.
// The object key is S3_PREFIX + storage_key ("originals/<kb_id>/<file id>"). Uploads are staged
// in a local temp file first (hashed, sniffed, checked), then streamed into the bucket with
// lib-storage (multipart above 5 MB: nothing is held whole in memory); a failed upload aborts
// its multipart upload, and the object is deleted too in case the server stored it before the
// connection broke. Parsers read files, so a job downloads its original to a temp file.

export interface S3StorageConfig {
  endpoint?: string;
  region: string;
  bucket: string;
  prefix: string;
  accessKeyId: string;
  secretAccessKey: string;
  forcePathStyle: boolean;
}

interface SdkError {
  name?: string;
  code?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number };
}

function status(e: unknown): number | undefined {
  return (e as SdkError)?.$metadata?.httpStatusCode;
}

function isNotFound(e: unknown): boolean {
  const name = (e as SdkError)?.name;
  return name === "NoSuchKey" || name === "NotFound" || status(e) === 404;
}

/** What went wrong, for logs and operators: the S3 error name and status, or the network error. */
export function describeS3Error(e: unknown): string {
  const err = e as SdkError;
  const st = status(e);
  if (st === 403) return `the credentials were refused (HTTP 403${err.name && err.name !== "Unknown" ? ` ${err.name}` : ""})`;
  if (st) return `${err.name ?? "error"} (HTTP ${st})`;
  return err.code ?? err.message ?? String(e);
}

export class S3Storage implements OriginalStorage {
  readonly kind = "s3" as const;
  private readonly client: S3Client;

  constructor(private readonly cfg: S3StorageConfig) {
    this.client = new S3Client({
      endpoint: cfg.endpoint,
      region: cfg.region,
      forcePathStyle: cfg.forcePathStyle,
      credentials: { accessKeyId: cfg.accessKeyId, secretAccessKey: cfg.secretAccessKey },
      // Checksums only where the API requires them: several S3-compatible servers reject the
      // SDK's newer default (CRC32 trailers on every upload).
      requestChecksumCalculation: "WHEN_REQUIRED",
      responseChecksumValidation: "WHEN_REQUIRED",
      maxAttempts: 3,
      // A dead endpoint fails in seconds, not at the OS's connect timeout.
      requestHandler: { connectionTimeout: 5_000, requestTimeout: 60_000 },
    });
  }

  private objectKey(storageKey: string): string {
    storagePath(storageKey, "/"); // validates "<id>/<id>"
    return this.cfg.prefix + storageKey;
  }

  private where(): string {
    return `bucket "${this.cfg.bucket}" at ${this.cfg.endpoint ?? "AWS S3"}`;
  }

  async check(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.cfg.bucket }));
      // Writable with these credentials (a read-only key would fail every upload later).
      const probe = `${this.cfg.prefix}.ka-probe-${randomUUID()}`;
      await this.client.send(new PutObjectCommand({ Bucket: this.cfg.bucket, Key: probe, Body: "probe" }));
      await this.client.send(new DeleteObjectCommand({ Bucket: this.cfg.bucket, Key: probe }));
    } catch (e) {
      const why = status(e) === 404 ? "it does not exist" : describeS3Error(e);
      throw new Error(`STORAGE=s3: cannot use ${this.where()}: ${why}. Check S3_ENDPOINT, S3_BUCKET, S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY.`);
    }
  }

  private unavailable(action: string, e: unknown): AppError {
    console.error(`[storage] ${action} failed on ${this.where()}: ${describeS3Error(e)}`);
    return new AppError("STORAGE_UNAVAILABLE");
  }

  /** Like the local rename, the temp file is consumed: removed once the object is stored. */
  async commit(tempPath: string, knowledgeId: string, fileId: string): Promise<string> {
    const key = await this.upload(storageKeyFor(knowledgeId, fileId), () => createReadStream(tempPath));
    await rm(tempPath, { force: true });
    return key;
  }

  async put(knowledgeId: string, fileId: string, data: Uint8Array): Promise<string> {
    return this.upload(storageKeyFor(knowledgeId, fileId), () => Buffer.from(data));
  }

  private async upload(storageKey: string, body: () => Readable | Buffer): Promise<string> {
    const Key = this.objectKey(storageKey);
    try {
      await new Upload({
        client: this.client,
        params: { Bucket: this.cfg.bucket, Key, Body: body(), ContentType: "application/octet-stream" },
        leavePartsOnError: false,
      }).done();
      return storageKey;
    } catch (e) {
      // The server may have stored the object before the reply was lost; a delete that fails
      // too leaves it to the orphan sweep (no row refers to it).
      await this.client.send(new DeleteObjectCommand({ Bucket: this.cfg.bucket, Key })).catch(() => {});
      throw this.unavailable(`upload of ${storageKey}`, e);
    }
  }

  async openRead(storageKey: string): Promise<Readable> {
    try {
      const res = await this.client.send(new GetObjectCommand({ Bucket: this.cfg.bucket, Key: this.objectKey(storageKey) }));
      if (!res.Body) throw originalMissing(storageKey);
      return res.Body as Readable;
    } catch (e) {
      if (isAppError(e)) throw e;
      if (isNotFound(e)) throw originalMissing(storageKey);
      throw this.unavailable(`download of ${storageKey}`, e);
    }
  }

  async withLocalFile<T>(storageKey: string, fn: (filePath: string) => Promise<T>): Promise<T> {
    const body = await this.openRead(storageKey);
    const dir = await mkdtemp(path.join(tmpdir(), "ka-original-"));
    try {
      const p = path.join(dir, "original");
      try {
        await pipeline(body, createWriteStream(p, { mode: 0o600 }));
      } catch (e) {
        throw this.unavailable(`download of ${storageKey}`, e);
      }
      return await fn(p);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  async delete(storageKey: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.cfg.bucket, Key: this.objectKey(storageKey) }));
  }

  async deleteKnowledge(knowledgeId: string): Promise<void> {
    storageKeyFor(knowledgeId, "x");
    const keys: string[] = [];
    for await (const o of this.listUnder(`${this.cfg.prefix}${knowledgeId}/`)) keys.push(o.key);
    // One by one (a few at a time): DeleteObjects needs a Content-MD5 that not every
    // S3-compatible server checks the same way, and a KB holds at most a few thousand files.
    for (let i = 0; i < keys.length; i += 8) await Promise.all(keys.slice(i, i + 8).map((k) => this.delete(k)));
  }

  close(): void {
    this.client.destroy();
  }

  list(): AsyncIterable<StoredOriginal> {
    return this.listUnder(this.cfg.prefix);
  }

  private async *listUnder(prefix: string): AsyncIterable<StoredOriginal> {
    let token: string | undefined;
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.cfg.bucket, Prefix: prefix, ContinuationToken: token }));
      for (const o of page.Contents ?? []) {
        const key = o.Key?.slice(this.cfg.prefix.length);
        if (!key || !/^[A-Za-z0-9_-]{1,100}\/[A-Za-z0-9_-]{1,100}$/.test(key)) continue; // probes, foreign objects
        yield { key, modifiedAt: o.LastModified ?? new Date(0) };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }
}
