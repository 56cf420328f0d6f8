/**
 * The pages' Content-Security-Policy (docs/decisions/042-security-headers-csp.md) in a real browser:
 * every page hydrates (React Router's inline scripts carry the nonce) and the
 * browser reports no CSP violation; the site refuses to be framed.
 */
import { expect, type Page, test } from "@playwright/test";
import { signUp } from "./support";

async function watchCsp(page: Page) {
  const violations: string[] = [];
  page.on("console", (m) => {
    if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
  });
  await page.exposeFunction("__reportCsp", (v: string) => violations.push(v));
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) =>
      (window as unknown as { __reportCsp: (v: string) => void }).__reportCsp(
        `${e.violatedDirective} ${e.blockedURI} ${location.pathname} ${e.sourceFile}:${e.lineNumber} ${e.sample}`,
      ),
    );
  });
  return violations;
}

// Polled through page.evaluate: waitForFunction compiles its predicate with eval, which the CSP (rightly) blocks.
const hydrated = (page: Page) =>
  expect
    .poll(() =>
      page.evaluate(() =>
        Boolean((window as unknown as { __reactRouterDataRouter?: unknown }).__reactRouterDataRouter),
      ),
    )
    .toBe(true);

test("every page hydrates under the CSP with no violation", async ({ page }) => {
  const violations = await watchCsp(page);
  await page.goto("/");
  await hydrated(page);
  await signUp(page, { name: "Csp Tester" });
  for (const path of ["/account", "/keys", "/studio", "/playground", "/feedback", "/docs", "/"]) {
    await page.goto(path);
    await hydrated(page);
  }
  // A client-side navigation (no document request) proves the router is live.
  let documents = 0;
  page.on("request", (r) => {
    if (r.resourceType() === "document") documents++;
  });
  await page.getByRole("link", { name: /docs/i }).first().click();
  await expect(page).toHaveURL(/\/docs$/);
  expect(documents).toBe(0);
  expect(violations).toEqual([]);
});

test("another site cannot frame the account page", async ({ page, baseURL }) => {
  const res = await page.goto("/account");
  expect(res?.headers()["x-frame-options"]).toBe("DENY");
  // A page elsewhere (about:blank here) that frames the site gets an empty, blocked frame.
  await page.goto("about:blank");
  await page.setContent(`<iframe id="f" src="${baseURL}/sign-in" width="400" height="300"></iframe>`);
  const frame = (await (await page.waitForSelector("#f", { state: "attached" })).contentFrame())!;
  await expect.poll(() => frame.url()).not.toBe("about:blank");
  expect(frame.url()).not.toContain("/sign-in");
  expect(await frame.getByRole("heading", { name: "Sign in" }).count()).toBe(0);
});
