#!/usr/bin/env bun
/**
 * `bun run bench:observability`: what logging and metrics cost on the hottest paths. One database, four servers
 * measured in turn, round after round (wrk, c16): a bare `Bun.serve` doing the same work (tests/bench/bare-server.ts),
 * and the production server with access logging off (LOG_LEVEL=warn), at its default (info: one access line per
 * request), and at its default with METRICS_TOKEN set. Prints req/s, CPU µs per request and the ratio to the bare
 * baseline for get-user-credits with a session and with a key, then the cost of the access log and of metrics.
 * The machine may be shared: read the ratios, measured in the same run, with the load average printed.
 *
 *   bun run bench:observability [--seconds N] [--rounds N] [--quick]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, uniqueEmail } from "../support/client";
import { startServer, type TestServer } from "../support/server";
import { load, runWrk, startBare, type WrkResult } from "./harness";

const argv = process.argv.slice(2);
const arg = (name: string, def: number) =>
  argv.includes(`--${name}`) ? Number(argv[argv.indexOf(`--${name}`) + 1]) : def;
const QUICK = argv.includes("--quick");
const SECONDS = arg("seconds", QUICK ? 1 : 4);
const ROUNDS = arg("rounds", QUICK ? 1 : 3);
const USERS = 20;
const CONNECTIONS = 16;

const base = {
  NODE_ENV: "production",
  BETTER_AUTH_SECRET: "bench-secret-bench-secret-bench-secret-0",
  JOBS: "off",
  RATE_LIMIT_STANDARD: "10000000",
  RATE_LIMIT_WINDOW_MS: "1000",
  SIGNUP_CREDITS: "1000",
};
const VARIANTS = [
  { name: "logging off (LOG_LEVEL=warn)", env: { LOG_LEVEL: "warn" } },
  { name: "default logging (info)", env: { LOG_LEVEL: "info" } },
  { name: "default logging + metrics", env: { LOG_LEVEL: "info", METRICS_TOKEN: "bench-metrics-token-0123456789" } },
] as const;

console.log(`load average at start: ${load()}`);
const dataDir = mkdtempSync(join(tmpdir(), "atelier-obs-bench-"));
const scratch = mkdtempSync(join(tmpdir(), "atelier-obs-wrk-"));
// The first server makes the database and the users; the others open the same SQLite file.
const servers: TestServer[] = [];
for (const v of VARIANTS) servers.push(await startServer({ dataDir, env: { ...base, ...v.env }, engine: "sqlite" }));
const api = new Client(servers[0]!.url);
const users: { cookie: string; key: string }[] = [];
for (let i = 0; i < USERS; i++) {
  const { cookie } = await api.signUp(uniqueEmail("obs"));
  const key = (await api.post("/api/keys/create", { name: `obs ${i}` }, { cookie })).body.data.key as string;
  users.push({ cookie, key });
}
const bare = await startBare(dataDir, { ...base, LOG_LEVEL: "warn", DATABASE_PATH: join(dataDir, "atelier.db") });

const paths = [
  {
    name: "get-user-credits (session)",
    header: "Cookie",
    value: (u: (typeof users)[number]) => u.cookie,
    bare: "/credits/session",
  },
  {
    name: "get-user-credits (key)",
    header: "X-API-Key",
    value: (u: (typeof users)[number]) => u.key,
    bare: "/credits/key",
  },
];
type Row = { path: string; side: string; runs: WrkResult[] };
const rows: Row[] = [];
const record = (path: string, side: string, r: WrkResult) => {
  let row = rows.find((x) => x.path === path && x.side === side);
  if (!row) rows.push((row = { path, side, runs: [] }));
  row.runs.push(r);
};

try {
  for (let round = 0; round < ROUNDS; round++) {
    for (const p of paths) {
      const requests = users.map((u) => ({ value: p.value(u), body: "" }));
      const opts = { connections: CONNECTIONS, seconds: SECONDS };
      record(
        p.name,
        "bare",
        await runWrk(
          scratch,
          { url: bare.url + p.bare, header: p.header, requests },
          { ...opts, watchPid: bare.proc.pid },
        ),
      );
      for (const [i, v] of VARIANTS.entries()) {
        const s = servers[i]!;
        const r = await runWrk(
          scratch,
          { url: `${s.url}/api/get-user-credits`, header: p.header, requests },
          { ...opts, watchPid: s.proc.pid },
        );
        if (r.non2xx > 0) throw new Error(`${v.name} ${p.name}: ${r.non2xx} non-2xx answers`);
        record(p.name, v.name, r);
      }
    }
  }
} finally {
  await bare.stop();
  for (const s of servers) await s.dispose().catch(() => {});
  rmSync(scratch, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)]!;
};
const rps = (r: Row | undefined) => (r ? median(r.runs.map((x) => x.rps)) : Number.NaN);
const cpu = (r: Row | undefined) => (r ? median(r.runs.map((x) => x.cpuUsPerReq ?? Number.NaN)) : Number.NaN);
const find = (path: string, side: string) => rows.find((r) => r.path === path && r.side === side);

console.log(
  `\nwrk c${CONNECTIONS}, ${SECONDS} s per point, ${ROUNDS} rounds alternated (medians); load average at end: ${load()}\n`,
);
console.log("| path | server | req/s | CPU µs/req | ÷ bare |");
console.log("|---|---|---:|---:|---:|");
for (const p of paths) {
  const bareRps = rps(find(p.name, "bare"));
  for (const side of ["bare", ...VARIANTS.map((v) => v.name)]) {
    const r = find(p.name, side);
    console.log(
      `| ${p.name} | ${side} | ${Math.round(rps(r)).toLocaleString("en")} | ${cpu(r).toFixed(0)} | ${(rps(r) / bareRps).toFixed(2)} |`,
    );
  }
}
console.log("");
for (const p of paths) {
  const off = find(p.name, VARIANTS[0].name);
  const info = find(p.name, VARIANTS[1].name);
  const metrics = find(p.name, VARIANTS[2].name);
  console.log(
    `${p.name}: access log costs ${(cpu(info) - cpu(off)).toFixed(1)} µs CPU per request (${((1 - rps(info) / rps(off)) * 100).toFixed(1)} % of throughput); metrics ${(cpu(metrics) - cpu(info)).toFixed(1)} µs (${((1 - rps(metrics) / rps(info)) * 100).toFixed(1)} %)`,
  );
}
