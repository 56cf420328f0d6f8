/**
 * Typed errors. Domain code throws `new AppError(code, params)`; one table maps
 * each code to the envelope message and HTTP status (docs/design.md §1). Routes never
 * build error strings.
 */
type Params = {
  UNAUTHENTICATED: void;
  INVALID_PARAMS: { reason?: string } | void;
  INVALID_OPTIONS: { reason: string };
  GENERATION_FIELDS_REQUIRED: void;
  INVALID_AI_TYPE: void;
  PROMPT_TOO_LONG: { max: number };
  USER_NOT_FOUND: void;
  INSUFFICIENT_CREDITS: { need: number; have: number };
  UNSUPPORTED_PROVIDER: { aiType: string; provider: string };
  UNSUPPORTED_MODEL: { model: string };
  MODEL_DISABLED: { model: string };
  PLAN_REQUIRED: { model: string };
  GENERATION_NOT_FOUND: void;
  API_KEY_NOT_FOUND: void;
  API_KEY_REVOKED: void;
  API_KEY_LIMIT: { max: number };
  KEY_ID_NOT_FOUND: void;
  RATE_LIMITED: void;
  FORBIDDEN: void;
  NOT_FOUND: void;
  METHOD_NOT_ALLOWED: void;
  BUSY: void;
  INTERNAL: void;
  UNSUPPORTED_TEXT_PROVIDER: { provider: string };
  UPSTREAM_FAILED: { provider: string; status?: number };
  IDEMPOTENCY_MISMATCH: void;
  GENERATION_FINISHED: void;
  WEBHOOK_NOT_FOUND: void;
  DELIVERY_NOT_FOUND: void;
  WEBHOOK_LIMIT: { max: number };
  PRODUCT_NOT_FOUND: void;
  NO_BILLING_ACCOUNT: void;
  BILLING_NOT_CONFIGURED: void;
  WEBHOOK_SIGNATURE: void;
  WEBHOOK_NOT_CONFIGURED: void;
  CROSS_SITE: void;
  KEY_SCOPE_MISSING: { scope: string };
  KEY_CREDIT_LIMIT: { used: number; limit: number; period: string };
  ACCOUNT_SUSPENDED: void;
  FILE_NOT_FOUND: void;
  FILE_PARAMS: { reason?: string } | void;
  FILE_LINK_INVALID: void;
  FILE_REFUSED: { reason: string };
  FILE_TOO_LARGE: { max: number };
  FILE_QUOTA: { quotaMb: number };
  CODE_INVALID: void;
  CODE_USED: void;
  COLLECTION_NOT_FOUND: void;
  COLLECTION_NAME_TAKEN: void;
  COLLECTION_LIMIT: { max: number };
  COLLECTION_FULL: { max: number };
};

export type ErrorCode = keyof Params;

type Rule<C extends ErrorCode> = { status: number; message: (p: Params[C]) => string };

