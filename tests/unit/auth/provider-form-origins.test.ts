/**
 * Browsers hold a form post's redirects to the page's CSP `form-action`: "Continue with …" posts to our own
 * /sign-in/provider, which redirects to the provider. The pages therefore name each configured provider's origin,
 * and a provider that asks elsewhere gets a page that moves on by itself instead of a redirect chromium would block.
 */
import { describe, expect, test } from "bun:test";
import { documentCsp, documentCspExtras } from "~/http/security-headers.server";
import { providerFormOrigins, toProvider } from "~/http/sign-in-providers.server";
import { parseConfig } from "~/lib/config.server";

const ALL = parseConfig({
  GOOGLE_CLIENT_ID: "g",
  GOOGLE_CLIENT_SECRET: "gs",
  GITHUB_CLIENT_ID: "h",
  GITHUB_CLIENT_SECRET: "hs",
  OIDC_ISSUER: "https://id.example.com/realms/acme",
  OIDC_CLIENT_ID: "atelier",
});

describe("sign-in providers in the pages' form-action", () => {
  test("each configured provider's origin, and none without providers", () => {
    expect(providerFormOrigins(ALL)).toEqual([
      "https://accounts.google.com",
      "https://github.com",
      "https://id.example.com",
    ]);
    expect(documentCsp("n", documentCspExtras(ALL))).toContain(
      "form-action 'self' https://accounts.google.com https://github.com https://id.example.com;",
    );
    const none = parseConfig({});
    expect(providerFormOrigins(none)).toEqual([]);
    expect(documentCsp("n", documentCspExtras(none))).toContain("form-action 'self';");
  });

  test("a redirect to a listed origin; elsewhere a refresh page, the URL escaped", async () => {
    const direct = toProvider(
      ALL,
      "https://id.example.com/realms/acme/auth?state=s",
      new Headers({ "set-cookie": "a=b" }),
    );
    expect(direct.status).toBe(302);
    expect(direct.headers.get("location")).toBe("https://id.example.com/realms/acme/auth?state=s");
    expect(direct.headers.getSetCookie()).toEqual(["a=b"]);

    const elsewhere = toProvider(ALL, 'https://login.other.example/authorize?a=1&b="x"', new Headers());
    expect(elsewhere.status).toBe(200);
    const html = await elsewhere.text();
    expect(html).toContain(
      '<meta http-equiv="refresh" content="0;url=https://login.other.example/authorize?a=1&#38;b=&#34;x&#34;">',
    );
    expect(elsewhere.headers.get("content-security-policy")).toContain("default-src 'none'");
  });
});
