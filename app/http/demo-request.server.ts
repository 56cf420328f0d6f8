/**
 * What every demo endpoint does before its own work: the access check and
 * rate limit first (so an anonymous production client learns nothing from a
 * bad body), then the body.
 *
 * Order of errors, pinned by tests: access → rate limit → body
 * (`invalid params`, then `invalid params: prompt too long (max 4000)`) →
 * payment of a live call → provider → model → upstream (an unknown provider or
 * model is never live, so it costs nothing and gets its own message). The route
 * makes the upstream call through `charge.run(…)`, which gives a live call's
 * credits back if the call fails (not when the client disconnected meanwhile).
 */
import type { z } from "zod";
import { requireDemoAccess } from "~/domain/demo/access.server";
import { chargeDemoCall, type DemoCharge, type DemoKind } from "~/domain/demo/billing.server";
import { MAX_PROMPT } from "~/domain/demo/catalog";
import { createDemoModels, type DemoModels } from "~/domain/demo/models.server";
import { type DemoRequest, DemoRequestSchema, onlyPromptTooLong } from "~/domain/demo/schema";
import type { Caller } from "~/http/identity.server";
import type { Services } from "~/http/services.server";
import { AppError } from "~/lib/errors";

export function parseDemoRequest(raw: unknown): DemoRequest {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) throw new AppError("INVALID_PARAMS");
  const parsed = DemoRequestSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  throw demoInvalid(parsed.error);
}

export function demoInvalid(error: z.ZodError): AppError {
  return onlyPromptTooLong(error)
    ? new AppError("PROMPT_TOO_LONG", { max: MAX_PROMPT })
    : new AppError("INVALID_PARAMS");
}

/** A demo call as the route hands it over: who and from where, and the HTTP work, done in the order above. */
export interface DemoCall {
  caller: Caller | null;
  kind: DemoKind;
  /** The client's address (its demo rate-limit bucket); null when unknown. */
  ip: string | null;
  signal: AbortSignal;
  /** Reads the JSON body: called only once the access check and the rate limit have passed. */
  readBody(): Promise<unknown>;
  /** Puts the rate-limit headers on the answer, whatever the answer turns out to be. */
  setHeaders(headers: Record<string, string>): void;
}

export async function beginDemoCall(
  services: Services,
  call: DemoCall,
): Promise<{ input: DemoRequest; models: DemoModels; charge: DemoCharge; rateHeaders: Record<string, string> }> {
  const payer = call.caller?.user.id ?? null;
  const rateHeaders = await requireDemoAccess(services, { userId: payer, ip: call.ip });
  call.setHeaders(rateHeaders);
  const input = parseDemoRequest(await call.readBody());
  const charge = await chargeDemoCall(services, call.kind, input, payer, call.signal);
  return { input, models: createDemoModels(services.config), charge, rateHeaders };
}
