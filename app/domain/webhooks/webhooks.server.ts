/**
 * Webhook endpoints of a user (docs/design.md §10, Standard Webhooks): create (the
 * `whsec_` secret is shown then and on rotation only), list, delete, rotate
 * the secret (the old one keeps signing for 24 h, so receivers can switch
 * without losing events), the delivery log, and resend.
 */

import { randomBytes } from "node:crypto";
import { and, desc, eq, inArray, isNull } from "drizzle-orm";
import { type Db, lockRow, many, one, run, type Steps, type Tx } from "#db/client";
import { webhookAttempts, webhookDeliveries, webhookEndpoints, webhookEvents } from "#db/schema";
import { takeOrRefuse } from "~/domain/rate-limits/limiter.server";
import { type Clock, iso } from "~/lib/clock";
import { AppError } from "~/lib/errors";
import { checkedAddress, OutboundRefused, type Resolver } from "~/lib/outbound.server";
import { type DeliveryEventType, WEBHOOK_EVENTS, type WebhookEventType } from "./events";
import { newId } from "./outbox.server";

export const MAX_WEBHOOKS = 10;
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;
export const MAX_URL_LENGTH = 2000;
/**
 * Resends per user an hour: a resend makes the server POST to a URL the user chose at once,
 * and session requests are not rate limited, so without a bound one account could turn the dispatcher into a
 * request loop at any public address, writing a log row per attempt.
 */
export const RESENDS_PER_HOUR = 100;
export const RESEND_POLICY = { name: "webhook-resend", limit: RESENDS_PER_HOUR, windowMs: 3_600_000 };

export type WebhookRow = typeof webhookEndpoints.$inferSelect;

/** A Standard Webhooks secret: `whsec_` + base64 of 24 random bytes. */
export const newSecret = () => `whsec_${randomBytes(24).toString("base64")}`;

export function toWebhookView(row: WebhookRow) {
  return {
    webhook_id: row.id,
    url: row.url,
    events: JSON.parse(row.events) as WebhookEventType[],
    description: row.description,
    status: row.status as "active" | "disabled",
    disabled_reason: row.disabledReason,
    created_at: iso(row.createdAt)!,
  };
}

export interface DestinationPolicy {
  allowPrivate: boolean;
  /** DNS (tests pass a fake). */
  resolve?: Resolver;
  /** This server's own addresses (tests pass a fake; default: its network interfaces). */
  localAddresses?: () => Iterable<string>;
  /** How long resolving the host may take (default DNS_TIMEOUT_MS; tests shorten it). */
  dnsTimeoutMs?: number;
}

/** An http(s) URL whose host resolves only to addresses Atelier may contact; else `invalid params: url …`. */
export async function checkDestination(raw: string, policy: DestinationPolicy): Promise<string> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AppError("INVALID_PARAMS", { reason: "url must be an absolute http(s) URL" });
  }
  if (raw.length > MAX_URL_LENGTH)
    throw new AppError("INVALID_PARAMS", { reason: `url longer than ${MAX_URL_LENGTH} characters` });
  try {
    await checkedAddress(url, policy);
  } catch (e) {
    if (e instanceof OutboundRefused)
      throw new AppError("INVALID_PARAMS", { reason: `url refused: ${e.publicMessage}` });
    throw e;
  }
  return url.href;
}

/** The user's endpoint, or WEBHOOK_NOT_FOUND (also for another user's: no hint that it exists). */
export async function ownWebhook(db: Db, userId: string, webhookId: string): Promise<WebhookRow> {
  const row = await db.one(
    db
      .select()
      .from(webhookEndpoints)
      .where(and(eq(webhookEndpoints.id, webhookId), eq(webhookEndpoints.userId, userId))),
  );
  if (!row) throw new AppError("WEBHOOK_NOT_FOUND");
  return row;
}

