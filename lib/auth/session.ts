import "server-only";
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { getDb } from "@/lib/db/client";
import { getEnv } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { acceptInvitations } from "./members";
import { hashPassword, verifyPassword } from "./password";

export const SESSION_COOKIE = "ka_session";
const SESSION_TTL_MS = 30 * 24 * 3600 * 1000;
export const LOCAL_OWNER_ID = "local-owner";

export type TokenScope = "full" | "read";
export const TOKEN_SCOPES = ["full", "read"] as const;

/** What an API token may do (set when the token was made; issue 17). */
export interface TokenGrant {
  id: string;
  /** "read": only the retrieval endpoints (provider retrieve, MCP tools); "full": acts as its user. */
  scope: TokenScope;
  /** KB ids the token is narrowed to; empty = every KB its user can read. */
  knowledgeIds: string[];
}

export interface Principal {
  user: { id: string; email: string; name: string };
  /** "local" in local mode, "token:<id>" for API tokens, otherwise the session row id. */
  sessionId: string;
  /** Present when the caller authenticated with an API token. */
  token?: TokenGrant;
}

/** A token that may only call the retrieval endpoints: read scope, or narrowed to chosen KBs. */
export function isLimitedToken(p: Principal): boolean {
  return !!p.token && (p.token.scope !== "full" || p.token.knowledgeIds.length > 0);
}

const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");

function readCookie(request: Request, name: string): string | undefined {
  const header = request.headers.get("cookie");
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k !== name) continue;
    // A broken %-escape is a cookie we did not set: treat it as no session, not a server error.
    try {
      return decodeURIComponent(v.join("="));
    } catch {
      return undefined;
    }
  }
  return undefined;
}

// The local owner row is created once per database; every request after that reuses it
// instead of writing (an upsert is a commit, and on PGlite commits are the expensive part).
const localOwners = new WeakMap<object, Promise<{ id: string; email: string; name: string }>>();

export async function ensureLocalOwner() {
  const db = await getDb();
  let owner = localOwners.get(db);
  if (!owner) {
    const upsert = () =>
      db.user.upsert({
        where: { id: LOCAL_OWNER_ID },
        update: {},
        create: { id: LOCAL_OWNER_ID, email: "owner@localhost", name: "Local owner" },
      });
    // Prisma's upsert is a read then an insert: two instances starting together on one
    // PostgreSQL server can both insert; the loser reads the winner's row on its second try.
    owner = upsert().catch((e: unknown) => {
      if ((e as { code?: string })?.code === "P2002") return upsert();
      throw e;
    });
    owner.catch(() => localOwners.delete(db));
    localOwners.set(db, owner);
  }
  return owner;
}

/** The signed-in principal, or null. Identity comes only from the cookie or bearer token. */
export async function getPrincipal(request: Request): Promise<Principal | null> {
  const env = getEnv();
  const db = await getDb();
  const auth = request.headers.get("authorization");
  if (auth?.startsWith("Bearer ")) {
    const token = await db.apiToken.findUnique({
      where: { tokenHash: sha256(auth.slice(7).trim()) },
      include: { user: true },
    });
    if (!token || token.revokedAt) return null;
    return {
      user: pick(token.user),
      sessionId: `token:${token.id}`,
      token: { id: token.id, scope: token.scope === "full" ? "full" : "read", knowledgeIds: token.knowledgeIds },
    };
  }
  if (env.AUTH_MODE === "local") {
    return { user: pick(await ensureLocalOwner()), sessionId: "local" };
  }
  const raw = readCookie(request, SESSION_COOKIE);
  if (!raw || raw.length > 200) return null;
  const session = await db.session.findUnique({ where: { id: sha256(raw) }, include: { user: true } });
  if (!session || session.expiresAt.getTime() < Date.now()) return null;
  return { user: pick(session.user), sessionId: session.id };
}

/**
 * The caller, or UNAUTHENTICATED. A limited token (read scope or narrowed to KBs) is refused
 * here unless the route is one of the retrieval endpoints, which pass `allowLimitedToken`: so
 * every other route (all writes included) is closed to it by default, not route by route.
 */
export async function requirePrincipal(request: Request, opts: { allowLimitedToken?: boolean } = {}): Promise<Principal> {
  const p = await getPrincipal(request);
  if (!p) throw new AppError("UNAUTHENTICATED");
  if (!opts.allowLimitedToken && isLimitedToken(p)) {
    throw new AppError("FORBIDDEN", "This API token is limited to retrieval and tools (/v1/provider/retrieve, /v1/provider/documents, /v1/mcp).");
  }
  return p;
}

