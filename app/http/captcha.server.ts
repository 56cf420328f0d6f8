/**
 * The captcha on e-mail sign-up (docs/decisions/125-captcha-on-sign-up.md): better-auth's captcha plugin checks the
 * token against the provider's siteverify endpoint before the sign-up endpoint runs, so a refused sign-up writes
 * nothing. Around it, Atelier bounds the wait (CAPTCHA_TIMEOUT_MS) and answers each refusal with its own code and a
 * message a person can act on. Unconfigured, there is no plugin, no widget and no third-party script.
 */
import type { BetterAuthPlugin } from "better-auth";
import { captcha } from "better-auth/plugins/captcha";
import type { Config } from "~/lib/config.server";
import { log } from "~/lib/log.server";

/** The form field each provider's widget fills in with its token. */
export const CAPTCHA_TOKEN_FIELDS = ["cf-turnstile-response", "h-captcha-response"] as const;
/** Where better-auth's plugin reads the token (a JSON client of /api/auth/sign-up/email sends it there too). */
export const CAPTCHA_HEADER = "x-captcha-response";

const PROVIDERS = {
  turnstile: {
    plugin: "cloudflare-turnstile",
    script: "https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit",
    // What Cloudflare's widget loads: its script and its challenge frame.
    csp: { "script-src": ["https://challenges.cloudflare.com"], "frame-src": ["https://challenges.cloudflare.com"] },
  },
  hcaptcha: {
    plugin: "hcaptcha",
    script: "https://js.hcaptcha.com/1/api.js?render=explicit&recaptchacompat=off",
    // hCaptcha's widget: script, frame, its styles and its calls home, all under hcaptcha.com.
    csp: {
      "script-src": ["https://hcaptcha.com", "https://*.hcaptcha.com"],
      "frame-src": ["https://hcaptcha.com", "https://*.hcaptcha.com"],
      "style-src": ["https://hcaptcha.com", "https://*.hcaptcha.com"],
      "connect-src": ["https://hcaptcha.com", "https://*.hcaptcha.com"],
    },
  },
} as const;

export type CaptchaCsp = Partial<Record<string, readonly string[]>>;

/** What the sign-up page needs to show the widget, or null when no captcha is configured. */
/** What the sign-up page hands the captcha widget (app/components/auth/captcha-widget.tsx). */
export interface CaptchaWidgetConfig {
  provider: "turnstile" | "hcaptcha";
  siteKey: string;
  script: string;
}

export function captchaWidgetOf(config: Config): CaptchaWidgetConfig | null {
  if (!config.CAPTCHA_PROVIDER || !config.CAPTCHA_SITE_KEY) return null;
  const provider = PROVIDERS[config.CAPTCHA_PROVIDER];
  return { provider: config.CAPTCHA_PROVIDER, siteKey: config.CAPTCHA_SITE_KEY, script: provider.script };
}

/** The sources a page's CSP adds for the widget: none without a captcha. */
export function captchaCspOf(config: Pick<Config, "CAPTCHA_PROVIDER">): CaptchaCsp {
  return config.CAPTCHA_PROVIDER ? PROVIDERS[config.CAPTCHA_PROVIDER].csp : {};
}

/** The token a sign-up form carried (whichever widget filled it in), or null. */
export function captchaTokenOf(form: Record<string, unknown>): string | null {
  for (const field of CAPTCHA_TOKEN_FIELDS) {
    const value = form[field];
    if (typeof value === "string" && value.trim()) return value.trim();
  }
  return null;
}

export const CAPTCHA_MESSAGES = {
  CAPTCHA_REQUIRED: "Complete the captcha check, then sign up again.",
  CAPTCHA_FAILED: "The captcha check failed. Try it again, then sign up.",
  CAPTCHA_UNAVAILABLE: "The captcha check could not be completed right now. Try again in a moment.",
} as const;
type CaptchaCode = keyof typeof CAPTCHA_MESSAGES;

const refusal = (code: CaptchaCode, status: number) => ({
  response: Response.json({ code, message: CAPTCHA_MESSAGES[code] }, { status }),
});

/** better-auth's plugin codes, as ours. */
const CODE_OF: Record<string, [CaptchaCode, number]> = {
  MISSING_RESPONSE: ["CAPTCHA_REQUIRED", 400],
  VERIFICATION_FAILED: ["CAPTCHA_FAILED", 403],
};

export function captchaPluginsOf(config: Config): BetterAuthPlugin[] {
  if (!config.CAPTCHA_PROVIDER || !config.CAPTCHA_SECRET_KEY) return [];
  const inner = captcha({
    provider: PROVIDERS[config.CAPTCHA_PROVIDER].plugin,
    secretKey: config.CAPTCHA_SECRET_KEY,
    siteKey: config.CAPTCHA_SITE_KEY,
    siteVerifyURLOverride: config.CAPTCHA_VERIFY_URL,
    // Free credits come with e-mail sign-up; a provider sign-up is vouched for by the provider (ADR 125).
    endpoints: ["/sign-up/email"],
  } as Parameters<typeof captcha>[0]);
  const timeoutMs = config.CAPTCHA_TIMEOUT_MS;
  const onRequest: NonNullable<BetterAuthPlugin["onRequest"]> = async (request, ctx) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), timeoutMs);
    });
    const verdict = await Promise.race([inner.onRequest(request, ctx), timedOut]).finally(() => clearTimeout(timer));
    if (verdict === "timeout") {
      log.warn("captcha verify endpoint did not answer in time: sign-up refused", { timeoutMs });
      return refusal("CAPTCHA_UNAVAILABLE", 503);
    }
    if (!verdict || !("response" in verdict)) return verdict;
    const body = (await verdict.response
      .clone()
      .json()
      .catch(() => null)) as { code?: string } | null;
    const mapped = CODE_OF[body?.code ?? ""];
    // Anything else is the plugin failing closed: the endpoint unreachable, erring or answering nonsense.
    return mapped ? refusal(...mapped) : refusal("CAPTCHA_UNAVAILABLE", 503);
  };
  return [{ ...inner, onRequest } as BetterAuthPlugin];
}
