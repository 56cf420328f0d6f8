/**
 * A fake of Replicate's HTTP API (https://replicate.com/docs/reference/http):
 * `POST /v1/models/{owner}/{name}/predictions` (official models) and
 * `GET /v1/predictions/{id}`, Bearer token auth, problem-details error bodies
 * (`{title, detail, status}`). `POST /v1/predictions/{id}/cancel` cancels
 * (ids kept in `canceled`). A prediction walks starting → processing →
 * its outcome over successive polls; outputs are file URLs on this server.
 */
import { FakeState, fakeId, fetchInput, json, malformed, type RunningFake, serveFile, startFake } from "./common";

export type ReplicateOutcome = "succeeded" | "failed" | "canceled" | "aborted";

export const REPLICATE_MODELS = new Set([
  "black-forest-labs/flux-schnell",
  "black-forest-labs/flux-dev",
  "black-forest-labs/flux-1.1-pro",
  "black-forest-labs/flux-kontext-pro",
]);

interface Pred {
  id: string;
  model: string;
  input: Record<string, unknown>;
  polls: number;
  outcome: ReplicateOutcome;
  created_at: string;
}

export interface ReplicateFake extends RunningFake {
  token: string;
  /** Outcome of predictions created from now on. */
  outcome: ReplicateOutcome;
  /** Polls a prediction spends in `starting` and in `processing` before its outcome. */
  steps: { starting: number; processing: number };
  predictions: Map<string, Pred>;
  /** Output URLs of succeeded predictions instead of the fake's own file (SSRF tests). */
  output?: (origin: string) => string[];
  /** Prediction ids a POST /v1/predictions/{id}/cancel reached, in order. */
  canceled: string[];
}

const problem = (status: number, title: string, detail: string, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ title, detail, status }), {
    status,
    headers: { "content-type": "application/problem+json", ...headers },
  });

const FLUX_RATIOS = ["1:1", "16:9", "21:9", "3:2", "2:3", "4:5", "5:4", "3:4", "4:3", "9:16", "9:21"];
const int = (v: unknown, min: number, max: number) =>
  typeof v === "number" && Number.isInteger(v) && v >= min && v <= max;

function fluxSchnellInputProblem(input: Record<string, unknown>): string | null {
  const checks: [string, (v: unknown) => boolean][] = [
    ["aspect_ratio", (v) => FLUX_RATIOS.includes(String(v))],
    ["seed", (v) => Number.isInteger(v)],
    ["num_outputs", (v) => int(v, 1, 4)],
    ["output_format", (v) => ["webp", "jpg", "png"].includes(String(v))],
    ["output_quality", (v) => int(v, 0, 100)],
    ["num_inference_steps", (v) => int(v, 1, 4)],
    ["megapixels", (v) => v === "1" || v === "0.25"],
    ["go_fast", (v) => typeof v === "boolean"],
    ["disable_safety_checker", (v) => typeof v === "boolean"],
  ];
  for (const [k, ok] of checks)
    if (input[k] !== undefined && !ok(input[k])) return `${k}: invalid value ${JSON.stringify(input[k])}`;
  return null;
}

const KONTEXT_RATIOS = ["match_input_image", ...FLUX_RATIOS, "2:1", "1:2"];

