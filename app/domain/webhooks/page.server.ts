/** The user center's webhook forms (keys page): the same domain calls as the JSON API. */
import { desc, inArray } from "drizzle-orm";
import type { Db } from "#db/client";
import { webhookDeliveries } from "#db/schema";
import type { Clock } from "~/lib/clock";
import { iso } from "~/lib/clock";
import { isAppError } from "~/lib/errors";
import { WEBHOOK_EVENTS, type WebhookEventType } from "./events";
import { createWebhook, deleteWebhook, listWebhooks, rotateSecret } from "./webhooks.server";

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
}

/** Endpoints with their latest delivery. */
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
  return hooks.map((h) => ({ ...h, last_delivery: latest.get(h.webhook_id) ?? null }));
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
    if (intent === "webhook-delete") {
      const hook = (await listWebhooks(db, userId)).find((h) => h.webhook_id === id);
      await deleteWebhook(db, userId, id);
      return { intent, deleted: hook?.url ?? id };
    }
    return { intent, errors: { form: "Unknown action" } };
  } catch (error) {
    if (isAppError(error))
      return {
        intent,
        errors: intent === "webhook-create" ? { url: error.message } : { form: error.message },
        values: { url, description },
      };
    throw error;
  }
}
