/**
 * The simulator (docs/design.md §2): stands in for every provider whose credentials
 * are not configured. Same lifecycle type as the real provider (sync for
 * OpenAI, submit + poll for the others), `SIMULATOR_DELAY_MS` per task, real
 * files rendered locally in the shape the options ask for (aspect ratio,
 * video duration), marked "SIMULATED · <model>". A task with an input picture shows it: an image is the picture
 * recoloured under the prompt, a video moves over it toward `image_end` (picture.server.ts).
 *
 *   `[simulate:fail]` in the prompt → fails like the provider would
 *   `[simulate:slow]` in the prompt → takes 10× the delay
 *   `[simulate:long]` in the prompt → takes 100× the delay (a task that is surely still running
 *                                      when a person or a browser test gets to cancel it)
 *
 * The upstream task id carries the moment the job is ready
 * (`sim_<ready-at-ms>_<random>`), so polling is stateless: another process,
 * or this one after a restart, resumes polling exactly as with a real API.
 */
import { randomBytes } from "node:crypto";
import type { Clock } from "~/lib/clock";
import type { ProviderName } from "../offering";
import {
  type AsyncProvider,
  declaredOptions,
  type GenerationRequest,
  type PollResult,
  type Provider,
  ProviderError,
  type ResultAsset,
  type SyncProvider,
} from "../types";
import { DECODE_MAX_PIXELS, decodeSource, movingBackdrop, stillBackdrop } from "./picture.server";
import { type Look, renderImagePng, renderVideoMp4 } from "./render.server";

export const FAIL_MARKER = "[simulate:fail]";
export const SLOW_MARKER = "[simulate:slow]";
export const LONG_MARKER = "[simulate:long]";

export interface SimulatorOptions {
  delayMs: number;
  clock: Clock;
}

/** What each simulated provider says when a task fails: wording in the style of its real API. */
const FAILURE_MESSAGE: Record<ProviderName, string> = {
  openai: "Your request was rejected as a result of our safety system. (simulated)",
  replicate: "Prediction failed: the model raised an error while generating. (simulated)",
  kling: "Task failed: content risk check did not pass. (simulated)",
  runway: "Task failed: the generation could not be completed. (simulated)",
  fal: "Request failed: the model could not process the input. (simulated)",
  google: "The prompt was blocked by the safety filters. (simulated)",
};

export function taskDelay(prompt: string, delayMs: number): number {
  if (prompt.includes(LONG_MARKER)) return delayMs * 100;
  return prompt.includes(SLOW_MARKER) ? delayMs * 10 : delayMs;
}

/**
 * The shape the real model would deliver for these options (its catalog
 * defaults when absent): aspect ratio, caption, and a video's duration. With an input picture and no shape chosen,
 * the picture's (image-to-video and edits follow their input; `match_input_image` says so).
 */
export function simulatedShape(
  req: Pick<GenerationRequest, "aiType" | "provider" | "model" | "options" | "specs" | "label">,
  picture?: { width: number; height: number },
): {
  look: Look;
  seconds: number;
} {
  const specs = req.specs;
  const o = declaredOptions(req);
  const pick = (k: string): unknown => o[k] ?? (specs[k] && "default" in specs[k]! ? specs[k]!.default : undefined);
  // "1792x1024" (OpenAI size), "16:9" (aspect_ratio), "1280:720" (Runway ratio).
  const shape = String(pick("size") ?? pick("aspect_ratio") ?? pick("ratio") ?? "1:1");
  const chosen = o.size ?? o.aspect_ratio ?? o.ratio;
  const m = picture && (chosen === undefined || chosen === "match_input_image") ? null : /^(\d+)[x:](\d+)$/.exec(shape);
  const ratio: [number, number] = m ? [Number(m[1]), Number(m[2])] : picture ? [picture.width, picture.height] : [1, 1];
  const seconds = req.aiType === "video" ? Number(pick("duration") ?? 5) : 0;
  // Sizes in pixels (OpenAI size, Runway ratio) read "1280 × 720"; aspect ratios stay "16:9".
  const pixels = pick("size") !== undefined || pick("ratio") !== undefined;
  const dims = !m && picture ? `${picture.width} × ${picture.height}` : pixels ? shape.replace(/[x:]/, " × ") : shape;
  const caption = req.aiType === "video" ? `${dims} · ${seconds} s` : dims;
  return { look: { ratio, mark: `SIMULATED · ${req.label ?? req.model}`, caption }, seconds };
}

