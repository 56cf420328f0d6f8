/**
 * The error side of the OpenAPI document: per status, the messages an operation can answer (from the error table),
 * an example envelope per error named by its stable code, and the headers that come with them — the
 * `Atelier-Error-Code` header on every error (docs/decisions/116-machine-readable-error-codes.md), `Retry-After`
 * on 429 and 503, the request id on everything.
 */
import { ERROR_CODE_HEADER } from "~/lib/envelope";
import { ERRORS, type ErrorCode, errorPatterns } from "~/lib/errors";

type Json = Record<string, unknown>;

export const ERROR_ENVELOPE_REF = { $ref: "#/components/schemas/ErrorEnvelope" };

/** Header components every response refers to. */
export const HEADER_COMPONENTS: Json = {
  RequestId: {
    description:
      "This request's id: the caller's own `X-Request-Id` when it sent a sane one, else a new one; the server logs it with the request. Quote it when reporting a problem.",
    schema: { type: "string" },
  },
  ErrorCode: {
    description:
      "On every error (code 1): the error's stable machine-readable code, one of the ErrorCode values (docs/api.md §7). Messages may gain detail; codes never change meaning.",
    schema: { $ref: "#/components/schemas/ErrorCode" },
  },
  RetryAfter: { description: "seconds to wait before retrying", schema: { type: "integer", minimum: 0 } },
  IdempotentReplayed: {
    description:
      "`true` when this answer is the remembered answer to an earlier request with the same Idempotency-Key (nothing was created or reserved again)",
    schema: { type: "string", enum: ["true"] },
  },
  PreferenceApplied: {
    description: "`wait=N` when a `Prefer: wait` was honoured",
    schema: { type: "string" },
  },
};

export const REQUEST_ID_HEADER = { "X-Request-Id": { $ref: "#/components/headers/RequestId" } };
const ERROR_HEADERS = { ...REQUEST_ID_HEADER, [ERROR_CODE_HEADER]: { $ref: "#/components/headers/ErrorCode" } };

/** The ErrorCode schema: every key of the error table. */
export function errorCodeSchema(): Json {
  return {
    type: "string",
    enum: Object.keys(ERRORS),
    description:
      "The stable code of an error, sent in the Atelier-Error-Code response header beside the envelope (docs/api.md §7). New codes may be added.",
  };
}

/** The codes of `codes` answered with `status`, each with its message patterns. */
function codesWith(codes: readonly ErrorCode[], status: number): { code: ErrorCode; messages: string[] }[] {
  return [...new Set(codes)].flatMap((code) => {
    const { status: s, messages } = errorPatterns(code);
    return s === status ? [{ code, messages }] : [];
  });
}

export function messagesFor(codes: readonly ErrorCode[], status: number): string[] {
  return [...new Set(codesWith(codes, status).flatMap((c) => c.messages))];
}

/** One example envelope per error code (its first message pattern), keyed by the code. */
export function errorExamples(codes: readonly ErrorCode[], status: number): Json | undefined {
  const list = codesWith(codes, status);
  if (!list.length) return undefined;
  return Object.fromEntries(
    list.map(({ code, messages }) => [
      code,
      {
        summary: `${code} (header ${ERROR_CODE_HEADER}: ${code})`,
        value: { code: 1, message: messages[0], data: null },
      },
    ]),
  );
}

const STATUS_TEXT: readonly (readonly [string, string])[] = [
  ["400", "The request cannot be handled as sent"],
  ["401", "Bad, unknown or revoked X-API-Key"],
  ["403", "Refused: the API key lacks the scope this endpoint needs (docs/usage.md), or a cross-site request"],
  ["404", "No such file of yours (input files)"],
  ["405", "Wrong HTTP method (Allow: POST)"],
  ["409", "The Idempotency-Key was used before with a different request"],
  ["413", "The file is larger than FILE_MAX_BYTES, or your files' storage is full; nothing was stored"],
  ["429", "Over a rate limit; retry after Retry-After seconds"],
  ["500", "Unexpected server fault (logged with the request id)"],
  ["503", "The database is busy or unreachable right now, or a service is not configured; nothing was done"],
];

/** The non-200 error responses of an operation whose error list is `codes`. */
export function errorResponses(codes: readonly ErrorCode[], rateHeaders: Json): Json {
  const responses: Json = {};
  for (const [status, text] of STATUS_TEXT) {
    const msgs = messagesFor(codes, Number(status));
    if (!msgs.length) continue;
    const retry = status === "429" || (status === "503" && codes.includes("BUSY"));
    responses[status] = {
      description: `${text}: ${msgs.map((m) => `\`${m}\``).join(", ")}`,
      headers: {
        ...ERROR_HEADERS,
        ...(status === "429" ? rateHeaders : {}),
        ...(retry ? { "Retry-After": { $ref: "#/components/headers/RetryAfter" } } : {}),
      },
      content: { "application/json": { schema: ERROR_ENVELOPE_REF, examples: errorExamples(codes, Number(status)) } },
    };
  }
  return responses;
}

/** Headers of a 200 that may be an envelope error (code 1, HTTP 200). */
export function okErrorHeaders(codes: readonly ErrorCode[]): Json {
  return codesWith(codes, 200).length ? ERROR_HEADERS : REQUEST_ID_HEADER;
}
