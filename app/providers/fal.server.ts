/**
 * fal (docs/providers.md "fal"): the queue API. `POST {FAL_QUEUE_URL}/{endpoint id}` submits a request and
 * answers its `request_id`; `GET …/{owner}/{alias}/requests/{id}/status` reports IN_QUEUE → IN_PROGRESS →
 * COMPLETED; `GET …/{owner}/{alias}/requests/{id}` is the result (a failed request answers there with its
 * error); `PUT …/requests/{id}/cancel` cancels. Status, result and cancel live under the app's owner/alias,
 * never the endpoint's subpath (`fal-ai/flux`, not `fal-ai/flux/dev`: fal answers 405 there).
 * `Authorization: Key <FAL_KEY>` on every call.
 */
import type { Config } from "~/lib/config.server";
import {
  type AdapterOptions,
  badResponse,
  type CallContext,
  callJson,
  type JsonReply,
  resolveOptions,
  retryCreate,
  statusError,
} from "./http.server";
import { declaredInputs, plainOptions } from "./inputs.server";
import { type AsyncProvider, type GenerationRequest, type PollResult, ProviderError, type ResultAsset } from "./types";

/** An endpoint id: `owner/alias` and an optional path (`fal-ai/flux/dev`); no empty or dot segments. */
const ENDPOINT_ID = /^[A-Za-z0-9][A-Za-z0-9_-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*){1,6}$/;

export function isFalEndpointId(id: string): boolean {
  return ENDPOINT_ID.test(id) && !id.split("/").some((s) => s === "." || s === "..");
}

/** The app an endpoint belongs to: its first two segments, where the queue keeps its requests. */
export const falAppId = (endpointId: string) => endpointId.split("/").slice(0, 2).join("/");

/** The upstream task id Atelier keeps: the app and the request, so a poll or cancel needs nothing else. */
const taskId = (app: string, requestId: string) => `${app}#${requestId}`;
function parseTaskId(id: string): { app: string; requestId: string } {
  const i = id.lastIndexOf("#");
  return { app: id.slice(0, i), requestId: id.slice(i + 1) };
}

/** fal's error text: `detail` is a string, or (422) a list of `{loc, msg, type}`. */
export function falDetail(reply: JsonReply): string | undefined {
  const d = (reply.json as { detail?: unknown } | undefined)?.detail;
  if (typeof d === "string" && d.trim()) return d.slice(0, 300);
  if (Array.isArray(d)) {
    const parts = d
      .map((x: any) => {
        const where = Array.isArray(x?.loc) ? x.loc.filter((l: unknown) => l !== "body").join(".") : "";
        return typeof x?.msg === "string" ? (where ? `${where}: ${x.msg}` : x.msg) : undefined;
      })
      .filter(Boolean);
    if (parts.length) return parts.join("; ").slice(0, 300);
  }
  return undefined;
}

/** The files of a result: `images[]`, `image`, `video`, `videos[]` (each `{url, content_type}`). */
function resultAssets(json: any): ResultAsset[] {
  const files = [
    ...(Array.isArray(json?.images) ? json.images : []),
    json?.image,
    json?.video,
    ...(Array.isArray(json?.videos) ? json.videos : []),
  ];
  return files
    .filter(
      (f): f is { url: string; content_type?: unknown } => typeof f?.url === "string" && /^https?:\/\//.test(f.url),
    )
    .map((f) => ({
      kind: "url",
      url: f.url,
      ...(typeof f.content_type === "string" && /^(image|video)\//.test(f.content_type)
        ? { contentType: f.content_type }
        : {}),
    }));
}

/**
 * The request's input: the prompt and the declared options, each under its upstream name, and each picture as the
 * URL fal fetches under its field (`image` → `image_url`).
 */
export function falInput(req: GenerationRequest): Record<string, unknown> {
  const specs = req.specs;
  const input: Record<string, unknown> = { prompt: req.prompt };
  for (const [key, value] of Object.entries(plainOptions(req))) input[specs[key]?.param ?? key] = value;
  for (const i of declaredInputs(req)) input[i.param] = i.image.url;
  return input;
}

