/** The response envelope of spec §7: `{code, message, data}`. */
export interface Envelope<T = unknown> {
  code: 0 | 1;
  message: string;
  data: T | null;
}

export function okBody<T>(data: T | null, message = "ok"): Envelope<T> {
  return { code: 0, message, data: data ?? null };
}

export function errorBody(message: string): Envelope<null> {
  return { code: 1, message, data: null };
}

/**
 * The response header naming an error's stable machine-readable code (the error table's key, e.g.
 * `INSUFFICIENT_CREDITS`): beside the envelope rather than in it, so the envelope stays exactly `{code, message, data}`
 * (docs/decisions/116-machine-readable-error-codes.md).
 */
export const ERROR_CODE_HEADER = "Atelier-Error-Code";

/**
 * An ok envelope around data that is already JSON text (a list built from remembered entries): byte for byte
 * JSON.stringify(okBody(JSON.parse(dataJson), message)), without parsing and re-serialising the data.
 */
export function okBodyText(dataJson: string, message = "ok"): string {
  return `{"code":0,"message":${JSON.stringify(message)},"data":${dataJson}}`;
}

const JSON_HEADERS = { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store" } as const;

/**
 * The envelope as a JSON response. `headers` may hold any header but Content-Type and Cache-Control (these two are
 * always the envelope's own): one plain object per response, which Bun turns into the response's headers in one
 * step (a `Headers` object and a `set` per header cost several times more: docs/performance.md).
 */
export function envelopeResponse(
  body: Envelope | string,
  init: { status?: number; headers?: Record<string, string> } = {},
): Response {
  const headers = init.headers ? { ...init.headers, ...JSON_HEADERS } : JSON_HEADERS;
  return new Response(typeof body === "string" ? body : JSON.stringify(body), { status: init.status ?? 200, headers });
}

/** An error envelope as a response, its stable code in the Atelier-Error-Code header. */
export function errorEnvelopeResponse(
  errorCode: string,
  message: string,
  init: { status?: number; headers?: Record<string, string> } = {},
): Response {
  return envelopeResponse(errorBody(message), {
    status: init.status,
    headers: { ...init.headers, [ERROR_CODE_HEADER]: errorCode },
  });
}
