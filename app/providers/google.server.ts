/**
 * Google's Gemini API (docs/providers.md "Google"), `x-goog-api-key` on every call to GEMINI_BASE_URL:
 * - Gemini image models: `POST /v1beta/models/{m}:generateContent`, the image bytes in
 *   `candidates[0].content.parts[].inlineData`; an input image rides along as an `inlineData` part (edits);
 * - Imagen: `POST /v1beta/models/{m}:predict`, `predictions[].bytesBase64Encoded`;
 * - Veo: `POST /v1beta/models/{m}:predictLongRunning` answers an operation; `GET /v1beta/{operation name}` until
 *   `done` (the field is absent before), then the video's `uri`, downloaded with the key.
 * Errors are `{error: {code, message, status}}`. Gemini and Imagen answer in one call (the sync facet), Veo is
 * submit + poll (the async facet): the registry picks by the model's catalog lifecycle.
 */
import type { Config } from "~/lib/config.server";
import { readCapped } from "~/lib/outbound.server";
import {
  type AdapterOptions,
  badResponse,
  type CallContext,
  callJson,
  deadline,
  type JsonReply,
  MAX_DOWNLOAD_BYTES,
  MAX_IMAGE_BYTES,
  redact,
  resolveOptions,
  retryCreate,
  sniffContentType,
  statusError,
} from "./http.server";
import { declaredInputs, plainOptions } from "./inputs.server";
import {
  type AsyncProvider,
  type GenerationRequest,
  type InputImage,
  type PollResult,
  ProviderError,
  type ResultAsset,
  type SyncProvider,
} from "./types";

/** A model id as the Gemini API names models: letters, digits, dots and dashes. */
const MODEL_ID = /^[a-z0-9][a-z0-9.-]{0,99}$/i;
/** An input image sent inline may be at most this large (the request limit is 20 MB). */
export const MAX_INPUT_IMAGE_BYTES = 15 * 1024 * 1024;

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");

function googleDetail(reply: JsonReply): string | undefined {
  const m = (reply.json as { error?: { message?: unknown } } | undefined)?.error?.message;
  return typeof m === "string" && m.trim() ? m.slice(0, 300) : undefined;
}

/** Gemini's 400 INVALID_ARGUMENT and FAILED_PRECONDITION are the request's fault: the task fails, unpaid. */
function modelId(req: GenerationRequest): string {
  if (!MODEL_ID.test(req.upstreamModel)) {
    throw new ProviderError("bad_request", "this model is not available", {
      retryable: false,
      operatorHint: `Google model "${req.upstreamModel}" is not a Gemini API model id (check the catalog or MODEL_MAP)`,
    });
  }
  return req.upstreamModel;
}

