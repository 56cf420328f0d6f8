/**
 * Redirect targets handed to better-auth. better-auth
 * checks that a relative `callbackURL` is a path and then normalises it, so
 * `/.//evil.example` (or `/..//…`, `/%2e//…`) became `Location: //evil.example`
 * — another host to a browser: an open redirect on our own origin. Every
 * redirect parameter is therefore resolved on PUBLIC_URL first, as a browser
 * would, and must stay on PUBLIC_URL's origin (or one of TRUSTED_ORIGINS when
 * absolute) with a path that does not itself read as a host (`//…`).
 */

/** The query and body fields better-auth reads as a place to send the browser. */
export const REDIRECT_PARAMS = ["callbackURL", "redirectTo", "errorCallbackURL", "newUserCallbackURL"] as const;

/** True when `value` may be given to better-auth as a redirect target. */
export function isSafeRedirect(value: string, publicUrl: string, trustedOrigins: readonly string[] = []): boolean {
  const base = new URL(publicUrl);
  let target: URL;
  try {
    target = new URL(value, base);
  } catch {
    return false;
  }
  const allowed = new Set([base.origin, ...trustedOrigins.map((o) => originOf(o))]);
  if (!allowed.has(target.origin)) return false;
  // A relative value becomes a relative Location: its normalised path must not start a network-path reference.
  return !target.pathname.startsWith("//");
}

/** The first redirect parameter of a query or body that is not safe, or null. */
export function unsafeRedirectIn(
  sources: readonly (Record<string, unknown> | undefined | null)[],
  publicUrl: string,
  trustedOrigins: readonly string[] = [],
): string | null {
  for (const source of sources) {
    if (!source || typeof source !== "object") continue;
    for (const name of REDIRECT_PARAMS) {
      const v = source[name];
      if (v === undefined || v === null || v === "") continue;
      if (typeof v !== "string" || !isSafeRedirect(v, publicUrl, trustedOrigins)) return name;
    }
  }
  return null;
}

function originOf(value: string): string {
  try {
    return new URL(value).origin;
  } catch {
    return value;
  }
}
