/**
 * `POST /v1/images/generations` (docs/openai-compat.md): an Atelier key as `Authorization: Bearer`, OpenAI's request
 * and answer shapes. The key's rate limit takes one unit per image (each image is one generate), its scope is
 * `generate`; the request holds a wait slot (wait.server.ts) for up to MAX_WAIT_SECONDS.
 */

import { MAX_WAIT_SECONDS, takeWaitSlot } from "~/domain/generations/wait.server";
import {
  type GenerateImagesArgs,
  type GenerateImagesDeps,
  generateImages,
  type TaskView,
} from "~/domain/openai-compat/generate-images.server";
import { OpenAiRefusal, parseImagesRequest } from "~/domain/openai-compat/images";
import { readJsonBody, requireScope } from "~/http/api.server";
import { getGenerationRuntime } from "~/http/generation-runtime.server";
import type { Caller } from "~/http/identity.server";
import { requireKeyCaller, takeRateUnits } from "~/http/key-gate.server";
import { BASELINE_HEADERS } from "~/http/security-headers.server";
import { getServices, type Services } from "~/http/services.server";
import { fromRefusal, NO_RETRY_HEADERS, type OpenAiError, openAiErrorResponse, openAiFailure } from "./respond.server";

export const IMAGES_ROUTE = "/v1/images/generations";
/** A stored result read back for `b64_json` larger than this is refused rather than held in memory. */
const MAX_B64_BYTES = 32 * 1024 * 1024;

const refusalOf = (e: unknown): OpenAiError | null => (e instanceof OpenAiRefusal ? fromRefusal(e) : null);

async function resultBytes(url: string): Promise<Uint8Array> {
  const own = await getGenerationRuntime().storage.read?.(url);
  if (own) return own;
  // A bucket's public URL (S3 storage): the result is ours, read back over HTTP.
  const response = await fetch(url, { redirect: "error" });
  if (!response.ok) throw new Error(`reading a stored result answered ${response.status}`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  if (bytes.byteLength > MAX_B64_BYTES) throw new Error("stored result too large for b64_json");
  return bytes;
}

/** The tasks as OpenAI's answer, or the error when none completed or some are still running. */
async function answer(views: TaskView[], format: "url" | "b64_json"): Promise<Response> {
  const running = views.filter((v) => v.status === "pending" || v.status === "processing");
  if (running.length > 0) {
    return openAiErrorResponse({
      status: 504,
      type: "server_error",
      code: "timeout",
      message: `the image is not ready after ${MAX_WAIT_SECONDS} s; the task goes on: ${running
        .map((v) => v.urls?.get ?? v.gen_id)
        .join(", ")}`,
      headers: NO_RETRY_HEADERS,
    });
  }
  const urls = views.flatMap((v) => ("result_urls" in v ? v.result_urls : []));
  if (urls.length === 0) {
    const failed = views.find((v) => v.status === "failed");
    return openAiErrorResponse({
      status: 500,
      type: "server_error",
      code: "generation_failed",
      message: failed && "error_message" in failed ? failed.error_message : "the generation failed",
      headers: NO_RETRY_HEADERS,
    });
  }
  const data =
    format === "url"
      ? urls.map((url) => ({ url }))
      : await Promise.all(
          urls.map(async (url) => ({ b64_json: Buffer.from(await resultBytes(url)).toString("base64") })),
        );
  return Response.json(
    { created: Math.floor(Date.now() / 1000), data },
    { headers: { ...BASELINE_HEADERS, "Cache-Control": "no-store" } },
  );
}

/** What a request asks for, read after its key and scope: how many images, in which form, and how to make them. */
export interface ImagesJob {
  n: number;
  responseFormat: "url" | "b64_json";
  run: (deps: GenerateImagesDeps, base: Omit<GenerateImagesArgs, "request">) => Promise<TaskView[]>;
}

/**
 * The flow both images endpoints share: the key, POST only, the route's scopes, the request read (`read`), one rate
 * unit per image, a wait slot, the tasks made and awaited, OpenAI's answer.
 */
export async function serveImages(
  request: Request,
  route: string,
  read: (services: Services, caller: Caller) => Promise<ImagesJob>,
): Promise<Response> {
  const services = getServices();
  let release: (() => void) | null = null;
  try {
    const caller = await requireKeyCaller(request, services);
    if (request.method !== "POST") {
      return openAiErrorResponse({
        status: 405,
        type: "invalid_request_error",
        code: null,
        message: "method not allowed",
        headers: { Allow: "POST" },
      });
    }
    requireScope(caller, route);
    const job = await read(services, caller);
    const rateHeaders = await takeRateUnits(services, caller, route, job.n);
    release = takeWaitSlot(caller.user.id);
    if (!release) {
      return openAiErrorResponse({
        status: 429,
        type: "requests",
        code: "rate_limit_exceeded",
        message: "too many image requests waiting at once; retry when one has finished",
        headers: { ...rateHeaders, "Retry-After": "5" },
      });
    }
    const runtime = getGenerationRuntime();
    const views = await job.run(
      {
        db: services.db,
        clock: services.clock,
        config: services.config,
        providers: runtime.providers,
        files: runtime.files,
      },
      { userId: caller.user.id, apiKeyId: caller.apiKeyId, timeoutMs: MAX_WAIT_SECONDS * 1000, signal: request.signal },
    );
    const response = await answer(views, job.responseFormat);
    for (const [name, value] of Object.entries(rateHeaders)) response.headers.set(name, value);
    return response;
  } catch (error) {
    return openAiFailure(error, refusalOf);
  } finally {
    release?.();
  }
}

export const handleImagesGenerations = (request: Request) =>
  serveImages(request, IMAGES_ROUTE, async () => {
    const parsed = parseImagesRequest(await readJsonBody(request));
    return {
      n: parsed.n,
      responseFormat: parsed.responseFormat,
      run: (deps, base) => generateImages(deps, { ...base, request: parsed }),
    };
  });
