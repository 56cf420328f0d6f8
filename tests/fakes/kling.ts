/**
 * A fake of Kling's API (Kling AI API reference: General Information, Image
 * Generation, Text to Video, Image to Video: `image` / `image_tail` as URLs it fetches). It verifies the HS256 JWT the way Kling
 * documents it (signature with the secret key, iss = access key, exp, nbf) and
 * answers in Kling's `{code, message, request_id, data}` envelope with its
 * business codes. Tasks walk submitted → processing → succeed | failed.
 */
import { decodeProtectedHeader, errors, jwtVerify } from "jose";
import {
  FakeState,
  type Fault,
  fakeId,
  fetchInput,
  json,
  malformed,
  type RunningFake,
  serveFile,
  startFake,
} from "./common";

export type KlingOutcome = "succeed" | "failed";
const IMAGE_MODELS = new Set(["kling-v1", "kling-v1-5", "kling-v2", "kling-v2-1"]);
const VIDEO_MODELS = new Set([
  "kling-v1",
  "kling-v1-6",
  "kling-v2-master",
  "kling-v2-1-master",
  "kling-v2-5-turbo",
  "kling-v2-6",
]);

/** Faults beyond the common ones, in Kling's words. */
export type KlingFault = Fault | "concurrency" | "arrears" | "content_policy";

interface Task {
  id: string;
  kind: "image" | "video";
  /** The endpoint it was created on: a poll must use the same one. */
  endpoint: string;
  polls: number;
  outcome: KlingOutcome;
  created: number;
  externalTaskId?: string;
  body: Record<string, unknown>;
}

export interface KlingFake extends RunningFake<KlingFault> {
  accessKey: string;
  secretKey: string;
  outcome: KlingOutcome;
  steps: { submitted: number; processing: number };
  tasks: Map<string, Task>;
}

