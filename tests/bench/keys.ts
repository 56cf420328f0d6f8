#!/usr/bin/env bun
/**
 * `bun run bench:keys`: requests/s of POST /api/get-user-info through the real
 * server with an X-API-Key and with a session, side by side with a bare
 * Bun.serve doing the same database work (tests/bench/bare-server.ts, started by ./harness), in one
 * run. wrk (apt) drives the load. The machine may be shared: read the ratios.
 *   BENCH_SECONDS (default 5), BENCH_CONNECTIONS (default 16)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, uniqueEmail } from "../support/client";
import { startServer } from "../support/server";
import { fmtMs, runWrk, startBare } from "./harness";

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);

const dataDir = mkdtempSync(join(tmpdir(), "atelier-bench-"));
// Realistic limiter work at a high request rate: KEYS keys in rotation and a 1 s window, so each key's
// window holds about rps / KEYS hits (≈ a standard key at its 100/minute cap), never denied.
const KEYS = Number(process.env.BENCH_KEYS ?? 20);
const env = {
  RATE_LIMIT_STANDARD: "10000000",
  RATE_LIMIT_WINDOW_MS: "1000",
  JOBS: "off",
  LOG_LEVEL: "warn",
  NODE_ENV: "production",
  BETTER_AUTH_SECRET: "bench-secret-bench-secret-bench-secret-0",
};
const server = await startServer({ dataDir, env });
const api = new Client(server.url);
const { cookie } = await api.signUp(uniqueEmail("bench"));
const keys: string[] = [];
for (let i = 0; i < KEYS; i++)
  keys.push((await api.post("/api/keys/create", { name: `bench ${i}` }, { cookie })).body.data.key);
const key = keys.join(",");

const bare = await startBare(dataDir, env);
const bareUrl = bare.url;

// Every target must answer the owner's profile before it is measured.
const check = async (url: string, headers: Record<string, string>) => {
  const r = await fetch(url, { method: "POST", headers });
  const body = (await r.json()) as { code: number; data: { email?: string } | null };
  if (r.status !== 200 || body.code !== 0 || !body.data?.email)
    throw new Error(`${url}: ${r.status} ${JSON.stringify(body)}`);
};
const targets = [
  { name: "Atelier + X-API-Key", url: `${server.url}/api/get-user-info`, header: ["X-API-Key", key] },
  { name: "Atelier + session", url: `${server.url}/api/get-user-info`, header: ["Cookie", cookie] },
  { name: "bare Bun.serve, key work", url: `${bareUrl}/key`, header: ["X-API-Key", key] },
  { name: "bare Bun.serve, session work", url: `${bareUrl}/session`, header: ["Cookie", cookie] },
] as const;
for (const t of targets) await check(t.url, { [t.header[0]]: t.header[1].split(",")[0]! });

type Result = { rps: number; p50: string; p99: string; errors: string };
async function wrk(url: string, header: readonly [string, string], secs: number): Promise<Result> {
  const requests = header[1].split(",").map((value) => ({ value, body: "" }));
  const r = await runWrk(dataDir, { url, header: header[0], requests }, { connections, seconds: secs });
  const errors =
    [r.non2xx ? `${r.non2xx} non-2xx` : "", r.socketErrors ? `socket errors: ${r.socketErrors}` : ""]
      .filter(Boolean)
      .join("; ") || "none";
  return { rps: r.rps, p50: fmtMs(r.p50), p99: fmtMs(r.p99), errors };
}

const results = new Map<string, Result>();
try {
  // Interleaved rounds so a noisy neighbour hits every target alike; best round counts.
  const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
  for (const t of targets) await wrk(t.url, t.header, 1); // warm-up
  for (let r = 0; r < rounds; r++) {
    for (const t of targets) {
      const res = await wrk(t.url, t.header, seconds);
      const prev = results.get(t.name);
      if (!prev || res.rps > prev.rps) results.set(t.name, res);
    }
  }
} finally {
  await bare.stop();
  await server.stop();
}

const rows = targets.map((t) => ({ name: t.name, ...results.get(t.name)! }));
console.log(
  `\nPOST get-user-info, wrk -t1 -c${connections}, ${seconds}s per run, best of rounds (machine shared: compare ratios)`,
);
console.log(
  `key runs rotate ${KEYS} keys with a 1 s window: ≈ ${Math.round(results.get("Atelier + X-API-Key")!.rps / KEYS)} hits per key window in Atelier, ≈ ${Math.round(results.get("bare Bun.serve, key work")!.rps / KEYS)} in bare\n`,
);
console.log(`${"target".padEnd(32)} ${"req/s".padStart(9)} ${"p50".padStart(9)} ${"p99".padStart(9)}  errors`);
for (const r of rows)
  console.log(
    `${r.name.padEnd(32)} ${r.rps.toFixed(0).padStart(9)} ${r.p50.padStart(9)} ${r.p99.padStart(9)}  ${r.errors}`,
  );
const rps = (n: string) => results.get(n)!.rps;
const us = (n: string) => 1e6 / rps(n);
console.log("\nratios");
console.log(
  `  key / session (Atelier)                 ${(rps("Atelier + X-API-Key") / rps("Atelier + session")).toFixed(2)}×`,
);
console.log(
  `  Atelier key / bare key work             ${(rps("Atelier + X-API-Key") / rps("bare Bun.serve, key work")).toFixed(2)}×`,
);
console.log(
  `  Atelier session / bare session work     ${(rps("Atelier + session") / rps("bare Bun.serve, session work")).toFixed(2)}×`,
);
console.log(
  `  bare key work / bare session work       ${(rps("bare Bun.serve, key work") / rps("bare Bun.serve, session work")).toFixed(2)}×`,
);
console.log(
  `  per-request cost (1/rps): key ${us("Atelier + X-API-Key").toFixed(1)} µs, session ${us("Atelier + session").toFixed(1)} µs, bare key ${us("bare Bun.serve, key work").toFixed(1)} µs, bare session ${us("bare Bun.serve, session work").toFixed(1)} µs`,
);
rmSync(dataDir, { recursive: true, force: true });
const bad = rows.filter((r) => r.errors !== "none" || !(r.rps > 0));
if (bad.length) {
  console.error(`errors during the run: ${bad.map((r) => r.name).join(", ")}`);
  process.exit(1);
}
