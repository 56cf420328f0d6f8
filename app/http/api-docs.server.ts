/**
 * The /docs page's content, built from the endpoint table and the error table
 * (the same sources as /api/openapi.json): fields from the zod schemas' JSON
 * Schema, examples from each endpoint's example body.
 */
import { z } from "zod";
import { type OptionSpec, offeredModels, offeringKey } from "~/domain/catalog";
import { ERRORS, type ErrorCode, errorPatterns } from "~/lib/errors";
import { ENDPOINTS, type EndpointDef } from "./endpoints.server";
import { AUTH_TEXT } from "./openapi.server";

type JsonSchema = {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  additionalProperties?: JsonSchema | boolean;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  default?: unknown;
};

export interface DocField {
  name: string;
  type: string;
  required: boolean;
  notes: string;
}

export interface DocShape {
  title?: string;
  fields: DocField[];
  /** When the body is not an object: what it is. */
  text?: string;
}

function toSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  return z.toJSONSchema(schema, { io, unrepresentable: "any" }) as JsonSchema;
}

function typeOf(s: JsonSchema): string {
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (s.enum) return s.enum.map((v) => JSON.stringify(v)).join(" | ");
  const variants = s.anyOf ?? s.oneOf;
  if (variants) return variants.map(typeOf).join(" | ");
  if (s.type === "array") return `array of ${s.items ? typeOf(s.items) : "any"}`;
  if (s.type === "object" && s.properties) return "object";
  if (s.type === "object") return "object";
  if (Array.isArray(s.type)) return s.type.join(" | ");
  if (s.type === "string" && s.format) return `string (${s.format})`;
  return s.type ?? "any";
}

function notesOf(s: JsonSchema): string {
  const parts: string[] = [];
  const inner = (s.anyOf ?? s.oneOf ?? [s]).find((v) => v.type !== "null") ?? s;
  const d = s.description ?? inner.description;
  if (d) parts.push(d);
  const { minLength: minL, maxLength: maxL } = inner;
  // JSON Schema's bounds of "any safe integer" say nothing to a reader.
  const bound = (n: number | undefined) => (n === undefined || Math.abs(n) >= Number.MAX_SAFE_INTEGER ? undefined : n);
  const [min, max] = [bound(inner.minimum), bound(inner.maximum)];
  if (minL !== undefined && maxL !== undefined)
    parts.push(minL > 0 ? `${minL} to ${maxL} characters` : `up to ${maxL} characters`);
  else if (maxL !== undefined) parts.push(`up to ${maxL} characters`);
  else if (minL !== undefined && minL > 1) parts.push(`at least ${minL} characters`);
  else if (minL === 1) parts.push("not empty");
  if (min !== undefined && max !== undefined) parts.push(`${min} to ${max}`);
  else if (min !== undefined) parts.push(`at least ${min}`);
  else if (max !== undefined) parts.push(`at most ${max}`);
  if (s.default !== undefined || inner.default !== undefined)
    parts.push(`default ${JSON.stringify(s.default ?? inner.default)}`);
  return parts.join("; ");
}

/** Notes written for maintainers ("(spec 4.1)", "docs/design.md §1") stay out of the reader's docs. */
export const forReaders = (text: string) =>
  text
    .replace(/\s*\((?:see )?(?:spec|DESIGN|docs\/(?:design|api)\.md)\b[^)]*\)/gi, "")
    .replace(
      /[;,]?\s*(?:spec|DESIGN|docs\/(?:design|api)\.md)\s*(?:§\s*)?\d+(?:\.\d+)*(?:\s+rule(?:s)?(?: order)?)?/gi,
      "",
    )
    .replace(/\s{2,}/g, " ")
    .trim();

