#!/usr/bin/env bun
/**
 * Before/after in one run (issue 15): an older built checkout of Atelier and
 * this one, side by side with the bare minimum of a key read (bare-server.ts
 * /minimum, on this checkout's database), driven by wrk in interleaved rounds
 * so a noisy neighbour hits all three alike. Each server gets its own data
 * directory with the same data made through its own HTTP API (users, a
 * session, a key and 20 tasks each, JOBS=off), and the key limit raised so
 * nothing is denied.
 *
 *   git worktree add /tmp/before <commit> && (cd /tmp/before && bun install && bun run build)
 *   bun tests/bench/before-after.ts --before /tmp/before [--seconds 3] [--rounds 2]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, uniqueEmail } from "../support/client";
import { startServer, type TestServer } from "../support/server";
import { fmtMs, load, runWrk, startBare, type WrkResult, type WrkTarget } from "./harness";

const argv = process.argv.slice(2);
const opt = (name: string) => (argv.includes(`--${name}`) ? argv[argv.indexOf(`--${name}`) + 1] : undefined);
const BEFORE = opt("before");
if (!BEFORE) throw new Error("--before <built checkout> is required");
const SECONDS = Number(opt("seconds") ?? 3);
const ROUNDS = Number(opt("rounds") ?? 2);
const USERS = 20;
const TASKS = 20;
const loadAtStart = load();

const env = {
  NODE_ENV: "production",
  BETTER_AUTH_SECRET: "bench-secret-bench-secret-bench-secret-0",
  LOG_LEVEL: "warn",
  JOBS: "off",
  AUTH_RATE_LIMIT: "off",
  RATE_LIMIT_STANDARD: "10000000",
  RATE_LIMIT_WINDOW_MS: "1000",
  SIGNUP_CREDITS: "1000000",
};
const GENERATE = { ai_type: "image", provider: "replicate", model: "black-forest-labs/flux-schnell", prompt: "bench: a red fox in snow" };

interface Side {
  name: string;
  server: TestServer;
  users: { cookie: string; key: string; genIds: string[] }[];
}
async function side(name: string, root?: string): Promise<Side> {
  const dataDir = mkdtempSync(join(tmpdir(), `atelier-ba-${name}-`));
  const server = await startServer({ dataDir, env, root });
  const api = new Client(server.url);
  const users: Side["users"] = [];
  for (let i = 0; i < USERS; i++) {
    const { cookie } = await api.signUp(uniqueEmail(`ba-${name}`));
    const key = (await api.post("/api/keys/create", { name: `bench ${i}` }, { cookie })).body.data.key as string;
    const genIds: string[] = [];
    for (let j = 0; j < TASKS; j++) genIds.push((await api.post("/api/generator/generate", GENERATE, { apiKey: key })).body.data.gen_id);
    users.push({ cookie, key, genIds });
  }
  return { name, server, users };
}

const before = await side("before", BEFORE);
const after = await side("after");
const bare = await startBare(after.server.dataDir, { ...env, DATABASE_PATH: join(after.server.dataDir, "atelier.db") });

interface Point {
  name: string;
  path: string;
  header: "X-API-Key" | "Cookie";
  body: (u: Side["users"][number], i: number) => string;
}
const points: Point[] = [
  { name: "get-user-credits (session)", path: "/api/get-user-credits", header: "Cookie", body: () => "" },
  { name: "get-user-credits (key)", path: "/api/get-user-credits", header: "X-API-Key", body: () => "" },
  { name: "generator/query (key)", path: "/api/generator/query", header: "X-API-Key", body: (u, i) => JSON.stringify({ gen_id: u.genIds[i % TASKS] }) },
  { name: "generator/history p20 (key)", path: "/api/generator/history", header: "X-API-Key", body: () => JSON.stringify({ page: 1, page_size: 20 }) },
];
const target = (s: Side, p: Point): WrkTarget => ({
  url: s.server.url + p.path,
  header: p.header,
  requests: s.users.map((u, i) => ({ value: p.header === "Cookie" ? u.cookie : u.key, body: p.body(u, i) })),
});
const minTarget: WrkTarget = { url: `${bare.url}/minimum`, header: "X-API-Key", requests: after.users.map((u) => ({ value: u.key, body: "" })) };

const dir = mkdtempSync(join(tmpdir(), "atelier-ba-wrk-"));
const best = (a: WrkResult | undefined, b: WrkResult) => (!a || b.rps > a.rps ? b : a);
const results = new Map<string, WrkResult>();
const keep = (k: string, r: WrkResult) => results.set(k, best(results.get(k), r));
const failures: string[] = [];
const check = (label: string, r: WrkResult) => r.non2xx || r.socketErrors ? failures.push(`${label}: ${r.non2xx} non-2xx ${r.socketErrors}`) : undefined;
// Warm-up
for (const p of points) for (const s of [before, after]) await runWrk(dir, target(s, p), { connections: 16, seconds: 1 });
await runWrk(dir, minTarget, { connections: 16, seconds: 1 });
for (let round = 0; round < ROUNDS; round++) {
  for (const c of [16, 64]) {
    const m = await runWrk(dir, minTarget, { connections: c, seconds: SECONDS, watchPid: bare.proc.pid });
    check(`minimum c${c}`, m);
    keep(`minimum ${c}`, m);
    for (const p of points) {
      for (const s of [before, after]) {
        const r = await runWrk(dir, target(s, p), { connections: c, seconds: SECONDS, watchPid: s.server.proc.pid });
        check(`${s.name} ${p.name} c${c}`, r);
        keep(`${s.name} ${p.name} ${c}`, r);
      }
    }
  }
}
await bare.stop();
for (const s of [before, after]) {
  await s.server.stop();
  rmSync(s.server.dataDir, { recursive: true, force: true });
}
rmSync(dir, { recursive: true, force: true });

console.log(`\nbefore (${BEFORE}) / after (this checkout) / bare minimum — ${SECONDS}s per point, best of ${ROUNDS} interleaved rounds, wrk -t1, ${USERS} users`);
console.log(`load average at start: ${loadAtStart}; at end: ${load()} (2 cores, shared machine)\n`);
console.log(`| endpoint | c | before req/s | p99 | CPU µs/req | after req/s | p99 | CPU µs/req | minimum req/s | CPU µs/req | before ÷ min | after ÷ min | after ÷ min by CPU |`);
console.log(`|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|`);
for (const c of [16, 64]) {
  const m = results.get(`minimum ${c}`)!;
  for (const p of points) {
    const b = results.get(`before ${p.name} ${c}`)!;
    const a = results.get(`after ${p.name} ${c}`)!;
    const cpu = (r: WrkResult) => (r.cpuUsPerReq ?? NaN).toFixed(0);
    console.log(
      `| ${p.name} | ${c} | ${b.rps.toFixed(0)} | ${fmtMs(b.p99)} | ${cpu(b)} | ${a.rps.toFixed(0)} | ${fmtMs(a.p99)} | ${cpu(a)} | ${m.rps.toFixed(0)} | ${cpu(m)} | ${(b.rps / m.rps).toFixed(2)} | ${(a.rps / m.rps).toFixed(2)} | ${((m.cpuUsPerReq ?? NaN) / (a.cpuUsPerReq ?? NaN)).toFixed(2)} |`,
    );
  }
}
if (failures.length) {
  console.error(`\nfailed requests:\n  ${failures.join("\n  ")}`);
  process.exit(1);
}