/** The request's pictures, decoded (null where absent or unreadable), with a digest of their bytes. */
async function pictures(req: Pick<GenerationRequest, "inputs">) {
  const read = async (name: "image" | "image_end") => {
    const input = req.inputs?.[name];
    if (!input || input.width * input.height > DECODE_MAX_PIXELS) return { source: null, digest: "" };
    const bytes = await input.bytes();
    return { source: decodeSource(bytes, input.contentType), digest: Bun.hash(bytes).toString(36) };
  };
  const start = await read("image");
  // The last frame only means something after a first one.
  const end = start.source ? await read("image_end") : { source: null, digest: "" };
  return { start: start.source, end: end.source, digest: `${start.digest}:${end.digest}` };
}

export async function renderAssets(
  req: Pick<GenerationRequest, "aiType" | "provider" | "model" | "options" | "prompt" | "inputs" | "specs" | "label">,
): Promise<ResultAsset[]> {
  const { start, end, digest } = await pictures(req);
  const { look, seconds } = simulatedShape(req, start ?? undefined);
  const video = req.aiType === "video";
  // The render is a pure function of these: the same request (a client retrying, a benchmark) is rendered once.
  const key = JSON.stringify([video, req.prompt, look, seconds, digest]);
  let bytes = recentRenders.get(key);
  if (bytes) recentRenders.delete(key);
  else if (video) bytes = renderVideoMp4(req.prompt, look, seconds, start ? movingBackdrop(start, end) : undefined);
  else bytes = renderImagePng(req.prompt, look, undefined, start ? stillBackdrop(start) : undefined);
  recentRenders.set(key, bytes);
  if (recentRenders.size > RECENT_RENDERS) recentRenders.delete(recentRenders.keys().next().value!);
  return [{ kind: "bytes", bytes, contentType: video ? "video/mp4" : "image/png" }];
}

/** The last few renders, least recently used first (each is still stored as its own file). */
const recentRenders = new Map<string, Uint8Array>();
export const RECENT_RENDERS = 8;

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0) return signal.aborted ? Promise.reject(abortError()) : Promise.resolve();
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(abortError());
    const t = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(abortError());
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

const abortError = () => new ProviderError("timeout", "the request was aborted", { retryable: false });

export function createSimulator(name: ProviderName, lifecycle: "sync" | "async", opts: SimulatorOptions): Provider {
  if (lifecycle === "sync") {
    const p: SyncProvider = {
      name,
      mode: "simulated",
      lifecycle: "sync",
      async generate(req: GenerationRequest, signal: AbortSignal) {
        await sleep(taskDelay(req.prompt, opts.delayMs), signal);
        if (req.prompt.includes(FAIL_MARKER))
          throw new ProviderError("bad_request", FAILURE_MESSAGE[name], { retryable: false });
        return await renderAssets(req);
      },
    };
    return p;
  }
  const p: AsyncProvider = {
    name,
    mode: "simulated",
    lifecycle: "async",
    async submit(req: GenerationRequest, signal: AbortSignal) {
      if (signal.aborted) throw abortError();
      const delay = taskDelay(req.prompt, opts.delayMs);
      const readyAt = opts.clock.now() + delay;
      return { upstreamTaskId: `sim_${readyAt}_${randomBytes(6).toString("hex")}`, readyInMs: delay };
    },
    async poll(upstreamTaskId: string, req: GenerationRequest, signal: AbortSignal): Promise<PollResult> {
      if (signal.aborted) throw abortError();
      const m = /^sim_(\d+)_[0-9a-f]+$/.exec(upstreamTaskId);
      if (!m) throw new ProviderError("bad_request", "task not found", { status: 404, retryable: false });
      const readyInMs = Number(m[1]) - opts.clock.now();
      if (readyInMs > 0) return { state: "running", readyInMs };
      if (req.prompt.includes(FAIL_MARKER)) return { state: "failed", message: FAILURE_MESSAGE[name] };
      return { state: "succeeded", assets: await renderAssets(req) };
    },
  };
  return p;
}