export const ERRORS: { [C in ErrorCode]: Rule<C> } = {
  UNAUTHENTICATED: { status: 200, message: () => "no auth, please sign-in" },
  INVALID_PARAMS: { status: 200, message: (p) => (p?.reason ? `invalid params: ${p.reason}` : "invalid params") },
  // Generate's `options` against the model's catalog entry: size, unknown key, value out of range.
  INVALID_OPTIONS: { status: 200, message: (p) => `invalid params: ${p.reason}` },
  GENERATION_FIELDS_REQUIRED: {
    status: 200,
    message: () => "invalid params: ai_type, provider, model, prompt required",
  },
  INVALID_AI_TYPE: { status: 200, message: () => "invalid params: ai_type must be image or video" },
  PROMPT_TOO_LONG: { status: 200, message: (p) => `invalid params: prompt too long (max ${p.max})` },
  USER_NOT_FOUND: { status: 200, message: () => "user not found" },
  INSUFFICIENT_CREDITS: { status: 200, message: (p) => `insufficient credits: need ${p.need}, have ${p.have}` },
  UNSUPPORTED_PROVIDER: {
    status: 200,
    message: (p) => `Unsupported ${p.aiType === "video" ? "video" : "image"} provider: ${p.provider}`,
  },
  UNSUPPORTED_MODEL: { status: 200, message: (p) => `Unsupported model: ${p.model}` },
  // The operator took the model off sale (docs/catalog.md): nothing is created; tasks already running finish.
  MODEL_DISABLED: { status: 200, message: (p) => `model not available: ${p.model} is disabled` },
  PLAN_REQUIRED: { status: 200, message: (p) => `subscription required: ${p.model} needs an active plan` },
  GENERATION_NOT_FOUND: { status: 200, message: () => "generation not found" },
  API_KEY_NOT_FOUND: { status: 401, message: () => "API key not found" },
  API_KEY_REVOKED: { status: 401, message: () => "API key revoked" },
  API_KEY_LIMIT: { status: 200, message: (p) => `invalid params: at most ${p.max} active API keys per user` },
  // Key management: an unknown key_id, or one of another user (no hint that it exists).
  KEY_ID_NOT_FOUND: { status: 200, message: () => "key not found" },
  RATE_LIMITED: { status: 429, message: () => "Too Many Requests" },
  FORBIDDEN: { status: 200, message: () => "forbidden" },
  NOT_FOUND: { status: 404, message: () => "not found" },
  METHOD_NOT_ALLOWED: { status: 405, message: () => "method not allowed" },
  // The database stayed locked (another process) beyond busy_timeout: nothing was written; retry.
  BUSY: { status: 503, message: () => "service busy, please try again" },
  INTERNAL: { status: 500, message: () => "internal error" },
  UNSUPPORTED_TEXT_PROVIDER: { status: 200, message: (p) => `Unsupported provider: ${p.provider}` },
  // A session request from another site, or not JSON (CSRF; docs/decisions/046-csrf-json-api.md): HTTP 403, like better-auth's origin check.
  CROSS_SITE: { status: 403, message: () => "forbidden: cross-site request" },
  UPSTREAM_FAILED: {
    status: 200,
    message: (p) => `upstream error: ${p.provider}${p.status ? ` answered HTTP ${p.status}` : " failed"}`,
  },
  // The same Idempotency-Key (same user, 24 h) with another body: HTTP 409 (docs/design.md §1, §10).
  IDEMPOTENCY_MISMATCH: {
    status: 409,
    message: () => "invalid params: Idempotency-Key reused with a different request",
  },
  GENERATION_FINISHED: { status: 200, message: () => "generation already finished" },
  WEBHOOK_NOT_FOUND: { status: 200, message: () => "webhook not found" },
  DELIVERY_NOT_FOUND: { status: 200, message: () => "delivery not found" },
  WEBHOOK_LIMIT: { status: 200, message: (p) => `invalid params: at most ${p.max} webhooks per user` },
  // Billing (docs/design.md §9).
  PRODUCT_NOT_FOUND: { status: 200, message: () => "product not found" },
  NO_BILLING_ACCOUNT: { status: 200, message: () => "no subscription to manage" },
  BILLING_NOT_CONFIGURED: {
    status: 503,
    message: () => "payments not configured: set STRIPE_SECRET_KEY (or BILLING_SIMULATED=true)",
  },
  WEBHOOK_SIGNATURE: { status: 400, message: () => "invalid signature" },
  WEBHOOK_NOT_CONFIGURED: { status: 400, message: () => "webhook not configured: set STRIPE_WEBHOOK_SECRET" },
  // Scoped keys and spending caps (docs/decisions/115-scoped-keys-and-caps.md): a missing scope is HTTP 403.
  KEY_SCOPE_MISSING: { status: 403, message: (p) => `forbidden: this key lacks the ${p.scope} scope` },
  KEY_CREDIT_LIMIT: {
    status: 200,
    message: (p) => `key credit limit reached: ${p.used} of ${p.limit} this ${p.period}`,
  },
  // An admin suspended the account (docs/operating.md "Suspending an account"): its sessions and keys, HTTP 403.
  ACCOUNT_SUSPENDED: { status: 403, message: () => "account suspended" },
  // Input files (docs/api.md "Files"): every refusal is a 4xx, so a client's upload code can branch on the status.
  FILE_NOT_FOUND: { status: 404, message: () => "file not found" },
  FILE_PARAMS: { status: 400, message: (p) => (p?.reason ? `invalid params: ${p.reason}` : "invalid params") },
  FILE_LINK_INVALID: { status: 403, message: () => "forbidden: this file link has expired or is not valid" },
  FILE_REFUSED: { status: 400, message: (p) => `invalid file: ${p.reason}` },
  FILE_TOO_LARGE: { status: 413, message: (p) => `invalid file: larger than ${p.max} bytes` },
  FILE_QUOTA: { status: 413, message: (p) => `file storage full: your files may take at most ${p.quotaMb} MB` },
  // Redemption codes (docs/payments.md): unknown, expired, disabled and used-up codes read alike (no oracle).
  CODE_INVALID: { status: 200, message: () => "invalid or expired code" },
  CODE_USED: { status: 200, message: () => "code already redeemed" },
  // Collections (docs/api.md "Collections"): another user's collection reads as one that does not exist.
  COLLECTION_NOT_FOUND: { status: 200, message: () => "collection not found" },
  COLLECTION_NAME_TAKEN: { status: 200, message: () => "you already have a collection with this name" },
  COLLECTION_LIMIT: { status: 200, message: (p) => `too many collections: at most ${p.max}` },
  COLLECTION_FULL: { status: 200, message: (p) => `collection full: at most ${p.max} tasks` },
};

