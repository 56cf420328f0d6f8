/**
 * `POST /v1/images/generations` (docs/openai-compat.md): an Atelier key as `Authorization: Bearer`, OpenAI's request
 * and answer shapes. The key's rate limit takes one unit per image (each image is one generate), its scope is
 * `generate`; the request holds a wait slot (wait.server.ts) for up to MAX_WAIT_SECONDS. The same request again
 * (a client's retry) joins the first one's tasks instead of paying again (request-join.server.ts, ADR 158);
 * `stream: true` answers OpenAI's image streaming events (ADR 160).
 */

import { IDEMPOTENCY_HEADER, parseIdempotencyKey } from "~/domain/generations/idempotency";
import { markJoinAnswered } from "~/domain/generations/request-join.server";
import { MAX_WAIT_SECONDS, takeWaitSlot } from "~/domain/generations/wait.server";
import { answerFields } from "~/domain/openai-compat/answer-fields";
import {
  awaitImageTasks,
  createOrJoinTasks,
  type GenerateImagesDeps,
  type JoinTarget,
  type MadeTasks,
  type TaskView,
} from "~/domain/openai-compat/generate-images.server";
import { type ImagesRequest, OpenAiRefusal, parseImagesRequest } from "~/domain/openai-compat/images";
import { readJsonBody, requireScope } from "~/http/api.server";
import { getGenerationRuntime } from "~/http/generation-runtime.server";
import type { Caller } from "~/http/identity.server";
import { requireKeyCaller, takeRateUnits } from "~/http/key-gate.server";
import { BASELINE_HEADERS } from "~/http/security-headers.server";
import { getServices, type Services } from "~/http/services.server";
import { log } from "~/lib/log.server";
import { atClientOrigin, clientOrigin } from "./client-origin.server";
import { fromRefusal, NO_RETRY_HEADERS, type OpenAiError, openAiErrorResponse, openAiFailure } from "./respond.server";

export const IMAGES_ROUTE = "/v1/images/generations";
/** A stored result read back for `b64_json` larger than this is refused rather than held in memory. */
const MAX_B64_BYTES = 32 * 1024 * 1024;
/** A comment line this often keeps a held event stream's proxies from closing it. */
const STREAM_KEEPALIVE_MS = 15_000;

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

/** How the answer is shaped: the request's form and echo, and the origin its URLs go on. */
interface AnswerShape {
  request: ImagesRequest;
  /** Pictures sent with the request (an edit's image and mask), for `usage`. */
  inputPictures: number;
  origin: string;
  publicUrl: string;
}

/**
 * Tasks exist but are not all finished, or the wait itself failed: the work was accepted and goes on. Answered
 * 504 with the tasks' URLs and `x-should-retry: false` (OpenAI's SDKs stop; the AI SDK's retry joins the same
 * tasks, ADR 158) — never a bare retryable 5xx.
 */
function acceptedAnswer(ids: string[], views: TaskView[] | null, reason: string): Response {
  const links = views
    ? views.filter((v) => v.status === "pending" || v.status === "processing").map((v) => v.urls?.get ?? v.gen_id)
    : ids;
  return openAiErrorResponse({
    status: 504,
    type: "server_error",
    code: "timeout",
    message: `${reason}; the task goes on: ${links.join(", ")}`,
    headers: { ...NO_RETRY_HEADERS, "x-atelier-task-ids": ids.join(",") },
  });
}

/** The finished tasks' results: the error answer when none completed, else their `data` items in the asked form. */
async function resultItems(
  views: TaskView[],
  shape: AnswerShape,
): Promise<{ items: Array<{ url: string } | { b64_json: string }> } | { error: Response }> {
  const urls = views.flatMap((v) => ("result_urls" in v ? v.result_urls : []));
  if (urls.length === 0) {
    const failed = views.find((v) => v.status === "failed");
    return {
      error: openAiErrorResponse({
        status: 500,
        type: "server_error",
        code: "generation_failed",
        message: failed && "error_message" in failed ? failed.error_message : "the generation failed",
        headers: NO_RETRY_HEADERS,
      }),
    };
  }
  const items =
    shape.request.responseFormat === "url"
      ? urls.map((url) => ({ url: atClientOrigin(url, shape.publicUrl, shape.origin) }))
      : await Promise.all(
          urls.map(async (url) => ({ b64_json: Buffer.from(await resultBytes(url)).toString("base64") })),
        );
  return { items };
}

