/**
 * Pages show a signed-in person's e-mail, balance, API keys and webhooks (and /admin every user's e-mail); a shared
 * cache or a cache-everything CDN rule must never keep /account for the next visitor. Anything that names no caching
 * of its own is `private, no-store`; static files, media and the API keep theirs (docs/decisions/101-pages-not-cached.md).
 */
import { expect, setDefaultTimeout, test } from "bun:test";
import { uniqueEmail } from "../support/client";
import { serverForFile } from "../support/file-server";

setDefaultTimeout(60_000);

const it = serverForFile();

test("a signed-in person's pages and page data are private, no-store", async () => {
  const { cookie } = await it.api.signUp(uniqueEmail("r5-cache"));
  for (const path of ["/account", "/keys", "/studio", "/pricing", "/account.data", "/keys.data"]) {
    const r = await fetch(it.server.url + path, { headers: { cookie } });
    expect({ path, status: r.status, cacheControl: r.headers.get("cache-control") }).toEqual({
      path,
      status: 200,
      cacheControl: "private, no-store",
    });
  }
  // The sign-in redirect of a signed-out visitor too.
  expect((await fetch(`${it.server.url}/account`, { redirect: "manual" })).headers.get("cache-control")).toBe(
    "private, no-store",
  );
});

test("static files and the API keep their own caching", async () => {
  expect((await fetch(`${it.server.url}/favicon.svg`)).headers.get("cache-control")).toBe("public, max-age=3600");
  expect((await it.api.post("/api/health")).headers.get("cache-control")).toBe("no-store");
});
