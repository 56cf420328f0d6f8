/**
 * Kling (Kling AI API reference, "General Information", "Image Generation",
 * "Text to Video", "Image to Video"): HS256 JWT built from the access key + secret key, sent as
 * Bearer; every answer is `{code, message, request_id, data}` with `code` 0 on
 * success. Images: `POST /v1/images/generations`, poll
 * `GET /v1/images/generations/{id}`. Videos: `POST /v1/videos/text2video`,
 * poll `GET /v1/videos/text2video/{id}`; from a picture `POST /v1/videos/image2video` (`image`, `image_tail` as
 * URLs Kling fetches), poll `GET /v1/videos/image2video/{id}`. Sources followed: docs/providers.md.
 */
import { SignJWT } from "jose";
import type { Config } from "~/lib/config.server";
import {
  type AdapterOptions,
  badResponse,
  type CallContext,
  callJson,
  type JsonReply,
  parseRetryAfter,
  resolveOptions,
  retryCreate,
  statusError,
  UpstreamError,
} from "./http.server";
import { declaredInputs, hasImageOption, plainOptions } from "./inputs.server";
import type { AsyncProvider, GenerationRequest, PollResult, ResultAsset } from "./types";

const CREDENTIALS = "KLING_ACCESS_KEY / KLING_SECRET_KEY";

/** A Kling API token: HS256, iss = access key, valid from 5 s ago for 30 minutes (Kling's documented example). */
export async function klingToken(accessKey: string, secretKey: string, nowMs = Date.now()): Promise<string> {
  const now = Math.floor(nowMs / 1000);
  return await new SignJWT({})
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuer(accessKey)
    .setExpirationTime(now + 1800)
    .setNotBefore(now - 5)
    .sign(new TextEncoder().encode(secretKey));
}

/**
 * Kling's business codes (General Information → Error Codes). `code` decides
 * the kind; the HTTP status is the fallback for codes not listed.
 */
export function klingError(ctx: CallContext, reply: JsonReply, create: boolean, what: string): UpstreamError {
  const body = reply.json as { code?: unknown; message?: unknown; request_id?: unknown } | undefined;
  const code = typeof body?.code === "number" ? body.code : undefined;
  const msg = typeof body?.message === "string" ? body.message.slice(0, 300) : "";
  const hint = `${what}: HTTP ${reply.status}, Kling code ${code ?? "none"}: ${msg || reply.text.slice(0, 200)}${body?.request_id ? ` (request_id ${body.request_id})` : ""}`;
  const make = (
    kind: ConstructorParameters<typeof UpstreamError>[0],
    message: string,
    retryable: boolean,
    extra = "",
  ) => new UpstreamError(kind, message, { status: reply.status, retryable, operatorHint: hint + extra });
  if (code === undefined) return statusError(ctx, reply, { create, what, detail: msg || undefined });
  if (code >= 1000 && code <= 1004)
    return make("auth", "Kling rejected the request credentials", false, ` — check ${CREDENTIALS}`);
  if (code === 1100 || code === 1101 || code === 1102)
    return make(
      "auth",
      "the Kling account cannot take requests right now",
      false,
      " — account exception, arrears or resource pack used up: the operator must act",
    );
  if (code === 1103 || code === 1304)
    return make(
      "auth",
      "Kling refused access to this resource",
      false,
      ` — check the account's permissions / IP allow-list for ${CREDENTIALS}`,
    );
  if (code === 1300 || code === 1301)
    return make("bad_request", `Kling rejected the prompt (content policy)${msg ? `: ${msg}` : ""}`, false);
  if (code >= 1200 && code <= 1299)
    return make("bad_request", `Kling rejected the request${msg ? `: ${msg}` : ""}`, false);
  if (code === 1302 || code === 1303) {
    const e = make("rate_limit", "Kling is busy (rate or concurrency limit); try again later", true);
    e.retryAfterMs = parseRetryAfter(reply.headers);
    return e;
  }
  if (code >= 5000 && code <= 5999)
    return make(
      code === 5002 ? "timeout" : "server",
      "Kling had a server error",
      !create,
      create ? " (not retried: the upstream task may exist)" : "",
    );
  return statusError(ctx, reply, { create, what, detail: msg || undefined });
}

interface TaskData {
  task_id?: unknown;
  task_status?: unknown;
  task_status_msg?: unknown;
  task_result?: { images?: { url?: unknown }[]; videos?: { url?: unknown }[] };
}

