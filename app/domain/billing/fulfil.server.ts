/**
 * Fulfilment (docs/design.md §9): the one place where money becomes credits. Stripe's
 * webhook and the simulated checkout both turn what happened into a `Fact`
 * and call `processBillingEvent`, which records the event id once and applies
 * the fact in the same write transaction, so a duplicate or concurrent
 * delivery changes nothing. Each fact's applier (payments, status, refunds,
 * referrals .server.ts beside this file) is a statement sequence run inside
 * that transaction (docs/data-layer.md).
 *
 * Guards, besides the event id: one order per provider object (unique
 * `orders.external_id`), one payment per Checkout Session or invoice (unique
 * `order_payments.ref`), one claw-back per refund amount (unique debit key),
 * one referral reward per invitee (primary key).
 */
import { and, asc, eq, inArray } from "drizzle-orm";
import { type Db, one, run, type Steps } from "#db/client";
import { billingEvents, checkouts } from "#db/schema";
import type { Clock } from "~/lib/clock";
import { log } from "~/lib/log.server";
import type { Tx } from "../credits/ledger.server";
import type { BillingConfig, Fact } from "./facts";
import { applyPayment } from "./payments.server";
import { applyDispute, applyRefund, waitingFor } from "./refunds.server";
import { applyStatus } from "./status.server";

export type * from "./facts";
export { subscriptionStatus } from "./status.server";

export interface BillingDeps {
  db: Db;
  clock: Clock;
  config: BillingConfig;
}

export interface EventResult {
  /** The event id was seen before: nothing was changed this time. */
  duplicate: boolean;
  outcome: string;
}

/**
 * Records `event.id` once and applies its fact in the same transaction.
 * A fact of null (an event type we do not act on) is recorded as ignored.
 */
export async function processBillingEvent(
  { db, clock, config }: BillingDeps,
  event: { id: string; type: string; payload: string },
  fact: Fact | null,
): Promise<EventResult> {
  const result = await db.tx(function* (t) {
    const inserted = yield* run(
      t
        .insert(billingEvents)
        .values({
          id: event.id,
          type: event.type,
          outcome: "processing",
          payload: event.payload,
          createdAt: new Date(clock.now()),
        })
        .onConflictDoNothing({ target: billingEvents.id }),
    );
    if (inserted === 0) {
      const seen = yield* one(
        t.select({ outcome: billingEvents.outcome }).from(billingEvents).where(eq(billingEvents.id, event.id)),
      );
      return { duplicate: true, outcome: seen?.outcome ?? "seen" };
    }
    const outcome = fact ? yield* applyFact(t, fact, clock, config) : "ignored: event type not handled";
    yield* run(t.update(billingEvents).set({ outcome }).where(eq(billingEvents.id, event.id)));
    return { duplicate: false, outcome };
  });
  if (!result.duplicate && result.outcome.startsWith("waiting")) {
    log.warn("billing event waiting for its payment", {
      event_id: event.id,
      type: event.type,
      outcome: result.outcome,
    });
  } else if (!result.duplicate && result.outcome.startsWith("ignored")) {
    log.warn("billing event ignored", { event_id: event.id, type: event.type, outcome: result.outcome });
  } else if (!result.duplicate) {
    log.info("billing event applied", { event_id: event.id, type: event.type, outcome: result.outcome });
  }
  return result;
}

/** A payment was recorded: refunds and disputes that arrived before it are applied now. */
export async function applyWaitingEvents(
  { db, clock, config }: BillingDeps,
  payment: { paymentRef?: string | null; paymentIntent?: string | null },
  factOf: (payload: string) => Promise<Fact | null>,
): Promise<string[]> {
  const keys = [payment.paymentRef, payment.paymentIntent].filter((k): k is string => !!k).map(waitingFor);
  if (keys.length === 0) return [];
  const waiting = await db.many(
    db
      .select({ id: billingEvents.id, outcome: billingEvents.outcome, payload: billingEvents.payload })
      .from(billingEvents)
      .where(inArray(billingEvents.outcome, keys))
      .orderBy(asc(billingEvents.createdAt))
      .limit(50),
  );
  const applied: string[] = [];
  for (const row of waiting) {
    const fact = await factOf(row.payload);
    if (!fact) continue;
    const outcome = await db
      .tx(function* (t) {
        const outcome = yield* applyFact(t, fact, clock, config);
        if (outcome.startsWith("waiting")) return null;
        // Another process applied it first: roll this one back.
        const n = yield* run(
          t
            .update(billingEvents)
            .set({ outcome })
            .where(and(eq(billingEvents.id, row.id), eq(billingEvents.outcome, row.outcome))),
        );
        if (n !== 1) throw new AppliedElsewhere();
        return outcome;
      })
      .catch((e) => {
        if (e instanceof AppliedElsewhere) return null;
        throw e;
      });
    if (outcome) {
      log.info("billing event applied after its payment", { event_id: row.id, outcome });
      applied.push(row.id);
    }
  }
  return applied;
}

class AppliedElsewhere extends Error {}

export function* applyFact(tx: Tx, fact: Fact, clock: Clock, config: BillingConfig): Steps<string> {
  switch (fact.type) {
    case "payment":
      return yield* applyPayment(tx, fact, clock, config);
    case "status":
      return yield* applyStatus(tx, fact, clock);
    case "refund":
      return yield* applyRefund(tx, fact, clock);
    case "dispute":
      return yield* applyDispute(tx, fact, clock);
    case "checkout-expired": {
      const n = yield* run(
        tx
          .update(checkouts)
          .set({ status: "expired" })
          .where(and(eq(checkouts.id, fact.checkoutId), eq(checkouts.status, "open"))),
      );
      return n ? `applied: checkout ${fact.checkoutId} expired` : `ignored: checkout ${fact.checkoutId} not open`;
    }
  }
}
