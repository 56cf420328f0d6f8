/**
 * The better-auth plugins beyond e-mail and password: the configured sign-in providers
 * (sign-in-providers.server.ts), the sign-up captcha (captcha.server.ts), two-factor with an authenticator app and backup codes, and passkeys
 * (docs/decisions/124-two-factor-and-passkeys.md).
 */
import { passkey } from "@better-auth/passkey";
import { twoFactor } from "better-auth/plugins/two-factor";
import type { Config } from "~/lib/config.server";
import { captchaPluginsOf } from "./captcha.server";
import { oidcPluginsOf } from "./sign-in-providers.server";

export function authPluginsOf(config: Config) {
  return [
    ...oidcPluginsOf(config),
    // Before e-mail sign-up runs, when CAPTCHA_PROVIDER is set.
    ...captchaPluginsOf(config),
    // Asked at every password sign-in once on; a provider or passkey sign-in is its own second factor.
    twoFactor({ issuer: "Atelier", backupCodeOptions: { amount: 10, length: 10 } }),
    // The relying party is PUBLIC_URL's host, and only PUBLIC_URL's pages may use it (never a request's own Origin).
    passkey({ rpName: "Atelier", rpID: new URL(config.publicUrl).hostname, origin: config.publicUrl }),
  ];
}