/** The tasks as OpenAI's answer, or the error when none completed or some are still running. */
async function answer(ids: string[], views: TaskView[], shape: AnswerShape): Promise<Response> {
  if (views.some((v) => v.status === "pending" || v.status === "processing"))
    return acceptedAnswer(ids, views, `the image is not ready after ${MAX_WAIT_SECONDS} s`);
  const result = await resultItems(views, shape);
  if ("error" in result) return result.error;
  return Response.json(
    {
      created: Math.floor(Date.now() / 1000),
      data: result.items,
      ...answerFields(shape.request.echo, result.items.length, shape.inputPictures),
    },
    { headers: { ...BASELINE_HEADERS, "Cache-Control": "no-store" } },
  );
}

/**
 * `stream: true` (ADR 160): server-sent events. No provider of Atelier's hands out partial images, so each image
 * is one `<prefix>.completed` event (`image_generation.` or `image_edit.`) with b64_json, OpenAI's fields and
 * `usage`; a failure after the tasks exist is an `error` event (OpenAI's SDKs raise it as APIError).
 */
function streamAnswer(
  deps: Pick<GenerateImagesDeps, "db">,
  made: MadeTasks,
  shape: AnswerShape,
  wait: { userId: string; signal: AbortSignal; eventPrefix: string },
  done: () => Promise<void>,
): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      const send = (text: string) => {
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          // The client went away: nothing to send to.
        }
      };
      const event = (type: string, data: unknown) => send(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
      const errorEvent = (message: string, code: string) =>
        event("error", { type: "error", error: { type: "server_error", code, message, param: null } });
      const keepalive = setInterval(() => send(": keep-alive\n\n"), STREAM_KEEPALIVE_MS);
      try {
        const views = await awaitImageTasks(
          deps,
          { userId: wait.userId, timeoutMs: MAX_WAIT_SECONDS * 1000, signal: wait.signal },
          made.ids,
        );
        const running = views.filter((v) => v.status === "pending" || v.status === "processing");
        if (running.length > 0) {
          errorEvent(
            `the image is not ready after ${MAX_WAIT_SECONDS} s; the task goes on: ${running.map((v) => v.urls?.get ?? v.gen_id).join(", ")}`,
            "timeout",
          );
          return;
        }
        const result = await resultItems(views, {
          ...shape,
          request: { ...shape.request, responseFormat: "b64_json" },
        });
        if ("error" in result) {
          const failed = views.find((v) => v.status === "failed");
          errorEvent(
            failed && "error_message" in failed ? failed.error_message : "the generation failed",
            "generation_failed",
          );
          return;
        }
        const fields = answerFields({ ...shape.request.echo, gptImage: true }, 1, shape.inputPictures);
        for (const item of result.items) {
          event(`${wait.eventPrefix}.completed`, {
            type: `${wait.eventPrefix}.completed`,
            b64_json: "b64_json" in item ? item.b64_json : "",
            created_at: Math.floor(Date.now() / 1000),
            ...fields,
          });
        }
      } catch (error) {
        log.warn("an images event stream failed after its tasks were created", { error, gen_ids: made.ids });
        errorEvent(`the tasks were accepted and go on: ${made.ids.join(", ")}`, "timeout");
      } finally {
        clearInterval(keepalive);
        await done();
        try {
          controller.close();
        } catch {
          // Already closed by the client.
        }
      }
    },
  });
  return new Response(body, {
    headers: {
      ...BASELINE_HEADERS,
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-store",
      "X-Accel-Buffering": "no",
      "x-atelier-task-ids": made.ids.join(","),
    },
  });
}

