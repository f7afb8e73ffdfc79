// An S3-compatible server on loopback for tests (s3rver: real HTTP, real S3 protocol, objects
// on disk in a temp directory), plus a direct client to look into the bucket behind the app's
// back. Started by the tests themselves, like the PostgreSQL cluster is by the test script.
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import S3rver from "s3rver";

export const S3_TEST_KEY = "S3RVER"; // s3rver's built-in access key and secret

export interface TestS3 {
  endpoint: string;
  port: number;
  bucket: string;
  /** STORAGE=s3 and the S3_* variables for an app using this server. */
  env: Record<string, string>;
  client: S3Client;
  keys(prefix?: string): Promise<string[]>;
  get(key: string): Promise<Buffer>;
  put(key: string, body: string | Buffer): Promise<void>;
  remove(key: string): Promise<void>;
  close(): Promise<void>;
}

export async function startTestS3(opts: { bucket?: string; port?: number } = {}): Promise<TestS3> {
  const bucket = opts.bucket ?? "ka-test";
  const dir = mkdtempSync(path.join(tmpdir(), "ka-s3-"));
  const server = new S3rver({ address: "127.0.0.1", port: opts.port ?? 0, silent: true, directory: dir, configureBuckets: [{ name: bucket, configs: [] }] });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({
    endpoint,
    region: "us-east-1",
    forcePathStyle: true,
    credentials: { accessKeyId: S3_TEST_KEY, secretAccessKey: S3_TEST_KEY },
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });
  return {
    endpoint,
    port,
    bucket,
    env: { STORAGE: "s3", S3_ENDPOINT: endpoint, S3_REGION: "us-east-1", S3_BUCKET: bucket, S3_ACCESS_KEY_ID: S3_TEST_KEY, S3_SECRET_ACCESS_KEY: S3_TEST_KEY, S3_PREFIX: "originals/" },
    client,
    async keys(prefix = "") {
      const out: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
        for (const o of page.Contents ?? []) out.push(o.Key!);
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return out.sort();
    },
    async get(key) {
      const res = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      return Buffer.from(await res.Body!.transformToByteArray());
    },
    async put(key, body) {
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
    },
    async remove(key) {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    },
    async close() {
      client.destroy();
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A TCP proxy on loopback in front of a server that cuts every connection after `cutAfter`
 * bytes sent upstream: an object store that fails in the middle of an upload.
 */
export async function startCuttingProxy(targetPort: number, cutAfter: number): Promise<{ endpoint: string; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((down) => {
    const up = net.connect(targetPort, "127.0.0.1");
    sockets.add(down).add(up);
    let sent = 0;
    down.on("data", (d: Buffer) => {
      sent += d.length;
      if (sent > cutAfter) {
        down.destroy();
        up.destroy();
        return;
      }
      up.write(d);
    });
    up.on("data", (d) => down.write(d));
    const end = () => {
      down.destroy();
      up.destroy();
    };
    down.on("error", end).on("close", end);
    up.on("error", end).on("close", end);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as net.AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
