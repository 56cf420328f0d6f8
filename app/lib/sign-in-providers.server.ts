/**
 * The sign-in providers the configuration turns on (docs/self-hosting.md "Sign-in providers"): Google and GitHub
 * through better-auth's social providers, any OpenID Connect provider through its generic OAuth plugin, found by
 * discovery. Each signs in at `/api/auth/callback/<id>`; state and PKCE are better-auth's (docs/decisions/119-single-sign-on.md).
 */
import { genericOAuth } from "better-auth/plugins/generic-oauth";
import type { Config } from "./config.server";

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
