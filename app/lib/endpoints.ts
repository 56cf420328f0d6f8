/**
 * The endpoint table: every JSON endpoint with its auth mode, the zod schema
 * that validates its body, the zod schema of its response `data`, and the
 * errors it can answer. API routes take their `auth` and `body` from here, the
 * OpenAPI document (GET /api/openapi.json) and the /docs page are generated
 * from it, and an integration test checks real responses against `response`,
 * so the reference cannot drift from the code.
 *
 * Server-only: it imports the admin schemas (a `.server` module).
 */
import { z } from "zod";
import { CreateSubscriptionSchema, GrantCreditsSchema, ListUsersSchema } from "~/domain/admin/admin.server";
import { REVOKED_KEYS_LISTED_DAYS } from "~/domain/api-keys/keys.server";
import { PLAN_INTERVALS, PRODUCT_KINDS } from "~/domain/billing/products.server";
import { AI_TYPES, CATALOG, describeOptionWithUnit, MAX_OPTIONS_BYTES, PROVIDERS } from "~/domain/catalog";
import { DemoRequestSchema } from "~/domain/demo/schema";
import { INTERVALS } from "~/domain/subscriptions/subscriptions.server";
import { WEBHOOK_EVENTS } from "~/domain/webhooks/events";
import { CATALOG_ENDPOINTS } from "./endpoints-catalog";
import type { ErrorCode } from "./errors";
import { AffiliateSchema, ApiKeyCreateSchema, ApiKeyRevokeSchema, FeedbackSchema } from "./forms";

export type AuthMode = "user" | "admin" | "session" | "optional" | "none";

export interface EndpointDef {
  method: "POST" | "GET";
  /** Also answers this method (health: GET and POST). */
  alsoMethod?: "POST" | "GET";
  tag: "Generation" | "Webhooks" | "Demo" | "Account" | "Billing" | "API keys" | "Admin" | "Service" | "Sign-in";
  summary: string;
  description: string;
  auth: AuthMode;
  /** Spec section or DESIGN section this endpoint implements. */
  source: string;
  /** The schema the route validates the body with (absent: no body is read). */
  body?: z.ZodType;
  /**
   * The documented body, when the route validates in domain code for its own
   * messages (generate: spec 4.1 rule order; history: docs/design.md §1 paging).
   */
  docBody?: z.ZodType;
  /** The `data` of a successful envelope, or the raw body when `envelope` is false. */
  response: z.ZodType;
  /** false: not wrapped in the envelope (streams, better-auth, the OpenAPI document). */
  envelope?: boolean;
  /** Content type of a non-envelope success body. */
  contentType?: string;
  /** Envelope `message` of a success (when fixed). */
  successMessage?: string;
  errors: readonly ErrorCode[];
  example?: Record<string, unknown>;
  /** Request headers the endpoint reads besides auth (Idempotency-Key). */
  headers?: readonly { name: string; description: string; maxLength?: number }[];
  /** Exactly one of these body fields must be given (documented as `oneOf`). */
  exactlyOne?: readonly string[];
  /** Other HTTP answers (better-auth's own errors), by status. */
  extraResponses?: Readonly<Record<string, string>>;
  /** Query parameters (GET endpoints). */
  query?: readonly { name: string; description: string; required: boolean }[];
}

const isoTime = () => z.iso.datetime().describe("ISO 8601 UTC timestamp with milliseconds");

// ---- response schemas (the `data` of a code-0 envelope)

export const UserInfoSchema = z
  .strictObject({
    uuid: z.string().describe("user identifier (UUID)"),
    email: z.string(),
    nickname: z.string(),
    avatar_url: z.string().describe("avatar image URL; empty when none"),
    invite_code: z.string(),
    invited_by: z.string().describe("uuid of the referring user; empty when none"),
    is_affiliate: z.boolean(),
    created_at: isoTime(),
  })
  .describe("User (spec 2.1)");

export const CreditsSchema = z
  .strictObject({
    left_credits: z.int().describe("current available balance"),
    total_credits: z.int().describe("lifetime earned credits"),
  })
  .describe("Credits (spec 2.2)");

export const SubscriptionSchema = z
  .strictObject({
    order_no: z.string(),
    product_id: z.string(),
    product_name: z.string(),
    interval: z.enum(INTERVALS),
    amount: z.int().describe("smallest currency unit (cents)"),
    status: z.string().describe("paid"),
    sub_id: z.string(),
    created_at: isoTime(),
  })
  .describe("Subscription (spec 2.3)");

const GenStatus = z.enum(["pending", "processing", "completed", "failed"]);

const startedAt = () =>
  isoTime()
    .optional()
    .describe("when the job runner first took the task; absent before (additive, docs/design.md §10)");

export const TaskLinksSchema = z
  .strictObject({
    get: z.url().describe("POST here (with the key or session) for the task's status: /api/generator/query?gen_id=…"),
    cancel: z.url().describe("POST here to cancel it: /api/generator/cancel?gen_id=…"),
    stream: z.url().describe("GET: Server-Sent Events of its status"),
    web: z.url().describe("the task's page in the studio"),
  })
  .describe("the task's links (additive; docs/events.md)");
