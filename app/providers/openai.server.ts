/**
 * OpenAI images (`POST /v1/images/generations`) through `generateImage` of the
 * `ai` SDK with `@ai-sdk/openai`; with an input picture, `POST /v1/images/edits`
 * (multipart: the picture's bytes as `image`, the optional `mask`). One call
 * returns the image (b64_json), so this is a sync provider. The SDK's own retries are off (`maxRetries: 0`):
 * retrying is decided here, where we know what can be paid twice.
 * Sources followed: docs/providers.md.
 */
import { createOpenAI } from "@ai-sdk/openai";
import { APICallError, generateImage } from "ai";
import type { Config } from "~/lib/config.server";
import {
  type AdapterOptions,
  type CallContext,
  deadline,
  isConnectFailure,
  resolveOptions,
  retryCreate,
  statusError,
  UpstreamError,
} from "./http.server";
import { declaredInputs, plainOptions } from "./inputs.server";
import { type GenerationRequest, ProviderError, type ResultAsset, type SyncProvider } from "./types";

/** Image generation can take a minute or two (gpt-image-1 at high quality). */
const OPENAI_TIMEOUT_MS = 180_000;

/** Maps what `generateImage` throws to a ProviderError (or rethrows the caller's abort). */
export function mapOpenAIError(
  ctx: CallContext,
  err: unknown,
  timedOut: boolean,
  callerAborted: boolean,
  what: string,
): unknown {
  if (callerAborted) return err;
  if (timedOut) {
    return new UpstreamError("timeout", "OpenAI did not answer in time", {
      retryable: true,
      operatorHint: `${what} took longer than ${ctx.timeoutMs} ms`,
      cause: err,
    });
  }
  if (APICallError.isInstance(err)) {
    const status = err.statusCode;
    if (status === undefined) {
      const e = new UpstreamError("network", "could not reach OpenAI", {
        retryable: true,
        operatorHint: `${what}: ${err.message}`,
        cause: err,
      });
      e.notSent = isConnectFailure(err);
      return e;
    }
    if (status >= 200 && status < 300) {
      return new UpstreamError("bad_response", "OpenAI sent an unreadable response", {
        status,
        retryable: false,
        operatorHint: `${what}: ${err.message}: ${(err.responseBody ?? "").slice(0, 200)}`,
        cause: err,
      });
    }
    const data = err.data as { error?: { message?: string; code?: unknown; type?: unknown } } | undefined;
    const code = data?.error?.code ?? data?.error?.type;
    const headers = new Headers(err.responseHeaders ?? {});
    let body: unknown;
    try {
      body = err.responseBody ? JSON.parse(err.responseBody) : undefined;
    } catch {
      body = undefined;
    }
    const reply = { status, headers, json: body, text: err.responseBody ?? "" };
    // A 429 for an exhausted quota is a billing problem, not a rate limit: retrying cannot help.
    if (status === 429 && code === "insufficient_quota") {
      return new UpstreamError("auth", "the OpenAI account cannot take requests right now", {
        status,
        retryable: false,
        operatorHint: `${what}: HTTP 429 insufficient_quota: ${data?.error?.message ?? ""} — check billing for OPENAI_API_KEY`,
      });
    }
    return statusError(ctx, reply, { create: true, what, detail: data?.error?.message });
  }
  // NoImageGeneratedError and friends: the answer parsed but held no image.
  return new UpstreamError("bad_response", "OpenAI sent an unexpected response", {
    retryable: false,
    operatorHint: `${what}: ${(err as Error)?.name}: ${(err as Error)?.message}`,
    cause: err,
  });
}

export function createOpenAIProvider(config: Config, options?: AdapterOptions): SyncProvider {
  const apiKey = config.OPENAI_API_KEY;
  if (!apiKey) throw new Error("OPENAI_API_KEY is not set");
  const { timeoutMs, retry } = resolveOptions(options, OPENAI_TIMEOUT_MS);
  const ctx: CallContext = { provider: "openai", credentialVar: "OPENAI_API_KEY", timeoutMs };
  const openai = createOpenAI({ baseURL: config.OPENAI_BASE_URL, apiKey });

  return {
    name: "openai",
    mode: "live",
    lifecycle: "sync",

    async generate(req: GenerationRequest, signal: AbortSignal): Promise<ResultAsset[]> {
      // size, quality (and style for DALL·E 3) as the catalog declares them for this model.
      const o = plainOptions(req);
      const inputs = declaredInputs(req);
      const image = inputs.find((i) => i.name === "image");
      const mask = inputs.find((i) => i.name === "mask");
      if (mask && !image)
        throw new ProviderError("bad_request", "a mask needs an image to edit (options.image)", { retryable: false });
      const prompt = image
        ? { text: req.prompt, images: [await image.image.bytes()], ...(mask ? { mask: await mask.image.bytes() } : {}) }
        : req.prompt;
      const what = `POST ${config.OPENAI_BASE_URL}/images/${image ? "edits" : "generations"}`;
      const size = typeof o.size === "string" ? (o.size as `${number}x${number}`) : undefined;
      const openaiOptions: Record<string, string> = {};
      if (typeof o.quality === "string") openaiOptions.quality = o.quality;
      if (typeof o.style === "string") openaiOptions.style = o.style;
      // No idempotency key exists for images: only a 429 (rate limit) or a refused connection is retried.
      return await retryCreate(retry, signal, async () => {
        const d = deadline(signal, timeoutMs);
        try {
          const { images } = await generateImage({
            model: openai.image(req.upstreamModel),
            prompt,
            n: 1,
            size,
            providerOptions: Object.keys(openaiOptions).length ? { openai: openaiOptions } : undefined,
            maxRetries: 0,
            abortSignal: d.signal,
          });
          if (images.length === 0)
            throw new UpstreamError("bad_response", "OpenAI sent no image", {
              retryable: false,
              operatorHint: `${what}: empty data`,
            });
          return images.map(
            (img): ResultAsset => ({ kind: "bytes", bytes: img.uint8Array, contentType: img.mediaType || "image/png" }),
          );
        } catch (err) {
          if (err instanceof UpstreamError) throw err;
          throw mapOpenAIError(ctx, err, d.timedOut(), signal.aborted, what);
        }
      });
    },
  };
}
