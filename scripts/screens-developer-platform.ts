/**
 * Screens of the developer platform's pages (docs/screens/README.md): /account's usage, /keys' scopes and caps and
 * its webhooks with their delivery log, at 1440×900 and 390×844, light and dark, each after an axe-core audit and a
 * check that nothing overflows sideways. Seeds a fresh test server through the API. Run after `bun run build`:
 * `bun scripts/screens-developer-platform.ts`.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { Client } from "../tests/support/client";
import { startServer } from "../tests/support/server";
import { startReceiver } from "../tests/support/webhook-receiver";
import { checkScreen, forEachScreen, launchChromium } from "./screens-support";

const OUT = process.env.SHOTS_DIR ?? join(import.meta.dir, "../docs/screens");
mkdirSync(OUT, { recursive: true });
const server = await startServer({
  env: { SIGNUP_CREDITS: "200", WEBHOOK_ALLOW_PRIVATE: "true", SIMULATOR_DELAY_MS: "100", WEBHOOK_TIMEOUT_MS: "1000" },
});
const rcv = startReceiver();
rcv.fallback = { status: 200, delayMs: 35 };
try {
  const api = new Client(server.url);
  const { cookie } = await api.signUp(`shots-${Date.now()}@example.test`);
  const capped = (
    await api.post(
      "/api/keys/create",
      { name: "build server", scopes: ["generate", "read"], credit_limit: { credits: 40, period: "day" } },
      { cookie },
    )
  ).body.data;
  await api.post("/api/keys/create", { name: "laptop" }, { cookie });
  const hook = (await api.post("/api/webhooks/create", { url: rcv.url, description: "production" }, { cookie })).body
    .data;
  await api.post(
    "/api/webhooks/create",
    { url: "http://127.0.0.1:9/hooks/atelier", events: ["generation.failed"] },
    { cookie },
  );
  const IMAGE = { ai_type: "image", provider: "replicate", model: "black-forest-labs/flux-schnell" };
  for (const p of ["a fox", "a red fox", "a fox in snow [simulate:fail]", "a heron"])
    await api.post("/api/generator/generate", { ...IMAGE, prompt: p }, { apiKey: capped.key });
  await api.post(
    "/api/generator/generate",
    { ai_type: "image", provider: "kling", model: "kling-v1", prompt: "a lake" },
    { cookie },
  );
  await api.post("/api/webhooks/test", { webhook_id: hook.webhook_id }, { cookie });
  await Bun.sleep(4000);

  const browser = await launchChromium();
  const [name, value] = cookie.split(";")[0]!.split("=");
  const url = new URL(server.url);
  await forEachScreen(
    browser,
    server.url,
    async (page, label, scheme) => {
      for (const [shot, path, open] of [
        ["account-usage", "/account#usage", null],
        ["keys-scopes", "/keys#list", "Change scopes or cap"],
        ["keys-webhooks-log", "/keys#webhooks", "Events and delivery log"],
      ] as const) {
        await page.goto(path);
        if (open) {
          for (const s of await page.getByText(open).all()) await s.click();
        }
        const anchor = path.split("#")[1]!;
        await page.evaluate(
          (id) =>
            (document.getElementById(id) ?? document.getElementById(`${id}-h`))?.scrollIntoView({ block: "start" }),
          anchor,
        );
        await page.evaluate(() => window.scrollBy(0, -72));
        await checkScreen(page, shot, label, scheme);
        await page.screenshot({ path: join(OUT, `${shot}-${label}-${scheme}.png`), animations: "disabled" });
      }
    },
    (context) => context.addCookies([{ name: name!, value: value!, domain: url.hostname, path: "/" }]),
  );
  await browser.close();
} finally {
  await rcv.stop();
  await server.dispose();
}