export function createGoogleProvider(config: Config, options?: AdapterOptions): [SyncProvider, AsyncProvider] {
  const key = config.GEMINI_API_KEY;
  if (!key) throw new Error("GEMINI_API_KEY is not set");
  const base = config.GEMINI_BASE_URL;
  const origin = new URL(base).origin;
  const { timeoutMs, retry } = resolveOptions(options, 120_000);
  const ctx: CallContext = { provider: "google", credentialVar: "GEMINI_API_KEY", timeoutMs };
  const headers = { "x-goog-api-key": key };
  const failed = (reply: JsonReply, what: string, create: boolean) =>
    statusError(ctx, reply, { create, what, detail: googleDetail(reply) });

  /** POSTs once (429 and refused connections retried: nothing was made then) and returns the 200 body. */
  async function post(url: string, body: unknown, signal: AbortSignal): Promise<any> {
    const reply = await retryCreate(retry, signal, async () => {
      const r = await callJson(ctx, { method: "POST", url, headers, body, signal });
      if (r.status !== 200) throw failed(r, `POST ${url}`, true);
      return r;
    });
    return reply.json;
  }

  /** An input picture as inline bytes (Gemini's `inlineData`, Veo's `bytesBase64Encoded`). */
  async function inlineImage(image: InputImage): Promise<{ mimeType: string; data: string }> {
    const bytes = await image.bytes();
    if (bytes.byteLength > MAX_INPUT_IMAGE_BYTES)
      throw new ProviderError(
        "bad_request",
        `the input image is larger than ${MAX_INPUT_IMAGE_BYTES / 1024 / 1024} MB, more than Google takes inline`,
        { retryable: false },
      );
    return { mimeType: image.contentType, data: b64(bytes) };
  }

  const fromBase64 = (data: unknown, mimeType: unknown, what: string, body: unknown): ResultAsset => {
    if (typeof data !== "string" || data === "") throw badResponse(ctx, what, body);
    const bytes = new Uint8Array(Buffer.from(data, "base64"));
    if (bytes.byteLength > MAX_IMAGE_BYTES) throw badResponse(ctx, `${what} (image over ${MAX_IMAGE_BYTES} bytes)`, {});
    const contentType =
      typeof mimeType === "string" && mimeType.startsWith("image/") ? mimeType : sniffContentType(bytes);
    return { kind: "bytes", bytes, contentType: contentType ?? "image/png" };
  };

  async function gemini(req: GenerationRequest, signal: AbortSignal): Promise<ResultAsset[]> {
    const o = plainOptions(req);
    const parts: unknown[] = [{ text: req.prompt }];
    for (const i of declaredInputs(req)) parts.push({ inlineData: await inlineImage(i.image) });
    const url = `${base}/v1beta/models/${modelId(req)}:generateContent`;
    const body = {
      contents: [{ role: "user", parts }],
      generationConfig: {
        responseModalities: ["TEXT", "IMAGE"],
        ...(o.aspect_ratio ? { imageConfig: { aspectRatio: o.aspect_ratio } } : {}),
      },
    };
    const json = await post(url, body, signal);
    const blocked = json?.promptFeedback?.blockReason;
    if (typeof blocked === "string")
      throw new ProviderError("failed", `Google blocked the prompt (${blocked})`, { retryable: false });
    const candidate = Array.isArray(json?.candidates) ? json.candidates[0] : undefined;
    const images = (Array.isArray(candidate?.content?.parts) ? candidate.content.parts : []).filter(
      (p: any) => typeof p?.inlineData?.data === "string",
    );
    if (images.length === 0) {
      const reason = typeof candidate?.finishReason === "string" ? candidate.finishReason : undefined;
      if (reason && reason !== "STOP")
        throw new ProviderError("failed", `Google did not make an image (${reason})`, { retryable: false });
      if (candidate) throw new ProviderError("failed", "Google answered without an image", { retryable: false });
      throw badResponse(ctx, `POST ${url}`, json);
    }
    return images.map((p: any) => fromBase64(p.inlineData.data, p.inlineData.mimeType, `POST ${url}`, json));
  }

  async function imagen(req: GenerationRequest, signal: AbortSignal): Promise<ResultAsset[]> {
    const o = plainOptions(req);
    const url = `${base}/v1beta/models/${modelId(req)}:predict`;
    const body = {
      instances: [{ prompt: req.prompt }],
      parameters: { sampleCount: 1, ...(o.aspect_ratio ? { aspectRatio: o.aspect_ratio } : {}) },
    };
    const json = await post(url, body, signal);
    const predictions = (Array.isArray(json?.predictions) ? json.predictions : []).filter(
      (p: any) => typeof p?.bytesBase64Encoded === "string",
    );
    if (predictions.length === 0) {
      // Imagen leaves filtered images out (with `raiFilteredReason` when asked): nothing came back for this prompt.
      const reason = (Array.isArray(json?.predictions) ? json.predictions : []).find(
        (p: any) => typeof p?.raiFilteredReason === "string",
      )?.raiFilteredReason;
      throw new ProviderError(
        "failed",
        `Google's safety filters removed the image${reason ? `: ${String(reason).slice(0, 300)}` : ""}`,
        { retryable: false },
      );
    }
    return predictions.map((p: any) => fromBase64(p.bytesBase64Encoded, p.mimeType, `POST ${url}`, json));
  }

  /**
   * The Veo file: its URI is under GEMINI_BASE_URL and needs the key. The key goes to that origin only; a
   * redirect elsewhere (a signed storage URL) is followed without it, through the outbound guard.
   */
  async function veoFile(uri: string, signal: AbortSignal): Promise<ResultAsset> {
    if (new URL(uri).origin !== origin) return { kind: "url", url: uri };
    const d = deadline(signal, 300_000);
    let res: Response;
    try {
      res = await fetch(uri, { headers, signal: d.signal, redirect: "manual" });
    } catch (err) {
      if (signal.aborted) throw signal.reason ?? err;
      throw new ProviderError(d.timedOut() ? "timeout" : "network", "the result file could not be downloaded", {
        retryable: true,
        operatorHint: `GET ${redact(uri)}: ${(err as Error)?.message ?? String(err)}`,
      });
    }
    const location = res.headers.get("location");
    if (res.status >= 300 && res.status < 400 && location) {
      await res.body?.cancel().catch(() => {});
      return { kind: "url", url: new URL(location, uri).toString() };
    }
    if (!res.ok) {
      await res.body?.cancel().catch(() => {});
      throw new ProviderError(
        res.status >= 500 ? "server" : "bad_response",
        "the result file could not be downloaded",
        {
          status: res.status,
          retryable: res.status >= 500 || res.status === 429,
          operatorHint: `GET ${redact(uri)}: HTTP ${res.status}${res.status === 401 || res.status === 403 ? " — check GEMINI_API_KEY" : ""}`,
        },
      );
    }
    const bytes = await readCapped(res, MAX_DOWNLOAD_BYTES);
    return { kind: "bytes", bytes, contentType: sniffContentType(bytes) ?? "video/mp4" };
  }

  const sync: SyncProvider = {
    name: "google",
    mode: "live",
    lifecycle: "sync",
    generate: (req, signal) => (modelId(req).startsWith("imagen-") ? imagen(req, signal) : gemini(req, signal)),
  };

  const async: AsyncProvider = {
    name: "google",
    mode: "live",
    lifecycle: "async",

    async submit(req, signal) {
      const o = plainOptions(req);
      const instance: Record<string, unknown> = { prompt: req.prompt };
      for (const i of declaredInputs(req)) {
        const img = await inlineImage(i.image);
        instance[i.param] = { bytesBase64Encoded: img.data, mimeType: img.mimeType };
      }
      const parameters: Record<string, unknown> = {};
      if (o.aspect_ratio !== undefined) parameters.aspectRatio = o.aspect_ratio;
      if (o.resolution !== undefined) parameters.resolution = o.resolution;
      if (o.negative_prompt !== undefined) parameters.negativePrompt = o.negative_prompt;
      const url = `${base}/v1beta/models/${modelId(req)}:predictLongRunning`;
      const json = await post(url, { instances: [instance], parameters }, signal);
      const name = json?.name;
      if (typeof name !== "string" || !/^[A-Za-z0-9._/-]{1,300}$/.test(name) || name.includes(".."))
        throw badResponse(ctx, `POST ${url}`, json);
      return { upstreamTaskId: name };
    },

    async poll(upstreamTaskId, _req, signal): Promise<PollResult> {
      const url = `${base}/v1beta/${upstreamTaskId}`;
      const reply = await callJson(ctx, { method: "GET", url, headers, signal });
      if (reply.status !== 200) throw failed(reply, `GET ${url}`, false);
      const op = reply.json as any;
      if (op.done !== true) return { state: "running" };
      if (op.error) {
        const msg = typeof op.error.message === "string" ? op.error.message.slice(0, 300) : "";
        return { state: "failed", message: `Google could not make the video${msg ? `: ${msg}` : ""}` };
      }
      const res = op.response?.generateVideoResponse ?? op.response;
      const samples = Array.isArray(res?.generatedSamples)
        ? res.generatedSamples
        : Array.isArray(res?.generatedVideos)
          ? res.generatedVideos
          : [];
      const uris = samples
        .map((s: any) => s?.video?.uri)
        .filter((u: unknown): u is string => typeof u === "string" && /^https?:\/\//.test(u));
      if (uris.length === 0) {
        const reasons = Array.isArray(res?.raiMediaFilteredReasons) ? res.raiMediaFilteredReasons.join("; ") : "";
        if (reasons || Number(res?.raiMediaFilteredCount) > 0)
          return {
            state: "failed",
            message: `Google's safety filters removed the video${reasons ? `: ${reasons.slice(0, 300)}` : ""}`,
          };
        throw badResponse(ctx, `GET ${url} (done without a video)`, op);
      }
      const assets: ResultAsset[] = [];
      for (const uri of uris) assets.push(await veoFile(uri, signal));
      return { state: "succeeded", assets };
    },
  };

  return [sync, async];
}

/**
 * Whether a Google model answers in one call (Gemini, Imagen) or is submit + poll (Veo), for new catalog entries;
 * `knownVideo`: the catalog already lists it as a video model.
 */
export function googleLifecycle(model: string, knownVideo = false): "sync" | "async" {
  return knownVideo || model.startsWith("veo-") ? "async" : "sync";
}
