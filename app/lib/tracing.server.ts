/**
 * OpenTelemetry traces, on when OTEL_EXPORTER_OTLP_ENDPOINT is set (OTLP over HTTP, JSON): a span per request,
 * the database statements and transactions under it, and for a task's background steps a span linked to the
 * request that created the task, with the provider call and the storage write under it. Off, nothing is loaded
 * and every helper here calls its function straight through.
 */
import {
  type Attributes,
  context,
  type Link,
  type SpanContext,
  SpanStatusCode,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import type { Db } from "#db/query";
import { log } from "./log.server";
import { APP_VERSION } from "./version";

const KEY = Symbol.for("atelier.tracing");
interface State {
  tracer: Tracer;
  shutdown(): Promise<void>;
  /** Where each task was created: its steps link back to that span (bounded; a task created elsewhere has none). */
  origins: Map<string, SpanContext>;
}
type G = typeof globalThis & { [KEY]?: State | null };
const g = globalThis as G;
const ORIGINS_MAX = 10_000;

export const tracingOn = (): boolean => Boolean(g[KEY]);

/** Starts the tracer provider and the OTLP exporter (once per process). */
export async function initTracing(config: {
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;
  OTEL_SERVICE_NAME?: string;
}): Promise<void> {
  if (g[KEY] !== undefined) return;
  const endpoint = config.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!endpoint) {
    g[KEY] = null;
    return;
  }
  const [
    { TracerProvider, BatchSpanProcessor },
    { OTLPTraceExporter },
    { AsyncLocalStorageContextManager },
    { resourceFromAttributes },
  ] = await Promise.all([
    import("@opentelemetry/sdk-trace"),
    import("@opentelemetry/exporter-trace-otlp-http"),
    import("@opentelemetry/context-async-hooks"),
    import("@opentelemetry/resources"),
  ]);
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const exporter = new OTLPTraceExporter({ url: `${endpoint.replace(/\/+$/, "")}/v1/traces` });
  const provider = new TracerProvider({
    resource: resourceFromAttributes({
      "service.name": config.OTEL_SERVICE_NAME ?? "atelier",
      "service.version": APP_VERSION,
    }),
    spanProcessors: [new BatchSpanProcessor({ exporter, scheduledDelayMillis: 1000 })],
  });
  trace.setGlobalTracerProvider(provider);
  g[KEY] = {
    tracer: trace.getTracer("atelier", APP_VERSION),
    shutdown: () => provider.shutdown(),
    origins: new Map(),
  };
  log.info("tracing on", { endpoint });
}

/** Sends what is buffered and stops (graceful shutdown). */
export async function shutdownTracing(): Promise<void> {
  await g[KEY]?.shutdown().catch(() => {});
}

/** Runs `fn` inside a span (a child of the active one); its errors mark the span and go on. */
export function withSpan<T>(
  name: string,
  attributes: Attributes,
  fn: () => Promise<T>,
  opts: { links?: Link[]; root?: boolean } = {},
): Promise<T> {
  const s = g[KEY];
  if (!s) return fn();
  const parent = opts.root ? trace.deleteSpan(context.active()) : context.active();
  return s.tracer.startActiveSpan(name, { attributes, links: opts.links }, parent, async (span) => {
    try {
      return await fn();
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error)?.message });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Adds attributes to the active span (the request's status code, the task's id). */
export function annotate(attributes: Attributes): void {
  if (g[KEY]) trace.getActiveSpan()?.setAttributes(attributes);
}

/** Remembers that `genId` was created under the active span, for its steps' link. */
export function rememberTaskOrigin(genId: string): void {
  const s = g[KEY];
  const ctx = s && trace.getActiveSpan()?.spanContext();
  if (!s || !ctx) return;
  if (s.origins.size >= ORIGINS_MAX) s.origins.delete(s.origins.keys().next().value!);
  s.origins.set(genId, ctx);
}

/** The link from a task's step to the request that created it, when this process saw that request. */
export function taskOriginLinks(genId: string): Link[] | undefined {
  const ctx = g[KEY]?.origins.get(genId);
  return ctx ? [{ context: ctx, attributes: { "atelier.link": "created_by" } }] : undefined;
}

/** The database with a span around each statement and transaction (only when tracing is on). */
export function tracedDb(db: Db): Db {
  if (!g[KEY]) return db;
  const system = db.engine === "postgres" ? "postgresql" : "sqlite";
  const wrap =
    (op: "one" | "many" | "run" | "tx" | "exec") =>
    (...args: unknown[]) =>
      withSpan(`db.${op}`, { "db.system": system, "db.operation": op }, () =>
        (db[op] as (...a: unknown[]) => Promise<unknown>)(...args),
      );
  const ops = { one: wrap("one"), many: wrap("many"), run: wrap("run"), tx: wrap("tx"), exec: wrap("exec") };
  return new Proxy(db, {
    get(target, prop, receiver) {
      if (typeof prop === "string" && prop in ops) return ops[prop as keyof typeof ops];
      return Reflect.get(target, prop, receiver);
    },
  });
}