/**
 * Placeholder parameters for each code, so the API reference (/docs,
 * /api/openapi.json) can print every message as a pattern. A new code must add
 * its placeholders here, which keeps the documented list complete.
 */
const P = (name: string) => `<${name}>` as unknown as number & string;
export const ERROR_PLACEHOLDERS: { [C in ErrorCode]: Params[C] } = {
  UNAUTHENTICATED: undefined,
  INVALID_PARAMS: { reason: P("reason") },
  INVALID_OPTIONS: { reason: P("reason") },
  GENERATION_FIELDS_REQUIRED: undefined,
  INVALID_AI_TYPE: undefined,
  PROMPT_TOO_LONG: { max: 4000 },
  USER_NOT_FOUND: undefined,
  INSUFFICIENT_CREDITS: { need: P("needed"), have: P("available") },
  UNSUPPORTED_PROVIDER: { aiType: "video", provider: P("provider") },
  UNSUPPORTED_MODEL: { model: P("model") },
  MODEL_DISABLED: { model: P("model") },
  PLAN_REQUIRED: { model: P("model") },
  GENERATION_NOT_FOUND: undefined,
  API_KEY_NOT_FOUND: undefined,
  API_KEY_REVOKED: undefined,
  API_KEY_LIMIT: { max: 25 },
  KEY_ID_NOT_FOUND: undefined,
  RATE_LIMITED: undefined,
  FORBIDDEN: undefined,
  NOT_FOUND: undefined,
  METHOD_NOT_ALLOWED: undefined,
  INTERNAL: undefined,
  UNSUPPORTED_TEXT_PROVIDER: { provider: P("provider") },
  UPSTREAM_FAILED: { provider: P("provider"), status: 502 },
  CROSS_SITE: undefined,
  BUSY: undefined,
  IDEMPOTENCY_MISMATCH: undefined,
  GENERATION_FINISHED: undefined,
  WEBHOOK_NOT_FOUND: undefined,
  DELIVERY_NOT_FOUND: undefined,
  WEBHOOK_LIMIT: { max: 10 },
  PRODUCT_NOT_FOUND: undefined,
  NO_BILLING_ACCOUNT: undefined,
  BILLING_NOT_CONFIGURED: undefined,
  WEBHOOK_SIGNATURE: undefined,
  WEBHOOK_NOT_CONFIGURED: undefined,
  KEY_SCOPE_MISSING: { scope: P("scope") },
  KEY_CREDIT_LIMIT: { used: P("used"), limit: P("limit"), period: P("period") },
  ACCOUNT_SUSPENDED: undefined,
  FILE_NOT_FOUND: undefined,
  FILE_PARAMS: { reason: P("reason") },
  FILE_LINK_INVALID: undefined,
  FILE_REFUSED: { reason: P("reason") },
  FILE_TOO_LARGE: { max: 20_971_520 },
  FILE_QUOTA: { quotaMb: 500 },
  CODE_INVALID: undefined,
  CODE_USED: undefined,
  COLLECTION_NOT_FOUND: undefined,
  COLLECTION_NAME_TAKEN: undefined,
  COLLECTION_LIMIT: { max: 200 },
  COLLECTION_FULL: { max: 10_000 },
};