export async function createWebhook(
  db: Db,
  args: {
    userId: string;
    url: string;
    events?: WebhookEventType[];
    description?: string /** The API key making it, if any. */;
    apiKeyId?: string | null;
  },
  policy: DestinationPolicy,
  clock: Clock,
) {
  const url = await checkDestination(args.url, policy);
  const events = args.events?.length ? [...new Set(args.events)].sort() : [...WEBHOOK_EVENTS];
  const secret = newSecret();
  const row = await db.tx(function* (t) {
    yield* lockRow("user", args.userId);
    const count = (yield* many(
      t.select({ id: webhookEndpoints.id }).from(webhookEndpoints).where(eq(webhookEndpoints.userId, args.userId)),
    )).length;
    if (count >= MAX_WEBHOOKS) throw new AppError("WEBHOOK_LIMIT", { max: MAX_WEBHOOKS });
    const created = yield* one(
      t
        .insert(webhookEndpoints)
        .values({
          id: newId("wh"),
          userId: args.userId,
          url,
          description: args.description ?? "",
          events: JSON.stringify(events),
          secret,
          apiKeyId: args.apiKeyId ?? null,
          createdAt: clock.now(),
        })
        .returning(),
    );
    return created!;
  });
  return { ...toWebhookView(row), secret };
}

export async function listWebhooks(db: Db, userId: string) {
  const rows = await db.many(
    db
      .select()
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.userId, userId))
      .orderBy(desc(webhookEndpoints.createdAt), desc(webhookEndpoints.id)),
  );
  return rows.map(toWebhookView);
}

/** Deletes the endpoint and its queued deliveries (events already sent stay in the receiver's hands). */
export async function deleteWebhook(db: Db, userId: string, webhookId: string) {
  await ownWebhook(db, userId, webhookId);
  await db.run(
    db.delete(webhookEndpoints).where(and(eq(webhookEndpoints.id, webhookId), eq(webhookEndpoints.userId, userId))),
  );
  return { webhook_id: webhookId, deleted: true as const };
}

/**
 * A new secret; the previous one keeps signing (a second signature) for 24 h. Rotated with an API key, the
 * endpoint is that key's from now on (the key's holder knows the secret) unless a key already set it up.
 */
export async function rotateSecret(
  db: Db,
  userId: string,
  webhookId: string,
  clock: Clock,
  apiKeyId: string | null = null,
) {
  const row = await ownWebhook(db, userId, webhookId);
  const secret = newSecret();
  await db.run(
    db
      .update(webhookEndpoints)
      .set({
        secret,
        previousSecret: row.secret,
        previousSecretUntil: clock.now() + ROTATION_OVERLAP_MS,
        apiKeyId: row.apiKeyId ?? apiKeyId,
      })
      .where(eq(webhookEndpoints.id, webhookId)),
  );
  return { webhook_id: webhookId, secret, previous_secret_expires_at: iso(clock.now() + ROTATION_OVERLAP_MS)! };
}

/**
 * Inside the revocation of an API key: the user's active endpoints that key created or
 * re-keyed are disabled with the reason, and their queued deliveries fail, as for an endpoint disabled for
 * failing. One in flight fails when its attempt is recorded. Returns how many endpoints were disabled.
 */
export function* disableEndpointsOfKey(
  tx: Tx,
  args: { userId: string; keyId: string; keyStart: string; now: number },
): Steps<number> {
  const reason = `disabled ${iso(args.now)}: set up with API key ${args.keyStart}…, which was revoked; check its URL and rotate its secret, then resend to enable it`;
  const disabled = yield* many(
    tx
      .update(webhookEndpoints)
      .set({ status: "disabled", disabledReason: reason })
      .where(
        and(
          eq(webhookEndpoints.userId, args.userId),
          eq(webhookEndpoints.apiKeyId, args.keyId),
          eq(webhookEndpoints.status, "active"),
        ),
      )
      .returning({ id: webhookEndpoints.id }),
  );
  if (disabled.length === 0) return 0;
  yield* run(
    tx
      .update(webhookDeliveries)
      .set({ status: "failed", nextAttemptAt: null, lastError: "endpoint disabled" })
      .where(
        and(
          inArray(
            webhookDeliveries.endpointId,
            disabled.map((d) => d.id),
          ),
          eq(webhookDeliveries.status, "pending"),
          isNull(webhookDeliveries.leaseOwner),
        ),
      ),
  );
  return disabled.length;
}

