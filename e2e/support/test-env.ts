import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { closeDb } from "@/lib/db/client";
import { resetEnvForTests } from "@/lib/env";
import { closeRetrievalRuntime } from "@/lib/retrieval/runtime";
import { startTestApp, type TestApp } from "./http-app";

/**
 * Starts the route handlers over HTTP on a fresh database: a temp PGlite directory, or — when
 * TEST_DATABASE_URL is set — a fresh schema-less database on that PostgreSQL server, so the same
 * suite runs on both (SPEC §3).
 */
export async function startIntegrationApp(env: Record<string, string> = {}): Promise<TestApp & { dataDir: string }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "ka-int-"));
  const base: Record<string, string | undefined> = {
    DATA_DIR: dataDir,
    AUTH_MODE: "local",
    SEED_SAMPLE: "false",
    DATABASE_URL: undefined,
    AI_CHAT_MODEL: undefined,
    AI_CHAT_BASE_URL: undefined,
    EMBEDDING_MODEL: undefined,
    EMBEDDING_BASE_URL: undefined,
  };
  if (process.env.TEST_DATABASE_URL) base.DATABASE_URL = await freshDatabase(process.env.TEST_DATABASE_URL);
  for (const [k, v] of Object.entries({ ...base, ...env })) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  resetEnvForTests();
  // The provider registry is built from the env: a new app gets a new one.
  await closeRetrievalRuntime();
  await closeDb();
  const app = await startTestApp();
  return {
    ...app,
    dataDir,
    close: async () => {
      await app.close();
      await closeDb();
    },
  };
}

/**
 * A new database on the server of `serverUrl`: a copy of the run's migrated template when there is
 * one, or `{ empty: true }` a database with no tables (a migration test that writes data in an
 * older layout first).
 */
export async function freshDatabase(serverUrl: string, opts: { empty?: boolean } = {}): Promise<string> {
  const name = `ka_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    // A copy of the run's migrated template (e2e/support/temp-dir-setup.ts), when there is one.
    const template = opts.empty ? undefined : process.env.KA_TEST_PG_TEMPLATE;
    await admin.query(template ? `CREATE DATABASE ${name} TEMPLATE ${template}` : `CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A small fetch client that keeps a cookie jar, as a browser would. */
export class Client {
  private cookies = new Map<string, string>();
  constructor(readonly baseUrl: string) {}

  async request(method: string, path: string, body?: unknown, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<Response> {
    const h: Record<string, string> = { ...headers };
    if (this.cookies.size) h.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    let payload: BodyInit | undefined;
    if (body instanceof FormData) payload = body;
    else if (body !== undefined) {
      payload = typeof body === "string" ? body : JSON.stringify(body);
      h["content-type"] ??= "application/json";
    }
    const res = await fetch(this.baseUrl + path, { method, headers: h, body: payload, redirect: "manual", signal });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const [k, ...v] = pair!.split("=");
      const value = v.join("=");
      if (/Max-Age=0/i.test(c) || value === "") this.cookies.delete(k!);
      else this.cookies.set(k!, value);
    }
    return res;
  }

  async json<T = unknown>(method: string, path: string, body?: unknown, headers?: Record<string, string>) {
    const res = await this.request(method, path, body, headers);
    const env = (await res.json()) as { code: 0 | string; msg: string; data: T };
    return { status: res.status, ...env };
  }

  cookie(name: string) {
    return this.cookies.get(name);
  }

  /**
   * Makes an account and signs in with it, as the sign-up page does: sign-up itself answers
   * alike for new and taken e-mails and signs nobody in (issue 16). Returns the sign-in answer.
   */
  async signUp(body: { email: string; password: string; name?: string }, headers?: Record<string, string>) {
    const up = await this.json("POST", "/v1/auth/sign-up", body, headers);
    if (up.code !== 0) return up as unknown as Awaited<ReturnType<typeof this.json<{ user: { id: string; email: string; name: string } }>>>;
    return this.json<{ user: { id: string; email: string; name: string } }>("POST", "/v1/auth/sign-in", { email: body.email, password: body.password }, headers);
  }
}
