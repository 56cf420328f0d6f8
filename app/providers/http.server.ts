/**
 * The HTTP plumbing every real adapter shares: one JSON call with a per-request
 * timeout, the mapping of upstream statuses to ProviderError kinds, bounded
 * retry of *create* calls where no duplicate upstream job can result, and the
 * download of result URLs (upstream URLs expire: Atelier stores the bytes).
 */

import { BodyTooLarge, OutboundRefused, type Resolver, readCapped, safeFetch } from "~/lib/outbound.server";
import type { ProviderName } from "./offering";
import { ProviderError, type ResultAsset } from "./types";

export const LABELS: Record<ProviderName, string> = {
  openai: "OpenAI",
  replicate: "Replicate",
  kling: "Kling",
  runway: "Runway",
  fal: "fal",
  google: "Google",
};

/** Tunables an adapter takes besides Config; tests shorten them. */
export interface AdapterOptions {
  /** Per HTTP request (headers and body), ms. */
  timeoutMs?: number;
  /** Retry of create calls on 429 / connection refused. */
  retry?: Partial<RetryPolicy>;
}

export interface RetryPolicy {
  /** Total attempts, first one included. */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 3, baseDelayMs: 500, maxDelayMs: 8_000 };
export const DEFAULT_TIMEOUT_MS = 30_000;

/** An upstream answer that was not a success, with what the retry helper needs. */
export class UpstreamError extends ProviderError {
  /** From Retry-After, when the provider sent one. */
  retryAfterMs?: number;
  /** The request never reached the provider (connection refused, DNS): a retry cannot duplicate a job. */
  notSent = false;
}

export interface CallContext {
  provider: ProviderName;
  /** The env var(s) an operator fixes on an auth failure, for the log hint. */
  credentialVar: string;
  timeoutMs: number;
}

export interface JsonReply {
  status: number;
  headers: Headers;
  /** Parsed body; `undefined` when the body was empty or not JSON (only possible for non-2xx replies). */
  json: unknown;
  text: string;
}

const CONNECT_FAILURES = new Set(["ConnectionRefused", "ECONNREFUSED", "FailedToOpenSocket", "ENOTFOUND", "EAI_AGAIN"]);

/** Whether an error (or one of its causes) says the connection was never made. */
export function isConnectFailure(err: unknown): boolean {
  const seen = new Set<unknown>();
  let cur: any = err;
  while (cur && typeof cur === "object" && !seen.has(cur)) {
    seen.add(cur);
    if (typeof cur.code === "string" && CONNECT_FAILURES.has(cur.code)) return true;
    cur = cur.cause;
  }
  return false;
}

/** The caller's signal combined with a per-request timeout; tells the two apart afterwards. */
export function deadline(signal: AbortSignal, timeoutMs: number) {
  const timer = AbortSignal.timeout(timeoutMs);
  return { signal: AbortSignal.any([signal, timer]), timedOut: () => timer.aborted && !signal.aborted };
}

/**
 * One HTTP request to a provider. Throws ProviderError for a timeout, a
 * network failure or an unreadable 2xx body; returns non-2xx replies for the
 * adapter to classify (each provider words its errors differently). An abort
 * by the caller's own signal rethrows the caller's reason.
 */
export async function callJson(
  ctx: CallContext,
  req: {
    method: "GET" | "POST" | "PUT" | "DELETE";
    url: string;
    headers: Record<string, string>;
    body?: unknown;
    signal: AbortSignal;
  },
): Promise<JsonReply> {
  const label = LABELS[ctx.provider];
  const d = deadline(req.signal, ctx.timeoutMs);
  let res: Response;
  let text: string;
  try {
    res = await fetch(req.url, {
      method: req.method,
      headers: {
        accept: "application/json",
        ...(req.body !== undefined ? { "content-type": "application/json" } : {}),
        ...req.headers,
      },
      body: req.body === undefined ? undefined : JSON.stringify(req.body),
      signal: d.signal,
      redirect: "follow",
    });
    text = await res.text();
  } catch (err) {
    if (req.signal.aborted) throw req.signal.reason ?? err;
    if (d.timedOut()) {
      throw new UpstreamError("timeout", `${label} did not answer in time`, {
        retryable: true,
        operatorHint: `${req.method} ${redact(req.url)} took longer than ${ctx.timeoutMs} ms`,
        cause: err,
      });
    }
    const e = new UpstreamError("network", `could not reach ${label}`, {
      retryable: true,
      operatorHint: `${req.method} ${redact(req.url)} failed: ${(err as Error)?.message ?? String(err)}`,
      cause: err,
    });
    e.notSent = isConnectFailure(err);
    throw e;
  }
  let json: unknown;
  if (text.trim() !== "") {
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
  }
  // 204 No Content (Runway's task delete) is a success without a body.
  if (res.ok && res.status !== 204 && (json === undefined || json === null || typeof json !== "object")) {
    throw new UpstreamError("bad_response", `${label} sent an unreadable response`, {
      status: res.status,
      operatorHint: `${req.method} ${redact(req.url)} answered HTTP ${res.status} with a body that is not a JSON object: ${text.slice(0, 200)}`,
    });
  }
  return { status: res.status, headers: res.headers, json, text };
}

