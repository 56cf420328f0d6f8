/**
 * Runway (https://docs.dev.runwayml.com/api): `POST /v1/text_to_video`, or
 * `POST /v1/image_to_video` from a picture (`promptImage`, a URL Runway fetches), starts a task, `GET /v1/tasks/{id}` reports it, `DELETE /v1/tasks/{id}`
 * cancels it (204); Bearer auth and the
 * `X-Runway-Version: 2024-11-06` header on every request. Sources followed:
 * docs/providers.md.
 */
import type { Config } from "~/lib/config.server";
import {
  type AdapterOptions,
  badResponse,
  type CallContext,
  callJson,
  resolveOptions,
  retryCreate,
  statusError,
} from "./http.server";
import { declaredInputs, plainOptions } from "./inputs.server";
import type { AsyncProvider, GenerationRequest, PollResult, ResultAsset } from "./types";

export const RUNWAY_VERSION = "2024-11-06";

interface Task {
  id: string;
  status: "PENDING" | "THROTTLED" | "RUNNING" | "SUCCEEDED" | "FAILED" | "CANCELLED";
  output?: unknown;
  failure?: string;
  failureCode?: string;
}

export function createRunwayProvider(config: Config, options?: AdapterOptions): AsyncProvider {
  const key = config.RUNWAY_API_KEY;
  if (!key) throw new Error("RUNWAY_API_KEY is not set");
  const base = config.RUNWAY_BASE_URL;
  const { timeoutMs, retry } = resolveOptions(options);
  const ctx: CallContext = { provider: "runway", credentialVar: "RUNWAY_API_KEY", timeoutMs };
  const headers = { authorization: `Bearer ${key}`, "x-runway-version": RUNWAY_VERSION };

  return {
    name: "runway",
    mode: "live",
    lifecycle: "async",

    async submit(req: GenerationRequest, signal: AbortSignal) {
      // ratio, duration and seed as the catalog declares them; Runway requires ratio and duration, so their defaults go when absent.
      const o = plainOptions(req);
      const body: Record<string, unknown> = {
        model: req.upstreamModel,
        promptText: req.prompt,
        ratio: o.ratio ?? "1280:720",
        duration: o.duration ?? 5,
      };
      if (o.seed !== undefined) body.seed = o.seed;
      const image = declaredInputs(req).find((i) => i.name === "image");
      if (image) body[image.param] = image.image.url;
      const url = `${base}/v1/${image ? "image_to_video" : "text_to_video"}`;
      // Runway's API takes no idempotency key: a 5xx or a lost answer may still have started a (paid) task, so only 429 and refused connections are retried.
      const reply = await retryCreate(retry, signal, async () => {
        const r = await callJson(ctx, { method: "POST", url, headers, body, signal });
        if (r.status !== 200 && r.status !== 201) throw statusError(ctx, r, { create: true, what: `POST ${url}` });
        return r;
      });
      const id = (reply.json as { id?: unknown }).id;
      if (typeof id !== "string" || id === "") throw badResponse(ctx, `POST ${url}`, reply.json);
      return { upstreamTaskId: id };
    },

    async poll(upstreamTaskId: string, _req: GenerationRequest, signal: AbortSignal): Promise<PollResult> {
      const url = `${base}/v1/tasks/${encodeURIComponent(upstreamTaskId)}`;
      const reply = await callJson(ctx, { method: "GET", url, headers, signal });
      if (reply.status !== 200) throw statusError(ctx, reply, { create: false, what: `GET ${url}` });
      const t = reply.json as Partial<Task>;
      switch (t.status) {
        case "PENDING":
        case "THROTTLED":
          return { state: "pending" };
        case "RUNNING":
          return { state: "running" };
        case "SUCCEEDED": {
          const urls = Array.isArray(t.output)
            ? t.output.filter((u): u is string => typeof u === "string" && /^https?:\/\//.test(u))
            : [];
          if (urls.length === 0) throw badResponse(ctx, `GET ${url} (succeeded without output)`, reply.json);
          return { state: "succeeded", assets: urls.map((u): ResultAsset => ({ kind: "url", url: u })) };
        }
        case "FAILED": {
          // Runway advises against showing `failure` raw: it gets context, and the code goes along for support.
          const why = typeof t.failure === "string" && t.failure ? `: ${t.failure.slice(0, 300)}` : "";
          const code = typeof t.failureCode === "string" && t.failureCode ? ` (${t.failureCode})` : "";
          return { state: "failed", message: `Runway could not generate the video${why}${code}` };
        }
        case "CANCELLED":
          return { state: "failed", message: "Runway cancelled the task" };
        default:
          throw badResponse(ctx, `GET ${url}`, reply.json);
      }
    },

    async cancel(upstreamTaskId: string, signal: AbortSignal): Promise<void> {
      const url = `${base}/v1/tasks/${encodeURIComponent(upstreamTaskId)}`;
      const reply = await callJson(ctx, { method: "DELETE", url, headers, signal });
      if (reply.status !== 204 && reply.status !== 200)
        throw statusError(ctx, reply, { create: false, what: `DELETE ${url}` });
    },
  };
}
