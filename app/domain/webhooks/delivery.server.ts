/**
 * Sending the outbox (docs/design.md §10). The job runner's dispatcher claims due
 * deliveries with a lease (one guarded UPDATE, so several processes never
 * send one attempt twice; a crashed sender's lease expires and the delivery
 * is claimed again), signs each per Standard Webhooks (`webhook-id` = the
 * event id, stable across retries; `webhook-timestamp`; `webhook-signature`
 * with every current secret), POSTs it through the safe outbound fetch (every
 * address checked, redirects not followed, 10 s timeout), and records the
 * attempt: 2xx = delivered; otherwise the next retry per the schedule, until
 * it runs out (failed). An endpoint that has not answered 2xx for
 * WEBHOOK_DISABLE_AFTER_MS (3 days) is disabled with the reason.
 */

import { randomUUID } from "node:crypto";
import { and, count, eq, gt, inArray, isNotNull, isNull, lte, notInArray, or, type SQL, sql } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { type Db, many, one, run } from "#db/client";
import { webhookAttempts, webhookDeliveries, webhookEndpoints, webhookEvents } from "#db/schema";
import { type Clock, iso } from "~/lib/clock";
import { OutboundRefused, type Resolver, readCapped, safeFetch } from "~/lib/outbound.server";

export interface DeliveryPolicy {
  timeoutMs: number;
  /** Waits before retry 1, 2, …; after the last one fails the delivery is failed. */
  schedule: readonly number[];
  disableAfterMs: number;
  allowPrivate: boolean;
  resolve?: Resolver;
}

export interface ClaimedDelivery {
  id: string;
  attempts: number;
  eventId: string;
  payload: string;
  endpointId: string;
  url: string;
  secrets: string[];
}

const due = (now: number) =>
  and(
    eq(webhookDeliveries.status, "pending"),
    lte(webhookDeliveries.nextAttemptAt, now),
    or(isNull(webhookDeliveries.leaseUntil), lte(webhookDeliveries.leaseUntil, now)),
  );

/** The senders one user may hold at once when WEBHOOK_CONCURRENCY is shared: a quarter of them, at least one. */
export const perUserShare = (concurrency: number) => Math.max(1, Math.floor(concurrency / 4));

/**
 * Claims up to `limit` due deliveries for `owner` (cheap probe first, so idle ticks take no write lock).
 * Fairness: at most `perUser` deliveries of one user are in flight at once, counted over every
 * process's leases, so one user's endpoints that never answer cannot hold every sender while everyone
 * else's webhooks wait.
 */
