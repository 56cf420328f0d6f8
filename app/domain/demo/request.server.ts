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
import { addResponseHeaders, readJsonBody } from "~/lib/api.server";
import { AppError } from "~/lib/errors";
import type { Caller } from "~/lib/identity.server";
import { currentClientIp } from "~/lib/log.server";
import type { Services } from "~/lib/services.server";
import { clientIpOf, requireDemoAccess } from "./access.server";
import { chargeDemoCall, type DemoCharge, type DemoKind } from "./billing.server";
import { MAX_PROMPT } from "./catalog";
import { createDemoModels, type DemoModels } from "./models.server";
import { type DemoRequest, DemoRequestSchema, onlyPromptTooLong } from "./schema";

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

export async function beginDemoCall(
  request: Request,
  services: Services,
  caller: Caller | null,
  kind: DemoKind,
): Promise<{ input: DemoRequest; models: DemoModels; charge: DemoCharge; rateHeaders: Record<string, string> }> {
  const ip = clientIpOf(services.config, request, currentClientIp());
  const payer = caller?.user.id ?? null;
  const rateHeaders = await requireDemoAccess(services, { userId: payer, ip });
  addResponseHeaders(request, rateHeaders);
  const input = parseDemoRequest(await readJsonBody(request));
  const charge = await chargeDemoCall(services, kind, input, payer, request.signal);
  return { input, models: createDemoModels(services.config), charge, rateHeaders };
}