/** The most useful human-readable error text in a provider's error body. */
export function errorDetail(reply: JsonReply): string {
  const j = reply.json as any;
  const candidates = [
    typeof j?.error === "string" ? j.error : j?.error?.message,
    j?.detail,
    j?.message,
    j?.failure,
    j?.title,
  ];
  const found = candidates.find((c) => typeof c === "string" && c.trim() !== "");
  return (found ?? (reply.text.trim() || `HTTP ${reply.status}`)).slice(0, 300);
}

export function parseRetryAfter(headers: Headers, now = Date.now()): number | undefined {
  const v = headers.get("retry-after");
  if (!v) return undefined;
  if (/^\d+(\.\d+)?$/.test(v.trim())) return Math.round(Number(v) * 1000);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * Classifies a non-2xx reply. `create` says the request may have started a
 * paid upstream job: a 5xx then is not retryable (the job may exist).
 */
export function statusError(
  ctx: CallContext,
  reply: JsonReply,
  opts: { create: boolean; detail?: string; what: string },
): UpstreamError {
  const label = LABELS[ctx.provider];
  const detail = opts.detail ?? errorDetail(reply);
  const s = reply.status;
  const hint = `${opts.what}: HTTP ${s}: ${detail}`;
  let e: UpstreamError;
  if (s === 401 || s === 403) {
    e = new UpstreamError("auth", `${label} rejected the request credentials`, {
      status: s,
      retryable: false,
      operatorHint: `${hint} — check ${ctx.credentialVar}`,
    });
  } else if (s === 429) {
    e = new UpstreamError("rate_limit", `${label} is busy (rate limited); try again later`, {
      status: s,
      retryable: true,
      operatorHint: hint,
    });
    e.retryAfterMs = parseRetryAfter(reply.headers);
  } else if (s >= 500) {
    e = new UpstreamError("server", `${label} had a server error`, {
      status: s,
      retryable: !opts.create,
      operatorHint: opts.create ? `${hint} (not retried: the upstream job may exist)` : hint,
    });
  } else if (s === 408) {
    e = new UpstreamError("timeout", `${label} did not answer in time`, {
      status: s,
      retryable: !opts.create,
      operatorHint: hint,
    });
  } else {
    e = new UpstreamError("bad_request", `${label} rejected the request: ${detail}`, {
      status: s,
      retryable: false,
      operatorHint: hint,
    });
  }
  return e;
}

export function badResponse(ctx: CallContext, what: string, body: unknown): UpstreamError {
  return new UpstreamError("bad_response", `${LABELS[ctx.provider]} sent an unexpected response`, {
    retryable: false,
    operatorHint: `${what}: unexpected shape: ${JSON.stringify(body)?.slice(0, 300)}`,
  });
}

/** Sleeps, waking early (and throwing) when the signal aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Retries a create call when, and only when, no duplicate upstream job can
 * result: a 429 (the provider refused the request) or a connection that was
 * never made. Backoff doubles from `baseDelayMs` with jitter, honours
 * Retry-After, and is capped by `maxDelayMs`.
 */
export async function retryCreate<T>(policy: RetryPolicy, signal: AbortSignal, fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      const retry =
        err instanceof UpstreamError &&
        ((err.kind === "rate_limit" && err.retryable) || (err.kind === "network" && err.notSent));
      if (!retry || attempt >= policy.attempts) throw err;
      const backoff = policy.baseDelayMs * 2 ** (attempt - 1) * (0.75 + Math.random() * 0.5);
      const wait = Math.min(policy.maxDelayMs, Math.max(backoff, (err as UpstreamError).retryAfterMs ?? 0));
      await sleep(wait, signal);
    }
  }
}

export function resolveOptions(opts: AdapterOptions | undefined, defaultTimeoutMs = DEFAULT_TIMEOUT_MS) {
  return {
    timeoutMs: opts?.timeoutMs ?? defaultTimeoutMs,
    retry: { ...DEFAULT_RETRY, ...opts?.retry },
  };
}

