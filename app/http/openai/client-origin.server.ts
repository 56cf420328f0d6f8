/**
 * Result URLs on the origin the client used (docs/decisions/159-openai-answers-like-openai.md): a client that reached
 * the server as `http://127.0.0.1:PORT` while PUBLIC_URL is `http://localhost:PORT` gets its result URLs on
 * 127.0.0.1 — `@ai-sdk/openai-compatible` downloads a `url` result itself and accepts only its base URL's origin.
 * Only the server's own origins are used (allowedOrigins: PUBLIC_URL's, its loopback aliases when PUBLIC_URL is a
 * loopback address — ADR 137 — and TRUSTED_ORIGINS); any other Host answers PUBLIC_URL's URLs, so a forged Host never
 * reaches an answer. Stored URLs, e-mails and webhooks keep PUBLIC_URL: only this answer is rewritten.
 */

import { allowedOrigins } from "~/http/csrf.server";
import type { Config } from "~/lib/config.server";

/** The origin the request came to when it is one of ours (matched on its Host header), else PUBLIC_URL's. */
export function clientOrigin(request: Request, config: Pick<Config, "publicUrl" | "TRUSTED_ORIGINS">): string {
  const publicOrigin = new URL(config.publicUrl).origin;
  const host = request.headers.get("host")?.toLowerCase();
  if (!host) return publicOrigin;
  const own = [...allowedOrigins(config)];
  // PUBLIC_URL's scheme first: `http://h` and `https://h` share a Host.
  return (
    own.find((origin) => origin === publicOrigin && new URL(origin).host === host) ??
    own.find((origin) => new URL(origin).host === host) ??
    publicOrigin
  );
}

/** A stored result URL as the client should fetch it: PUBLIC_URL's origin swapped for `origin` (others unchanged). */
export function atClientOrigin(url: string, publicUrl: string, origin: string): string {
  const publicOrigin = new URL(publicUrl).origin;
  return origin !== publicOrigin && url.startsWith(`${publicOrigin}/`) ? origin + url.slice(publicOrigin.length) : url;
}
