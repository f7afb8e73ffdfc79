// Shared request machinery of the model clients: one ModelCall per upstream request links the
// caller's AbortSignal with a timeout, and turns every failure into exactly one of
//   - an AbortError, when the caller aborted (callers must tell a user's stop from an outage);
//   - the client's own error type (built by `makeError`), with a message free of secrets.
// Keys are sent only in the Authorization header and are redacted from anything echoed back.
//
// Requests go through node:http(s) (keep-alive agents) rather than fetch: a streamed answer is
// read as a Node stream instead of through WHATWG streams, which cost the main thread 2–3× the
// CPU per stream (50 concurrent answers: ~80–100 ms of CPU against ~30–50 ms warm, 260 against
// 110 ms on a fresh process; docs/benchmarks.md). Redirects are not followed (a 3xx is a failure).
import http from "node:http";
import https from "node:https";

export const DEFAULT_MODEL_TIMEOUT_MS = 60_000;

export interface ModelCallOptions {
  /** Used as the message prefix, e.g. "Chat model". */
  label: string;
  url: string;
  apiKey?: string;
  signal?: AbortSignal;
  timeoutMs?: number;
  makeError: (message: string, details: { status?: number; endpoint: string }) => Error;
}

/**
 * What a user is told when a model call fails: which model and the HTTP status, never the
 * endpoint (an internal address) or the provider's reply, which go to the server log.
 */
export function modelUnavailableMessage(what: "answer" | "embedding" | "rerank", status?: number): string {
  const base = `The ${what} model is unavailable`;
  return status ? `${base} (it answered HTTP ${status}). Try again later or ask the operator to check it.` : `${base}. Try again later or ask the operator to check it.`;
}

