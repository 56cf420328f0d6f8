/**
 * Alerts for the operator, mailed to the admins: a provider failing too often, the queue stuck, a webhook endpoint
 * disabled, Stripe signatures failing again and again. Conditions are read from the database, so every process sees
 * the same; a guarded update of `last_sent_at` picks the one process that mails, at most once per condition per hour
 * (once ever for a disabled endpoint: the event happened once).
 */
import { and, desc, eq, gte, inArray, isNull, lte, ne, notInArray, or, sql } from "drizzle-orm";
import type { Db } from "#db/client";
import { generations, opsAlerts, user, webhookEndpoints } from "#db/schema";
import type { Clock } from "~/lib/clock";
import type { Config } from "~/lib/config.server";
import type { Mailer } from "~/lib/mail.server";
import { CANCELED } from "../generations/status";
import { SUSPENDED_WEBHOOK_REASON } from "../users/suspend.server";
import { isAdminEmail } from "../users/users.server";

export type AlertKind = "provider-errors" | "queue-stuck" | "webhook-disabled" | "stripe-signature";
const KINDS: AlertKind[] = ["provider-errors", "queue-stuck", "webhook-disabled", "stripe-signature"];
/** Kinds that tell of one event: mailed once, never repeated. */
const ONCE: AlertKind[] = ["webhook-disabled"];

export interface AlertPolicy {
  /** A provider's share of failed tasks (canceled aside) over the window that fires its alert. */
  providerErrorRate: number;
  /** Fewer ended tasks than this in the window say nothing about a provider. */
  providerMinTasks: number;
  queueAgeSeconds: number;
  stripeSignatureFailures: number;
  windowMs: number;
  resendMs: number;
}

export const policyFrom = (
  config: Pick<
    Config,
    | "ALERT_PROVIDER_ERROR_RATE"
    | "ALERT_PROVIDER_MIN_TASKS"
    | "ALERT_QUEUE_AGE_SECONDS"
    | "ALERT_STRIPE_SIGNATURE_FAILURES"
  >,
): AlertPolicy => ({
  providerErrorRate: config.ALERT_PROVIDER_ERROR_RATE / 100,
  providerMinTasks: config.ALERT_PROVIDER_MIN_TASKS,
  queueAgeSeconds: config.ALERT_QUEUE_AGE_SECONDS,
  stripeSignatureFailures: config.ALERT_STRIPE_SIGNATURE_FAILURES,
  windowMs: 600_000,
  resendMs: 3_600_000,
});

export interface FiringAlert {
  key: string;
  kind: AlertKind;
  message: string;
}

export interface AlertDeps {
  db: Db;
  clock: Clock;
  mailer: Mailer;
  config: Pick<Config, "ADMIN_EMAILS" | "publicUrl">;
}

const pct = (x: number) => `${Math.round(x * 100)} %`;

/** The conditions that hold now. */
export async function firingAlerts(deps: Pick<AlertDeps, "db" | "clock">, policy: AlertPolicy): Promise<FiringAlert[]> {
  const { db, clock } = deps;
  const now = clock.now();
  const out: FiringAlert[] = [];

  // Tasks created in the window that have ended (generations_created_idx bounds the scan to the window).
  const failed = sql<number>`sum(case when ${generations.status} = 'failed' and (${generations.errorMessage} is null or ${generations.errorMessage} <> ${CANCELED}) then 1 else 0 end)`;
  const completed = sql<number>`sum(case when ${generations.status} = 'completed' then 1 else 0 end)`;
  const byProvider = await db.many(
    db
      .select({ provider: generations.provider, failed, completed })
      .from(generations)
      .where(gte(generations.createdAt, new Date(now - policy.windowMs)))
      .groupBy(generations.provider),
  );
  for (const p of byProvider) {
    const f = Number(p.failed ?? 0);
    const ended = f + Number(p.completed ?? 0);
    if (ended >= policy.providerMinTasks && f / ended >= policy.providerErrorRate)
      out.push({
        key: `provider-errors:${p.provider}`,
        kind: "provider-errors",
        message: `${p.provider}: ${f} of ${ended} tasks failed in the last ${policy.windowMs / 60_000} minutes (${pct(f / ended)})`,
      });
  }

  const oldest = await db.one(
    db
      .select({ at: sql<number | string | null>`min(${generations.createdAt})` })
      .from(generations)
      .where(eq(generations.status, "pending")),
  );
  const oldestAt = oldest?.at == null ? null : Number(oldest.at);
  if (oldestAt !== null && now - oldestAt >= policy.queueAgeSeconds * 1000)
    out.push({
      key: "queue-stuck",
      kind: "queue-stuck",
      message: `the oldest pending task has waited ${Math.round((now - oldestAt) / 1000)} s (threshold ${policy.queueAgeSeconds} s): is a worker running?`,
    });

  const disabled = await db.many(
    db
      .select({ id: webhookEndpoints.id, url: webhookEndpoints.url, reason: webhookEndpoints.disabledReason })
      .from(webhookEndpoints)
      .where(
        and(
          eq(webhookEndpoints.status, "disabled"),
          // An admin's suspension disabled it on purpose: nothing for the admins to look at.
          or(isNull(webhookEndpoints.disabledReason), ne(webhookEndpoints.disabledReason, SUSPENDED_WEBHOOK_REASON)),
        ),
      ),
  );
  for (const e of disabled)
    out.push({
      key: `webhook-disabled:${e.id}`,
      kind: "webhook-disabled",
      message: `webhook endpoint ${new URL(e.url).host} was disabled: ${e.reason ?? "deliveries kept failing"}`,
    });

  const stripe = await db.one(db.select().from(opsAlerts).where(eq(opsAlerts.key, "stripe-signature")));
  if (
    stripe &&
    stripe.count >= policy.stripeSignatureFailures &&
    stripe.windowStart !== null &&
    now - stripe.windowStart < policy.windowMs
  )
    out.push({
      key: "stripe-signature",
      kind: "stripe-signature",
      message: `${stripe.count} Stripe webhook events with a bad signature in ${policy.windowMs / 60_000} minutes: check STRIPE_WEBHOOK_SECRET (or someone is probing the endpoint)`,
    });
  return out;
}

