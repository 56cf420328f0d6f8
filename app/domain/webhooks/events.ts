/** Webhook event types (docs/design.md §10), importable by UI code as well as the server. */
export const WEBHOOK_EVENTS = ["generation.completed", "generation.failed"] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number];

/** The event "Send test event" sends (docs/events.md): to one endpoint on request, never subscribed to. */
export const WEBHOOK_TEST_EVENT = "webhook.test";
/** Every type a delivery in the log can carry. */
export const DELIVERY_EVENT_TYPES = [...WEBHOOK_EVENTS, WEBHOOK_TEST_EVENT] as const;
export type DeliveryEventType = (typeof DELIVERY_EVENT_TYPES)[number];