const links = () => TaskLinksSchema.optional();

export const QueryResponseSchema = z
  .discriminatedUnion("status", [
    z.strictObject({ gen_id: z.string(), status: z.literal("pending"), created_at: isoTime(), urls: links() }),
    z.strictObject({
      gen_id: z.string(),
      status: z.literal("processing"),
      created_at: isoTime(),
      started_at: startedAt(),
      urls: links(),
    }),
    z.strictObject({
      gen_id: z.string(),
      status: z.literal("completed"),
      result_urls: z.array(z.url()),
      created_at: isoTime(),
      started_at: startedAt(),
      completed_at: isoTime(),
      urls: links(),
    }),
    z.strictObject({
      gen_id: z.string(),
      status: z.literal("failed"),
      error_message: z.string().describe("`canceled` for a task canceled through /api/generator/cancel"),
      created_at: isoTime(),
      started_at: startedAt(),
      completed_at: isoTime(),
      urls: links(),
    }),
  ])
  .describe("Generation status (spec 4.2): the fields depend on status");

export const HistoryEntrySchema = z.strictObject({
  gen_id: z.string(),
  ai_type: z.enum(AI_TYPES),
  provider: z.string(),
  model: z.string(),
  prompt: z.string(),
  result_urls: z.string().describe('a JSON-encoded array of URLs (spec 2.4), "[]" when none'),
  status: GenStatus,
  credits_cost: z.int().describe("the price; 0 for a failed task"),
  created_at: isoTime(),
  started_at: isoTime().nullable().describe("null until the job runner takes the task (additive, docs/design.md §10)"),
  completed_at: isoTime().nullable().describe("null until the task completes or fails"),
  urls: links(),
});

export const ApiKeyInfoSchema = z.strictObject({
  key_id: z.string(),
  name: z.string(),
  start: z.string().describe("first characters of the key, for recognising it"),
  created_at: isoTime(),
  last_used_at: isoTime().nullable(),
  status: z.enum(["active", "revoked"]),
  revoked_at: isoTime().nullable().describe("when it was revoked; null while active"),
});

export const WebhookSchema = z.strictObject({
  webhook_id: z.string(),
  url: z.url(),
  events: z.array(z.enum(WEBHOOK_EVENTS)),
  description: z.string(),
  status: z
    .enum(["active", "disabled"])
    .describe("disabled after 3 days without a successful delivery; resend re-enables"),
  disabled_reason: z.string().nullable().describe("why the endpoint was disabled; null while active"),
  created_at: isoTime(),
});

const WebhookIdBody = z.strictObject({ webhook_id: z.string().min(1).max(200) });

export const DeliverySchema = z.strictObject({
  delivery_id: z.string(),
  event_id: z.string().describe("the webhook-id header: the same on every retry and resend"),
  type: z.enum(WEBHOOK_EVENTS),
  gen_id: z.string(),
  status: z.enum(["pending", "delivered", "failed"]),
  attempts: z.int(),
  response_status: z.int().nullable().describe("HTTP status of the last attempt; null when none arrived"),
  duration_ms: z.int().nullable(),
  last_error: z.string().nullable(),
  created_at: isoTime(),
  last_attempt_at: isoTime().nullable(),
  next_attempt_at: isoTime().nullable(),
  delivered_at: isoTime().nullable(),
  recent_attempts: z.array(
    z.strictObject({
      attempted_at: isoTime(),
      response_status: z.int().nullable(),
      duration_ms: z.int(),
      error: z.string().nullable(),
    }),
  ),
});

const AdminUserSchema = z.strictObject({
  uuid: z.string(),
  email: z.string(),
  nickname: z.string(),
  created_at: isoTime(),
  left_credits: z.int(),
  total_credits: z.int(),
  tier: z.enum(["admin", "premium", "standard"]),
});

export const ProductSchema = z.strictObject({
  product_id: z.string(),
  name: z.string(),
  kind: z.enum(PRODUCT_KINDS),
  credits: z.int().describe("credits of a pack, or granted each period of a plan"),
  interval: z.enum(PLAN_INTERVALS).nullable().describe("month or year for a subscription; null for a pack"),
  amount: z.int().describe("price in the smallest currency unit (cents)"),
  currency: z.string().describe("ISO 4217, lowercase"),
});

export const CheckoutSchema = z.object({ product_id: z.string().trim().min(1).max(100) });

// ---- documented request bodies where validation happens in domain code

const optionsList = CATALOG.map(
  (o) =>
    `${o.provider} ${o.model} (${o.aiType}): ${
      Object.entries(o.options)
        .map(([k, spec]) => `${k} = ${describeOptionWithUnit(spec)}`)
        .join("; ") || "none"
    }.`,
).join(" ");
const offeringList = CATALOG.map((o) => `${o.aiType} · ${o.provider} · ${o.model} (${o.credits} credits)`).join("; ");

