/**
 * The demo endpoints' rules (spec §4.4–4.6): validate against the demo
 * catalog, then run the `ai` SDK — `generateText`, `streamText`,
 * `generateImage` — on a live or simulated model (models.server.ts).
 *
 * Upstream failures before any text exists become envelope errors; a failure
 * after the stream has started ends the stream cleanly and is logged.
 */
import { APICallError } from "@ai-sdk/provider";
import { generateImage, generateText, streamText } from "ai";
import { AppError } from "~/lib/errors";
import { log } from "~/lib/log.server";
import type { ResultStorage } from "~/storage/types";
import { DEMO_TEXT_MAX_OUTPUT_TOKENS, findImageProvider, findTextProvider, type TextProviderInfo } from "./catalog";
import type { DemoMode, DemoModels } from "./models.server";
import type { DemoRequest } from "./schema";

export interface DemoTextResult {
  provider: string;
  model: string;
  mode: DemoMode;
  text: string;
  usage: { input_tokens: number | null; output_tokens: number | null; total_tokens: number | null };
}

export interface DemoImageResult {
  provider: string;
  model: string;
  mode: DemoMode;
  result_urls: string[];
}

export function resolveTextOffering(input: Pick<DemoRequest, "provider" | "model">): TextProviderInfo {
  const provider = findTextProvider(input.provider);
  if (!provider) throw new AppError("UNSUPPORTED_TEXT_PROVIDER", { provider: input.provider });
  if (!provider.models.includes(input.model)) throw new AppError("UNSUPPORTED_MODEL", { model: input.model });
  return provider;
}

export function resolveImageOffering(input: Pick<DemoRequest, "provider" | "model">) {
  const provider = findImageProvider(input.provider);
  if (!provider) throw new AppError("UNSUPPORTED_PROVIDER", { aiType: "image", provider: input.provider });
  if (!provider.models.includes(input.model)) throw new AppError("UNSUPPORTED_MODEL", { model: input.model });
  return provider;
}

/** An upstream failure as the envelope error the client sees; the details go to the log. */
export function upstreamError(provider: string, error: unknown): AppError {
  if (error instanceof AppError) return error;
  const status = APICallError.isInstance(error) ? error.statusCode : undefined;
  log.warn("demo upstream error", { provider, status, error });
  return new AppError("UPSTREAM_FAILED", { provider, status });
}

const orNull = (n: number | undefined) => (typeof n === "number" ? n : null);

export async function generateDemoText(
  deps: { models: DemoModels },
  input: DemoRequest,
  abortSignal?: AbortSignal,
): Promise<DemoTextResult> {
  const provider = resolveTextOffering(input);
  const { model, mode } = deps.models.text(provider, input.model);
  try {
    const result = await generateText({
      model,
      prompt: input.prompt,
      maxOutputTokens: DEMO_TEXT_MAX_OUTPUT_TOKENS,
      maxRetries: 0,
      abortSignal,
    });
    return {
      provider: provider.name,
      model: input.model,
      mode,
      text: result.text,
      usage: {
        input_tokens: orNull(result.usage.inputTokens),
        output_tokens: orNull(result.usage.outputTokens),
        total_tokens: orNull(result.usage.totalTokens),
      },
    };
  } catch (error) {
    throw upstreamError(provider.name, error);
  }
}

/**
 * A plain-text stream of the reply (`streamText(...).toTextStreamResponse()`).
 * The first part is awaited before answering, so a request the upstream
 * refuses outright (bad key, 5xx) still gets an envelope error.
 */
