/**
 * OpenTelemetry traces when OTEL_EXPORTER_OTLP_ENDPOINT is set, received by a local OTLP/HTTP endpoint (JSON, as the
 * OTLP specification's `/v1/traces` takes it): a request's span with its database statements as children, and the
 * task's background step in a trace of its own, linked to the request that created it, with the provider call and
 * the storage write under it.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { uniqueEmail } from "../../support/client";
import { serverForFile } from "../../support/file-server";
import { until } from "../../support/until";

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  links?: { traceId: string; spanId: string }[];
  attributes?: { key: string; value: Record<string, unknown> }[];
}
const spans: OtlpSpan[] = [];
const services = new Set<string>();
let receiver: ReturnType<typeof Bun.serve>;

beforeAll(() => {
  receiver = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const url = new URL(req.url);
      if (req.method !== "POST" || url.pathname !== "/v1/traces") return new Response("not found", { status: 404 });
      expect(req.headers.get("content-type")).toContain("application/json");
      const body = (await req.json()) as {
        resourceSpans: {
          resource: { attributes: { key: string; value: { stringValue?: string } }[] };
          scopeSpans: { spans: OtlpSpan[] }[];
        }[];
      };
      for (const rs of body.resourceSpans) {
        for (const a of rs.resource.attributes) if (a.key === "service.name") services.add(a.value.stringValue!);
        for (const ss of rs.scopeSpans) spans.push(...ss.spans);
      }
      return Response.json({ partialSuccess: {} });
    },
  });
});
afterAll(() => receiver?.stop(true));

const it = serverForFile(() => ({
  env: {
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${receiver.port}`,
    OTEL_SERVICE_NAME: "atelier-test",
    SIMULATOR_DELAY_MS: "50",
    JOB_TICK_MS: "25",
  },
}));

const attr = (s: OtlpSpan, key: string) => {
  const v = s.attributes?.find((a) => a.key === key)?.value;
  return v ? Object.values(v)[0] : undefined;
};

test("a generate request and its task's steps arrive as linked traces", async () => {
  const { cookie } = await it.api.signUp(uniqueEmail("trace"));
  const key = (await it.api.post("/api/keys/create", { name: "trace" }, { cookie })).body.data.key as string;
  const created = await it.api.post(
    "/api/generator/generate",
    { ai_type: "image", provider: "openai", model: "dall-e-3", prompt: "a traced lighthouse" },
    { apiKey: key },
  );
  expect(created.body.code).toBe(0);
  const genId = created.body.data.gen_id as string;

  const request = await until(
    "the generate request's span",
    async () => spans.find((s) => s.name === "POST /api/generator/generate" && !s.parentSpanId),
    15_000,
  );
  expect(services.has("atelier-test")).toBe(true);
  expect(Number(attr(request, "http.response.status_code"))).toBe(200);
  const dbChildren = spans.filter((s) => s.traceId === request.traceId && s.name.startsWith("db."));
  expect(dbChildren.length).toBeGreaterThan(0);
  expect(dbChildren.some((s) => s.parentSpanId === request.spanId)).toBe(true);

  const steps = await until(
    "the task's step that completed it",
    async () => {
      const mine = spans.filter((s) => s.name === "generation.step" && attr(s, "atelier.gen_id") === genId);
      const done = mine.find((s) => spans.some((c) => c.parentSpanId === s.spanId && c.name === "storage.store"));
      return done ? mine : undefined;
    },
    15_000,
  );
  for (const step of steps) {
    // Its own trace, linked to the request that created the task.
    expect(step.traceId).not.toBe(request.traceId);
    expect(step.links).toContainEqual(expect.objectContaining({ traceId: request.traceId, spanId: request.spanId }));
  }
  const children = spans.filter((s) => steps.some((st) => st.spanId === s.parentSpanId)).map((s) => s.name);
  expect(children).toContain("provider.call");
  expect(children).toContain("storage.store");
});
