/**
 * Changes what an endpoint receives (its event filter) and its description, without a new secret or a new id
 * (docs/design.md §10). Deliveries already queued keep going.
 */
import { and, eq } from "drizzle-orm";
import type { Db } from "#db/client";
import { webhookEndpoints } from "#db/schema";
import type { WebhookEventType } from "./events";
import { ownWebhook, toWebhookView } from "./webhooks.server";

export async function updateWebhook(
  { db }: { db: Db },
  args: { userId: string; webhookId: string; events?: readonly WebhookEventType[]; description?: string },
) {
  const row = await ownWebhook(db, args.userId, args.webhookId);
  const events = args.events?.length ? [...new Set(args.events)].sort() : undefined;
  const changes = {
    ...(events ? { events: JSON.stringify(events) } : {}),
    ...(args.description !== undefined ? { description: args.description } : {}),
  };
  if (Object.keys(changes).length === 0) return toWebhookView(row);
  const updated = await db.one(
    db
      .update(webhookEndpoints)
      .set(changes)
      .where(and(eq(webhookEndpoints.id, args.webhookId), eq(webhookEndpoints.userId, args.userId)))
      .returning(),
  );
  return toWebhookView(updated ?? row);
}