function shapeOf(s: JsonSchema, title?: string): DocShape {
  if (s.properties) {
    const required = new Set(s.required ?? []);
    return {
      title,
      fields: Object.entries(s.properties).map(([name, p]) => ({
        name,
        type: typeOf(p),
        required: required.has(name),
        notes: forReaders(notesOf(p)),
      })),
    };
  }
  if (s.type === "null") return { title, fields: [], text: "null" };
  return { title, fields: [], text: `${typeOf(s)}${s.description ? ` — ${forReaders(s.description)}` : ""}` };
}

function shapes(s: JsonSchema): DocShape[] {
  const variants = s.oneOf ?? s.anyOf;
  if (variants?.some((v) => v.properties)) {
    return variants.map((v) => {
      const status = v.properties?.status?.const;
      return shapeOf(
        v,
        typeof status === "string" ? `when status is ${status}` : v.type === "null" ? "or null" : undefined,
      );
    });
  }
  return [shapeOf(s)];
}

/** One model's options for the reader (the generate endpoint's `options` field, model by model). */
export interface ModelOptionDoc {
  key: string;
  label: string;
  ai_type: string;
  provider: string;
  model: string;
  credits: number;
  options: { name: string; values: string; default: string | null; label: string }[];
}

function optionValues(spec: OptionSpec): string {
  switch (spec.type) {
    case "enum":
      return spec.values.join(" | ");
    case "integer":
      return spec.values ? spec.values.join(" | ") : `integer ${spec.min} to ${spec.max}`;
    case "number":
      return `number ${spec.min} to ${spec.max}`;
    case "boolean":
      return "true | false";
    case "text":
      return `text, up to ${spec.maxLength} characters`;
    case "image":
      return "file id or https URL";
  }
}

/** The models on offer (the catalog as the admin keeps it) with each option's values and default. */
export function modelOptionDocs(): ModelOptionDoc[] {
  return offeredModels().map((o) => ({
    key: offeringKey(o),
    label: o.label,
    ai_type: o.aiType,
    provider: o.provider,
    model: o.model,
    credits: o.credits,
    options: Object.entries(o.options).map(([name, spec]) => ({
      name,
      values: optionValues(spec),
      default: "default" in spec && spec.default !== undefined ? JSON.stringify(spec.default) : null,
      label: [spec.label + (spec.unit ? ` (${spec.unit})` : ""), spec.required ? "required" : null, spec.help ?? null]
        .filter(Boolean)
        .join("; "),
    })),
  }));
}

const pretty = (v: unknown) => JSON.stringify(v, null, 2);

function curlExample(base: string, path: string, def: EndpointDef): string {
  if (def.method === "GET") return `curl -s ${base}${path}`;
  const lines = [`curl -s -X POST ${base}${path}`];
  // The jar the sign-in example writes with -c: the cookie's value is signed (and its name gets a
  // __Host- prefix behind HTTPS), so the token from the sign-in JSON does not work as a cookie.
  if (def.auth === "session") lines.push(`  -b cookies.txt`);
  else if (def.auth === "user" || def.auth === "admin" || def.auth === "optional")
    lines.push(`  -H "X-API-Key: $ATELIER_API_KEY"`);
  if (path.startsWith("/api/auth/")) lines.push(`  -H "Origin: ${base}" -c cookies.txt`);
  if (def.multipart) lines.push(`  -F "file=@picture.png"`);
  if (def.body) {
    lines.push(`  -H "Content-Type: application/json"`);
    lines.push(`  -d '${JSON.stringify(def.example ?? {})}'`);
  }
  return lines.join(" \\\n");
}

