/**
 * A fake of fal's queue API (https://docs.fal.ai/documentation/model-apis/inference/queue and the queue's
 * OpenAPI document, https://fal.ai/docs/api-reference/inference-api/openapi/queue.json):
 * - `POST /{endpoint id}` → `{request_id, status_url, response_url, cancel_url}` (the URLs under the app's
 *   owner/alias, as fal answers them);
 * - `GET /{owner}/{alias}/requests/{id}/status` → `{status: IN_QUEUE | IN_PROGRESS | COMPLETED, queue_position?}`;
 * - `GET /{owner}/{alias}/requests/{id}` → the endpoint's output (`images[]` or `video`), or, for a failed
 *   request, 422 `{detail: [{loc, msg, type}]}`;
 * - `PUT /{owner}/{alias}/requests/{id}/cancel` → 202 `{status: "CANCELLATION_REQUESTED"}`, 400
 *   `{status: "ALREADY_COMPLETED"}`, 404 `{status: "NOT_FOUND"}`;
 * - status, result and cancel under the endpoint's subpath (`fal-ai/flux/dev/requests/…`) answer 405, as fal does.
 * `Authorization: Key <key>` is required (401 `{detail}` otherwise). Each endpoint validates its documented inputs
 * (422 at submit). `/api/openapi/queue/openapi.json?endpoint_id=` serves an endpoint's OpenAPI document.
 */
import { FakeState, fetchInput, json, malformed, type RunningFake, serveFile, startFake } from "./common";

/** `nsfw`: the result comes back with `has_nsfw_concepts: [true]` (fal's checker flagged it; the image is black). */
export type FalOutcome = "succeeded" | "failed" | "nsfw";

interface Req {
  id: string;
  endpoint: string;
  app: string;
  input: Record<string, unknown>;
  polls: number;
  outcome: FalOutcome;
  canceled: boolean;
}

type Check = (input: Record<string, unknown>) => string | null;
const oneOf =
  (key: string, values: readonly unknown[]): Check =>
  (i) =>
    i[key] === undefined || values.includes(i[key])
      ? null
      : `${key}: unexpected value; permitted: ${values.join(", ")}`;
const num =
  (key: string, min: number, max: number, int = false): Check =>
  (i) =>
    i[key] === undefined ||
    (typeof i[key] === "number" && i[key] >= min && i[key] <= max && (!int || Number.isInteger(i[key])))
      ? null
      : `${key}: must be ${int ? "an integer" : "a number"} from ${min} to ${max}`;
const url =
  (key: string, required: boolean): Check =>
  (i) =>
    i[key] === undefined
      ? required
        ? `${key}: field required`
        : null
      : typeof i[key] === "string" && /^https?:\/\//.test(i[key] as string)
        ? null
        : `${key}: must be a URL`;
const KLING: Check[] = [oneOf("duration", ["5", "10"]), num("cfg_scale", 0, 1)];

/** The endpoints this fake serves, with the inputs each documents (fal.ai/models/<id>/api). */
export const FAL_ENDPOINTS: Record<string, { kind: "image" | "video"; checks: Check[] }> = {
  "fal-ai/flux/dev": {
    kind: "image",
    checks: [
      oneOf("image_size", ["square_hd", "square", "portrait_4_3", "portrait_16_9", "landscape_4_3", "landscape_16_9"]),
      num("num_inference_steps", 1, 50, true),
      num("guidance_scale", 1, 20),
      oneOf("output_format", ["jpeg", "png"]),
    ],
  },
  "fal-ai/kling-video/v1.6/standard/text-to-video": {
    kind: "video",
    checks: [...KLING, oneOf("aspect_ratio", ["16:9", "9:16", "1:1"])],
  },
  "fal-ai/kling-video/v1.6/standard/image-to-video": { kind: "video", checks: [...KLING, url("image_url", true)] },
  "fal-ai/wan/v2.2-a14b/text-to-video": { kind: "video", checks: [oneOf("resolution", ["480p", "580p", "720p"])] },
};