// Not strict: the route ignores fields it does not know (documented as allowed, docs/design.md §10 drift fix).
export const GenerateBodyDoc = z.object({
  ai_type: z.enum(AI_TYPES).describe("image or video"),
  provider: z.enum(PROVIDERS).describe("provider name for that ai_type"),
  model: z
    .string()
    .min(1)
    .describe(
      `model identifier; POST /api/models lists the models on sale now. Offered on a fresh install: ${offeringList}`,
    ),
  prompt: z.string().min(1).max(4000).describe("generation prompt, at most 4000 characters"),
  options: z
    .record(z.string(), z.unknown())
    .optional()
    .describe(
      `model-specific options, at most ${MAX_OPTIONS_BYTES} bytes of JSON; unknown keys are refused. ${optionsList}`,
    ),
});

export const HistoryBodyDoc = z.object({
  page: z.int().min(1).default(1).optional(),
  page_size: z.int().min(1).default(20).optional().describe("over 100 is clamped to 100"),
});

// ---- error sets

const AUTH_ERRORS = [
  "UNAUTHENTICATED",
  "API_KEY_NOT_FOUND",
  "API_KEY_REVOKED",
  "RATE_LIMITED",
] as const satisfies readonly ErrorCode[];
const COMMON = ["METHOD_NOT_ALLOWED", "BUSY", "INTERNAL"] as const satisfies readonly ErrorCode[];

export const GENERATE_MESSAGE = "generation task created; poll /api/generator/query with gen_id";

