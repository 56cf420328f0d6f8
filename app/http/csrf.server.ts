/**
 * Cross-site request refusal for the JSON API (docs/design.md §5, docs/decisions/046-csrf-json-api.md).
 * A session cookie rides along on any request a browser makes, so a request
 * authenticated by the session must show that it comes from our own pages: its
 * Origin (else its Referer) is PUBLIC_URL's or one of TRUSTED_ORIGINS, and its
 * body is JSON. A script or server with no Origin and no Referer is not a
 * browser being abused and passes; `X-API-Key` requests never come here.
 */
import type { Config } from "~/lib/config.server";
import { AppError } from "~/lib/errors";
import { publicOriginAliases } from "~/lib/origins";

const origins = new WeakMap<Config, Set<string>>();

function originOf(value: string): string | null {
  try {
    const o = new URL(value).origin;
    return o === "null" ? null : o;
  } catch {
    return null;
  }
}

/** PUBLIC_URL's origin (with its loopback aliases when it is loopback) and TRUSTED_ORIGINS, normalized. */
export function allowedOrigins(config: Pick<Config, "publicUrl" | "TRUSTED_ORIGINS">): Set<string> {
  let set = origins.get(config as Config);
  if (!set) {
    set = new Set(
      [...publicOriginAliases(config.publicUrl), ...config.TRUSTED_ORIGINS]
        .map(originOf)
        .filter((o): o is string => o !== null),
    );
    origins.set(config as Config, set);
  }
  return set;
}

const JSON_TYPE = /^application\/([a-z0-9.+-]+\+)?json\s*(;|$)/i;

/**
 * Throws CROSS_SITE unless the request's Origin (else Referer) is an allowed origin; neither present passes (not a
 * browser being abused). For session form posts that React Router's own action check does not see: resource
 * routes (sign-out), whose actions it runs unchecked.
 */
export function requireSameOrigin(request: Request, config: Pick<Config, "publicUrl" | "TRUSTED_ORIGINS">): void {
  const h = request.headers;
  const claimed = h.get("origin") ?? h.get("referer");
  if (claimed === null) return;
  // "null" (sandboxed frames, some redirects) and unparsable values are never ours.
  const o = originOf(claimed);
  if (!o || !allowedOrigins(config).has(o)) throw new AppError("CROSS_SITE");
}

/**
 * Throws CROSS_SITE unless the request names an allowed origin in Origin (else Referer): for session uploads, whose
 * multipart body a cross-site form can send, so "neither header" is not good enough there.
 */
export function requireOwnOrigin(request: Request, config: Pick<Config, "publicUrl" | "TRUSTED_ORIGINS">): void {
  const h = request.headers;
  const o = originOf(h.get("origin") ?? h.get("referer") ?? "");
  if (!o || !allowedOrigins(config).has(o)) throw new AppError("CROSS_SITE");
}

/** Throws CROSS_SITE unless a session request comes from an allowed origin with a JSON body (or none). */
export function requireSameSiteJson(request: Request, config: Pick<Config, "publicUrl" | "TRUSTED_ORIGINS">): void {
  requireSameOrigin(request, config);
  const h = request.headers;
  const type = h.get("content-type");
  if (type !== null) {
    if (!JSON_TYPE.test(type)) throw new AppError("CROSS_SITE");
  } else if (hasBody(h)) {
    throw new AppError("CROSS_SITE");
  }
}

function hasBody(h: Headers): boolean {
  const length = h.get("content-length");
  return (length !== null && length.trim() !== "0") || h.has("transfer-encoding");
}
