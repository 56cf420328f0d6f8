/** Webhook event types (docs/design.md §10), importable by UI code as well as the server. */
export const WEBHOOK_EVENTS = ["generation.completed", "generation.failed"] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number];
