/**
 * The plumbing every JSON endpoint uses: POST only, a size-limited JSON body,
 * zod validation, the caller guard, typed errors mapped once to the envelope.
 *
 *   export const action = api({ auth: "user", body: Schema, handler: ({ caller, input }) => ... });
 *   export const loader = methodNotAllowed;
 */
import { ZodError, type z } from "zod";
import { scopesOf } from "~/domain/api-keys/scopes";
import { readBodyCapped } from "~/lib/body.server";
import { envelopeResponse, errorEnvelopeResponse, okBody, okBodyText } from "~/lib/envelope";
import { AppError, isAppError, isDatabaseBusy } from "~/lib/errors";
import { log } from "~/lib/log.server";
import { requireOwnOrigin, requireSameSiteJson } from "./csrf.server";
import { type Caller, resolveCaller } from "./identity.server";
import { checkRateLimit } from "./rate-limit.server";
import { BASELINE_HEADERS } from "./security-headers.server";
import { getServices, type Services } from "./services.server";

export const MAX_BODY_BYTES = 1024 * 1024;

type AuthMode = "user" | "admin" | "session" | "optional" | "none";

type CallerFor<A extends AuthMode> = A extends "user" | "admin" | "session" ? Caller : Caller | null;

export interface ApiContext<A extends AuthMode, I> {
  request: Request;
  services: Services;
  caller: CallerFor<A>;
  input: I;
}

export interface ApiResult<T> {
  data?: T | null;
  /** The data as JSON text already (the history page): put into the envelope as it is. */
  json?: string;
  message?: string;
  /** A raw response (streams) bypasses the envelope. */
  response?: Response;
}

export interface ApiOptions<A extends AuthMode, S extends z.ZodType | undefined, T> {
  /** The route's own path (its endpoint-table key): rate-limit buckets follow the route, never the spelling of the URL. */
  route: string;
  auth: A;
  /** The body schema; without one the body is not read (spec: "No request body"). */
  body?: S;
  /** GET endpoints (the status stream): `body` then validates the query parameters instead. */
  method?: "POST" | "GET";
  /** Body fields a POST may give in the URL's query instead (task links: `?gen_id=`); the body wins. */
  urlParams?: readonly string[];
  /**
   * A multipart upload (POST /api/files): the handler reads the body itself, and a session request must show an
   * allowed Origin or Referer (a cross-site form may post multipart, which a JSON-only check would let through).
   */
  upload?: boolean;
  /** Maps a failed parse to the endpoint's own error (default: `invalid params`). */
  onInvalid?: (error: z.ZodError, raw: unknown) => AppError;
  handler: (ctx: ApiContext<A, S extends z.ZodType ? z.output<S> : undefined>) => Promise<ApiResult<T>> | ApiResult<T>;
}

/** Response headers the caller's guard wants on every response (rate limits). */
const extraHeaders = new WeakMap<Request, Record<string, string>>();
export function addResponseHeaders(request: Request, headers: Record<string, string>) {
  extraHeaders.set(request, { ...extraHeaders.get(request), ...headers });
}

/** An envelope's headers: the baseline security headers (set here in one go rather than by the server one by one) and the guard's. */
function responseHeaders(request: Request | undefined): Record<string, string> {
  const extra = request && extraHeaders.get(request);
  return extra ? { ...BASELINE_HEADERS, ...extra } : (BASELINE_HEADERS as Record<string, string>);
}

export function errorResponse(error: unknown, request?: Request): Response {
  const headers = responseHeaders(request);
  if (isAppError(error)) {
    return errorEnvelopeResponse(error.code, error.message, {
      status: error.status,
      headers: { ...headers, ...error.headers },
    });
  }
  if (isDatabaseBusy(error)) {
    log.warn("database busy", {
      error: (error as Error).message,
      path: request ? new URL(request.url).pathname : undefined,
    });
    const busy = new AppError("BUSY");
    return errorEnvelopeResponse(busy.code, busy.message, {
      status: busy.status,
      headers: { ...headers, "Retry-After": "1" },
    });
  }
  log.error("unhandled error", { error, path: request ? new URL(request.url).pathname : undefined });
  return errorEnvelopeResponse("INTERNAL", "internal error", { status: 500, headers });
}

/** Reads the exact bytes of the body with the size limit (signature checks need them untouched). */
export async function readRawBody(request: Request): Promise<Uint8Array> {
  const raw = await readBodyCapped(request, MAX_BODY_BYTES);
  if (raw === null) throw new AppError("INVALID_PARAMS", { reason: "body too large (max 1 MiB)" });
  return raw;
}

// Stateless between calls: decode() without `stream` starts afresh each time.
const UTF8 = new TextDecoder("utf-8", { fatal: true });

/** Reads the body as JSON with the size limit; `{}` for an empty body. */
export async function readJsonBody(request: Request): Promise<unknown> {
  const raw = await readRawBody(request);
  if (raw.byteLength === 0) return {};
  let text: string;
  try {
    text = UTF8.decode(raw);
  } catch {
    throw new AppError("INVALID_PARAMS", { reason: "body is not valid UTF-8" });
  }
  if (!text.trim()) return {};
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new AppError("INVALID_PARAMS", { reason: "body is not valid JSON" });
  }
  // PostgreSQL cannot store U+0000 in text (SQLite can): refused up front on both engines, before anything is written.
  // Deep nesting is refused too: code that walks a body recursively (the Idempotency-Key hash)
  // overflowed the stack on 100,000 levels, which fit in 200 KB.
  const problem = bodyProblem(body);
  if (problem === "nul") throw new AppError("INVALID_PARAMS", { reason: "text must not contain NUL characters" });
  if (problem === "depth")
    throw new AppError("INVALID_PARAMS", { reason: `body nested too deeply (max ${MAX_BODY_DEPTH} levels)` });
  return body;
}

