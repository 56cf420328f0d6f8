/** The user center's webhook forms (keys page): the same domain calls as the JSON API. */
import { desc, inArray } from "drizzle-orm";
import type { Db } from "#db/client";
import { webhookDeliveries } from "#db/schema";
import type { Clock } from "~/lib/clock";
import { iso } from "~/lib/clock";
import { type AppError, isAppError } from "~/lib/errors";
import { outboxChanged } from "../generations/changes.server";
import { WEBHOOK_EVENTS, type WebhookEventType } from "./events";
import { sendTestEvent } from "./send-test-event.server";
import { updateWebhook } from "./update-webhook.server";
import {
  createWebhook,
  deleteWebhook,
  listDeliveries,
  listWebhooks,
  resendDelivery,
  rotateSecret,
} from "./webhooks.server";

/** Deliveries shown per endpoint on the page (the API's log holds 50). */
export const PAGE_DELIVERIES = 10;

export interface WebhookPageDeps {
  db: Db;
  clock: Clock;
  /** WEBHOOK_ALLOW_PRIVATE: endpoints may be private addresses (docs/design.md §10). */
  allowPrivate: boolean;
}

/** A webhook form's submission, read from the form by the route. */
export interface WebhookForm {
  intent: string;
  url: string;
  description: string;
  /** The checked event boxes, as sent. */
  events: string[];
  webhookId: string;
  /** The delivery a Resend button names. */
  deliveryId: string;
}

/**
 * A refusal as a sentence for the page, beside the field it is about: the envelope's terse message
 * ("invalid params: url must be …") reworded, its meaning unchanged.
 */
export function refusalSentence(error: AppError): string {
  if (error.code === "RATE_LIMITED")
    return "Too many test events and resends in the last hour. Wait a few minutes, then try again.";
  if (error.code === "WEBHOOK_NOT_FOUND") return "That webhook no longer exists. Reload the page.";
  if (error.code === "DELIVERY_NOT_FOUND") return "That delivery no longer exists. Reload the page.";
  let text = error.message.replace(/^invalid params: /, "");
  text = text.replace(/^url refused: /, "This URL cannot receive webhooks: ").replace(/^url /, "The URL ");
  text = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/** Endpoints with their latest delivery and their recent delivery log. */
export async function webhooksForPage({ db }: Pick<WebhookPageDeps, "db">, userId: string) {
  const hooks = await listWebhooks(db, userId);
  const latest = new Map<string, { status: string; response_status: number | null; at: string | null }>();
  if (hooks.length) {
    const rows = await db.many(
      db
        .select()
        .from(webhookDeliveries)
        .where(
          inArray(
            webhookDeliveries.endpointId,
            hooks.map((h) => h.webhook_id),
          ),
        )
        .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
        .limit(200),
    );
    for (const r of rows) {
      if (!latest.has(r.endpointId))
        latest.set(r.endpointId, {
          status: r.status,
          response_status: r.lastStatusCode,
          at: iso(r.lastAttemptAt === null ? null : Number(r.lastAttemptAt)),
        });
    }
  }
  const logs = await Promise.all(
    hooks.map((h) => listDeliveries(db, userId, h.webhook_id, PAGE_DELIVERIES).then((l) => l.deliveries)),
  );
  return hooks.map((h, i) => ({ ...h, last_delivery: latest.get(h.webhook_id) ?? null, deliveries: logs[i]! }));
}

export async function webhookAction({ db, clock, allowPrivate }: WebhookPageDeps, userId: string, form: WebhookForm) {
  const intent = form.intent;
  const url = form.url.trim();
  const description = form.description.slice(0, 200);
  try {
    if (intent === "webhook-create") {
      if (!url)
        return { intent, errors: { url: "Enter the URL that receives the events" }, values: { url, description } };
      const events = form.events.filter((e): e is WebhookEventType =>
        (WEBHOOK_EVENTS as readonly string[]).includes(e),
      );
      if (events.length === 0)
        return { intent, errors: { form: "Choose at least one event" }, values: { url, description } };
      const created = await createWebhook(db, { userId, url, events, description }, { allowPrivate }, clock);
      return { intent, secret: { url: created.url, secret: created.secret, rotated: false } };
    }
    const id = form.webhookId;
    if (intent === "webhook-rotate") {
      const hook = (await listWebhooks(db, userId)).find((h) => h.webhook_id === id);
      const rotated = await rotateSecret(db, userId, id, clock);
      return { intent, secret: { url: hook?.url ?? id, secret: rotated.secret, rotated: true } };
    }
    if (intent === "webhook-test") {
      const hook = await testedHook(db, userId, id);
      await sendTestEvent({ db, clock }, { userId, webhookId: id });
      outboxChanged();
      return { intent, webhookId: id, tested: hook };
    }
    if (intent === "webhook-resend") {
      await resendDelivery(db, userId, form.deliveryId, clock);
      outboxChanged();
      return { intent, webhookId: id, resent: form.deliveryId };
    }
    if (intent === "webhook-events") {
      const events = form.events.filter((e): e is WebhookEventType =>
        (WEBHOOK_EVENTS as readonly string[]).includes(e),
      );
      if (events.length === 0)
        return {
          intent,
          webhookId: id,
          errors: { events: "Choose at least one event: an endpoint with none would never hear anything." },
        };
      const updated = await updateWebhook({ db }, { userId, webhookId: id, events });
      return { intent, webhookId: id, updated: updated.url };
    }
    if (intent === "webhook-delete") {
      const hook = (await listWebhooks(db, userId)).find((h) => h.webhook_id === id);
      await deleteWebhook(db, userId, id);
      return { intent, deleted: hook?.url ?? id };
    }
    return { intent, errors: { form: "Unknown action" } };
  } catch (error) {
    if (!isAppError(error)) throw error;
    const sentence = refusalSentence(error);
    const onUrl = intent === "webhook-create" && error.code === "INVALID_PARAMS";
    return {
      intent,
      webhookId: form.webhookId,
      errors: onUrl ? { url: sentence } : intent === "webhook-events" ? { events: sentence } : { form: sentence },
      values: { url, description },
    };
  }
}

async function testedHook(db: Db, userId: string, id: string): Promise<string> {
  return (await listWebhooks(db, userId)).find((h) => h.webhook_id === id)?.url ?? id;
}