export async function streamDemoText(
  deps: { models: DemoModels },
  input: DemoRequest,
  opts: { abortSignal?: AbortSignal; headers?: Record<string, string> } = {},
): Promise<Response> {
  const provider = resolveTextOffering(input);
  const { model, mode } = deps.models.text(provider, input.model);
  let started = false;
  let failedEarly: unknown;
  const result = streamText({
    model,
    prompt: input.prompt,
    maxOutputTokens: DEMO_TEXT_MAX_OUTPUT_TOKENS,
    maxRetries: 0,
    abortSignal: opts.abortSignal,
    onError: ({ error }) => {
      if (!started) {
        failedEarly = error;
        return;
      }
      const status = APICallError.isInstance(error) ? error.statusCode : undefined;
      log.warn("demo stream ended by an upstream error", {
        provider: provider.name,
        model: input.model,
        status,
        error,
      });
    },
  });

  // Peek through a second consumer (streamText replays to every consumer) until text, an error or the end.
  const peek = result.fullStream.getReader();
  try {
    for (;;) {
      const { done, value } = await peek.read();
      if (done) break;
      if (value.type === "error") throw value.error;
      if (value.type === "text-delta" || value.type === "finish" || value.type === "abort") break;
    }
  } catch (error) {
    throw upstreamError(provider.name, failedEarly ?? error);
  } finally {
    started = true;
    void peek.cancel().catch(() => {});
  }

  const res = result.toTextStreamResponse({
    headers: {
      "Cache-Control": "no-store",
      "X-Accel-Buffering": "no",
      "X-Demo-Mode": mode,
      ...opts.headers,
    },
  });
  // A broken upstream connection errors the SDK's stream (not an error part): end ours cleanly instead.
  const body = endCleanly(res.body!, (error) => {
    const status = APICallError.isInstance(error) ? error.statusCode : undefined;
    log.warn("demo stream ended by an upstream error", { provider: provider.name, model: input.model, status, error });
  });
  return new Response(body, { status: res.status, headers: res.headers });
}

/** Passes chunks through; a read error is reported and closes the stream instead of aborting the response. */
export function endCleanly(
  source: ReadableStream<Uint8Array>,
  onError: (error: unknown) => void,
): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) controller.close();
          else controller.enqueue(value);
        } catch (error) {
          onError(error);
          controller.close();
        }
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

export async function generateDemoImage(
  deps: { models: DemoModels; storage: ResultStorage },
  input: DemoRequest,
  abortSignal?: AbortSignal,
): Promise<DemoImageResult> {
  const provider = resolveImageOffering(input);
  const { model, mode } = deps.models.image(provider.name, input.model);
  let images;
  try {
    ({ images } = await generateImage({ model, prompt: input.prompt, n: 1, maxRetries: 0, abortSignal }));
  } catch (error) {
    throw upstreamError(provider.name, error);
  }
  const now = Date.now();
  const stamp = now.toString(36);
  const result_urls = await Promise.all(
    images.map((img, i) => {
      const ext = img.mediaType === "image/jpeg" ? "jpg" : img.mediaType === "image/webp" ? "webp" : "png";
      return deps.storage.put(
        `${demoDayPrefix(now)}/${stamp}-${crypto.randomUUID()}-${i}.${ext}`,
        img.uint8Array,
        img.mediaType || "image/png",
      );
    }),
  );
  return { provider: provider.name, model: input.model, mode, result_urls };
}

/**
 * Demo images are kept DEMO_IMAGE_RETENTION_DAYS full UTC days after the day they were made:
 * they are free when simulated, so without an end one account at DEMO_RATE_LIMIT added ~166 MB a day for ever.
 * They live under `demo/<UTC day>/`, so the retention sweep removes a whole day at once on any storage.
 */
export const DEMO_IMAGE_RETENTION_DAYS = 1;
/** Days the sweep looks back past the retention, so a sweep after a long stop still clears them. */
const DEMO_SWEEP_LOOKBACK_DAYS = 30;
const DAY = 86_400_000;

export const demoDayPrefix = (at: number) => `demo/${new Date(at).toISOString().slice(0, 10)}`;

/** Removes the demo images of the days past the retention; returns how many day prefixes it cleared. */
export async function sweepDemoImages(storage: Pick<ResultStorage, "deletePrefix">, now: number): Promise<number> {
  if (!storage.deletePrefix) return 0;
  let days = 0;
  for (let back = DEMO_IMAGE_RETENTION_DAYS + 1; back <= DEMO_IMAGE_RETENTION_DAYS + DEMO_SWEEP_LOOKBACK_DAYS; back++) {
    await storage.deletePrefix(demoDayPrefix(now - back * DAY));
    days++;
  }
  return days;
}