export function endpointUrl(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, "")}/${path}`;
}

/** Origin + path only: gateways sometimes carry credentials in userinfo or the query string. */
export function describeEndpoint(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return "<invalid URL>";
  }
}

export function redactSecrets(text: string, secrets: ReadonlyArray<string | undefined>): string {
  let out = text;
  for (const s of secrets) if (s && s.length >= 4) out = out.split(s).join("***");
  // Provider error bodies often echo a (partial) key; mask anything key-shaped as well.
  return out.replace(/\b(sk|ak|key)-[A-Za-z0-9_\-*.]{6,}/g, "$1-***");
}

export function abortError(): Error {
  return new DOMException("The operation was aborted.", "AbortError");
}

export function isAbortError(e: unknown): boolean {
  return typeof e === "object" && e !== null && (e as { name?: unknown }).name === "AbortError";
}

/** Errors built by a ModelCall pass through classify() unchanged. */
const ownErrors = new WeakSet<Error>();

/** How long a response may stay open after its stream's end marker before it is cut. */
export const END_GRACE_MS = 1_000;

export class ModelCall {
  readonly endpoint: string;
  private readonly controller = new AbortController();
  private readonly timeoutMs: number;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timedOut = false;
  /** The response was read to its end: its connection is back in the agent's pool. */
  private ended = false;
  private ending = false;
  private readonly onCallerAbort = () => this.controller.abort();

  constructor(private readonly opts: ModelCallOptions) {
    this.endpoint = describeEndpoint(opts.url);
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_MODEL_TIMEOUT_MS;
    if (opts.signal?.aborted) this.controller.abort();
    else opts.signal?.addEventListener("abort", this.onCallerAbort, { once: true });
    this.touch();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Restarts the timeout; streams call it per received chunk so it bounds silence, not length. */
  touch(): void {
    if (this.ending) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort();
    }, this.timeoutMs);
  }

  /**
   * The stream's end marker arrived: a server ends the response right after it. Reading on to
   * that end (rather than stopping, which destroys the socket) keeps the connection for the
   * next call, which then skips a TCP and TLS handshake; a response still open after
   * END_GRACE_MS is cut.
   */
  expectEnd(): void {
    this.ending = true;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.controller.abort(), END_GRACE_MS);
  }

  /**
   * Always called when the call ends. A response read to its end is left alone (its connection
   * is pooled); anything else is aborted, which closes the socket and so cancels the upstream work.
   */
  dispose(): void {
    clearTimeout(this.timer);
    this.opts.signal?.removeEventListener("abort", this.onCallerAbort);
    if (!this.ended) this.controller.abort();
  }

  fail(message: string, status?: number): Error {
    const err = this.opts.makeError(redactSecrets(`${this.opts.label} ${message}`, [this.opts.apiKey]), {
      status,
      endpoint: this.endpoint,
    });
    ownErrors.add(err);
    return err;
  }

  classify(err: unknown): Error {
    if (this.opts.signal?.aborted) return abortError();
    if (err instanceof Error && ownErrors.has(err)) return err;
    if (this.timedOut) return this.fail(`timed out after ${this.timeoutMs} ms without data (${this.endpoint}).`);
    return this.fail(`request to ${this.endpoint} failed: ${networkReason(err)}.`);
  }

  /** POSTs JSON; non-2xx becomes a failure carrying status and a short, redacted body excerpt. */
  async post(body: unknown, accept: string): Promise<ModelResponse> {
    let res: http.IncomingMessage;
    try {
      res = await this.send(JSON.stringify(body), accept);
    } catch (e) {
      throw this.classify(e);
    }
    const status = res.statusCode ?? 0;
    if (status < 200 || status > 299) {
      const text = await readText(res, MAX_ERROR_BODY_BYTES, true).catch(() => "");
      throw this.fail(`returned HTTP ${status} from ${this.endpoint}: ${errorExcerpt(text)}`, status);
    }
    res.once("end", () => {
      this.ended = true;
    });
    return { body: res };
  }

  async readJson(res: ModelResponse): Promise<unknown> {
    let text: string;
    try {
      text = await readText(res.body, MAX_JSON_RESPONSE_BYTES);
    } catch (e) {
      if (e instanceof ResponseTooLarge) throw this.fail(`returned more than ${MAX_JSON_RESPONSE_BYTES / 1024 / 1024} MB (${this.endpoint}).`);
      throw this.classify(e);
    }
    try {
      return JSON.parse(text);
    } catch {
      throw this.fail(`returned a response that is not JSON (${this.endpoint}).`);
    }
  }

  private send(payload: string, accept: string, retried = false): Promise<http.IncomingMessage> {
    let url: URL;
    try {
      url = new URL(this.opts.url);
    } catch {
      return Promise.reject(this.fail(`has an invalid URL (${this.endpoint}).`));
    }
    const client = url.protocol === "https:" ? https : url.protocol === "http:" ? http : null;
    if (!client) return Promise.reject(this.fail(`URL must be http or https (${this.endpoint}).`));
    return new Promise((resolve, reject) => {
      let responded = false;
      const req = client.request(
        url,
        {
          method: "POST",
          signal: this.signal,
          headers: {
            "content-type": "application/json",
            "content-length": Buffer.byteLength(payload),
            accept,
            ...(this.opts.apiKey ? { authorization: `Bearer ${this.opts.apiKey}` } : {}),
          },
        },
        (res) => {
          responded = true;
          resolve(res);
        },
      );
      req.on("error", (err: NodeJS.ErrnoException) => {
        // A pooled connection that the server closed while it sat idle fails before any
        // response: the request never reached the server, so it goes once more on a new
        // connection (the pattern of Node's `request.reusedSocket` documentation).
        const stale = req.reusedSocket && !responded && (err.code === "ECONNRESET" || err.code === "EPIPE");
        if (stale && !retried && !this.signal.aborted) resolve(this.send(payload, accept, true));
        else reject(err);
      });
      req.end(payload);
    });
  }
}

/** An upstream answer with a 2xx status; `body` is read once (streamed or with readJson). */
export interface ModelResponse {
  body: AsyncIterable<Uint8Array>;
}

/** A JSON answer larger than this is refused (an embedding batch is a few MB at most). */
export const MAX_JSON_RESPONSE_BYTES = 32 * 1024 * 1024;
/** Only the start of an error body is read: it is shown as a bounded excerpt anyway. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

class ResponseTooLarge extends Error {}

/**
 * The body as text, at most `maxBytes` of it: past that, reading stops (the stream is destroyed,
 * which closes the connection) and either the text so far is returned (`truncate`) or it fails.
 */
async function readText(body: AsyncIterable<Uint8Array>, maxBytes: number, truncate = false): Promise<string> {
  const decoder = new TextDecoder("utf-8");
  let text = "";
  let bytes = 0;
  for await (const chunk of body) {
    bytes += chunk.byteLength;
    if (bytes > maxBytes) {
      if (truncate) return text + decoder.decode(chunk.subarray(0, chunk.byteLength - (bytes - maxBytes)));
      throw new ResponseTooLarge();
    }
    text += decoder.decode(chunk, { stream: true });
  }
  return text + decoder.decode();
}

function networkReason(err: unknown): string {
  const e = err as { message?: string; cause?: { code?: string; message?: string } } | undefined;
  const cause = e?.cause?.code ?? e?.cause?.message;
  return [e?.message, cause].filter(Boolean).join(": ") || "unknown error";
}

/** The provider's own error message if the body is JSON, else the raw text; bounded either way. */
function errorExcerpt(text: string): string {
  let msg = text;
  try {
    const j = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    const m = typeof j.error === "string" ? j.error : (j.error?.message ?? j.message);
    if (typeof m === "string") msg = m;
  } catch {
    // not JSON: keep the text
  }
  msg = msg.replace(/\s+/g, " ").trim();
  return msg.length > 300 ? `${msg.slice(0, 300)}…` : msg || "(empty body)";
}
