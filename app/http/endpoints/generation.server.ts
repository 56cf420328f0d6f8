/** The generation rows of the endpoint table: create, follow, cancel, query and list tasks (spec 4). */
import { z } from "zod";
import { AI_TYPES, CATALOG, describeOptionWithUnit, MAX_OPTIONS_BYTES, PROVIDERS } from "~/domain/catalog";
import { AUTH_ERRORS, COMMON, type EndpointDef, isoTime } from "./def.server";

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

/** A task's input pictures (additive, docs/api.md §4.14): present only on tasks that have any. */
export const InputsSchema = z
  .partialRecord(z.enum(["image", "image_end", "mask"]), z.url())
  .describe("option name → a URL the task's owner can open (session or X-API-Key); only on tasks with image inputs");
const inputs = () => InputsSchema.optional();

export const QueryResponseSchema = z
  .discriminatedUnion("status", [
    z.strictObject({
      gen_id: z.string(),
      status: z.literal("pending"),
      created_at: isoTime(),
      inputs: inputs(),
      urls: links(),
    }),
    z.strictObject({
      gen_id: z.string(),
      status: z.literal("processing"),
      created_at: isoTime(),
      started_at: startedAt(),
      inputs: inputs(),
      urls: links(),
    }),
    z.strictObject({
      gen_id: z.string(),
      status: z.literal("completed"),
      result_urls: z.array(z.url()),
      created_at: isoTime(),
      started_at: startedAt(),
      completed_at: isoTime(),
      inputs: inputs(),
      urls: links(),
    }),
    z.strictObject({
      gen_id: z.string(),
      status: z.literal("failed"),
      error_message: z.string().describe("`canceled` for a task canceled through /api/generator/cancel"),
      created_at: isoTime(),
      started_at: startedAt(),
      completed_at: isoTime(),
      inputs: inputs(),
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
  inputs: inputs(),
  urls: links(),
});

// ---- documented request bodies where validation happens in domain code

const optionsList = CATALOG.map(
  (offering) =>
    `${offering.provider} ${offering.model} (${offering.aiType}): ${
      Object.entries(offering.options)
        .map(([k, spec]) => `${k} = ${describeOptionWithUnit(spec)}`)
        .join("; ") || "none"
    }.`,
).join(" ");

const offeringList = CATALOG.map(
  (offering) => `${offering.aiType} · ${offering.provider} · ${offering.model} (${offering.credits} credits)`,
).join("; ");

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
  cursor: z
    .string()
    .optional()
    .describe('additive: "" for the newest tasks, then the previous answer\'s next_cursor (page is then ignored)'),
});

export const GENERATE_MESSAGE = "generation task created; poll /api/generator/query with gen_id";

export const GENERATION_ENDPOINTS = {
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
      "KEY_CREDIT_LIMIT",
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
    description:
      'Your tasks, newest first (created_at, then gen_id, descending), paged. Additive: send `cursor` ("" for the newest, then each answer\'s `next_cursor`) for keyset pages that cost the same at any depth and do not shift while tasks are added; such an answer has `next_cursor` (null on the last page) instead of `page`.',
    auth: "user",
    source: "spec 4.3",
    body: z.object({ page: z.unknown().optional(), page_size: z.unknown().optional(), cursor: z.unknown().optional() }),
    docBody: HistoryBodyDoc,
    response: z.strictObject({
      generations: z.array(HistoryEntrySchema),
      total: z.int(),
      page: z.int().optional(),
      page_size: z.int(),
      next_cursor: z.string().nullable().optional().describe("with `cursor` only: the next page's cursor, or null"),
    }),
    errors: [...AUTH_ERRORS, "INVALID_PARAMS", ...COMMON],
    example: { page: 1, page_size: 20 },
  },
} as const satisfies Record<string, EndpointDef>;
