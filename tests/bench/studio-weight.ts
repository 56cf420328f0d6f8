#!/usr/bin/env bun
/**
 * The studio's page weight as a browser fetches it: the HTML, then every script and stylesheet it links
 * (module preloads included), summed as sent uncompressed and as sent to a client accepting brotli.
 * Usage: bun tests/bench/studio-weight.ts [http://127.0.0.1:PORT]   (without a URL: starts build/atelier.js)
 */
import { Client, uniqueEmail } from "../support/client";
import { startServer } from "../support/server";

const given = process.argv[2];
const server = given ? null : await startServer();
const base = given ?? server!.url;
const { cookie } = await new Client(base).signUp(uniqueEmail("weight"));

async function size(path: string, encoding: string) {
  const r = await fetch(base + path, {
    headers: { cookie, "accept-encoding": encoding },
    decompress: false,
  } as RequestInit);
  return { bytes: (await r.arrayBuffer()).byteLength, coding: r.headers.get("content-encoding") ?? "identity" };
}

const html = await (await fetch(`${base}/studio`, { headers: { cookie } })).text();
const assets = [...new Set([...html.matchAll(/(?:href|src)="(\/assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]!))];
const rows: { path: string; raw: number; br: number; coding: string }[] = [];
for (const path of assets) {
  const raw = await size(path, "identity");
  const br = await size(path, "br, gzip");
  rows.push({ path, raw: raw.bytes, br: br.bytes, coding: br.coding });
}
const kb = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
const js = rows.filter((r) => r.path.endsWith(".js"));
const sum = (xs: typeof rows, k: "raw" | "br") => xs.reduce((a, r) => a + r[k], 0);
for (const r of rows.sort((a, b) => b.raw - a.raw))
  console.log(`${r.path.padEnd(48)} ${kb(r.raw).padStart(10)} ${kb(r.br).padStart(10)} ${r.coding}`);
console.log(
  `HTML ${kb(html.length)}; JS: ${js.length} files, ${kb(sum(js, "raw"))} raw, ${kb(sum(js, "br"))} as sent to a brotli client`,
);
console.log(
  `JS + CSS: ${kb(sum(rows, "raw"))} raw, ${kb(sum(rows, "br"))} as sent; largest script ${kb(js.sort((a, b) => b.raw - a.raw)[0]!.raw)} → ${kb(js[0]!.br)}`,
);
await server?.dispose();
