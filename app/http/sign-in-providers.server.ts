/**
 * The sign-in providers the configuration turns on (docs/self-hosting.md "Sign-in providers"): Google and GitHub
 * through better-auth's social providers, any OpenID Connect provider through its generic OAuth plugin, found by
 * discovery. Each signs in at `/api/auth/callback/<id>`; state and PKCE are better-auth's (docs/decisions/119-single-sign-on.md).
 */
import { genericOAuth } from "better-auth/plugins/generic-oauth";
import type { Config } from "~/lib/config.server";

export type SignInProviderId = "google" | "github" | "oidc";

/** The generic provider's name when OIDC_NAME is unset. */
export const DEFAULT_OIDC_NAME = "Single sign-on";

export interface SignInProvider {
  id: SignInProviderId;
  /** What the button says after "Continue with". */
  name: string;
}

type ProviderSettings = Pick<
  Config,
  | "GOOGLE_CLIENT_ID"
  | "GOOGLE_CLIENT_SECRET"
  | "GITHUB_CLIENT_ID"
  | "GITHUB_CLIENT_SECRET"
  | "OIDC_ISSUER"
  | "OIDC_CLIENT_ID"
  | "OIDC_CLIENT_SECRET"
  | "OIDC_NAME"
>;

/** The configured providers, in the order their buttons show. */
export function signInProviders(config: ProviderSettings): SignInProvider[] {
  const out: SignInProvider[] = [];
  if (config.GOOGLE_CLIENT_ID) out.push({ id: "google", name: "Google" });
  if (config.GITHUB_CLIENT_ID) out.push({ id: "github", name: "GitHub" });
  if (config.OIDC_ISSUER && config.OIDC_CLIENT_ID)
    out.push({ id: "oidc", name: config.OIDC_NAME ?? DEFAULT_OIDC_NAME });
  return out;
}

/** Where Google and GitHub ask the person to sign in (their authorization endpoints' origins). */
const AUTHORIZATION_ORIGINS = { google: "https://accounts.google.com", github: "https://github.com" } as const;

/**
 * The origins a "Continue with …" form post is redirected to. Browsers hold a form's redirects to the page's CSP
 * `form-action` too, so the pages name them (security-headers.server.ts); an OpenID Connect provider is expected to
 * ask at its issuer's origin (toProvider covers one that does not).
 */
export function providerFormOrigins(config: ProviderSettings): string[] {
  return signInProviders(config).map((p) =>
    p.id === "oidc" ? new URL(config.OIDC_ISSUER!).origin : AUTHORIZATION_ORIGINS[p.id],
  );
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The answer to a provider form post: a redirect to the provider's authorization URL when the pages' `form-action`
 * names its origin; otherwise a small page that moves on by itself (a refresh is a new navigation, not the form's
 * redirect), with a link for a browser that does not follow refreshes.
 */
export function toProvider(config: ProviderSettings, url: string, headers: Headers): Response {
  const origin = new URL(url).origin;
  if (providerFormOrigins(config).includes(origin)) {
    headers.set("location", url);
    return new Response(null, { status: 302, headers });
  }
  const href = escapeHtml(url);
  headers.set("content-type", "text/html; charset=utf-8");
  headers.set(
    "content-security-policy",
    "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  );
  headers.set("referrer-policy", "no-referrer");
  return new Response(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta http-equiv="refresh" content="0;url=${href}"><title>Signing in…</title></head><body><p>Taking you to your sign-in provider… <a href="${href}">Continue</a></p></body></html>`,
    { status: 200, headers },
  );
}

/** The name a provider id (or "credential", the password) shows under on the account page. */
export function signInMethodName(config: ProviderSettings, providerId: string): string {
  if (providerId === "credential") return "Password";
  return signInProviders(config).find((p) => p.id === providerId)?.name ?? providerId;
}

/** better-auth's `socialProviders` option: Google and GitHub when their client id and secret are set. */
export function socialProvidersOf(config: ProviderSettings) {
  return {
    ...(config.GOOGLE_CLIENT_ID && config.GOOGLE_CLIENT_SECRET
      ? { google: { clientId: config.GOOGLE_CLIENT_ID, clientSecret: config.GOOGLE_CLIENT_SECRET } }
      : {}),
    ...(config.GITHUB_CLIENT_ID && config.GITHUB_CLIENT_SECRET
      ? { github: { clientId: config.GITHUB_CLIENT_ID, clientSecret: config.GITHUB_CLIENT_SECRET } }
      : {}),
  };
}

/**
 * The generic OIDC provider as a better-auth plugin, or none. ID tokens are checked against the discovered JWKS and
 * issuer (a provider whose discovery offers neither is skipped rather than trusted unverified); PKCE is on.
 */
export function oidcPluginsOf(config: ProviderSettings) {
  if (!config.OIDC_ISSUER || !config.OIDC_CLIENT_ID) return [];
  return [
    genericOAuth({
      config: [
        {
          providerId: "oidc",
          name: config.OIDC_NAME ?? DEFAULT_OIDC_NAME,
          discoveryUrl: `${config.OIDC_ISSUER}/.well-known/openid-configuration`,
          clientId: config.OIDC_CLIENT_ID,
          clientSecret: config.OIDC_CLIENT_SECRET,
          scopes: ["openid", "email", "profile"],
          pkce: true,
          requireIdTokenVerification: true,
        },
      ],
    }),
  ];
}