/** Levels of objects and arrays a JSON body may nest (the body itself is level 1); no endpoint needs more than 3. */
export const MAX_BODY_DEPTH = 32;

/** One walk (an explicit stack, never recursion) over a parsed body: a NUL in a string or key, or too deep. */
function bodyProblem(body: unknown): "nul" | "depth" | null {
  // Two parallel stacks (value, its depth): no allocation per value on the hot path.
  const values: unknown[] = [body];
  const depths: number[] = [0];
  while (values.length > 0) {
    const v = values.pop();
    const depth = depths.pop()!;
    if (typeof v === "string") {
      if (v.includes("\0")) return "nul";
    } else if (v !== null && typeof v === "object") {
      if (depth >= MAX_BODY_DEPTH) return "depth";
      if (Array.isArray(v)) {
        for (const x of v) values.push(x), depths.push(depth + 1);
      } else {
        for (const k in v) values.push(k, (v as Record<string, unknown>)[k]), depths.push(depth + 1, depth + 1);
      }
    }
  }
  return null;
}

/**
 * Who is calling (a session request must come from our own pages: csrf.server.ts),
 * then the caller's rate limit (headers on every response of a
 * limited caller, 429 when over), then what the endpoint's mode requires. A
 * present `X-API-Key` is the caller (401 when bad); it never falls back to the
 * session.
 */
async function guard(
  mode: AuthMode,
  route: string,
  request: Request,
  services: Services,
  upload = false,
): Promise<Caller | null> {
  if (mode === "none") return null;
  const caller = await resolveCaller(request, services);
  if (caller?.via === "session")
    upload ? requireOwnOrigin(request, services.config) : requireSameSiteJson(request, services.config);
  if (caller) {
    const limit = await checkRateLimit(route, services, caller);
    if (limit) {
      addResponseHeaders(request, limit.headers);
      if (!limit.allowed) throw new AppError("RATE_LIMITED");
    }
  }
  if (caller) requireScope(caller, route);
  if (mode === "optional") return caller;
  if (!caller) throw new AppError("UNAUTHENTICATED");
  if (mode === "admin" && !caller.isAdmin) throw new AppError("FORBIDDEN");
  // Key management is for people in the browser: a key must not manage keys.
  if (mode === "session" && caller.via !== "session") throw new AppError("FORBIDDEN");
  return caller;
}

/** A scoped key must hold every scope the route needs (scopes.ts): HTTP 403, before anything is done. */
export function requireScope(caller: Pick<Caller, "scopes">, route: string): void {
  if (!caller.scopes) return;
  for (const needed of scopesOf(route))
    if (!caller.scopes.includes(needed)) throw new AppError("KEY_SCOPE_MISSING", { scope: needed });
}

export function api<A extends AuthMode, S extends z.ZodType | undefined = undefined, T = unknown>(
  opts: ApiOptions<A, S, T>,
) {
  return async ({ request }: { request: Request }): Promise<Response> => {
    try {
      const method = opts.method ?? "POST";
      if (request.method !== method) throw methodError(method);
      const services = getServices();
      const caller = await guard(opts.auth, opts.route, request, services, opts.upload);
      let input: unknown;
      if (opts.body) {
        const raw =
          method === "GET" ? Object.fromEntries(new URL(request.url).searchParams) : await readJsonBody(request);
        if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
          throw opts.onInvalid?.(new ZodError([]), raw) ?? new AppError("INVALID_PARAMS");
        }
        if (opts.urlParams && method === "POST") {
          const params = new URL(request.url).searchParams;
          for (const name of opts.urlParams) {
            const v = params.get(name);
            if (v !== null && (raw as Record<string, unknown>)[name] === undefined)
              (raw as Record<string, unknown>)[name] = v;
          }
        }
        const parsed = opts.body.safeParse(raw);
        if (!parsed.success) throw opts.onInvalid?.(parsed.error, raw) ?? new AppError("INVALID_PARAMS");
        input = parsed.data;
      }
      const result = await opts.handler({ request, services, caller, input } as never);
      if (result.response) {
        for (const [k, v] of Object.entries(extraHeaders.get(request) ?? {})) result.response.headers.set(k, v);
        return result.response;
      }
      const body =
        result.json !== undefined
          ? okBodyText(result.json, result.message)
          : okBody(result.data ?? null, result.message ?? "ok");
      return envelopeResponse(body, { headers: responseHeaders(request) });
    } catch (error) {
      return errorResponse(error, request);
    }
  };
}

function methodError(allow: "POST" | "GET" = "POST"): AppError {
  const e = new AppError("METHOD_NOT_ALLOWED");
  e.headers = { Allow: allow };
  return e;
}

/** Loader for POST-only resource routes: GET/HEAD answer 405 in the envelope. */
export async function methodNotAllowed({ request }: { request: Request }): Promise<Response> {
  return errorResponse(methodError(), request);
}