export async function claimDeliveries(
  db: Db,
  args: { owner: string; limit: number; leaseMs: number; perUser?: number },
  clock: Clock,
): Promise<ClaimedDelivery[]> {
  if (args.limit <= 0) return [];
  const now = clock.now();
  const perUser = args.perUser ?? Infinity;
  if (
    (await db.many(db.select({ id: webhookDeliveries.id }).from(webhookDeliveries).where(due(now)).limit(1))).length ===
    0
  )
    return [];
  // The guard re-checks "due" on each row: two processes (or nodes) never both take one.
  const ids = await db.tx(function* (t) {
    const held = new Map<string, number>();
    if (perUser !== Infinity) {
      const inFlight = yield* many(
        t
          .select({ userId: webhookEndpoints.userId, n: count() })
          .from(webhookDeliveries)
          .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
          .where(and(eq(webhookDeliveries.status, "pending"), gt(webhookDeliveries.leaseUntil, now)))
          .groupBy(webhookEndpoints.userId),
      );
      for (const r of inFlight) held.set(r.userId, Number(r.n));
    }
    const full = [...held].filter(([, n]) => n >= perUser).map(([u]) => u);
    const rows = yield* many(
      t
        .select({ id: webhookDeliveries.id, userId: webhookEndpoints.userId })
        .from(webhookDeliveries)
        .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
        .where(full.length ? and(due(now), notInArray(webhookEndpoints.userId, full)) : due(now))
        .orderBy(webhookDeliveries.nextAttemptAt, webhookDeliveries.id)
        .limit(perUser === Infinity ? args.limit : args.limit * 4),
    );
    const candidates: string[] = [];
    for (const r of rows) {
      if (candidates.length >= args.limit) break;
      const n = held.get(r.userId) ?? 0;
      if (n >= perUser) continue;
      held.set(r.userId, n + 1);
      candidates.push(r.id);
    }
    if (candidates.length === 0) return [];
    const taken = yield* many(
      t
        .update(webhookDeliveries)
        .set({ leaseOwner: args.owner, leaseUntil: now + args.leaseMs })
        .where(and(inArray(webhookDeliveries.id, candidates), due(now)))
        .returning({ id: webhookDeliveries.id }),
    );
    return taken.map((r) => r.id);
  });
  if (ids.length === 0) return [];
  const rows = await db.many(
    db
      .select({
        id: webhookDeliveries.id,
        attempts: webhookDeliveries.attempts,
        eventId: webhookEvents.id,
        payload: webhookEvents.payload,
        endpointId: webhookEndpoints.id,
        url: webhookEndpoints.url,
        secret: webhookEndpoints.secret,
        previousSecret: webhookEndpoints.previousSecret,
        previousSecretUntil: webhookEndpoints.previousSecretUntil,
      })
      .from(webhookDeliveries)
      .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventId))
      .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
      .where(inArray(webhookDeliveries.id, ids)),
  );
  return rows.map((r) => ({
    id: r.id,
    attempts: r.attempts,
    eventId: r.eventId,
    payload: r.payload,
    endpointId: r.endpointId,
    url: r.url,
    secrets: [r.secret, ...(r.previousSecret && Number(r.previousSecretUntil ?? 0) > now ? [r.previousSecret] : [])],
  }));
}

/** The three Standard Webhooks headers; one `v1,` signature per secret (rotation overlap), space-separated. */
export function signatureHeaders(
  eventId: string,
  payload: string,
  secrets: string[],
  at: Date,
): Record<string, string> {
  const signature = secrets.map((s) => new Webhook(s).sign(eventId, at, payload)).join(" ");
  return {
    "webhook-id": eventId,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": signature,
  };
}

export interface AttemptOutcome {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  at: number;
}

/** One POST of a delivery. Never throws: every failure is an outcome. */
export async function sendDelivery(
  d: ClaimedDelivery,
  policy: DeliveryPolicy,
  clock: Clock,
  signal?: AbortSignal,
): Promise<AttemptOutcome> {
  const at = clock.now();
  const t0 = performance.now();
  const done = (statusCode: number | null, error: string | null): AttemptOutcome => ({
    ok: error === null && statusCode !== null && statusCode >= 200 && statusCode < 300,
    statusCode,
    error,
    durationMs: Math.round(performance.now() - t0),
    at,
  });
  const timeout = AbortSignal.timeout(policy.timeoutMs);
  try {
    const res = await safeFetch(d.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "user-agent": "Atelier-Webhooks/1",
        ...signatureHeaders(d.eventId, d.payload, d.secrets, new Date(at)),
      },
      body: d.payload,
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      maxRedirects: 0,
      allowPrivate: policy.allowPrivate,
      resolve: policy.resolve,
    });
    // The answer's body is not used; read a little so the connection can be reused.
    await readCapped(res, 64 * 1024).catch(() => res.body?.cancel().catch(() => {}));
    if (res.status >= 300 && res.status < 400)
      return done(res.status, `HTTP ${res.status}: redirects are not followed`);
    return done(res.status, res.status >= 200 && res.status < 300 ? null : `HTTP ${res.status}`);
  } catch (e) {
    if (timeout.aborted) return done(null, `no answer within ${policy.timeoutMs} ms`);
    if (e instanceof OutboundRefused) return done(null, `destination refused: ${e.publicMessage}`);
    return done(null, `could not connect: ${(e as Error)?.message ?? String(e)}`.slice(0, 300));
  }
}

/**
 * Records an attempt by the lease holder: the log row, the delivery's next
 * state, and the endpoint's health (a success clears it; failing for
 * `disableAfterMs` disables it and fails its queued deliveries).
 * Returns the delivery's new status, or null when the lease was lost.
 */