export function createFalProvider(config: Config, options?: AdapterOptions): AsyncProvider {
  const key = config.FAL_KEY;
  if (!key) throw new Error("FAL_KEY is not set");
  const base = config.FAL_QUEUE_URL;
  const { timeoutMs, retry } = resolveOptions(options);
  const ctx: CallContext = { provider: "fal", credentialVar: "FAL_KEY", timeoutMs };
  const headers = { authorization: `Key ${key}` };
  const failed = (reply: JsonReply, what: string, create: boolean) =>
    statusError(ctx, reply, { create, what, detail: falDetail(reply) });

  return {
    name: "fal",
    mode: "live",
    lifecycle: "async",

    async submit(req, signal) {
      const endpointId = req.upstreamModel;
      if (!isFalEndpointId(endpointId)) {
        throw new ProviderError("bad_request", "this model is not available", {
          retryable: false,
          operatorHint: `fal endpoint id "${endpointId}" is not owner/alias[/path] (check the catalog or MODEL_MAP)`,
        });
      }
      const url = `${base}/${endpointId}`;
      const body = falInput(req);
      // A 5xx may have queued the request (and fal bills it): only 429 and refused connections are retried.
      const reply = await retryCreate(retry, signal, async () => {
        const r = await callJson(ctx, { method: "POST", url, headers, body, signal });
        if (r.status !== 200 && r.status !== 201 && r.status !== 202) throw failed(r, `POST ${url}`, true);
        return r;
      });
      const id = (reply.json as { request_id?: unknown }).request_id;
      if (typeof id !== "string" || !/^[A-Za-z0-9-]{1,100}$/.test(id))
        throw badResponse(ctx, `POST ${url}`, reply.json);
      return { upstreamTaskId: taskId(falAppId(endpointId), id) };
    },

    async poll(upstreamTaskId, _req, signal): Promise<PollResult> {
      const { app, requestId } = parseTaskId(upstreamTaskId);
      const requestUrl = `${base}/${app}/requests/${encodeURIComponent(requestId)}`;
      const statusUrl = `${requestUrl}/status`;
      const reply = await callJson(ctx, { method: "GET", url: statusUrl, headers, signal });
      if (reply.status !== 200 && reply.status !== 202) throw failed(reply, `GET ${statusUrl}`, false);
      const status = (reply.json as { status?: unknown }).status;
      if (status === "IN_QUEUE") return { state: "pending" };
      if (status === "IN_PROGRESS") return { state: "running" };
      if (status !== "COMPLETED") throw badResponse(ctx, `GET ${statusUrl}`, reply.json);
      const result = await callJson(ctx, { method: "GET", url: requestUrl, headers, signal });
      if (result.status === 200) {
        const assets = resultAssets(result.json);
        if (assets.length === 0) throw badResponse(ctx, `GET ${requestUrl} (completed without files)`, result.json);
        return { state: "succeeded", assets };
      }
      // The request ran and the model refused it (422 with `detail`, or another 4xx): the task fails.
      if (
        result.status >= 400 &&
        result.status < 500 &&
        result.status !== 401 &&
        result.status !== 403 &&
        result.status !== 429
      ) {
        const why = falDetail(result);
        return { state: "failed", message: `fal could not run the request${why ? `: ${why}` : ""}` };
      }
      throw failed(result, `GET ${requestUrl}`, false);
    },

    async cancel(upstreamTaskId, signal) {
      const { app, requestId } = parseTaskId(upstreamTaskId);
      const url = `${base}/${app}/requests/${encodeURIComponent(requestId)}/cancel`;
      const reply = await callJson(ctx, { method: "PUT", url, headers, signal });
      // 202 CANCELLATION_REQUESTED; 400 ALREADY_COMPLETED and 404 NOT_FOUND leave nothing to stop.
      if (reply.status === 200 || reply.status === 202 || reply.status === 400 || reply.status === 404) return;
      throw failed(reply, `PUT ${url}`, false);
    },
  };
}