function pick(u: { id: string; email: string; name: string }) {
  return { id: u.id, email: u.email, name: u.name };
}

function assertPasswordMode() {
  if (getEnv().AUTH_MODE !== "password") {
    throw new AppError("FORBIDDEN", "Accounts are disabled in local mode; you are signed in as the local owner.");
  }
}

/**
 * Creates an account unless the e-mail already has one; either way the caller learns nothing
 * (issue 16, OWASP Authentication Cheat Sheet "account enumeration"): the route answers the
 * same body for both, sets no cookie, and the password is hashed in both cases so the time
 * matches. The person then signs in like anyone else — with an existing account's password
 * only that account's owner can. Returns whether an account was made (for the log and tests
 * of this module, never for the response).
 */
export async function signUp(input: { email: string; password: string; name: string }): Promise<{ created: boolean }> {
  assertPasswordMode();
  const db = await getDb();
  const email = input.email.trim().toLowerCase();
  const passwordHash = await hashPassword(input.password);
  const existing = await db.user.findUnique({ where: { email }, select: { id: true } });
  if (existing) return { created: false };
  try {
    await db.user.create({ data: { id: randomUUID(), email, name: input.name.trim() || email, passwordHash } });
  } catch (e) {
    // Two sign-ups of one e-mail at once: the loser answers like the winner.
    if ((e as { code?: string })?.code === "P2002") return { created: false };
    throw e;
  }
  return { created: true };
}

/** Verifies the password and creates a fresh session; the old one (if any) is revoked (rotation). */
export async function signIn(input: { email: string; password: string }, previousToken?: string) {
  assertPasswordMode();
  const db = await getDb();
  const user = await db.user.findUnique({ where: { email: input.email.trim().toLowerCase() } });
  // Verify against a dummy hash when the user is missing so timing does not reveal accounts.
  const ok = await verifyPassword(user?.passwordHash ?? (await getDummyHash()), input.password);
  if (!user || !user.passwordHash || !ok) throw new AppError("INVALID_CREDENTIALS");
  if (previousToken) await db.session.deleteMany({ where: { id: sha256(previousToken) } });
  const token = randomBytes(32).toString("base64url");
  const expiresAt = new Date(Date.now() + SESSION_TTL_MS);
  await db.session.create({ data: { id: sha256(token), userId: user.id, expiresAt } });
  await acceptInvitations(user);
  return { user: pick(user), token, expiresAt };
}

export async function signOut(token: string | undefined) {
  if (!token) return;
  const db = await getDb();
  await db.session.deleteMany({ where: { id: sha256(token) } });
}

export function sessionTokenFrom(request: Request): string | undefined {
  return readCookie(request, SESSION_COOKIE);
}

export function sessionCookie(request: Request, token: string, expiresAt: Date | null): string {
  const env = getEnv();
  const https =
    request.headers.get("x-forwarded-proto") === "https" ||
    new URL(request.url).protocol === "https:" ||
    (env.PUBLIC_ORIGIN?.startsWith("https:") ?? false);
  const parts = [
    `${SESSION_COOKIE}=${expiresAt ? encodeURIComponent(token) : ""}`,
    "Path=/",
    "HttpOnly",
    "SameSite=Lax",
    expiresAt ? `Expires=${expiresAt.toUTCString()}` : "Max-Age=0",
  ];
  if (https) parts.push("Secure");
  return parts.join("; ");
}

/** Creates an API token for agents and other instances (SPEC §8, §9). Returns the secret once. */
export async function createApiToken(
  userId: string,
  name: string,
  grant: { scope?: TokenScope; knowledgeIds?: string[] } = {},
) {
  const db = await getDb();
  const knowledgeIds = [...new Set(grant.knowledgeIds ?? [])];
  if (knowledgeIds.length) {
    // Only KBs the user can read; another user's id looks missing.
    const found = await db.knowledgeMember.count({ where: { userId, knowledgeId: { in: knowledgeIds } } });
    if (found !== knowledgeIds.length) throw new AppError("KNOWLEDGE_NOT_FOUND");
  }
  const secret = `ka_${randomBytes(24).toString("base64url")}`;
  const row = await db.apiToken.create({
    data: { id: randomUUID(), userId, name, tokenHash: sha256(secret), scope: grant.scope ?? "full", knowledgeIds },
  });
  return { id: row.id, name: row.name, scope: row.scope, knowledge_ids: row.knowledgeIds, token: secret };
}

// A real argon2 hash of a random string, so a missing user costs one verification too.
let dummyHash: Promise<string> | undefined;
function getDummyHash(): Promise<string> {
  dummyHash ??= hashPassword(randomBytes(16).toString("hex"));
  return dummyHash;
}
