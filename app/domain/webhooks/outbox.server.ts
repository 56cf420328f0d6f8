/**
 * The outbox (docs/design.md §10): a task's final transition (completion + debit,
 * failure, cancel, timeout) calls `enqueueGenerationEvent` inside its own
 * transaction, so the event exists exactly when the transition does — a
 * crash after the commit loses nothing, a rollback sends nothing. The job
 * runner's dispatcher (delivery.server.ts) sends the rows.
 */

import { randomBytes } from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import { many, run, type Steps, type Tx } from "#db/client";
import { prepared } from "#db/prepared";
import { webhookDeliveries, webhookEndpoints, webhookEvents } from "#db/schema";
import type { GenerationRow } from "~/domain/generations/views.server";
import { toQueryView } from "~/domain/generations/views.server";
import type { WebhookEventType } from "./events";

/** A Standard Webhooks message id: `msg_` + 128 random bits. */
export const newMessageId = () => `msg_${randomBytes(16).toString("base64url")}`;
export const newId = (prefix: string) => `${prefix}_${randomBytes(12).toString("base64url")}`;

/**
 * Queues the event of a task that just reached its final status, one delivery
 * per active endpoint of its owner subscribed to it. Returns how many were
 * queued (0: the owner has no such endpoint, nothing is written).
 */
export function* enqueueGenerationEvent(tx: Tx, row: GenerationRow, now: number): Steps<number> {
  const type: WebhookEventType = row.status === "completed" ? "generation.completed" : "generation.failed";
  const active = prepared(tx, "webhooks.active", (d) =>
    d
      .select({ id: webhookEndpoints.id, events: webhookEndpoints.events })
      .from(webhookEndpoints)
      .where(and(eq(webhookEndpoints.userId, sql.placeholder("userId")), eq(webhookEndpoints.status, "active"))),
  );
  const endpoints = yield* many(active, { userId: row.userId });
  const targets = endpoints.filter((e) => (JSON.parse(e.events) as string[]).includes(type));
  if (targets.length === 0) return 0;
  const eventId = newMessageId();
  const payload = JSON.stringify({ type, timestamp: new Date(now).toISOString(), data: toQueryView(row) });
  yield* run(
    tx.insert(webhookEvents).values({ id: eventId, userId: row.userId, type, genId: row.id, payload, createdAt: now }),
  );
  yield* run(
    tx.insert(webhookDeliveries).values(
      targets.map((t) => ({
        id: newId("dlv"),
        eventId,
        endpointId: t.id,
        status: "pending",
        nextAttemptAt: now,
        createdAt: now,
      })),
    ),
  );
  return targets.length;
}