export function startKlingFake(opts: { port?: number; accessKey?: string; secretKey?: string } = {}): KlingFake {
  const state = new FakeState<KlingFault>();
  const tasks = new Map<string, Task>();
  const fake = {} as KlingFake;

  const envelope = (code: number, message: string, data: unknown, status = 200, headers: Record<string, string> = {}) =>
    json({ code, message, request_id: crypto.randomUUID(), data }, status, headers);

  async function authenticate(req: Request): Promise<Response | null> {
    const h = req.headers.get("authorization");
    if (!h) return envelope(1001, "Authorization is empty", null, 401);
    const m = /^Bearer (\S+)$/.exec(h);
    if (!m) return envelope(1002, "Authorization is invalid", null, 401);
    try {
      const header = decodeProtectedHeader(m[1]!);
      if (header.alg !== "HS256") return envelope(1002, "Authorization is invalid", null, 401);
      const { payload } = await jwtVerify(m[1]!, new TextEncoder().encode(fake.secretKey), {
        algorithms: ["HS256"],
        issuer: fake.accessKey,
        requiredClaims: ["exp", "nbf", "iss"],
      });
      // Kling tokens are valid for at most 30 minutes.
      if (typeof payload.exp === "number" && payload.exp - Date.now() / 1000 > 1800 + 60)
        return envelope(1002, "Authorization is invalid", null, 401);
      return null;
    } catch (e) {
      if (e instanceof errors.JWTExpired) return envelope(1004, "Authorization is expired", null, 401);
      if (e instanceof errors.JWTClaimValidationFailed && e.claim === "nbf")
        return envelope(1003, "Authorization is not yet valid", null, 401);
      return envelope(1002, "Authorization is invalid", null, 401);
    }
  }

  const view = (t: Task, origin: string) => {
    const { submitted, processing } = fake.steps;
    const status = t.polls <= submitted ? "submitted" : t.polls <= submitted + processing ? "processing" : t.outcome;
    const data: Record<string, unknown> = {
      task_id: t.id,
      task_status: status,
      task_status_msg: status === "failed" ? "Failure to pass the risk control system" : "",
      task_info: t.externalTaskId ? { external_task_id: t.externalTaskId } : {},
      created_at: t.created,
      updated_at: Date.now(),
    };
    if (status === "succeed") {
      data.final_unit_deduction = t.kind === "video" ? "1" : "0.2";
      data.task_result =
        t.kind === "video"
          ? { videos: [{ id: `${t.id}-v0`, url: `${origin}/files/${t.id}.mp4`, duration: "5" }] }
          : { images: [{ index: 0, url: `${origin}/files/${t.id}-0.png` }] };
    }
    return data;
  };

  const running = startFake(
    opts.port ?? 0,
    "",
    async (req, url, origin) => {
      const file = serveFile(url.pathname);
      if (file && req.method === "GET") return file;
      const entry = await state.log(req);
      const m = /^\/v1\/(images\/generations|videos\/text2video|videos\/image2video)(?:\/([^/]+))?$/.exec(url.pathname);
      if (!m) return envelope(1202, "Invalid request method", null, 404);
      const kind = m[1] === "images/generations" ? "image" : "video";
      const route = req.method === "POST" && !m[2] ? "create" : req.method === "GET" && m[2] ? "poll" : null;
      if (!route) return envelope(1202, "Invalid request method", null, 404);

      const denied = await authenticate(req);
      if (denied) return denied;
      switch (state.take(route)) {
        case "auth":
          return envelope(1000, "Authentication failed", null, 401);
        case "rate_limit":
          return envelope(1302, "API request too frequent", null, 429);
        case "concurrency":
          return envelope(1303, "parallel task over resource pack limit", null, 429);
        case "arrears":
          return envelope(1102, "Account balance not enough", null, 429);
        case "content_policy":
          return envelope(1301, "Risk control system triggered by the prompt", null, 400);
        case "server":
          return envelope(5000, "Internal server error", null, 500);
        case "malformed":
          return malformed();
        case "hang":
          return state.hang();
      }

      if (route === "create") {
        const b = (entry.body ?? {}) as Record<string, unknown>;
        const model = b.model_name ?? "kling-v1";
        const fromImage = m[1] === "videos/image2video";
        // The prompt is optional from an image.
        if (
          (b.prompt !== undefined || !fromImage) &&
          (typeof b.prompt !== "string" || b.prompt === "" || b.prompt.length > 2500)
        )
          return envelope(1201, "prompt is required, at most 2500 characters", null, 400);
        if (fromImage) {
          if (b.image === undefined && b.image_tail === undefined)
            return envelope(1201, "image and image_tail cannot both be empty", null, 400);
          for (const field of ["image", "image_tail"]) {
            if (b[field] === undefined) continue;
            const unread = await fetchInput(state, field, b[field]);
            if (unread) return envelope(1201, unread, null, 400);
          }
        }
        if (typeof model !== "string" || !(kind === "image" ? IMAGE_MODELS : VIDEO_MODELS).has(model))
          return envelope(1201, `model_name ${String(model)} is invalid`, null, 400);
        if (kind === "video" && b.duration !== undefined && b.duration !== "5" && b.duration !== "10")
          return envelope(1201, 'duration must be "5" or "10"', null, 400);
        // Image Generation / Text to Video: aspect ratios per kind, negative_prompt ≤ 2500, cfg_scale 0–1.
        const ratios = kind === "image" ? ["16:9", "9:16", "1:1", "4:3", "3:4", "3:2", "2:3"] : ["16:9", "9:16", "1:1"];
        if (b.aspect_ratio !== undefined && !ratios.includes(String(b.aspect_ratio)))
          return envelope(1201, `aspect_ratio ${String(b.aspect_ratio)} is invalid`, null, 400);
        if (
          b.negative_prompt !== undefined &&
          (typeof b.negative_prompt !== "string" || b.negative_prompt.length > 2500)
        )
          return envelope(1201, "negative_prompt at most 2500 characters", null, 400);
        if (
          kind === "video" &&
          b.cfg_scale !== undefined &&
          (typeof b.cfg_scale !== "number" || b.cfg_scale < 0 || b.cfg_scale > 1)
        )
          return envelope(1201, "cfg_scale must be 0 to 1", null, 400);
        if (kind === "image" && b.n !== undefined && (typeof b.n !== "number" || b.n < 1 || b.n > 9))
          return envelope(1201, "n must be 1 to 9", null, 400);
        const ext = typeof b.external_task_id === "string" ? b.external_task_id : undefined;
        if (ext && [...tasks.values()].some((t) => t.externalTaskId === ext))
          return envelope(1201, "external_task_id already exists", null, 400);
        const t: Task = {
          id: fakeId(),
          kind,
          endpoint: m[1]!,
          polls: 0,
          outcome: fake.outcome,
          created: Date.now(),
          externalTaskId: ext,
          body: b,
        };
        tasks.set(t.id, t);
        return envelope(0, "SUCCEED", {
          task_id: t.id,
          task_status: "submitted",
          task_info: ext ? { external_task_id: ext } : {},
          created_at: t.created,
          updated_at: t.created,
        });
      }
      const id = decodeURIComponent(m[2]!);
      const t = tasks.get(id) ?? [...tasks.values()].find((x) => x.externalTaskId === id);
      if (!t || t.endpoint !== m[1]) return envelope(1203, "task not found", null, 404);
      t.polls++;
      return envelope(0, "SUCCEED", view(t, origin));
    },
    state,
  );

  return Object.assign(fake, running, {
    accessKey: opts.accessKey ?? "ak_fake_kling",
    secretKey: opts.secretKey ?? "sk_fake_kling_secret_0123456789",
    outcome: "succeed" as KlingOutcome,
    steps: { submitted: 1, processing: 1 },
    tasks,
  });
}
