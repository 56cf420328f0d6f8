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
 * An ok envelope around data that is already JSON text (a list built from remembered entries): byte for byte
 * JSON.stringify(okBody(JSON.parse(dataJson), message)), without parsing and re-serialising the data.
 */
export function okBodyText(dataJson: string, message = "ok"): string {
  return `{"code":0,"message":${JSON.stringify(message)},"data":${dataJson}}`;
}

export function envelopeResponse(body: Envelope | string, init: { status?: number; headers?: HeadersInit } = {}): Response {
  const headers = new Headers(init.headers);
  headers.set("Content-Type", "application/json; charset=utf-8");
  headers.set("Cache-Control", "no-store");
  return new Response(typeof body === "string" ? body : JSON.stringify(body), { status: init.status ?? 200, headers });
}