/** Drops query strings (signed URLs carry credentials) from URLs that go to logs. */
export function redact(url: string): string {
  const i = url.indexOf("?");
  return i === -1 ? url : `${url.slice(0, i)}?…`;
}

/** Per result file: a video may be large; an image over 64 MiB is not a real result. */
export const MAX_DOWNLOAD_BYTES = 512 * 1024 * 1024;
export const MAX_IMAGE_BYTES = 64 * 1024 * 1024;
/** Result files stored per task; a provider answering more gets the first ones kept. */
export const MAX_ASSETS_PER_TASK = 8;

/** Guesses a media type from the first bytes (PNG, JPEG, WebP, GIF, MP4/MOV, WebM). */
export function sniffContentType(b: Uint8Array): string | undefined {
  const at = (i: number, ...xs: number[]) => xs.every((x, k) => b[i + k] === x);
  if (at(0, 0x89, 0x50, 0x4e, 0x47)) return "image/png";
  if (at(0, 0xff, 0xd8, 0xff)) return "image/jpeg";
  if (at(0, 0x52, 0x49, 0x46, 0x46) && at(8, 0x57, 0x45, 0x42, 0x50)) return "image/webp";
  if (at(0, 0x47, 0x49, 0x46, 0x38)) return "image/gif";
  if (at(4, 0x66, 0x74, 0x79, 0x70)) return at(8, 0x71, 0x74) ? "video/quicktime" : "video/mp4";
  if (at(0, 0x1a, 0x45, 0xdf, 0xa3)) return "video/webm";
  return undefined;
}

/**
 * The bytes of a result asset. URL assets are downloaded through the safe
 * outbound fetch (every hop's address checked, redirects bounded, bytes
 * counted while streaming against `maxBytes`); the content type comes from the
 * asset, else the response header, else the bytes themselves.
 */
export async function downloadAsset(
  asset: ResultAsset,
  signal: AbortSignal,
  opts: { timeoutMs?: number; maxBytes?: number; allowPrivate?: boolean; resolve?: Resolver } = {},
): Promise<{ bytes: Uint8Array; contentType: string }> {
  if (asset.kind === "bytes") return { bytes: asset.bytes, contentType: asset.contentType };
  const timeoutMs = opts.timeoutMs ?? 300_000;
  const maxBytes = opts.maxBytes ?? MAX_DOWNLOAD_BYTES;
  const d = deadline(signal, timeoutMs);
  const where = `GET ${redact(asset.url)}`;
  let res: Response;
  let bytes: Uint8Array;
  try {
    res = await safeFetch(asset.url, {
      signal: d.signal,
      allowPrivate: opts.allowPrivate,
      resolve: opts.resolve,
      maxRedirects: 3,
    });
    if (!res.ok) {
      await res.body?.cancel().catch(() => {});
      throw new ProviderError(
        res.status >= 500 || res.status === 429 ? "server" : "bad_response",
        "the result file could not be downloaded",
        {
          status: res.status,
          retryable: res.status >= 500 || res.status === 429,
          operatorHint: `${where}: HTTP ${res.status}`,
        },
      );
    }
    bytes = await readCapped(res, maxBytes);
  } catch (err) {
    if (err instanceof ProviderError) throw err;
    if (err instanceof OutboundRefused) {
      throw new ProviderError("bad_response", "the result file could not be downloaded", {
        retryable: false,
        operatorHint: `${where}: refused: ${err.message}${err.url !== asset.url ? ` (at ${redact(err.url)})` : ""} — OUTBOUND_ALLOW_PRIVATE admits private addresses (fakes, tests)`,
      });
    }
    if (err instanceof BodyTooLarge) {
      throw new ProviderError("bad_response", "the result file is too large", {
        retryable: false,
        operatorHint: `${where}: more than ${maxBytes} bytes`,
      });
    }
    if (signal.aborted) throw signal.reason ?? err;
    throw new ProviderError(d.timedOut() ? "timeout" : "network", "the result file could not be downloaded", {
      retryable: true,
      operatorHint: `${where}: ${(err as Error)?.message ?? String(err)}`,
      cause: err,
    });
  }
  if (bytes.byteLength === 0) {
    throw new ProviderError("bad_response", "the result file is empty", {
      retryable: true,
      operatorHint: `${where}: 0 bytes`,
    });
  }
  const header = res.headers.get("content-type")?.split(";")[0]?.trim();
  const generic = !header || header === "application/octet-stream" || header === "binary/octet-stream";
  const contentType =
    asset.contentType ?? (generic ? undefined : header) ?? sniffContentType(bytes) ?? "application/octet-stream";
  return { bytes, contentType };
}