function fetchExample(base: string, path: string, def: EndpointDef): string {
  if (def.method === "GET") return `const res = await fetch("${base}${path}");\nconst body = await res.json();`;
  const headers: string[] = [];
  if (def.auth === "user" || def.auth === "admin" || def.auth === "optional")
    headers.push(`"X-API-Key": process.env.ATELIER_API_KEY`);
  if (def.body) headers.push(`"Content-Type": "application/json"`);
  const init = [`method: "POST"`];
  if (def.auth === "session") init.push(`credentials: "include" // the browser's session cookie`);
  if (headers.length) init.push(`headers: { ${headers.join(", ")} }`);
  if (def.body) init.push(`body: JSON.stringify(${JSON.stringify(def.example ?? {})})`);
  if (def.multipart) init.push(`body: form // const form = new FormData(); form.append("file", blob)`);
  const call = `const res = await fetch("${base}${path}", {\n  ${init.join(",\n  ")},\n});`;
  if (def.contentType?.startsWith("text/")) {
    return `${call}\n// Errors before the first chunk come as a JSON envelope.\nconst reader = res.body.pipeThrough(new TextDecoderStream()).getReader();\nfor (;;) {\n  const { done, value } = await reader.read();\n  if (done) break;\n  process.stdout.write(value);\n}`;
  }
  if (def.envelope === false) return `${call}\nconst body = await res.json();`;
  return `${call}\nconst { code, message, data } = await res.json();\nif (code !== 0) throw new Error(message); // HTTP 401 / 429 carry the same envelope`;
}

export interface DocEndpoint {
  id: string;
  path: string;
  method: string;
  alsoMethod?: string;
  tag: string;
  summary: string;
  description: string;
  auth: string;
  request: DocShape[] | null;
  response: DocShape[];
  envelope: boolean;
  contentType?: string;
  successMessage?: string;
  curl: string;
  fetch: string;
  errors: { status: number; message: string }[];
}

