/**
 * The webhook dispatcher (docs/design.md §10): a loop next to the job runner in every
 * server process. It claims due deliveries (leases, so processes never send
 * one attempt twice), sends them with up to WEBHOOK_CONCURRENCY in flight, and
 * records each attempt through the domain. A final transition in this process
 * wakes it at once; its tick (JOB_TICK_MS) finds work queued by other
 * processes and retries that came due.
 */

import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { Db } from "#db/client";
import { onOutbox } from "~/domain/generations/changes.server";
import {
  claimDeliveries,
  type DeliveryPolicy,
  perUserShare,
  recordAttempt,
  releaseDeliveries,
  sendDelivery,
} from "~/domain/webhooks/delivery.server";
import type { Clock } from "~/lib/clock";
import type { Config } from "~/lib/config.server";
import { log, repeatedWarning } from "~/lib/log.server";
import { getMetrics } from "~/lib/metrics.server";

type WebhookConfig = Pick<
  Config,
  | "JOB_TICK_MS"
  | "WEBHOOK_ALLOW_PRIVATE"
  | "WEBHOOK_TIMEOUT_MS"
  | "WEBHOOK_RETRY_SCHEDULE"
  | "WEBHOOK_DISABLE_AFTER_MS"
  | "WEBHOOK_CONCURRENCY"
>;

export function deliveryPolicy(config: WebhookConfig): DeliveryPolicy {
  return {
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    schedule: config.WEBHOOK_RETRY_SCHEDULE,
    disableAfterMs: config.WEBHOOK_DISABLE_AFTER_MS,
    allowPrivate: config.WEBHOOK_ALLOW_PRIVATE,
  };
}

export interface Dispatcher {
  readonly owner: string;
  start(): void;
  stop(graceMs?: number): Promise<void>;
  tick(): Promise<void>;
  inFlight(): number;
}

export function createWebhookDispatcher(deps: {
  db: Db;
  clock: Clock;
  config: WebhookConfig;
  owner?: string;
  policy?: Partial<DeliveryPolicy>;
}): Dispatcher {
  const owner = deps.owner ?? `${hostname()}:${process.pid}:wh:${randomBytes(3).toString("hex")}`;
  const { db, clock, config } = deps;
  const policy = { ...deliveryPolicy(config), ...deps.policy };
  // A sender that dies mid-attempt: its lease lapses a little after the attempt's own timeout.
  const leaseMs = policy.timeoutMs + 5_000;
  const abort = new AbortController();
  const active = new Set<Promise<void>>();
  let interval: ReturnType<typeof setInterval> | undefined;
  let unsubscribe: (() => void) | undefined;
  let stopping = false;
  let kickQueued = false;

  const kick = () => {
    if (kickQueued || stopping) return;
    kickQueued = true;
    queueMicrotask(() => {
      kickQueued = false;
      void tick();
    });
  };

  let claiming = false;
  /** The claim under way: stop() waits for it, and for the deliveries it starts, before the database may close. */
  let claim: Promise<unknown> | undefined;
  let again = false;
  const claimWarning = repeatedWarning("webhook claim failed");
  async function tick() {
    if (stopping) return;
    // A wake-up during a claim is not lost: the claim runs once more after it.
    if (claiming) {
      again = true;
      return;
    }
    const free = config.WEBHOOK_CONCURRENCY - active.size;
    if (free <= 0) return;
    claiming = true;
    let claimed;
    try {
      claimed = await (claim = claimDeliveries(
        db,
        { owner, limit: free, leaseMs, perUser: perUserShare(config.WEBHOOK_CONCURRENCY) },
        clock,
      ));
    } catch (error) {
      claimWarning.fail(error);
      return;
    } finally {
      claiming = false;
      if (again) {
        again = false;
        kick();
      }
    }
    claimWarning.ok();
    for (const d of claimed) {
      const p = (async () => {
        const outcome = await sendDelivery(d, policy, clock, abort.signal);
        if (abort.signal.aborted) return; // shutting down: the lease is released and the attempt repeated elsewhere
        const status = await recordAttempt(db, owner, d, outcome, policy, clock);
        if (status)
          getMetrics()
            ?.webhookDeliveries.labels(status === "pending" ? "retrying" : status)
            .inc();
        if (status !== "delivered")
          log.debug("webhook attempt failed", {
            delivery_id: d.id,
            status,
            error: outcome.error,
            http: outcome.statusCode,
          });
      })()
        .catch((error) => log.error("webhook delivery crashed", { delivery_id: d.id, error }))
        .finally(() => {
          active.delete(p);
          if (claimed.length === free) kick();
        });
      active.add(p);
    }
  }

  return {
    owner,
    start() {
      if (interval) return;
      interval = setInterval(() => void tick(), config.JOB_TICK_MS);
      unsubscribe = onOutbox(kick);
      void tick();
    },
    async stop(graceMs = 5000) {
      stopping = true;
      clearInterval(interval);
      unsubscribe?.();
      await claim?.catch(() => {});
      if (active.size > 0) await Promise.race([Promise.allSettled(active), Bun.sleep(graceMs)]);
      abort.abort();
      try {
        await releaseDeliveries(db, owner);
      } catch (error) {
        log.warn("releasing webhook leases failed", { error });
      }
    },
    tick,
    inFlight: () => active.size,
  };
}