export function createKlingProvider(config: Config, options?: AdapterOptions): AsyncProvider {
  const ak = config.KLING_ACCESS_KEY;
  const sk = config.KLING_SECRET_KEY;
  if (!ak || !sk) throw new Error("KLING_ACCESS_KEY and KLING_SECRET_KEY are not set");
  const base = config.KLING_BASE_URL;
  const { timeoutMs, retry } = resolveOptions(options);
  const ctx: CallContext = { provider: "kling", credentialVar: CREDENTIALS, timeoutMs };
  const path = (req: GenerationRequest) =>
    req.aiType !== "video"
      ? "/v1/images/generations"
      : hasImageOption(req)
        ? "/v1/videos/image2video"
        : "/v1/videos/text2video";

  async function call(method: "GET" | "POST", url: string, body: unknown, signal: AbortSignal, create: boolean) {
    // A fresh token per request: it can never be the expired one (1004).
    const headers = { authorization: `Bearer ${await klingToken(ak!, sk!)}` };
    const reply = await callJson(ctx, { method, url, headers, body, signal });
    const code = (reply.json as { code?: unknown } | undefined)?.code;
    if (reply.status !== 200 || code !== 0) throw klingError(ctx, reply, create, `${method} ${url}`);
    const data = (reply.json as { data?: unknown }).data;
    if (!data || typeof data !== "object") throw badResponse(ctx, `${method} ${url}`, reply.json);
    return data as TaskData;
  }

  return {
    name: "kling",
    mode: "live",
    lifecycle: "async",

    async submit(req: GenerationRequest, signal: AbortSignal) {
      // The catalog's options for this model: aspect_ratio, negative_prompt; videos also duration and cfg_scale
      // (`mode: "pro"` is not offered: it costs more upstream than the catalog price).
      const o = plainOptions(req);
      const inputs = declaredInputs(req);
      const body: Record<string, unknown> = { model_name: req.upstreamModel, prompt: req.prompt };
      if (o.negative_prompt) body.negative_prompt = o.negative_prompt;
      // image2video takes no aspect_ratio: the video has the picture's shape.
      if (o.aspect_ratio !== undefined && inputs.length === 0) body.aspect_ratio = o.aspect_ratio;
      for (const i of inputs) body[i.param] = i.image.url;
      if (req.aiType === "video") {
        // Kling wants duration as a string, "5" or "10".
        if (o.duration !== undefined) body.duration = String(o.duration);
        if (o.cfg_scale !== undefined) body.cfg_scale = o.cfg_scale;
      } else {
        body.n = 1;
      }
      // Our gen_id as Kling's external_task_id: unique per task, so a stray second create cannot start a second paid job.
      body.external_task_id = req.genId;
      const url = `${base}${path(req)}`;
      const data = await retryCreate(retry, signal, () => call("POST", url, body, signal, true));
      if (typeof data.task_id !== "string" || data.task_id === "") throw badResponse(ctx, `POST ${url}`, data);
      return { upstreamTaskId: data.task_id };
    },

    async poll(upstreamTaskId: string, req: GenerationRequest, signal: AbortSignal): Promise<PollResult> {
      const url = `${base}${path(req)}/${encodeURIComponent(upstreamTaskId)}`;
      const data = await call("GET", url, undefined, signal, false);
      switch (data.task_status) {
        case "submitted":
          return { state: "pending" };
        case "processing":
          return { state: "running" };
        case "succeed": {
          const items = (req.aiType === "video" ? data.task_result?.videos : data.task_result?.images) ?? [];
          const urls = (Array.isArray(items) ? items : [])
            .map((i) => i?.url)
            .filter((u): u is string => typeof u === "string" && /^https?:\/\//.test(u));
          if (urls.length === 0) throw badResponse(ctx, `GET ${url} (succeed without result URLs)`, data);
          return { state: "succeeded", assets: urls.map((u): ResultAsset => ({ kind: "url", url: u })) };
        }
        case "failed": {
          const why =
            typeof data.task_status_msg === "string" && data.task_status_msg
              ? `: ${data.task_status_msg.slice(0, 300)}`
              : "";
          return { state: "failed", message: `Kling failed the task${why}` };
        }
        default:
          throw badResponse(ctx, `GET ${url}`, data);
      }
    },
  };
}