const anchor = (path: string) => path.replace(/^\/api\//, "").replace(/[^a-z0-9]+/gi, "-");

export function buildDocs(
  base: string,
  limits: { standard: number; premium: number; admin: number; windowSeconds: number },
) {
  const endpoints: DocEndpoint[] = (Object.entries(ENDPOINTS) as [string, EndpointDef][]).map(([path, def]) => {
    const req = def.docBody ?? def.body;
    const errors = def.errors.flatMap((code) => {
      const { status, messages } = errorPatterns(code);
      return messages.map((message) => ({ status, message }));
    });
    return {
      id: anchor(path),
      path,
      method: def.method,
      alsoMethod: def.alsoMethod,
      tag: def.tag,
      summary: forReaders(def.summary),
      description: forReaders(def.description),
      auth: AUTH_TEXT[def.auth],
      request: req ? shapes(toSchema(req, "input")) : null,
      response: shapes(toSchema(def.response, "output")),
      envelope: def.envelope !== false,
      contentType: def.contentType,
      successMessage: def.successMessage,
      curl: curlExample(base, path, def),
      fetch: fetchExample(base, path, def),
      errors: [...new Map(errors.map((e) => [e.message, e])).values()],
    };
  });
  // Responses carry messages, never these codes: the table lists messages and statuses only.
  const errorTable = (Object.keys(ERRORS) as ErrorCode[]).map((code) => errorPatterns(code));
  const tags = [...new Set(endpoints.map((e) => e.tag))];
  return {
    base,
    endpoints,
    errorTable,
    tags,
    limits,
    pollingExample: pollingExample(base),
    webhookExamples: webhookExamples(base),
    envelopeExample: pretty({ code: 0, message: "ok", data: { left_credits: 11, total_credits: 11 } }),
  };
}

/** docs/design.md §10: safe retries, webhooks (create + verify), the status stream. */
function webhookExamples(base: string) {
  return {
    idempotency: `curl -s -X POST ${base}/api/generator/generate \\
  -H "X-API-Key: $ATELIER_API_KEY" -H "Content-Type: application/json" \\
  -H "Idempotency-Key: 4f7d0c1e-2b55-4b8e-9d6c-0a6c1f3e2b11" \\
  -d '{"ai_type":"image","provider":"replicate","model":"black-forest-labs/flux-schnell","prompt":"A red fox"}'
# Repeat it after a timeout: the same gen_id comes back (header Idempotent-Replayed: true), nothing is charged twice.`,
    create: `curl -s -X POST ${base}/api/webhooks/create \\
  -H "X-API-Key: $ATELIER_API_KEY" -H "Content-Type: application/json" \\
  -d '{"url":"https://example.com/atelier-webhooks"}'
# {"code":0,"message":"webhook created","data":{"webhook_id":"wh_…","url":"https://example.com/atelier-webhooks",
#   "events":["generation.completed","generation.failed"],"secret":"whsec_…",…}}   ← keep the secret`,
    verify: `// npm i standardwebhooks — the receiver (any framework; it needs the raw body)
import { Webhook } from "standardwebhooks";
const wh = new Webhook(process.env.ATELIER_WEBHOOK_SECRET); // "whsec_…"

Bun.serve({ port: 8080, async fetch(req) {
  const body = await req.text();
  let event;
  try {
    event = wh.verify(body, Object.fromEntries(req.headers)); // throws on a bad signature or an old timestamp
  } catch {
    return new Response("bad signature", { status: 400 });
  }
  // event = {type: "generation.completed" | "generation.failed", timestamp, data: <the query response data>}
  // Retries repeat the same webhook-id: skip ids you have already handled.
  if (await alreadyHandled(req.headers.get("webhook-id"))) return new Response("ok");
  if (event.type === "generation.completed") await save(event.data.gen_id, event.data.result_urls);
  return new Response("ok"); // any 2xx within 10 s
}});`,
    verifyByHand: `// Without the library (Node/Bun): signature = base64(HMAC-SHA256(key, "<id>.<timestamp>.<body>"))
import { createHmac, timingSafeEqual } from "node:crypto";
function verify(secret, headers, body) {
  const id = headers["webhook-id"], ts = headers["webhook-timestamp"];
  if (Math.abs(Date.now() / 1000 - Number(ts)) > 300) return false; // replay window: 5 minutes
  const key = Buffer.from(secret.slice("whsec_".length), "base64");
  const expected = createHmac("sha256", key).update(\`\${id}.\${ts}.\${body}\`).digest();
  // Several signatures (after a rotation) are separated by spaces: accept if any matches.
  return headers["webhook-signature"].split(" ").some((s) => {
    const sig = Buffer.from(s.split(",")[1] ?? "", "base64");
    return sig.length === expected.length && timingSafeEqual(sig, expected);
  });
}`,
    stream: `// Browser (session cookie) — or any SSE client with an X-API-Key header
const es = new EventSource("/api/generator/stream?gen_id=" + genId);
es.addEventListener("status", (e) => {
  const data = JSON.parse(e.data); // the same fields as /api/generator/query
  render(data);
  if (data.status === "completed" || data.status === "failed") es.close();
});

# curl (the stream ends after the final status)
curl -N "${base}/api/generator/stream?gen_id=$GEN_ID" -H "X-API-Key: $ATELIER_API_KEY"`,
  };
}

function pollingExample(base: string): string {
  return `const headers = { "X-API-Key": process.env.ATELIER_API_KEY, "Content-Type": "application/json" };
const post = (path, body) =>
  fetch("${base}" + path, { method: "POST", headers, body: JSON.stringify(body) }).then((r) => r.json());

const created = await post("/api/generator/generate", {
  ai_type: "image", provider: "replicate", model: "black-forest-labs/flux-schnell", prompt: "A red fox in fresh snow",
});
if (created.code !== 0) throw new Error(created.message); // e.g. insufficient credits: need 3, have 1

// Poll about every 3 s; give up after 60 attempts (5 minutes).
for (let attempt = 1; attempt <= 60; attempt++) {
  await new Promise((r) => setTimeout(r, 3000));
  const { code, message, data } = await post("/api/generator/query", { gen_id: created.data.gen_id });
  if (code !== 0) throw new Error(message);
  if (data.status === "completed") { console.log(data.result_urls); break; }
  if (data.status === "failed") { console.error(data.error_message); break; } // no credits charged
}`;
}

export type DocsModel = ReturnType<typeof buildDocs>;
