import { describe, expect, test } from "bun:test";
import { captchaCspOf, captchaPluginsOf, captchaTokenOf, captchaWidgetOf } from "~/http/captcha.server";
import { documentCsp } from "~/http/security-headers.server";
import { ConfigError, parseConfig } from "~/lib/config.server";

const KEYS = { CAPTCHA_SITE_KEY: "site", CAPTCHA_SECRET_KEY: "secret" };

describe("captcha configuration", () => {
  test("a provider without its keys stops start-up naming the missing key", () => {
    expect(() => parseConfig({ CAPTCHA_PROVIDER: "turnstile" })).toThrow(
      new ConfigError("invalid configuration: CAPTCHA_SITE_KEY: required when CAPTCHA_PROVIDER is set"),
    );
    expect(() => parseConfig({ CAPTCHA_PROVIDER: "hcaptcha", CAPTCHA_SITE_KEY: "site" })).toThrow(
      "invalid configuration: CAPTCHA_SECRET_KEY: required when CAPTCHA_PROVIDER is set",
    );
  });

  test("keys or a verify URL without a provider, or an unknown provider, stop start-up", () => {
    expect(() => parseConfig(KEYS)).toThrow(/^invalid configuration: CAPTCHA_PROVIDER: required when CAPTCHA_SITE_KEY/);
    expect(() => parseConfig({ CAPTCHA_VERIFY_URL: "http://127.0.0.1:9/verify" })).toThrow(
      /^invalid configuration: CAPTCHA_PROVIDER: required when CAPTCHA_VERIFY_URL/,
    );
    expect(() => parseConfig({ CAPTCHA_PROVIDER: "recaptcha", ...KEYS })).toThrow(
      /^invalid configuration: CAPTCHA_PROVIDER/,
    );
    expect(() => parseConfig({ CAPTCHA_PROVIDER: "turnstile", ...KEYS, CAPTCHA_VERIFY_URL: "ftp://x" })).toThrow(
      /^invalid configuration: CAPTCHA_VERIFY_URL/,
    );
  });

  test("unconfigured: no plugin, no widget, and the page CSP names no third party", () => {
    const config = parseConfig({});
    expect(captchaPluginsOf(config)).toEqual([]);
    expect(captchaWidgetOf(config)).toBeNull();
    expect(captchaCspOf(config)).toEqual({});
    const csp = documentCsp("n0nce", captchaCspOf(config));
    expect(csp).not.toContain("https://");
    expect(csp).toContain("script-src 'self' 'nonce-n0nce';");
  });

  test("configured: the plugin, the widget's public site key only, and the provider's hosts in the CSP", () => {
    const config = parseConfig({ CAPTCHA_PROVIDER: "turnstile", ...KEYS });
    expect(captchaPluginsOf(config).map((p) => p.id)).toEqual(["captcha"]);
    const widget = captchaWidgetOf(config)!;
    expect(widget).toMatchObject({ provider: "turnstile", siteKey: "site" });
    expect(JSON.stringify(widget)).not.toContain("secret");
    expect(documentCsp("n", captchaCspOf(config))).toContain("frame-src 'self' https://challenges.cloudflare.com");
    const h = parseConfig({ CAPTCHA_PROVIDER: "hcaptcha", ...KEYS });
    expect(documentCsp("n", captchaCspOf(h))).toContain(
      "script-src 'self' 'nonce-n' https://hcaptcha.com https://*.hcaptcha.com",
    );
  });

  test("the token is read from either widget's field", () => {
    expect(captchaTokenOf({ "cf-turnstile-response": " t1 " })).toBe("t1");
    expect(captchaTokenOf({ "h-captcha-response": "t2" })).toBe("t2");
    expect(captchaTokenOf({ "cf-turnstile-response": "" })).toBeNull();
    expect(captchaTokenOf({})).toBeNull();
  });
});