export interface FalFake extends RunningFake {
  key: string;
  /** Outcome of requests submitted from now on. */
  outcome: FalOutcome;
  /** Polls a request spends IN_QUEUE and IN_PROGRESS before COMPLETED. */
  steps: { queued: number; running: number };
  requests: Map<string, Req>;
  /** Request ids a cancel reached, in order. */
  canceled: string[];
  /** Paths of status/result/cancel calls made under an endpoint's subpath (fal answers 405 there). */
  wrongPaths: string[];
}

const appOf = (endpoint: string) => endpoint.split("/").slice(0, 2).join("/");

export function startFalFake(opts: { port?: number; key?: string } = {}): FalFake {
  const state = new FakeState();
  const requests = new Map<string, Req>();
  const fake = {} as FalFake;

  const running = startFake(
    opts.port ?? 0,
    "",
    async (req, u, origin) => {
      const file = serveFile(u.pathname);
      if (file && req.method === "GET") return file;
      if (u.pathname === "/api/openapi/queue/openapi.json" && req.method === "GET") {
        const id = u.searchParams.get("endpoint_id") ?? "";
        const doc = FAL_OPENAPI[id];
        return doc ? json(doc) : json({ detail: `Endpoint ${id} not found` }, 404);
      }
      const entry = await state.log(req);
      if (req.headers.get("authorization") !== `Key ${fake.key}`)
        return json({ detail: "No user found for Key ID and Secret" }, 401);

      const m = /^\/(.+)\/requests\/([^/]+)(\/status|\/cancel)?$/.exec(u.pathname);
      if (m) {
        const [, app, id, tail] = m;
        const r = requests.get(id!);
        if (app!.split("/").length !== 2) {
          fake.wrongPaths.push(u.pathname);
          return json({ detail: "Method Not Allowed" }, 405);
        }
        switch (state.take(tail === "/status" ? "poll" : "any")) {
          case "auth":
            return json({ detail: "No user found for Key ID and Secret" }, 401);
          case "rate_limit":
            return json({ detail: "Rate limit exceeded" }, 429);
          case "server":
            return json({ detail: "Internal Server Error" }, 500);
          case "malformed":
            return malformed();
          case "hang":
            return state.hang();
        }
        if (!r || r.app !== app) return json({ detail: "Request not found" }, 404);
        const done = r.polls >= fake.steps.queued + fake.steps.running;
        if (tail === "/cancel") {
          if (req.method !== "PUT") return json({ detail: "Method Not Allowed" }, 405);
          fake.canceled.push(r.id);
          if (done) return json({ status: "ALREADY_COMPLETED" }, 400);
          r.canceled = true;
          return json({ status: "CANCELLATION_REQUESTED" }, 202);
        }
        if (req.method !== "GET") return json({ detail: "Method Not Allowed" }, 405);
        const base = `${origin}/${app}/requests/${r.id}`;
        if (tail === "/status") {
          r.polls++;
          const n = r.polls;
          if (r.canceled || n > fake.steps.queued + fake.steps.running)
            return json({ status: "COMPLETED", request_id: r.id, response_url: base, logs: null, metrics: {} });
          if (n <= fake.steps.queued)
            return json(
              { status: "IN_QUEUE", request_id: r.id, queue_position: fake.steps.queued - n, response_url: base },
              202,
            );
          return json({ status: "IN_PROGRESS", request_id: r.id, response_url: base, logs: null });
        }
        if (!done && !r.canceled) return json({ detail: "Request is still in progress" }, 400);
        if (r.canceled) return json({ detail: "Request was cancelled" }, 400);
        if (r.outcome === "failed")
          return json(
            {
              detail: [
                {
                  loc: ["body", "prompt"],
                  msg: "The content could not be processed because it contained material flagged by a content checker.",
                  type: "content_policy_violation",
                },
              ],
            },
            422,
          );
        const kind = FAL_ENDPOINTS[r.endpoint]!.kind;
        return kind === "image"
          ? json({
              images: [{ url: `${origin}/files/${r.id}.png`, width: 1024, height: 768, content_type: "image/png" }],
              seed: 42,
              has_nsfw_concepts: [r.outcome === "nsfw"],
              prompt: r.input.prompt,
            })
          : json({ video: { url: `${origin}/files/${r.id}.mp4`, content_type: "video/mp4", file_name: "output.mp4" } });
      }

      if (req.method !== "POST") return json({ detail: "Method Not Allowed" }, 405);
      const endpoint = u.pathname.slice(1);
      const spec = FAL_ENDPOINTS[endpoint];
      if (!spec) return json({ detail: `Application '${endpoint}' not found` }, 404);
      switch (state.take("create")) {
        case "auth":
          return json({ detail: "No user found for Key ID and Secret" }, 401);
        case "rate_limit":
          return json({ detail: "Rate limit exceeded" }, 429);
        case "server":
          return json({ detail: "Internal Server Error" }, 500);
        case "malformed":
          return malformed();
        case "hang":
          return state.hang();
      }
      const input = (entry.body ?? {}) as Record<string, unknown>;
      const problems = [
        typeof input.prompt === "string" && input.prompt ? null : "prompt: field required",
        ...spec.checks.map((c) => c(input)),
      ].filter(Boolean);
      // fal downloads a URL input when the request runs; one it cannot read is a 422 on that field.
      for (const key of ["image_url", "tail_image_url"]) {
        if (problems.length || input[key] === undefined) continue;
        const unread = await fetchInput(state, key, input[key]);
        if (unread) problems.push(`${key}: ${unread.replace(`${key} `, "")}`);
      }
      if (problems.length)
        return json(
          {
            detail: problems.map((p) => {
              const [loc, msg] = (p as string).split(": ");
              return { loc: ["body", loc], msg, type: "value_error" };
            }),
          },
          422,
        );
      const id = crypto.randomUUID();
      const app = appOf(endpoint);
      requests.set(id, { id, endpoint, app, input, polls: 0, outcome: fake.outcome, canceled: false });
      const base = `${origin}/${app}/requests/${id}`;
      return json({
        request_id: id,
        response_url: base,
        status_url: `${base}/status`,
        cancel_url: `${base}/cancel`,
        queue_position: 0,
      });
    },
    state,
  );
  return Object.assign(fake, running, {
    key: opts.key ?? "fal-test-key:secret",
    outcome: "succeeded" as FalOutcome,
    steps: { queued: 1, running: 1 },
    requests,
    canceled: [] as string[],
    wrongPaths: [] as string[],
  });
}

