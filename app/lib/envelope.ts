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

export function envelopeResponse(body: Envelope, init: { status?: number; headers?: HeadersInit } = {}): Response {
  const headers = new Headers(init.headers);
  headers.set("Content-Type", "application/json; charset=utf-8");
  headers.set("Cache-Control", "no-store");
  return new Response(JSON.stringify(body), { status: init.status ?? 200, headers });
}
