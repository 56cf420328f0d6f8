/**
 * Prometheus metrics of this process (prom-client), on when METRICS_TOKEN is set. Counters live in memory and cost
 * well under a microsecond per request; figures that live in the database (queue depth, webhook backlog) are read
 * when Prometheus scrapes, never on the request path. Every node exposes its own; Prometheus sums them.
 */
import client from "prom-client";
import { getConfig } from "./config.server";

export interface ScrapeGauges {
  /** Tasks waiting to be claimed, and the age in seconds of the oldest of them (0 when none waits). */
  queue(): Promise<{ depth: number; oldestSeconds: number }>;
  /** Webhook deliveries not yet delivered nor given up. */
  webhookBacklog(): Promise<number>;
}

/** Histogram buckets for request and task durations, in seconds. */
const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const TASK_BUCKETS = [0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1200];

function createMetrics() {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry, prefix: "atelier_" });
  const registers = [registry];
  let gauges: ScrapeGauges | undefined;
  let lastQueue = { depth: 0, oldestSeconds: 0 };
  const readQueue = async () => {
    if (gauges) lastQueue = await gauges.queue();
    return lastQueue;
  };
  const metrics = {
    registry,
    httpRequests: new client.Counter({
      name: "atelier_http_requests_total",
      help: "HTTP requests answered, by route pattern, method and status.",
      labelNames: ["route", "method", "status"] as const,
      registers,
    }),
    httpDuration: new client.Histogram({
      name: "atelier_http_request_duration_seconds",
      help: "Time to answer an HTTP request (until the response starts), by route pattern.",
      labelNames: ["route"] as const,
      buckets: HTTP_BUCKETS,
      registers,
    }),
    generations: new client.Counter({
      name: "atelier_generations_total",
      help: "Generation tasks that ended, by provider, model and final status (completed, failed, canceled).",
      labelNames: ["provider", "model", "status"] as const,
      registers,
    }),
    generationDuration: new client.Histogram({
      name: "atelier_generation_duration_seconds",
      help: "Time from a task's creation to its completion, by provider and model.",
      labelNames: ["provider", "model"] as const,
      buckets: TASK_BUCKETS,
      registers,
    }),
    providerErrors: new client.Counter({
      name: "atelier_provider_errors_total",
      help: "Provider calls that failed, by provider and kind of error (auth, rate_limit, network, server, bad_request…).",
      labelNames: ["provider", "kind"] as const,
      registers,
    }),
    webhookDeliveries: new client.Counter({
      name: "atelier_webhook_deliveries_total",
      help: "Webhook delivery attempts, by result: delivered, retrying (failed, tried again later), failed (given up).",
      labelNames: ["result"] as const,
      registers,
    }),
    creditsCharged: new client.Counter({
      name: "atelier_credits_charged_total",
      help: "Credits charged for completed generations (drawn from grants when the task completed).",
      registers,
    }),
    setGauges(g: ScrapeGauges) {
      gauges = g;
    },
  };
  new client.Gauge({
    name: "atelier_jobs_queue_depth",
    help: "Generation tasks waiting to be claimed (pending), read from the database at scrape time.",
    registers,
    async collect() {
      this.set((await readQueue()).depth);
    },
  });
  new client.Gauge({
    name: "atelier_jobs_oldest_pending_seconds",
    help: "Age of the oldest pending generation task in seconds (0 when none waits).",
    registers,
    async collect() {
      // The depth gauge just read it in the same scrape.
      this.set(lastQueue.oldestSeconds);
    },
  });
  new client.Gauge({
    name: "atelier_webhook_backlog",
    help: "Webhook deliveries waiting to be sent or retried, read from the database at scrape time.",
    registers,
    async collect() {
      if (gauges) this.set(await gauges.webhookBacklog());
    },
  });
  return metrics;
}

export type Metrics = ReturnType<typeof createMetrics>;

const KEY = Symbol.for("atelier.metrics");
type G = typeof globalThis & { [KEY]?: Metrics | null };

/**
 * This process's metrics, or null when they are off (no METRICS_TOKEN): callers skip the work entirely then.
 * Shared through globalThis so the server bundle and the job runner count into one registry.
 */
export function getMetrics(): Metrics | null {
  const g = globalThis as G;
  if (g[KEY] === undefined) g[KEY] = getConfig().METRICS_TOKEN ? createMetrics() : null;
  return g[KEY];
}

/** For tests: forget the registry so the next getMetrics() reads METRICS_TOKEN again. */
export function resetMetricsForTests(): void {
  (globalThis as G)[KEY] = undefined;
}

/** A task ended: count it under its final status (and time it when it completed). */
export function countGenerationEnd(
  task: { provider: string; model: string; createdAt?: number | Date | null },
  status: "completed" | "failed" | "canceled",
  now = Date.now(),
  charged = 0,
): void {
  const m = getMetrics();
  if (!m) return;
  m.generations.labels(task.provider, task.model, status).inc();
  if (charged > 0) m.creditsCharged.inc(charged);
  if (status === "completed" && task.createdAt != null) {
    const created = typeof task.createdAt === "number" ? task.createdAt : task.createdAt.getTime();
    m.generationDuration.labels(task.provider, task.model).observe(Math.max(0, (now - created) / 1000));
  }
}