/** Per-endpoint OpenAPI documents, in the shape fal publishes (the input schema under components.schemas). */
export const FAL_OPENAPI: Record<string, unknown> = {
  "fal-ai/wan/v2.2-a14b/text-to-video": {
    openapi: "3.0.4",
    info: { title: "Queue OpenAPI for fal-ai/wan/v2.2-a14b/text-to-video", version: "1.0.0" },
    components: {
      schemas: {
        WanT2VInput: {
          title: "TextToVideoInput",
          type: "object",
          properties: {
            prompt: { title: "Prompt", type: "string", description: "The text prompt to guide video generation." },
            resolution: {
              title: "Resolution",
              type: "string",
              enum: ["480p", "580p", "720p"],
              default: "720p",
              description: "Resolution of the generated video.",
            },
            num_frames: { title: "Number of Frames", type: "integer", minimum: 17, maximum: 161, default: 81 },
            seed: { title: "Seed", type: "integer", description: "Random seed for reproducibility." },
            enable_safety_checker: { title: "Enable Safety Checker", type: "boolean", default: false },
            guidance_scale: { title: "Guidance Scale", type: "number", minimum: 1, maximum: 10, default: 3.5 },
          },
          required: ["prompt"],
          "x-fal-order-properties": ["prompt", "resolution", "num_frames", "seed", "guidance_scale"],
        },
        WanT2VOutput: {
          type: "object",
          properties: { video: { $ref: "#/components/schemas/File" } },
          required: ["video"],
        },
      },
    },
    paths: {
      "/fal-ai/wan/v2.2-a14b/text-to-video": {
        post: {
          requestBody: {
            required: true,
            content: { "application/json": { schema: { $ref: "#/components/schemas/WanT2VInput" } } },
          },
        },
      },
    },
  },
};
