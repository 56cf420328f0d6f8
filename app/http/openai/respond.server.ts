/**
 * Answers of the OpenAI-compatible endpoints in OpenAI's shapes (docs/openai-compat.md,
 * docs/decisions/118-openai-error-mapping.md): errors are `{error: {message, type, param, code}}` with the status
 * OpenAI gives the same failure, so its SDKs raise their usual error classes. A refusal no retry can fix carries
 * `x-should-retry: false`, which OpenAI's SDKs obey instead of retrying a 429 or 5xx (a retry would create tasks again).
 */
import type { OpenAiRefusal } from "~/domain/openai-compat/images";
import { BASELINE_HEADERS } from "~/http/security-headers.server";
import { type AppError, type ErrorCode, isAppError, isDatabaseBusy } from "~/lib/errors";
import { log } from "~/lib/log.server";

export interface OpenAiError {
  status: number;
  message: string;
  type: string;
  code: string | null;
  param?: string | null;
  headers?: Record<string, string>;
}

const NO_RETRY = { "x-should-retry": "false" };

/** Each Atelier error as OpenAI answers the same failure. */
const MAPPING: Partial<Record<ErrorCode, Omit<OpenAiError, "message">>> = {
  UNAUTHENTICATED: { status: 401, type: "invalid_request_error", code: "invalid_api_key" },
  API_KEY_NOT_FOUND: { status: 401, type: "invalid_request_error", code: "invalid_api_key" },
  API_KEY_REVOKED: { status: 401, type: "invalid_request_error", code: "invalid_api_key" },
  KEY_SCOPE_MISSING: { status: 403, type: "permission_error", code: "insufficient_permissions" },
  FORBIDDEN: { status: 403, type: "permission_error", code: "insufficient_permissions" },
  ACCOUNT_SUSPENDED: { status: 403, type: "permission_error", code: "account_suspended", headers: NO_RETRY },
  PLAN_REQUIRED: { status: 403, type: "permission_error", code: "plan_required" },
  RATE_LIMITED: { status: 429, type: "requests", code: "rate_limit_exceeded" },
  INSUFFICIENT_CREDITS: { status: 429, type: "insufficient_quota", code: "insufficient_quota", headers: NO_RETRY },
  KEY_CREDIT_LIMIT: { status: 429, type: "insufficient_quota", code: "insufficient_quota", headers: NO_RETRY },
  UNSUPPORTED_MODEL: { status: 404, type: "invalid_request_error", code: "model_not_found", param: "model" },
  UNSUPPORTED_PROVIDER: { status: 404, type: "invalid_request_error", code: "model_not_found", param: "model" },
  MODEL_DISABLED: { status: 404, type: "invalid_request_error", code: "model_not_found", param: "model" },
  METHOD_NOT_ALLOWED: { status: 405, type: "invalid_request_error", code: null },
  NOT_FOUND: { status: 404, type: "invalid_request_error", code: "unknown_url" },
  BUSY: { status: 503, type: "server_error", code: null, headers: { "Retry-After": "1" } },
};

export function fromAppError(error: AppError): OpenAiError {
  const mapped = MAPPING[error.code] ?? { status: 400, type: "invalid_request_error", code: null };
  return { ...mapped, message: error.message, headers: { ...mapped.headers, ...error.headers } };
}

export function fromRefusal(refusal: OpenAiRefusal): OpenAiError {
  return {
    status: refusal.status,
    type: "invalid_request_error",
    message: refusal.message,
    param: refusal.param,
    code: refusal.code,
  };
}

export function openAiErrorResponse(e: OpenAiError): Response {
  return Response.json(
    { error: { message: e.message, type: e.type, param: e.param ?? null, code: e.code } },
    { status: e.status, headers: { ...BASELINE_HEADERS, ...e.headers, "Cache-Control": "no-store" } },
  );
}

/** Any thrown value as an OpenAI error response (unknown ones logged, answered 500 without detail). */
export function openAiFailure(error: unknown, refusal?: (e: unknown) => OpenAiError | null): Response {
  const known = refusal?.(error);
  if (known) return openAiErrorResponse(known);
  if (isAppError(error)) return openAiErrorResponse(fromAppError(error));
  if (isDatabaseBusy(error))
    return openAiErrorResponse({
      status: 503,
      type: "server_error",
      code: null,
      message: "service busy, please try again",
      headers: { "Retry-After": "1" },
    });
  log.error("unhandled error in an OpenAI-compatible endpoint", { error });
  return openAiErrorResponse({ status: 500, type: "server_error", code: null, message: "internal error" });
}

export const NO_RETRY_HEADERS = NO_RETRY;
