/**
 * Response headers that keep pages from being framed, sniffed or scripted by
 * anyone else (docs/design.md §5). Documents get a per-response CSP nonce that React
 * Router puts on its own inline scripts (entry.server.tsx); every other
 * response gets the same framing/sniffing/referrer rules and a CSP that allows
 * nothing to run.
 */
import { randomBytes } from "node:crypto";
import type { Config } from "~/lib/config.server";
import { captchaCspOf } from "./captcha.server";
import { providerFormOrigins } from "./sign-in-providers.server";

const COMMON: Record<string, string> = {
  "X-Frame-Options": "DENY",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "strict-origin-when-cross-origin",
};

export const newNonce = () => randomBytes(16).toString("base64");

/**
 * The CSP of an HTML page: our own scripts (by nonce), styles and media; avatars and stored results may be on other
 * https hosts. `extra` adds sources per directive: a configured captcha's widget (captcha.server.ts), nothing else.
 */
export function documentCsp(nonce: string, extra: Partial<Record<string, readonly string[]>> = {}): string {
  const directives: [string, string][] = [
    ["default-src", "'self'"],
    ["script-src", `'self' 'nonce-${nonce}'`],
    ["style-src", "'self'"],
    ["img-src", "'self' data: blob: https:"],
    ["media-src", "'self' blob: https:"],
    ["connect-src", "'self'"],
    ["font-src", "'self'"],
    ["frame-src", "'self'"],
    ["object-src", "'none'"],
    ["base-uri", "'none'"],
    ["form-action", "'self'"],
    ["frame-ancestors", "'none'"],
  ];
  return directives
    .map(([name, value]) => (extra[name]?.length ? `${name} ${value} ${extra[name].join(" ")}` : `${name} ${value}`))
    .join("; ");
}

type CspExtras = Partial<Record<string, readonly string[]>>;

/**
 * What the configuration adds to the pages' CSP: a captcha widget's hosts, and the sign-in providers' origins in
 * `form-action` (their "Continue with …" form posts are redirected there). Nothing when neither is configured.
 */
export function documentCspExtras(config: Config): CspExtras {
  const extras: Record<string, string[]> = {};
  for (const [name, sources] of Object.entries(captchaCspOf(config))) extras[name] = [...(sources ?? [])];
  const origins = providerFormOrigins(config);
  if (origins.length) extras["form-action"] = origins;
  return extras;
}

export function setDocumentHeaders(
  headers: Headers,
  nonce: string,
  extra: Partial<Record<string, readonly string[]>> = {},
): void {
  for (const [k, v] of Object.entries(COMMON)) headers.set(k, v);
  headers.set("Content-Security-Policy", documentCsp(nonce, extra));
}

const OTHER_CSP = "default-src 'none'; frame-ancestors 'none'; sandbox";

/** The headers of every response that is not a page (JSON, media, static files). */
export const BASELINE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  ...COMMON,
  "Content-Security-Policy": OTHER_CSP,
});
const BASELINE = Object.entries(BASELINE_HEADERS);

/**
 * What a response that names no caching of its own gets: pages and their `.data` requests show a signed-in
 * person's e-mail, balance, keys and webhooks, and a shared cache or a "cache everything" CDN rule must not keep
 * them for the next visitor. Static files, media and the API set their own.
 */
export const DEFAULT_CACHE_CONTROL = "private, no-store";

/**
 * With an https PUBLIC_URL, browsers are told to use nothing else for a year (docs/self-hosting.md §5): no
 * `includeSubDomains` or `preload`, which would bind every other host of the domain and cannot be taken back quickly.
 */
export const HSTS = "max-age=31536000";

/**
 * For every response (pages included): set what the handler did not. The API's envelopes carry them already
 * (api.server.ts: one header object per response, not a set per header), so this only checks there.
 */
export function setBaselineHeaders(headers: Headers, https = false): void {
  for (const [k, v] of BASELINE) if (!headers.has(k)) headers.set(k, v);
  if (https) headers.set("Strict-Transport-Security", HSTS);
  if (!headers.has("Cache-Control")) headers.set("Cache-Control", DEFAULT_CACHE_CONTROL);
}
