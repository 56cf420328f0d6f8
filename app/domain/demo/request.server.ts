/**
 * What every demo endpoint does before its own work: the access check and
 * rate limit first (so an anonymous production client learns nothing from a
 * bad body), then the body.
 *
 * Order of errors, pinned by tests: access → rate limit → body
 * (`invalid params`, then `invalid params: prompt too long (max 4000)`) →
 * provider → model → upstream.
 */
import type { z } from "zod";
import { addResponseHeaders, readJsonBody } from "~/lib/api.server";
import { AppError } from "~/lib/errors";
import type { Caller } from "~/lib/identity.server";
import { currentClientIp } from "~/lib/log.server";
import type { Services } from "~/lib/services.server";
import { clientIpOf, requireDemoAccess } from "./access.server";
import { MAX_PROMPT } from "./catalog";
import { createDemoModels, type DemoModels } from "./models.server";
import { DemoRequestSchema, onlyPromptTooLong, type DemoRequest } from "./schema";

export function parseDemoRequest(raw: unknown): DemoRequest {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) throw new AppError("INVALID_PARAMS");
  const parsed = DemoRequestSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  throw demoInvalid(parsed.error);
}

export function demoInvalid(error: z.ZodError): AppError {
  return onlyPromptTooLong(error) ? new AppError("PROMPT_TOO_LONG", { max: MAX_PROMPT }) : new AppError("INVALID_PARAMS");
}

export async function beginDemoCall(
  request: Request,
  services: Services,
  caller: Caller | null,
): Promise<{ input: DemoRequest; models: DemoModels; rateHeaders: Record<string, string> }> {
  const ip = clientIpOf(services.config, request, currentClientIp());
  const rateHeaders = await requireDemoAccess(services, { userId: caller?.user.id ?? null, ip });
  addResponseHeaders(request, rateHeaders);
  const input = parseDemoRequest(await readJsonBody(request));
  return { input, models: createDemoModels(services.config), rateHeaders };
}
