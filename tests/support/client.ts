/** A small HTTP client for integration tests: sign up, sessions, API keys, the envelope. */
import type { Envelope } from "~/lib/envelope";

export interface Auth {
  cookie?: string;
  apiKey?: string;
}

export interface Reply<T = any> {
  status: number;
  headers: Headers;
  body: Envelope<T>;
}

export class Client {
  constructor(readonly baseUrl: string) {}

  async post<T = any>(path: string, body?: unknown, auth: Auth = {}, init: RequestInit = {}): Promise<Reply<T>> {
    const headers = new Headers(init.headers);
    const form = body instanceof FormData;
    if (body !== undefined && !form && !headers.has("content-type")) headers.set("content-type", "application/json");
    if (auth.cookie) headers.set("cookie", auth.cookie);
    if (auth.apiKey !== undefined) headers.set("x-api-key", auth.apiKey);
    const res = await fetch(this.baseUrl + path, {
      method: "POST",
      ...init,
      headers,
      body: body === undefined ? undefined : form || typeof body === "string" ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: any;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new Error(`${path}: not JSON (HTTP ${res.status}): ${text.slice(0, 200)}`);
    }
    return { status: res.status, headers: res.headers, body: parsed };
  }

  /** `POST /api/files` with one picture (multipart field `file`), as an API client sends it. */
  async upload(bytes: Uint8Array, auth: Auth, opts: { name?: string; type?: string } = {}): Promise<Reply> {
    const form = new FormData();
    form.append("file", new Blob([bytes as Uint8Array<ArrayBuffer>], { type: opts.type }), opts.name ?? "a.png");
    return this.post("/api/files", form, auth);
  }

  /** Signs up through better-auth's HTTP API and returns the session cookie. */
  async signUp(email: string, opts: { name?: string; password?: string; ref?: string } = {}) {
    const res = await fetch(`${this.baseUrl}/api/auth/sign-up/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: this.baseUrl },
      body: JSON.stringify({
        email,
        password: opts.password ?? "correct-horse-battery",
        name: opts.name ?? email.split("@")[0],
        ref: opts.ref,
      }),
    });
    if (!res.ok) throw new Error(`sign-up ${email}: HTTP ${res.status} ${await res.text()}`);
    const cookie = sessionCookie(res);
    const body = (await res.json()) as { user: { id: string } };
    return { cookie, userId: body.user.id };
  }

  async signIn(email: string, password = "correct-horse-battery") {
    const res = await fetch(`${this.baseUrl}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: this.baseUrl },
      body: JSON.stringify({ email, password }),
    });
    if (!res.ok) throw new Error(`sign-in ${email}: HTTP ${res.status}`);
    return sessionCookie(res);
  }
}

export function sessionCookie(res: Response): string {
  const cookies = res.headers.getSetCookie();
  const c = cookies.find(
    (x) => x.startsWith("atelier.session_token=") || x.startsWith("__Host-atelier.session_token="),
  );
  if (!c) throw new Error(`no session cookie in ${JSON.stringify(cookies)}`);
  return c.split(";")[0]!;
}

let n = 0;
export const uniqueEmail = (tag = "user") => `${tag}-${Date.now().toString(36)}-${(n++).toString(36)}@example.test`;