/** The endpoint's recent deliveries, newest first, each with its recent attempts. */
export async function listDeliveries(db: Db, userId: string, webhookId: string, limit = 50) {
  await ownWebhook(db, userId, webhookId);
  const rows = await db.many(
    db
      .select({
        d: webhookDeliveries,
        e: { id: webhookEvents.id, type: webhookEvents.type, genId: webhookEvents.genId },
      })
      .from(webhookDeliveries)
      .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventId))
      .where(eq(webhookDeliveries.endpointId, webhookId))
      .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
      .limit(limit),
  );
  const attempts = rows.length
    ? await db.many(
        db
          .select()
          .from(webhookAttempts)
          .where(
            inArray(
              webhookAttempts.deliveryId,
              rows.map((r) => r.d.id),
            ),
          )
          .orderBy(desc(webhookAttempts.attemptedAt), desc(webhookAttempts.id)),
      )
    : [];
  return {
    deliveries: rows.map(({ d, e }) => ({
      delivery_id: d.id,
      event_id: e.id,
      type: e.type as DeliveryEventType,
      // A test event has no task.
      gen_id: e.genId || null,
      status: d.status as "pending" | "delivered" | "failed",
      attempts: d.attempts,
      response_status: d.lastStatusCode,
      duration_ms: d.lastDurationMs,
      last_error: d.lastError,
      created_at: iso(d.createdAt)!,
      last_attempt_at: iso(d.lastAttemptAt),
      next_attempt_at: d.status === "pending" ? iso(d.nextAttemptAt) : null,
      delivered_at: iso(d.deliveredAt),
      recent_attempts: attempts
        .filter((a) => a.deliveryId === d.id)
        .slice(0, 10)
        .map((a) => ({
          attempted_at: iso(a.attemptedAt)!,
          response_status: a.statusCode,
          duration_ms: a.durationMs,
          error: a.error,
        })),
    })),
  };
}

/**
 * Sends a delivery again now, with the same webhook-id (receivers dedupe on
 * it), restarting its retry schedule. Resending to a disabled endpoint
 * re-enables it: it is the user saying the receiver is fixed.
 * A delivery being sent right now keeps its lease: nothing
 * claims it again until that attempt is recorded — it is logged and decides
 * the next state as usual — or its lease expires, so one delivery is never
 * sent twice at once. Each resend takes a slot of the user's allowance (RESENDS_PER_HOUR); past it
 * RATE_LIMITED (429, Retry-After) and nothing is queued.
 */
export async function resendDelivery(db: Db, userId: string, deliveryId: string, clock: Clock) {
  const owner = await db.one(
    db
      .select({ userId: webhookEndpoints.userId })
      .from(webhookDeliveries)
      .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
      .where(eq(webhookDeliveries.id, deliveryId)),
  );
  if (!owner || owner.userId !== userId) throw new AppError("DELIVERY_NOT_FOUND");
  await takeOrRefuse(db, `webhook-resend:${userId}`, RESEND_POLICY, clock.now());
  return db.tx(function* (t) {
    const found = yield* one(
      t
        .select({ d: webhookDeliveries, endpointUser: webhookEndpoints.userId })
        .from(webhookDeliveries)
        .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
        .where(eq(webhookDeliveries.id, deliveryId)),
    );
    if (!found || found.endpointUser !== userId) throw new AppError("DELIVERY_NOT_FOUND");
    const now = clock.now();
    yield* run(
      t
        .update(webhookDeliveries)
        .set({ status: "pending", attempts: 0, nextAttemptAt: now })
        .where(eq(webhookDeliveries.id, deliveryId)),
    );
    yield* run(
      t
        .update(webhookEndpoints)
        .set({ status: "active", disabledReason: null, failingSince: null })
        .where(and(eq(webhookEndpoints.id, found.d.endpointId), eq(webhookEndpoints.status, "disabled"))),
    );
    return { delivery_id: deliveryId, status: "pending" as const };
  });
}