export function recordAttempt(
  db: Db,
  owner: string,
  d: ClaimedDelivery,
  o: AttemptOutcome,
  policy: DeliveryPolicy,
  clock: Clock,
): Promise<"delivered" | "pending" | "failed" | null> {
  return db.tx(function* (t) {
    const now = clock.now();
    const mine = and(
      eq(webhookDeliveries.id, d.id),
      eq(webhookDeliveries.status, "pending"),
      eq(webhookDeliveries.leaseOwner, owner),
    );
    // Counted from the row, not from the claim: a resend during the attempt restarted the schedule (docs/events.md §6).
    const current = yield* one(t.select({ attempts: webhookDeliveries.attempts }).from(webhookDeliveries).where(mine));
    if (!current) return null;
    const attempts = current.attempts + 1;
    let status: "delivered" | "pending" | "failed" = o.ok
      ? "delivered"
      : attempts > policy.schedule.length
        ? "failed"
        : "pending";
    const changed = yield* run(
      t
        .update(webhookDeliveries)
        .set({
          status,
          attempts,
          nextAttemptAt: status === "pending" ? now + policy.schedule[attempts - 1]! : null,
          leaseOwner: null,
          leaseUntil: null,
          lastStatusCode: o.statusCode,
          lastError: o.error,
          lastDurationMs: o.durationMs,
          lastAttemptAt: o.at,
          deliveredAt: o.ok ? now : null,
        })
        .where(mine),
    );
    if (changed !== 1) return null;
    yield* run(
      t.insert(webhookAttempts).values({
        id: randomUUID(),
        deliveryId: d.id,
        attemptedAt: o.at,
        statusCode: o.statusCode,
        durationMs: o.durationMs,
        error: o.error,
      }),
    );
    if (o.ok) {
      yield* run(
        t
          .update(webhookEndpoints)
          .set({ failingSince: null })
          .where(and(eq(webhookEndpoints.id, d.endpointId), isNotNull(webhookEndpoints.failingSince))),
      );
      return status;
    }
    const ep = yield* one(
      t
        .update(webhookEndpoints)
        .set({ failingSince: sql`coalesce(${webhookEndpoints.failingSince}, ${o.at})` })
        .where(eq(webhookEndpoints.id, d.endpointId))
        .returning({ failingSince: webhookEndpoints.failingSince, status: webhookEndpoints.status }),
    );
    const since = ep?.failingSince == null ? null : Number(ep.failingSince);
    const failQueued = (where: SQL | undefined) =>
      run(
        t
          .update(webhookDeliveries)
          .set({ status: "failed", nextAttemptAt: null, lastError: "endpoint disabled" })
          .where(where),
      );
    if (ep && ep.status !== "active" && status === "pending") {
      // Disabled while this attempt was in flight (by another sender): its queued deliveries failed then; so does this one.
      yield* failQueued(and(eq(webhookDeliveries.id, d.id), eq(webhookDeliveries.status, "pending")));
      return "failed";
    }
    if (ep && ep.status === "active" && since !== null && now - since >= policy.disableAfterMs) {
      const reason = `disabled ${iso(now)}: no successful delivery since ${iso(since)} (last error: ${o.error ?? "unknown"})`;
      yield* run(
        t
          .update(webhookEndpoints)
          .set({ status: "disabled", disabledReason: reason })
          .where(eq(webhookEndpoints.id, d.endpointId)),
      );
      yield* failQueued(
        and(
          eq(webhookDeliveries.endpointId, d.endpointId),
          eq(webhookDeliveries.status, "pending"),
          isNull(webhookDeliveries.leaseOwner),
        ),
      );
      // This delivery is no longer leased, so it failed with the rest.
      if (status === "pending") status = "failed";
    }
    return status;
  });
}

/** Hands back unsent deliveries this process holds (shutdown). */
export function releaseDeliveries(db: Db, owner: string): Promise<number> {
  return db.run(
    db
      .update(webhookDeliveries)
      .set({ leaseOwner: null, leaseUntil: null })
      .where(and(eq(webhookDeliveries.status, "pending"), eq(webhookDeliveries.leaseOwner, owner))),
  );
}
