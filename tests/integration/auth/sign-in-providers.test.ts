/**
 * Google and GitHub buttons (GOOGLE_CLIENT_ID/SECRET, GITHUB_CLIENT_ID/SECRET): each is a form post that sends the
 * browser to the provider with our callback URL, a state and (Google) a PKCE challenge. The provider's side is theirs:
 * the round trip itself is the generic one of single-sign-on.test.ts.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { serverForFile } from "../../support/file-server";

setDefaultTimeout(60_000);

const s = serverForFile({
  env: {
    JOBS: "off",
    GOOGLE_CLIENT_ID: "google-client.apps.example",
    GOOGLE_CLIENT_SECRET: "google-secret",
    GITHUB_CLIENT_ID: "github-client",
    GITHUB_CLIENT_SECRET: "github-secret",
  },
});

async function start(provider: string) {
  const res = await fetch(`${s.server.url}/sign-in/provider`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: s.server.url },
    body: new URLSearchParams({ provider }).toString(),
  });
  await res.text();
  return { status: res.status, location: new URL(res.headers.get("location") ?? "/", s.server.url), res };
}

describe("Google and GitHub sign-in", () => {
  test("only the configured providers have a button", async () => {
    const html = await (await fetch(`${s.server.url}/sign-in`)).text();
    expect(html).toContain("Continue with Google");
    expect(html).toContain("Continue with GitHub");
    expect(html).not.toContain("Continue with Single sign-on");
    const generic = await start("oidc");
    expect(generic.location.pathname).toBe("/sign-in");
    expect(generic.location.searchParams.get("error")).toBe("provider_not_configured");
  });

  test("Continue with Google goes to Google with our callback, a state and a PKCE challenge", async () => {
    const { status, location, res } = await start("google");
    expect(status).toBe(302);
    expect(location.origin).toBe("https://accounts.google.com");
    expect(location.searchParams.get("client_id")).toBe("google-client.apps.example");
    expect(location.searchParams.get("redirect_uri")).toBe(`${s.server.url}/api/auth/callback/google`);
    expect(location.searchParams.get("state")).toBeTruthy();
    expect(location.searchParams.get("code_challenge_method")).toBe("S256");
    // The state is bound to this browser by a cookie.
    expect(res.headers.getSetCookie().some((c) => c.includes("state"))).toBe(true);
  });

  test("Continue with GitHub goes to GitHub with our callback and a state", async () => {
    const { status, location } = await start("github");
    expect(status).toBe(302);
    expect(location.origin).toBe("https://github.com");
    expect(location.searchParams.get("client_id")).toBe("github-client");
    expect(location.searchParams.get("redirect_uri")).toBe(`${s.server.url}/api/auth/callback/github`);
    expect(location.searchParams.get("state")).toBeTruthy();
  });
});