/** flux-kontext-pro's input schema (replicate.com/black-forest-labs/flux-kontext-pro/api/schema). */
function fluxKontextInputProblem(input: Record<string, unknown>): string | null {
  const checks: [string, (v: unknown) => boolean][] = [
    ["input_image", (v) => typeof v === "string" && /^https?:\/\//.test(v)],
    ["aspect_ratio", (v) => KONTEXT_RATIOS.includes(String(v))],
    ["seed", (v) => Number.isInteger(v)],
    ["output_format", (v) => v === "jpg" || v === "png"],
    // 2 is the most it allows when an input image is given.
    ["safety_tolerance", (v) => int(v, 0, input.input_image === undefined ? 6 : 2)],
    ["prompt_upsampling", (v) => typeof v === "boolean"],
  ];
  for (const [k, ok] of checks)
    if (input[k] !== undefined && !ok(input[k])) return `${k}: invalid value ${JSON.stringify(input[k])}`;
  return null;
}

export function startReplicateFake(opts: { port?: number; token?: string } = {}): ReplicateFake {
  const state = new FakeState();
  const predictions = new Map<string, Pred>();
  const fake = {} as ReplicateFake;

  const view = (p: Pred, origin: string) => {
    const starting = fake.steps.starting;
    const processing = fake.steps.processing;
    const status = p.polls <= starting ? "starting" : p.polls <= starting + processing ? "processing" : p.outcome;
    const done = status !== "starting" && status !== "processing";
    const out: Record<string, unknown> = {
      id: p.id,
      model: p.model,
      version: "hidden",
      input: p.input,
      logs: status === "starting" ? "" : "Using seed: 42\n",
      output: null,
      data_removed: false,
      error: null,
      source: "api",
      status,
      created_at: p.created_at,
      started_at: status === "starting" ? null : p.created_at,
      completed_at: done ? new Date().toISOString() : null,
      urls: {
        get: `${origin}/v1/predictions/${p.id}`,
        cancel: `${origin}/v1/predictions/${p.id}/cancel`,
        stream: `${origin}/v1/predictions/${p.id}/stream`,
        web: `${origin}/p/${p.id}`,
      },
    };
    if (status === "succeeded") {
      out.output = fake.output ? fake.output(origin) : [`${origin}/files/${p.id}-0.png`];
      out.metrics = { predict_time: 0.5, total_time: 0.6 };
    }
    if (status === "failed") out.error = "CUDA out of memory";
    return out;
  };

  const running = startFake(
    opts.port ?? 0,
    "/v1",
    async (req, url, origin) => {
      const file = serveFile(url.pathname);
      if (file && req.method === "GET")
        return state.take("file") === "server" ? problem(500, "Internal Server Error", "") : file;
      await state.log(req);
      const entry = state.requests[state.requests.length - 1]!;
      const create = /^\/v1\/models\/([^/]+)\/([^/]+)\/predictions$/.exec(url.pathname);
      const get = /^\/v1\/predictions\/([^/]+)$/.exec(url.pathname);
      const cancel = /^\/v1\/predictions\/([^/]+)\/cancel$/.exec(url.pathname);
      const route =
        create && req.method === "POST"
          ? "create"
          : get && req.method === "GET"
            ? "poll"
            : cancel && req.method === "POST"
              ? "cancel"
              : null;
      // GET /v1/models/{owner}/{name}: the model with its latest version's OpenAPI schema (adding a model by id).
      const modelGet = /^\/v1\/models\/([^/]+)\/([^/]+)$/.exec(url.pathname);
      if (modelGet && req.method === "GET") {
        if (req.headers.get("authorization") !== `Bearer ${fake.token}`)
          return problem(401, "Unauthenticated", "You did not pass a valid authentication token");
        const id = `${modelGet[1]}/${modelGet[2]}`;
        if (!REPLICATE_MODELS.has(id)) return problem(404, "Not found", "The requested resource could not be found.");
        return json(replicateModel(modelGet[1]!, modelGet[2]!));
      }
      if (!route) return problem(404, "Not found", "The requested resource could not be found.");

      if (req.headers.get("authorization") !== `Bearer ${fake.token}`) {
        return problem(401, "Unauthenticated", "You did not pass a valid authentication token");
      }
      switch (state.take(route === "cancel" ? "any" : route)) {
        case "auth":
          return problem(401, "Unauthenticated", "You did not pass a valid authentication token");
        case "rate_limit":
          return problem(429, "Request was throttled", "Request was throttled. Your rate limit resets in ~1s.", {
            "retry-after": "1",
          });
        case "server":
          return problem(500, "Internal Server Error", "An unexpected error occurred.");
        case "malformed":
          return malformed();
        case "hang":
          return state.hang();
      }

      if (route === "create") {
        const model = `${decodeURIComponent(create![1]!)}/${decodeURIComponent(create![2]!)}`;
        if (!REPLICATE_MODELS.has(model))
          return problem(404, "Not found", "The requested resource could not be found.");
        const body = entry.body as { input?: Record<string, unknown> } | undefined;
        if (!body || typeof body !== "object" || !body.input || typeof body.input !== "object") {
          return problem(422, "Input validation failed", "- input: Invalid type. Expected: object, given: null");
        }
        if (typeof body.input.prompt !== "string" || body.input.prompt === "") {
          return problem(422, "Input validation failed", "- input: prompt is required");
        }
        // flux-schnell's input schema (replicate.com/black-forest-labs/flux-schnell/api/schema).
        const bad = fluxSchnellInputProblem(body.input);
        if (model === "black-forest-labs/flux-schnell" && bad)
          return problem(422, "Input validation failed", `- input.${bad}`);
        if (model === "black-forest-labs/flux-kontext-pro") {
          const wrong = fluxKontextInputProblem(body.input);
          if (wrong) return problem(422, "Input validation failed", `- input.${wrong}`);
          // Replicate downloads a URL input when the prediction is created; one it cannot read fails the create.
          const unread =
            body.input.input_image === undefined
              ? null
              : await fetchInput(state, "input_image", body.input.input_image);
          if (unread) return problem(422, "Input validation failed", `- input.${unread}`);
        }
        const p: Pred = {
          id: fakeId(),
          model,
          input: body.input,
          polls: 0,
          outcome: fake.outcome,
          created_at: new Date().toISOString(),
        };
        predictions.set(p.id, p);
        return json(view(p, origin), 201);
      }
      const p = predictions.get(decodeURIComponent((get ?? cancel)![1]!));
      if (!p) return problem(404, "Not found", "The requested resource could not be found.");
      if (route === "cancel") {
        fake.canceled.push(p.id);
        p.outcome = "canceled";
        p.polls = Math.max(p.polls, fake.steps.starting + fake.steps.processing);
        return json(view(p, origin));
      }
      p.polls++;
      return json(view(p, origin));
    },
    state,
  );

  return Object.assign(fake, running, {
    token: opts.token ?? "r8_fake_token",
    outcome: "succeeded" as ReplicateOutcome,
    steps: { starting: 1, processing: 1 },
    predictions,
    canceled: [] as string[],
  });
}

/** A model as `GET /v1/models/{owner}/{name}` answers it: `latest_version.openapi_schema` holds the inputs. */
export function replicateModel(owner: string, name: string) {
  return {
    url: `https://replicate.com/${owner}/${name}`,
    owner,
    name,
    visibility: "public",
    latest_version: {
      id: "a".repeat(64),
      created_at: "2026-01-01T00:00:00Z",
      openapi_schema: {
        openapi: "3.0.2",
        info: { title: "Cog", version: "0.1.0" },
        components: {
          schemas: {
            Input: {
              type: "object",
              title: "Input",
              required: ["prompt"],
              properties: {
                prompt: { type: "string", title: "Prompt", "x-order": 0, description: "Prompt for generated image" },
                image: {
                  type: "string",
                  title: "Image",
                  format: "uri",
                  "x-order": 1,
                  description: "Input image for image to image mode",
                },
                aspect_ratio: {
                  allOf: [{ $ref: "#/components/schemas/aspect_ratio" }],
                  default: "1:1",
                  "x-order": 2,
                  description: "Aspect ratio for the generated image",
                },
                num_outputs: {
                  type: "integer",
                  title: "Num Outputs",
                  default: 1,
                  maximum: 4,
                  minimum: 1,
                  "x-order": 3,
                },
                guidance: { type: "number", title: "Guidance", default: 3, maximum: 10, minimum: 0, "x-order": 4 },
                seed: { type: "integer", title: "Seed", "x-order": 5, description: "Random seed" },
                go_fast: { type: "boolean", title: "Go Fast", default: true, "x-order": 6 },
                disable_safety_checker: {
                  type: "boolean",
                  title: "Disable Safety Checker",
                  default: false,
                  "x-order": 8,
                  description: "Disable safety checker for generated images.",
                },
                output_format: {
                  allOf: [{ $ref: "#/components/schemas/output_format" }],
                  default: "webp",
                  "x-order": 7,
                },
              },
            },
            aspect_ratio: {
              enum: ["1:1", "16:9", "21:9", "3:2", "2:3", "4:5", "5:4", "3:4", "4:3", "9:16", "9:21"],
              type: "string",
              title: "aspect_ratio",
              description: "An enumeration.",
            },
            output_format: {
              enum: ["webp", "jpg", "png"],
              type: "string",
              title: "output_format",
              description: "An enumeration.",
            },
          },
        },
      },
    },
  };
}