/** A Stripe webhook whose signature did not verify: counted in a 10-minute window (one row, guarded by its key). */
export async function recordStripeSignatureFailure(deps: Pick<AlertDeps, "db" | "clock">, windowMs = 600_000) {
  const now = deps.clock.now();
  const stale = sql`${opsAlerts.windowStart} is null or ${opsAlerts.windowStart} <= ${now - windowMs}`;
  await deps.db.run(
    deps.db
      .insert(opsAlerts)
      .values({
        key: "stripe-signature",
        kind: "stripe-signature",
        message: "Stripe webhook signatures failing",
        count: 1,
        windowStart: now,
        firstAt: now,
        lastSeenAt: now,
      })
      .onConflictDoUpdate({
        target: opsAlerts.key,
        set: {
          count: sql`case when ${stale} then 1 else ${opsAlerts.count} + 1 end`,
          windowStart: sql`case when ${stale} then ${now} else ${opsAlerts.windowStart} end`,
          lastSeenAt: now,
        },
      }),
  );
}

/** Who gets alerts: promoted admins and verified ADMIN_EMAILS addresses. */
async function adminEmails(deps: Pick<AlertDeps, "db" | "config">): Promise<string[]> {
  const rows = await deps.db.many(
    deps.db
      .select({ email: user.email, role: user.role, verified: user.emailVerified })
      .from(user)
      .where(
        or(
          eq(user.role, "admin"),
          deps.config.ADMIN_EMAILS.length > 0 ? inArray(user.email, deps.config.ADMIN_EMAILS) : sql`false`,
        ),
      ),
  );
  return rows
    .filter((r) => r.role === "admin" || (r.verified && isAdminEmail(deps.config, r.email)))
    .map((r) => r.email);
}

/**
 * One evaluation: records what fires, resolves what stopped, and mails each firing condition whose last mail is
 * older than the policy's resend time (never again for one-time events). Returns the alerts this call mailed.
 */
export async function evaluateAlerts(deps: AlertDeps, policy: AlertPolicy): Promise<FiringAlert[]> {
  const { db, clock } = deps;
  const now = clock.now();
  const firing = await firingAlerts(deps, policy);
  const sent: FiringAlert[] = [];
  for (const a of firing) {
    await db.run(
      db
        .insert(opsAlerts)
        .values({ key: a.key, kind: a.kind, message: a.message, state: "firing", firstAt: now, lastSeenAt: now })
        .onConflictDoUpdate({
          target: opsAlerts.key,
          set: {
            message: a.message,
            firstAt: sql`case when ${opsAlerts.state} = 'firing' then ${opsAlerts.firstAt} else ${now} end`,
            state: "firing",
            lastSeenAt: now,
          },
        }),
    );
    const due = ONCE.includes(a.kind)
      ? isNull(opsAlerts.lastSentAt)
      : or(isNull(opsAlerts.lastSentAt), lte(opsAlerts.lastSentAt, now - policy.resendMs));
    const claimed = await db.run(
      db
        .update(opsAlerts)
        .set({ lastSentAt: now, sentCount: sql`${opsAlerts.sentCount} + 1` })
        .where(and(eq(opsAlerts.key, a.key), due)),
    );
    if (claimed === 1) sent.push(a);
  }
  // Conditions that no longer hold (the Stripe counter row stays: it keeps counting).
  await db.run(
    db
      .update(opsAlerts)
      .set({ state: "ok" })
      .where(
        and(
          eq(opsAlerts.state, "firing"),
          inArray(opsAlerts.kind, KINDS),
          firing.length > 0
            ? notInArray(
                opsAlerts.key,
                firing.map((a) => a.key),
              )
            : sql`true`,
        ),
      ),
  );
  if (sent.length > 0) {
    const to = await adminEmails(deps);
    for (const a of sent)
      for (const address of to)
        await deps.mailer.send({
          to: address,
          subject: `[Atelier] alert: ${a.message.slice(0, 120)}`,
          text: `${a.message}\n\nThis alert is mailed at most once an hour while it lasts${ONCE.includes(a.kind) ? " (this one once)" : ""}.\nSee ${deps.config.publicUrl}/admin#alerts\n`,
        });
  }
  return sent;
}

export interface AlertEntry {
  key: string;
  kind: string;
  message: string;
  state: string;
  firstAt: number;
  lastSeenAt: number;
  lastSentAt: number | null;
  sentCount: number;
}

/** The newest alerts for the dashboard (the Stripe counter shows only once it has fired). */
export async function listAlerts(db: Db, limit = 20): Promise<AlertEntry[]> {
  const rows = await db.many(
    db
      .select()
      .from(opsAlerts)
      .where(or(eq(opsAlerts.state, "firing"), sql`${opsAlerts.sentCount} > 0`))
      .orderBy(desc(opsAlerts.lastSeenAt))
      .limit(limit),
  );
  return rows.map((r) => ({
    key: r.key,
    kind: r.kind,
    message: r.message,
    state: r.state,
    firstAt: Number(r.firstAt),
    lastSeenAt: Number(r.lastSeenAt),
    lastSentAt: r.lastSentAt === null ? null : Number(r.lastSentAt),
    sentCount: r.sentCount,
  }));
}