export const ENDPOINTS = {
  ...CATALOG_ENDPOINTS,
  "/api/generator/generate": {
    method: "POST",
    tag: "Generation",
    summary: "Create a generation task",
    description:
      "Validates the request, checks and reserves credits, and creates a pending task that runs in the background. Credits are deducted only when the task completes. Poll /api/generator/query with the gen_id, follow /api/generator/stream, or receive a webhook.\n\nSafe retries: send an `Idempotency-Key` header (e.g. a UUID). The same key from the same user within 24 h answers the first response again (same gen_id, header `Idempotent-Replayed: true`) and creates or reserves nothing; the same key with a different body answers HTTP 409. Concurrent requests with one key create one task.\n\nTasks that end unpaid (canceled, or failed because the provider refused the prompt or options; never an outage) cost nothing and are bounded: after 100 of them within an hour, generate answers HTTP 429 `Too Many Requests` (with Retry-After) and creates nothing.",
    auth: "user",
    source: "spec 4.1, docs/design.md §10",
    headers: [
      {
        name: "Idempotency-Key",
        description: "1–255 visible ASCII characters; remembered 24 h per user",
        maxLength: 255,
      },
      {
        name: "Prefer",
        description:
          "`wait=N` (1–60) or `wait` (= 60): hold the answer until the task completes or fails, or N seconds pass; the answer then carries the query response's fields (status, result_urls or error_message, created_at, completed_at) plus gen_id and message, and the header `Preference-Applied: wait=N`",
        maxLength: 200,
      },
    ],
    body: z.record(z.string(), z.unknown()),
    docBody: GenerateBodyDoc,
    response: z
      .object({
        gen_id: z.string(),
        status: GenStatus.describe("pending; with `Prefer: wait`, the status when the wait ended"),
        message: z.string(),
        created_at: isoTime().optional().describe("with `Prefer: wait`: the query response's fields"),
        started_at: startedAt(),
        result_urls: z.array(z.url()).optional().describe("with `Prefer: wait`, when completed"),
        error_message: z.string().optional().describe("with `Prefer: wait`, when failed"),
        completed_at: isoTime().optional().describe("with `Prefer: wait`, when finished"),
        urls: links(),
      })
      .describe("Without `Prefer: wait`: gen_id, status pending and message (spec 4.1)"),
    successMessage: GENERATE_MESSAGE,
    errors: [
      ...AUTH_ERRORS,
      "GENERATION_FIELDS_REQUIRED",
      "INVALID_AI_TYPE",
      "UNSUPPORTED_PROVIDER",
      "UNSUPPORTED_MODEL",
      "MODEL_DISABLED",
      "PLAN_REQUIRED",
      "PROMPT_TOO_LONG",
      "INVALID_OPTIONS",
      "INSUFFICIENT_CREDITS",
      "INVALID_PARAMS",
      "IDEMPOTENCY_MISMATCH",
      ...COMMON,
    ],
    example: {
      ai_type: "image",
      provider: "replicate",
      model: "black-forest-labs/flux-schnell",
      prompt: "A red fox in fresh snow",
      options: { aspect_ratio: "16:9", seed: 42 },
    },
  },
  "/api/generator/stream": {
    method: "GET",
    tag: "Generation",
    summary: "Follow a task's status (Server-Sent Events)",
    description:
      "A `text/event-stream`: an `event: status` whose `data` is the query response's data (JSON), sent at once and again on every change, including changes made by other server processes or nodes; the stream closes after the final status (completed or failed). A comment line keeps idle connections open. In a browser: `new EventSource('/api/generator/stream?gen_id=…')` (session cookie); from a script send X-API-Key. Errors before the stream starts are envelope errors (JSON). At most 10 open streams per user per server process: one more answers HTTP 429 (RATE_LIMITED) before the stream starts. A stream also closes after 10 minutes; EventSource reconnects (the stream sends `retry: 1000`) and gets the current status at once.",
    auth: "user",
    source: "docs/design.md §10",
    body: z.strictObject({ gen_id: z.string().min(1).max(200) }),
    query: [{ name: "gen_id", description: "the task to follow", required: true }],
    response: z.string().describe('event: status\\ndata: {"gen_id":"…","status":"processing",…}\\n\\n'),
    envelope: false,
    contentType: "text/event-stream",
    errors: [...AUTH_ERRORS, "GENERATION_NOT_FOUND", "INVALID_PARAMS", ...COMMON],
  },
  "/api/generator/cancel": {
    method: "POST",
    tag: "Generation",
    summary: "Cancel a task",
    description:
      "A pending or processing task ends `failed` with error_message `canceled` and is never charged (a generation.failed webhook follows). For a processing task Atelier also cancels the upstream job where the provider can (Replicate, Runway); for the others it stops polling and ignores a late result. A finished task answers `generation already finished`. A live task already at its provider has been paid for upstream: at most 10 such cancels an hour per user; past that HTTP 429 `Too Many Requests` (with Retry-After) and the task runs on (charged if it completes). Pending tasks cancel freely.",
    auth: "user",
    source: "docs/design.md §10",
    body: z.strictObject({ gen_id: z.string().min(1).max(200) }),
    response: QueryResponseSchema,
    successMessage: "generation canceled",
    errors: [...AUTH_ERRORS, "GENERATION_NOT_FOUND", "GENERATION_FINISHED", "INVALID_PARAMS", ...COMMON],
    example: { gen_id: "6f1c2d3e-…" },
  },
  "/api/generator/query": {
    method: "POST",
    tag: "Generation",
    summary: "Query a task's status",
    description:
      "One task's status with the fields of that status. A failed task is still code 0: the failure is in data.status and data.error_message. Poll about every 3 s; stop after 60 attempts (5 minutes).",
    auth: "user",
    source: "spec 4.2",
    body: z.object({ gen_id: z.string().min(1).max(200) }),
    response: QueryResponseSchema,
    errors: [...AUTH_ERRORS, "GENERATION_NOT_FOUND", "INVALID_PARAMS", ...COMMON],
    example: { gen_id: "6f1c2d3e-…" },
  },
  "/api/generator/history": {
    method: "POST",
    tag: "Generation",
    summary: "List your tasks",
    description: "Your tasks, newest first (created_at, then gen_id, descending), paged.",
    auth: "user",
    source: "spec 4.3",
    body: z.object({ page: z.unknown().optional(), page_size: z.unknown().optional() }),
    docBody: HistoryBodyDoc,
    response: z.strictObject({
      generations: z.array(HistoryEntrySchema),
      total: z.int(),
      page: z.int(),
      page_size: z.int(),
    }),
    errors: [...AUTH_ERRORS, "INVALID_PARAMS", ...COMMON],
    example: { page: 1, page_size: 20 },
  },
  "/api/webhooks/create": {
    method: "POST",
    tag: "Webhooks",
    summary: "Add a webhook endpoint",
    description:
      "Atelier POSTs `generation.completed` and `generation.failed` events (default: both) to the URL, signed per the Standard Webhooks specification. The `secret` (`whsec_…`) is shown here and on rotation only. The URL must resolve to a public address (loopback, private and link-local destinations are refused unless the server runs with WEBHOOK_ALLOW_PRIVATE=true). At most 10 endpoints per user.",
    auth: "user",
    source: "docs/design.md §10",
    body: z.strictObject({
      url: z.string().min(1).max(2000).describe("http(s) URL that receives the POSTs"),
      events: z.array(z.enum(WEBHOOK_EVENTS)).min(1).optional().describe("default: every event type"),
      description: z.string().max(200).optional(),
    }),
    response: WebhookSchema.extend({
      secret: z
        .string()
        .regex(/^whsec_/)
        .describe("the signing secret; shown once"),
    }),
    successMessage: "webhook created",
    errors: [...AUTH_ERRORS, "WEBHOOK_LIMIT", "INVALID_PARAMS", ...COMMON],
    example: {
      url: "https://example.com/atelier-webhooks",
      events: ["generation.completed", "generation.failed"],
      description: "production",
    },
  },
  "/api/webhooks/list": {
    method: "POST",
    tag: "Webhooks",
    summary: "List your webhook endpoints",
    description: "Every endpoint with its status; a disabled one says why. Secrets are not shown. No request body.",
    auth: "user",
    source: "docs/design.md §10",
    response: z.strictObject({ webhooks: z.array(WebhookSchema) }),
    errors: [...AUTH_ERRORS, ...COMMON],
  },
  "/api/webhooks/delete": {
    method: "POST",
    tag: "Webhooks",
    summary: "Delete a webhook endpoint",
    description: "Deletes the endpoint and its queued deliveries.",
    auth: "user",
    source: "docs/design.md §10",
    body: WebhookIdBody,
    response: z.strictObject({ webhook_id: z.string(), deleted: z.literal(true) }),
    successMessage: "webhook deleted",
    errors: [...AUTH_ERRORS, "WEBHOOK_NOT_FOUND", "INVALID_PARAMS", ...COMMON],
    example: { webhook_id: "wh_…" },
  },
  "/api/webhooks/rotate-secret": {
    method: "POST",
    tag: "Webhooks",
    summary: "Rotate an endpoint's secret",
    description:
      "Answers a new secret. For 24 h every delivery carries two signatures (new and old secret, space-separated in webhook-signature), so a receiver can switch without rejecting events.",
    auth: "user",
    source: "docs/design.md §10",
    body: WebhookIdBody,
    response: z.strictObject({
      webhook_id: z.string(),
      secret: z.string().regex(/^whsec_/),
      previous_secret_expires_at: isoTime(),
    }),
    successMessage: "secret rotated",
    errors: [...AUTH_ERRORS, "WEBHOOK_NOT_FOUND", "INVALID_PARAMS", ...COMMON],
    example: { webhook_id: "wh_…" },
  },
  "/api/webhooks/deliveries": {
    method: "POST",
    tag: "Webhooks",
    summary: "An endpoint's delivery log",
    description:
      "The 50 most recent deliveries, newest first: status, attempts, last response code and duration, next retry, and the recent attempts.",
    auth: "user",
    source: "docs/design.md §10",
    body: WebhookIdBody,
    response: z.strictObject({ deliveries: z.array(DeliverySchema) }),
    errors: [...AUTH_ERRORS, "WEBHOOK_NOT_FOUND", "INVALID_PARAMS", ...COMMON],
    example: { webhook_id: "wh_…" },
  },
  "/api/webhooks/resend": {
    method: "POST",
    tag: "Webhooks",
    summary: "Send a delivery again",
    description:
      "Queues the delivery now with the same webhook-id (receivers dedupe on it) and restarts its retry schedule. Resending to a disabled endpoint re-enables it. A delivery being sent right now is not sent a second time concurrently: the attempt in flight finishes and is logged first. At most 100 resends an hour per user; past that HTTP 429 `Too Many Requests` (with Retry-After) and nothing is queued.",
    auth: "user",
    source: "docs/design.md §10",
    body: z.strictObject({ delivery_id: z.string().min(1).max(200) }),
    response: z.strictObject({ delivery_id: z.string(), status: z.literal("pending") }),
    successMessage: "delivery queued",
    errors: [...AUTH_ERRORS, "DELIVERY_NOT_FOUND", "INVALID_PARAMS", ...COMMON],
    example: { delivery_id: "dlv_…" },
  },
  "/api/demo/gen-text": {
    method: "POST",
    tag: "Demo",
    summary: "Demo: generate text",
    description:
      "A whole text reply at once. Free; open in development, in production it needs a session or key unless DEMO_PUBLIC=true, and is rate limited per client.",
    auth: "optional",
    source: "spec 4.4",
    body: DemoRequestSchema,
    response: z.strictObject({
      provider: z.string(),
      model: z.string(),
      mode: z.enum(["live", "simulated"]),
      text: z.string(),
      usage: z.strictObject({
        input_tokens: z.int().nullable(),
        output_tokens: z.int().nullable(),
        total_tokens: z.int().nullable(),
      }),
    }),
    errors: [
      "UNAUTHENTICATED",
      "API_KEY_NOT_FOUND",
      "API_KEY_REVOKED",
      "RATE_LIMITED",
      "INVALID_PARAMS",
      "PROMPT_TOO_LONG",
      "UNSUPPORTED_TEXT_PROVIDER",
      "UNSUPPORTED_MODEL",
      "UPSTREAM_FAILED",
      ...COMMON,
    ],
    example: { provider: "openai", model: "gpt-4o-mini", prompt: "Write a haiku about foxes" },
  },
  "/api/demo/gen-image": {
    method: "POST",
    tag: "Demo",
    summary: "Demo: generate one image",
    description: "One image, stored like generation results. Free; same access rules as the other demo endpoints.",
    auth: "optional",
    source: "spec 4.5",
    body: DemoRequestSchema,
    response: z.strictObject({
      provider: z.string(),
      model: z.string(),
      mode: z.enum(["live", "simulated"]),
      result_urls: z.array(z.url()),
    }),
    errors: [
      "UNAUTHENTICATED",
      "API_KEY_NOT_FOUND",
      "API_KEY_REVOKED",
      "RATE_LIMITED",
      "INVALID_PARAMS",
      "PROMPT_TOO_LONG",
      "UNSUPPORTED_PROVIDER",
      "UNSUPPORTED_MODEL",
      "UPSTREAM_FAILED",
      ...COMMON,
    ],
    example: { provider: "openai", model: "dall-e-3", prompt: "A lighthouse at dusk" },
  },
  "/api/demo/gen-stream-text": {
    method: "POST",
    tag: "Demo",
    summary: "Demo: stream text",
    description:
      "The reply as a plain-text stream of UTF-8 chunks as the model produces them. Errors before the first chunk are envelope errors (JSON).",
    auth: "optional",
    source: "spec 4.6",
    body: DemoRequestSchema,
    response: z.string().describe("streamed text"),
    envelope: false,
    contentType: "text/plain; charset=utf-8",
    errors: [
      "UNAUTHENTICATED",
      "API_KEY_NOT_FOUND",
      "API_KEY_REVOKED",
      "RATE_LIMITED",
      "INVALID_PARAMS",
      "PROMPT_TOO_LONG",
      "UNSUPPORTED_TEXT_PROVIDER",
      "UNSUPPORTED_MODEL",
      "UPSTREAM_FAILED",
      ...COMMON,
    ],
    example: { provider: "openai", model: "gpt-4o-mini", prompt: "Tell a short story" },
  },
  "/api/get-user-info": {
    method: "POST",
    tag: "Account",
    summary: "Your profile",
    description: "The signed-in user's profile. No request body.",
    auth: "user",
    source: "spec 4.7",
    response: UserInfoSchema,
    errors: [...AUTH_ERRORS, ...COMMON],
  },
  "/api/get-user-credits": {
    method: "POST",
    tag: "Account",
    summary: "Your credits",
    description: "Available balance (unexpired grants) and lifetime earned credits. No request body.",
    auth: "user",
    source: "spec 4.8",
    response: CreditsSchema,
    errors: [...AUTH_ERRORS, ...COMMON],
  },
  "/api/get-user-subscription": {
    method: "POST",
    tag: "Account",
    summary: "Your active subscription",
    description: "The active subscription, or data null (code 0) when there is none. No request body.",
    auth: "user",
    source: "spec 4.9",
    response: SubscriptionSchema.nullable(),
    errors: [...AUTH_ERRORS, ...COMMON],
  },
  "/api/ping": {
    method: "POST",
    tag: "Account",
    summary: "Daily check-in",
    description:
      "The first call of a UTC day adds 1 credit (valid 1 year): message `ping ok: 1 credit added`. Later calls that day add nothing: `already pinged today`. Both are code 0.",
    auth: "user",
    source: "spec 4.10",
    response: z.strictObject({
      added: z.boolean(),
      day: z.iso.date().describe("the UTC day, YYYY-MM-DD"),
      left_credits: z.int(),
      total_credits: z.int(),
    }),
    errors: [...AUTH_ERRORS, ...COMMON],
  },
  "/api/update-invite": {
    method: "POST",
    tag: "Account",
    summary: "Switch affiliate status",
    description: "Turns affiliate status on or off; is_affiliate must be a JSON boolean.",
    auth: "user",
    source: "spec 4.11",
    body: AffiliateSchema,
    response: z.strictObject({ uuid: z.string(), email: z.string(), is_affiliate: z.boolean() }),
    successMessage: "affiliate status updated",
    errors: [...AUTH_ERRORS, "INVALID_PARAMS", ...COMMON],
    example: { is_affiliate: true },
  },
  "/api/add-feedback": {
    method: "POST",
    tag: "Account",
    summary: "Send feedback",
    description:
      "content 1 to 5000 characters, rating an integer 1 to 5. Answers code 0 with a success message and data null. At most 10 an hour per user (session, key and the /feedback page together): one more answers HTTP 429 (RATE_LIMITED) with Retry-After and stores nothing.",
    auth: "user",
    source: "spec 4.12",
    body: FeedbackSchema,
    // The route counts characters (code points) and trims; the bounds as JSON Schema states them.
    docBody: z.object({
      content: z.string().min(1).max(5000).describe("1 to 5000 characters, not only whitespace"),
      rating: z.int().min(1).max(5),
    }),
    response: z.null(),
    successMessage: "feedback received, thank you",
    errors: [...AUTH_ERRORS, "INVALID_PARAMS", ...COMMON],
    example: { content: "The fox pictures are great.", rating: 5 },
  },
  "/api/billing/products": {
    method: "POST",
    tag: "Billing",
    summary: "What is for sale",
    description:
      "Public. Credit packs (one-time; credits valid 1 year by default) and subscription plans (credits granted each month or year), in display order. Amounts in the smallest currency unit (cents).",
    auth: "none",
    source: "docs/design.md §9",
    response: z.strictObject({ products: z.array(ProductSchema) }),
    errors: ["METHOD_NOT_ALLOWED", "BUSY", "INTERNAL"],
  },
  "/api/billing/checkout": {
    method: "POST",
    tag: "Billing",
    summary: "Start a checkout",
    description:
      "Creates a Stripe Checkout Session for the product (payment mode for a pack, subscription mode for a plan) and answers the URL to send the buyer to. Credits arrive when Stripe's webhook confirms the payment. Without STRIPE_SECRET_KEY the URL opens Atelier's simulated checkout page (in production with a live provider only when BILLING_SIMULATED=true). A user may start 10 checkouts per hour; a checkout grants the credits it was sold with.",
    auth: "user",
    source: "docs/design.md §9",
    body: CheckoutSchema,
    response: z.strictObject({ checkout_url: z.url() }),
    errors: [
      ...AUTH_ERRORS,
      "PRODUCT_NOT_FOUND",
      "INVALID_PARAMS",
      "UPSTREAM_FAILED",
      "RATE_LIMITED",
      "BILLING_NOT_CONFIGURED",
      ...COMMON,
    ],
    example: { product_id: "pack-100" },
  },
  "/api/billing/webhook/stripe": {
    method: "POST",
    tag: "Billing",
    summary: "Stripe webhook",
    description:
      "For Stripe only. Verifies `Stripe-Signature` on the raw body with STRIPE_WEBHOOK_SECRET (HTTP 400 and nothing changed when it does not match), records each event id once and applies it: checkout.session.completed, invoice.paid, customer.subscription.updated / deleted, charge.refunded, charge.dispute.created (a chargeback, like a refund), checkout.session.expired. A replayed event answers code 0 with duplicate true.",
    auth: "none",
    source: "docs/design.md §9",
    docBody: z
      .looseObject({ id: z.string(), type: z.string(), data: z.looseObject({ object: z.looseObject({}) }) })
      .describe("a Stripe event"),
    response: z.strictObject({ event_id: z.string(), duplicate: z.boolean(), outcome: z.string() }),
    errors: ["WEBHOOK_SIGNATURE", "WEBHOOK_NOT_CONFIGURED", "INVALID_PARAMS", ...COMMON],
  },
  "/api/keys/create": {
    method: "POST",
    tag: "API keys",
    summary: "Create an API key",
    description:
      "Session only (a key cannot manage keys). The response is the only time the key itself is shown; at most 25 active keys per user.",
    auth: "session",
    source: "docs/design.md §5",
    body: ApiKeyCreateSchema,
    response: z.strictObject({
      key_id: z.string(),
      key: z.string().describe("shown once"),
      name: z.string(),
      start: z.string(),
      created_at: isoTime(),
    }),
    errors: [
      "UNAUTHENTICATED",
      "FORBIDDEN",
      "API_KEY_NOT_FOUND",
      "API_KEY_REVOKED",
      "API_KEY_LIMIT",
      "INVALID_PARAMS",
      ...COMMON,
    ],
    example: { name: "build server" },
  },
  "/api/keys/list": {
    method: "POST",
    tag: "API keys",
    summary: "List your API keys",
    description: `The signed-in user's active keys and the keys revoked in the last ${REVOKED_KEYS_LISTED_DAYS} days, newest first. Session only.`,
    auth: "session",
    source: "docs/design.md §5",
    response: z.strictObject({ keys: z.array(ApiKeyInfoSchema) }),
    errors: ["UNAUTHENTICATED", "FORBIDDEN", "API_KEY_NOT_FOUND", "API_KEY_REVOKED", ...COMMON],
  },
  "/api/keys/revoke": {
    method: "POST",
    tag: "API keys",
    summary: "Revoke an API key",
    description: "active → revoked, for good: requests with the key are rejected with HTTP 401. Session only.",
    auth: "session",
    source: "spec 3.2, docs/design.md §5",
    body: ApiKeyRevokeSchema,
    response: z.strictObject({ key_id: z.string(), status: z.literal("revoked") }),
    errors: [
      "UNAUTHENTICATED",
      "FORBIDDEN",
      "API_KEY_NOT_FOUND",
      "API_KEY_REVOKED",
      "KEY_ID_NOT_FOUND",
      "INVALID_PARAMS",
      ...COMMON,
    ],
    example: { key_id: "…" },
  },
  "/api/admin/grant-credits": {
    method: "POST",
    tag: "Admin",
    summary: "Grant credits to a user",
    description: "Admins only (session or an admin's key). Identify the user by email or user_uuid (exactly one).",
    auth: "admin",
    source: "docs/design.md §6",
    body: GrantCreditsSchema,
    exactlyOne: ["email", "user_uuid"],
    response: z.strictObject({
      uuid: z.string(),
      email: z.string(),
      granted: z.int(),
      expires_at: isoTime().nullable(),
      left_credits: z.int(),
      total_credits: z.int(),
    }),
    successMessage: "credits granted",
    errors: [...AUTH_ERRORS, "FORBIDDEN", "USER_NOT_FOUND", "INVALID_PARAMS", ...COMMON],
    example: { email: "someone@example.com", credits: 100, expires_in_days: 365 },
  },
  "/api/admin/create-subscription": {
    method: "POST",
    tag: "Admin",
    summary: "Record a subscription",
    description: "Admins only. Records a paid order; a paid, current subscription makes the user premium.",
    auth: "admin",
    source: "docs/design.md §6",
    body: CreateSubscriptionSchema,
    exactlyOne: ["email", "user_uuid"],
    response: SubscriptionSchema.extend({ user_uuid: z.string(), email: z.string(), period_end: isoTime().nullable() }),
    successMessage: "subscription created",
    errors: [...AUTH_ERRORS, "FORBIDDEN", "USER_NOT_FOUND", "INVALID_PARAMS", ...COMMON],
    example: {
      email: "someone@example.com",
      product_id: "pro-monthly",
      product_name: "Pro",
      interval: "month",
      amount: 1900,
    },
  },
  "/api/admin/list-users": {
    method: "POST",
    tag: "Admin",
    summary: "List users",
    description: "Admins only. Users newest first, with balance and rate-limit tier.",
    auth: "admin",
    source: "docs/design.md §6",
    body: ListUsersSchema,
    response: z.strictObject({ users: z.array(AdminUserSchema), total: z.int(), page: z.int(), page_size: z.int() }),
    errors: [...AUTH_ERRORS, "FORBIDDEN", "INVALID_PARAMS", ...COMMON],
    example: { page: 1, page_size: 20 },
  },
  "/api/health": {
    method: "GET",
    alsoMethod: "POST",
    tag: "Service",
    summary: "Health",
    description:
      "For load balancers and operators: version, database and its engine (with the connection pool on PostgreSQL), and which providers are live or simulated. HTTP 503 when the database fails.",
    auth: "none",
    source: "docs/design.md §2",
    response: z.strictObject({
      status: z.enum(["ok", "degraded"]),
      version: z.string(),
      database: z.enum(["ok", "error"]),
      engine: z.enum(["sqlite", "postgres"]).describe("sqlite (embedded, the default) or postgres (DATABASE_URL)"),
      pool: z
        .strictObject({
          max: z.number().int().describe("connections this process may open to PostgreSQL (DATABASE_POOL_MAX)"),
          in_flight: z
            .number()
            .int()
            .describe("statements and transactions this process is waiting on now; beyond max they queue"),
        })
        .optional()
        .describe("PostgreSQL only: this process's connection pool"),
      providers: z.record(z.string(), z.enum(["live", "simulated"])),
    }),
    errors: ["INTERNAL"],
  },
  "/api/openapi.json": {
    method: "GET",
    tag: "Service",
    summary: "This API reference (OpenAPI 3.1)",
    description: "The OpenAPI 3.1 document generated from the same zod schemas that validate requests.",
    auth: "none",
    source: "Atelier",
    response: z.looseObject({ openapi: z.string() }),
    envelope: false,
    contentType: "application/json",
    errors: [],
  },
  "/api/auth/sign-up/email": {
    method: "POST",
    tag: "Sign-in",
    summary: "Sign up (session cookie)",
    description:
      "better-auth's e-mail sign-up. Answers better-auth's own JSON (not the envelope) and sets the `atelier.session_token` cookie. Send an Origin header equal to PUBLIC_URL.",
    auth: "none",
    source: "docs/design.md §5",
    body: z.object({ name: z.string().min(1), email: z.email(), password: z.string().min(8).max(128) }),
    extraResponses: {
      "400":
        "better-auth rejected the body (e.g. `INVALID_EMAIL`, `PASSWORD_TOO_SHORT`, `PASSWORD_TOO_LONG`): `{code, message}`",
      "403": "`INVALID_ORIGIN`: the Origin header is not PUBLIC_URL or a trusted origin",
      "422": "`USER_ALREADY_EXISTS` (or `FAILED_TO_CREATE_USER`): `{code, message}`",
      "429": "too many sign-up attempts from this address",
    },
    response: z.looseObject({ user: z.looseObject({ id: z.string(), email: z.string(), name: z.string() }) }),
    envelope: false,
    contentType: "application/json",
    errors: [],
    example: { name: "Ada", email: "ada@example.com", password: "correct-horse-battery" },
  },
  "/api/auth/sign-in/email": {
    method: "POST",
    tag: "Sign-in",
    summary: "Sign in (session cookie)",
    description:
      "better-auth's e-mail sign-in; sets the `atelier.session_token` cookie. Send an Origin header equal to PUBLIC_URL.",
    auth: "none",
    source: "docs/design.md §5",
    body: z.object({ email: z.email(), password: z.string().min(1) }),
    extraResponses: {
      "400": "better-auth rejected the body (e.g. `INVALID_EMAIL`): `{code, message}`",
      "401": "`INVALID_EMAIL_OR_PASSWORD`: `{code, message}`",
      "403": "`INVALID_ORIGIN`, or the e-mail is not verified when verification is required",
      "429": "too many failed sign-ins for this account (cooldown) or from this address",
    },
    response: z.looseObject({ user: z.looseObject({ id: z.string(), email: z.string(), name: z.string() }) }),
    envelope: false,
    contentType: "application/json",
    errors: [],
    example: { email: "ada@example.com", password: "correct-horse-battery" },
  },
} as const satisfies Record<string, EndpointDef>;

export type EndpointPath = keyof typeof ENDPOINTS;

export const endpoint = <P extends EndpointPath>(path: P): (typeof ENDPOINTS)[P] & { path: P } => ({
  ...ENDPOINTS[path],
  path,
});

/** The errors every caller can meet whatever the endpoint (HTTP statuses other than 200). */
export const TRANSPORT_ERRORS: readonly ErrorCode[] = [
  "API_KEY_NOT_FOUND",
  "API_KEY_REVOKED",
  "RATE_LIMITED",
  "CROSS_SITE",
  "METHOD_NOT_ALLOWED",
  "NOT_FOUND",
  "INTERNAL",
];