/** The reasons INVALID_OPTIONS gives (app/domain/catalog.ts optionsProblem), as patterns for the API reference. */
const OPTION_MESSAGE_PATTERNS = [
  "options must be an object",
  "options must be at most 8192 bytes of JSON",
  "options.<key> is not accepted by <model> (accepted: <keys>)",
  "options.<key> must be <what the model accepts>",
];

/** The reasons any JSON endpoint may give for its body itself (app/http/api.server.ts readJsonBody). */
export const BODY_INVALID_REASONS = [
  "body too large (max 1 MiB)",
  "body is not valid UTF-8",
  "body is not valid JSON",
  "text must not contain NUL characters",
  "body nested too deeply (max 32 levels)",
];

/** Every message pattern a code can produce, with its HTTP status (the API reference's error table). */
export function errorPatterns(code: ErrorCode): { status: number; messages: string[] } {
  const rule = ERRORS[code] as Rule<ErrorCode>;
  const messages = [rule.message(ERROR_PLACEHOLDERS[code] as never)];
  if (code === "INVALID_PARAMS")
    messages.unshift(
      rule.message(undefined as never),
      ...BODY_INVALID_REASONS.map((reason) => rule.message({ reason } as never)),
    );
  if (code === "INVALID_OPTIONS") {
    messages.splice(0, 1, ...OPTION_MESSAGE_PATTERNS.map((reason) => rule.message({ reason } as never)));
  }
  if (code === "UNSUPPORTED_PROVIDER")
    messages.unshift(rule.message({ aiType: "image", provider: P("provider") } as never));
  if (code === "UPSTREAM_FAILED") messages.push(rule.message({ provider: P("provider") } as never));
  return { status: rule.status, messages };
}

export class AppError<C extends ErrorCode = ErrorCode> extends Error {
  readonly code: C;
  readonly params: Params[C];
  /** Extra response headers (Retry-After, rate-limit headers…). */
  headers?: Record<string, string>;

  constructor(code: C, ...params: Params[C] extends void ? [] | [Params[C]] : [Params[C]]) {
    const p = params[0] as Params[C];
    super((ERRORS[code] as Rule<C>).message(p));
    this.name = "AppError";
    this.code = code;
    this.params = p;
  }

  get status(): number {
    return ERRORS[this.code].status;
  }
}

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;

/** postgres.js's own codes for a connection that failed or went away. */
const PG_CONNECTION_CODES = new Set([
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
]);
/** Socket errors while reaching the database server. */
const SOCKET_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/**
 * The database cannot answer right now, and the same request may succeed in a
 * moment: SQLite gave up waiting for a lock (SQLITE_BUSY…, SQLITE_LOCKED), or
 * PostgreSQL is unreachable or restarting (connection refused, reset, ended;
 * SQLSTATE class 08 connection exception, 57P01 admin_shutdown, 57P02
 * crash_shutdown, 57P03 cannot_connect_now, 53300 too many connections).
 * Answered `503 service busy, please try again`; postgres.js reconnects by
 * itself. Drivers' errors may be wrapped (drizzle's query error): causes are followed.
 */
export const isDatabaseBusy = (e: unknown): boolean => {
  for (
    let c = e as { code?: unknown; errno?: unknown; cause?: unknown } | null | undefined, i = 0;
    c && i < 5;
    c = c.cause as typeof c, i++
  ) {
    const code = c.code;
    if (typeof code !== "string") continue;
    if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) return true;
    if (PG_CONNECTION_CODES.has(code) || SOCKET_CODES.has(code)) return true;
    if (/^(08...|57P0[123]|53300)$/.test(code)) return true;
  }
  return false;
};
