/** The webhook rows of the endpoint table: a user's endpoints, their deliveries and resends (docs/design.md §10). */
import { z } from "zod";
import { DELIVERY_EVENT_TYPES, WEBHOOK_EVENTS, WEBHOOK_TEST_EVENT } from "~/domain/webhooks/events";
import { AUTH_ERRORS, COMMON, type EndpointDef, isoTime } from "./def.server";

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
  type: z.enum(DELIVERY_EVENT_TYPES).describe(`${WEBHOOK_TEST_EVENT}: a test sent with /api/webhooks/test`),
  gen_id: z.string().nullable().describe(`the task of the event; null for ${WEBHOOK_TEST_EVENT}`),
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

export const WEBHOOK_ENDPOINTS = {
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
  "/api/webhooks/update": {
    method: "POST",
    tag: "Webhooks",
    summary: "Change an endpoint's events or description",
    description:
      "Changes which events the endpoint receives (its filter) and its description; the URL, secret and id stay. Fields left out are unchanged. Deliveries already queued are still sent.",
    auth: "user",
    source: "docs/design.md §10",
    body: z.strictObject({
      webhook_id: z.string().min(1).max(200),
      events: z.array(z.enum(WEBHOOK_EVENTS)).min(1).optional().describe("the new filter: at least one event type"),
      description: z.string().max(200).optional(),
    }),
    response: WebhookSchema,
    successMessage: "webhook updated",
    errors: [...AUTH_ERRORS, "WEBHOOK_NOT_FOUND", "INVALID_PARAMS", ...COMMON],
    example: { webhook_id: "wh_…", events: ["generation.completed"] },
  },
  "/api/webhooks/test": {
    method: "POST",
    tag: "Webhooks",
    summary: "Send a test event",
    description: `Queues a signed \`${WEBHOOK_TEST_EVENT}\` event to this endpoint only (whatever its events and status): \`{type: "${WEBHOOK_TEST_EVENT}", timestamp, data: {webhook_id, message}}\` with the usual Standard Webhooks headers. It is sent at once, shows in the delivery log and is retried like any event; it does not re-enable a disabled endpoint (a resend does). Tests share the resend allowance: at most 100 tests and resends an hour per user; past that HTTP 429 \`Too Many Requests\` (with Retry-After) and nothing is queued.`,
    auth: "user",
    source: "docs/design.md §10",
    body: WebhookIdBody,
    response: z.strictObject({
      webhook_id: z.string(),
      event_id: z.string().describe("the webhook-id header of the test event"),
      delivery_id: z.string(),
      status: z.literal("pending"),
    }),
    successMessage: "test event queued",
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
} as const satisfies Record<string, EndpointDef>;