/** What a request asks for, read after its key and scope: how many images, in which form, and how to make them. */
export interface ImagesJob {
  request: ImagesRequest;
  /** Pictures the request sent (an edit's image and mask). */
  inputPictures: number;
  /** `image_generation` or `image_edit`: the stream's event names. */
  eventPrefix: string;
  /** The tasks made, or the identical earlier request's joined. */
  create: (
    deps: GenerateImagesDeps,
    base: { userId: string; apiKeyId: string | null; join: JoinTarget },
  ) => Promise<MadeTasks>;
}

/**
 * The flow both images endpoints share: the key, POST only, the route's scopes, the request read (`read`), one rate
 * unit per image, a wait slot, the tasks made (or joined) and awaited, OpenAI's answer.
 */
export async function serveImages(
  request: Request,
  route: string,
  read: (services: Services, caller: Caller) => Promise<ImagesJob>,
): Promise<Response> {
  const services = getServices();
  let release: (() => void) | null = null;
  let made: MadeTasks | null = null;
  let userId = "";
  let streaming = false;
  const answered = async () => {
    if (!made || made.joined) return;
    await markJoinAnswered(services.db, userId, made.spec, services.clock).catch((error) =>
      log.warn("could not record an images request's answer", { error, gen_ids: made?.ids }),
    );
  };
  try {
    const caller = await requireKeyCaller(request, services);
    userId = caller.user.id;
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
    const idempotencyKey = parseIdempotencyKey(request.headers.get(IDEMPOTENCY_HEADER));
    const job = await read(services, caller);
    const rateHeaders = await takeRateUnits(services, caller, route, job.request.n);
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
    const deps: GenerateImagesDeps = {
      db: services.db,
      clock: services.clock,
      config: services.config,
      providers: runtime.providers,
      files: runtime.files,
    };
    made = await job.create(deps, {
      userId: caller.user.id,
      apiKeyId: caller.apiKeyId,
      join: { endpoint: route, idempotencyKey },
    });
    const shape: AnswerShape = {
      request: job.request,
      inputPictures: job.inputPictures,
      origin: clientOrigin(request, services.config),
      publicUrl: services.config.publicUrl,
    };
    const joinHeaders: Record<string, string> = made.joined ? { "Idempotent-Replayed": "true" } : {};
    if (job.request.stream) {
      const held = release;
      release = null;
      streaming = true;
      const response = streamAnswer(
        deps,
        made,
        shape,
        { userId: caller.user.id, signal: request.signal, eventPrefix: job.eventPrefix },
        async () => {
          held();
          await answered();
        },
      );
      for (const [name, value] of Object.entries({ ...rateHeaders, ...joinHeaders })) response.headers.set(name, value);
      return response;
    }
    let response: Response;
    try {
      const views = await awaitImageTasks(
        deps,
        { userId: caller.user.id, timeoutMs: MAX_WAIT_SECONDS * 1000, signal: request.signal },
        made.ids,
      );
      response = await answer(made.ids, views, shape);
    } catch (error) {
      log.warn("waiting for an images request's tasks failed", { error, gen_ids: made.ids });
      response = acceptedAnswer(made.ids, null, "the tasks were accepted but waiting for them failed");
    }
    for (const [name, value] of Object.entries({ ...rateHeaders, ...joinHeaders })) response.headers.set(name, value);
    return response;
  } catch (error) {
    return openAiFailure(error, refusalOf);
  } finally {
    release?.();
    if (!streaming) await answered();
  }
}

export const handleImagesGenerations = (request: Request) =>
  serveImages(request, IMAGES_ROUTE, async () => {
    const parsed = parseImagesRequest(await readJsonBody(request));
    return {
      request: parsed,
      inputPictures: 0,
      eventPrefix: "image_generation",
      create: (deps, base) => createOrJoinTasks(deps, { ...base, request: parsed }),
    };
  });
