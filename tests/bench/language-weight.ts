/**
 * The client weight of a page (brotli, as served from build/client), and what each language adds: the JS a page
 * preloads plus the language chunk entry.client imports. Run after `bun run build`:
 *   bun tests/bench/language-weight.ts [other-built-checkout]   (the other checkout: a before/after comparison)
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { LANGUAGE_CODES } from "~/lib/languages";
import { ROOT, startServer } from "../support/server";

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const br = (root: string, asset: string) => {
  const file = join(root, "build/client", `${asset}.br`);
  return existsSync(file) ? statSync(file).size : statSync(join(root, "build/client", asset)).size;
};

async function pageWeight(root: string, path: string) {
  const server = await startServer({ root, env: { JOBS: "off" } });
  try {
    const html = await (await fetch(server.url + path)).text();
    const assets = [...new Set([...html.matchAll(/(?:href|src)="(\/assets\/[^"]+\.js)"/g)].map((m) => m[1]!))];
    return assets.reduce((sum, a) => sum + br(root, a), 0);
  } finally {
    await server.dispose();
  }
}

const other = process.argv[2];
for (const path of ["/", "/pricing", "/sign-in"]) {
  const now = await pageWeight(ROOT, path);
  const before = other ? await pageWeight(other, path) : null;
  console.log(
    `${path}\tJS preloaded ${kb(now)}${before === null ? "" : ` (before: ${kb(before)}, +${kb(now - before)})`}`,
  );
}
const assets = readdirSync(join(ROOT, "build/client/assets"));
for (const lng of LANGUAGE_CODES) {
  const chunk = assets.find((a) => a.startsWith(`${lng}-`) && a.endsWith(".js"));
  if (chunk) console.log(`${lng}\tmessages chunk ${kb(br(ROOT, `/assets/${chunk}`))} brotli`);
}
