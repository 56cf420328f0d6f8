/** Helpers for adapter ↔ fake tests: configs, requests, polling to the end, error assertions. */
import { expect } from "bun:test";
import { type AiType, findOffering, type ProviderName } from "~/domain/catalog";
import { parseConfig } from "~/lib/config.server";
import {
  type AsyncProvider,
  type GenerationRequest,
  type ImageInputName,
  type InputImage,
  type PollResult,
  ProviderError,
  type ProviderErrorKind,
} from "~/providers/types";

export const config = (env: Record<string, string>) => parseConfig(env);

/** Short timeouts and backoff so failure tests run fast. */
export const FAST = { timeoutMs: 400, retry: { attempts: 3, baseDelayMs: 5, maxDelayMs: 20 } };

let n = 0;
export function request(
  provider: ProviderName,
  aiType: AiType,
  model: string,
  prompt = "a lighthouse at dusk",
  options: Record<string, unknown> = {},
  upstreamModel = model,
): GenerationRequest {
  return {
    genId: `gen_test_${Date.now().toString(36)}_${n++}`,
    aiType,
    provider,
    model,
    upstreamModel,
    specs: findOffering(aiType, provider, model)?.options ?? {},
    label: findOffering(aiType, provider, model)?.label,
    prompt,
    options,
  };
}

/** The request with pictures resolved, as the runtime hands it to an adapter. */
export const withInputs = (
  req: GenerationRequest,
  inputs: Partial<Record<ImageInputName, InputImage>>,
): GenerationRequest => ({ ...req, inputs });

export const signal = () => new AbortController().signal;

/** Polls until a final state, returning every state seen. */
export async function pollToEnd(p: AsyncProvider, id: string, req: GenerationRequest, max = 20): Promise<PollResult[]> {
  const seen: PollResult[] = [];
  for (let i = 0; i < max; i++) {
    const r = await p.poll(id, req, signal());
    seen.push(r);
    if (r.state === "succeeded" || r.state === "failed") return seen;
  }
  throw new Error(`not final after ${max} polls: ${JSON.stringify(seen)}`);
}

export async function expectProviderError(
  promise: Promise<unknown>,
  kind: ProviderErrorKind,
  opts: { retryable?: boolean; message?: string | RegExp; hint?: string | RegExp; status?: number } = {},
): Promise<ProviderError> {
  let caught: unknown;
  try {
    await promise;
  } catch (e) {
    caught = e;
  }
  expect(caught).toBeInstanceOf(ProviderError);
  const e = caught as ProviderError;
  expect({ kind: e.kind, message: e.message }).toMatchObject({ kind });
  if (opts.retryable !== undefined) expect(e.retryable).toBe(opts.retryable);
  if (opts.message !== undefined) expect(e.message).toMatch(opts.message);
  if (opts.hint !== undefined) expect(e.opts.operatorHint ?? "").toMatch(opts.hint);
  if (opts.status !== undefined) expect(e.opts.status).toBe(opts.status);
  return e;
}

/** A base URL where nothing listens (connection refused). */
export async function deadBaseUrl(suffix = ""): Promise<string> {
  const s = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = s.port;
  await s.stop(true);
  return `http://127.0.0.1:${port}${suffix}`;
}
