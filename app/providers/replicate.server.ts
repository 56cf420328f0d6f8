/**
 * Replicate (https://replicate.com/docs/reference/http): an official model's
 * prediction is created with `POST /v1/models/{owner}/{name}/predictions`
 * and polled with `GET /v1/predictions/{id}`, canceled with
 * `POST /v1/predictions/{id}/cancel`; Bearer token auth. An input picture is
 * an input field holding a URL Replicate fetches. Sources followed: docs/providers.md.
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
import { type AsyncProvider, type GenerationRequest, type PollResult, ProviderError, type ResultAsset } from "./types";

interface Prediction {
  id: string;
  status: "starting" | "processing" | "succeeded" | "failed" | "canceled" | "aborted";
  output?: unknown;
  error?: unknown;
}

/** The models documenting `safety_tolerance` (0 strictest); the others' checker is on unless disabled. */
const SAFETY_TOLERANCE_MODELS = /^black-forest-labs\/flux-(kontext|1\.1-pro|pro)/;

export function createReplicateProvider(config: Config, options?: AdapterOptions): AsyncProvider {
  const token = config.REPLICATE_API_TOKEN;
  if (!token) throw new Error("REPLICATE_API_TOKEN is not set");
  const base = config.REPLICATE_BASE_URL;
  const { timeoutMs, retry } = resolveOptions(options);
  const ctx: CallContext = { provider: "replicate", credentialVar: "REPLICATE_API_TOKEN", timeoutMs };
  const headers = { authorization: `Bearer ${token}` };

  return {
    name: "replicate",
    mode: "live",
    lifecycle: "async",

    async submit(req: GenerationRequest, signal: AbortSignal) {
      const [owner, name, ...rest] = req.upstreamModel.split("/");
      if (!owner || !name || rest.length > 0 || name.includes(":")) {
        throw new ProviderError("bad_request", "this model is not available", {
          retryable: false,
          operatorHint: `Replicate model "${req.upstreamModel}" is not owner/name (official models only; check MODEL_MAP)`,
        });
      }
      // The catalog declares each model's inputs (aspect_ratio, seed, output_format…); num_outputs is not one (cost).
      // A picture goes as a URL Replicate fetches (flux-kontext-pro's `input_image`).
      const input: Record<string, unknown> = { prompt: req.prompt, ...plainOptions(req) };
      for (const i of declaredInputs(req)) input[i.param] = i.image.url;
      // The operator's setting, never the user's (docs/safety.md): BFL's Pro and Kontext models take a tolerance.
      if (SAFETY_TOLERANCE_MODELS.test(req.upstreamModel)) input.safety_tolerance = config.PROVIDER_SAFETY_TOLERANCE;
      const url = `${base}/models/${encodeURIComponent(owner)}/${encodeURIComponent(name)}/predictions`;
      // Replicate's own client retries a non-GET request only on 429 (replicate-javascript lib/util.js): a 5xx may have created the prediction.
      const reply = await retryCreate(retry, signal, async () => {
        const r = await callJson(ctx, { method: "POST", url, headers, body: { input }, signal });
        if (r.status !== 200 && r.status !== 201 && r.status !== 202)
          throw statusError(ctx, r, { create: true, what: `POST ${url}` });
        return r;
      });
      const p = reply.json as Partial<Prediction>;
      if (typeof p.id !== "string" || p.id === "") throw badResponse(ctx, `POST ${url}`, reply.json);
      return { upstreamTaskId: p.id };
    },

    async poll(upstreamTaskId: string, _req: GenerationRequest, signal: AbortSignal): Promise<PollResult> {
      const url = `${base}/predictions/${encodeURIComponent(upstreamTaskId)}`;
      const reply = await callJson(ctx, { method: "GET", url, headers, signal });
      if (reply.status !== 200) throw statusError(ctx, reply, { create: false, what: `GET ${url}` });
      const p = reply.json as Partial<Prediction>;
      switch (p.status) {
        case "starting":
          return { state: "pending" };
        case "processing":
          return { state: "running" };
        case "succeeded": {
          const urls = (Array.isArray(p.output) ? p.output : [p.output]).filter(
            (u): u is string => typeof u === "string" && /^https?:\/\//.test(u),
          );
          if (urls.length === 0) throw badResponse(ctx, `GET ${url} (succeeded without output URLs)`, reply.json);
          return { state: "succeeded", assets: urls.map((u): ResultAsset => ({ kind: "url", url: u })) };
        }
        case "failed":
          return {
            state: "failed",
            message: `Replicate failed the prediction${typeof p.error === "string" && p.error ? `: ${p.error.slice(0, 300)}` : ""}`,
          };
        case "canceled":
          return { state: "failed", message: "Replicate canceled the prediction" };
        case "aborted":
          return { state: "failed", message: "Replicate aborted the prediction" };
        default:
          throw badResponse(ctx, `GET ${url}`, reply.json);
      }
    },

    async cancel(upstreamTaskId: string, signal: AbortSignal): Promise<void> {
      const url = `${base}/predictions/${encodeURIComponent(upstreamTaskId)}/cancel`;
      const reply = await callJson(ctx, { method: "POST", url, headers, signal });
      if (reply.status !== 200) throw statusError(ctx, reply, { create: false, what: `POST ${url}` });
    },
  };
}
