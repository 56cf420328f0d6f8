/**
 * The account forms (sign-in, sign-up, forgot/reset password, resend
 * verification) post to better-auth through its HTTP handler rather than
 * `auth.api.*`: server-side `auth.api` calls skip better-auth's per-IP rate
 * limiter, and a form must not be a way around it.
 */
import { withClientIp } from "./auth.server";
import { getServices } from "./services.server";

export interface AuthReply {
  ok: boolean;
  status: number;
  /** better-auth's error code (e.g. `INVALID_EMAIL_OR_PASSWORD`), when it gave one. */
  code?: string;
  message?: string;
  data: Record<string, unknown> | null;
  /** Set-Cookie headers to pass on to the browser. */
  headers: Headers;
}

const FORWARDED = [
  "cookie",
  "origin",
  "referer",
  "user-agent",
  "x-forwarded-for",
  "x-forwarded-proto",
  "x-forwarded-host",
];

/** `extra` adds headers of the server's own (the sign-up form's captcha token, captcha.server.ts). */
export function authPost(
  request: Request,
  path: string,
  body: Record<string, unknown>,
  extra?: Record<string, string>,
): Promise<AuthReply> {
  return authCall(request, "POST", path, body, extra);
}

/** A GET of better-auth's (the verification link), with the visitor's cookie: who opens the link matters. */
export function authGet(request: Request, path: string): Promise<AuthReply> {
  return authCall(request, "GET", path);
}

async function authCall(
  request: Request,
  method: "GET" | "POST",
  path: string,
  body?: Record<string, unknown>,
  extra: Record<string, string> = {},
): Promise<AuthReply> {
  const { auth, config } = getServices();
  const headers = new Headers({ "content-type": "application/json" });
  for (const name of FORWARDED) {
    const v = request.headers.get(name);
    if (v !== null) headers.set(name, v);
  }
  for (const [name, value] of Object.entries(extra)) headers.set(name, value);
  if (method === "GET") headers.delete("content-type");
  const inner = new Request(`${config.publicUrl}/api/auth${path}`, {
    method,
    headers,
    body: method === "POST" ? JSON.stringify(body) : undefined,
  });
  const res = await auth.handler(withClientIp(config, inner));
  const data = (await res.json().catch(() => null)) as Record<string, unknown> | null;
  const out = new Headers();
  for (const c of res.headers.getSetCookie()) out.append("set-cookie", c);
  return {
    ok: res.ok,
    status: res.status,
    code: typeof data?.code === "string" ? data.code : undefined,
    message: typeof data?.message === "string" ? data.message : undefined,
    data: res.ok ? data : null,
    headers: out,
  };
}
