#!/usr/bin/env bun
/**
 * `bun run bench:mcp`: what the MCP path and a held `Prefer: wait` cost against the plain API, as the server
 * process's CPU time per request (/proc/<pid>/stat, user + system), all in one run against the production build
 * (`bun run build` first), rounds interleaved so a busy machine shifts every case alike; prints the medians and the
 * ratios (docs/performance.md "MCP and held waits"). Report `uptime` with the numbers.
 *
 *   reads   — POST /api/get-user-credits with X-API-Key  vs  one MCP tools/call get_credits (a stateless POST /mcp)
 *   connect — one MCP initialize (what an agent pays per connection)
 *   tasks   — a finished task, four ways: generate alone (nobody reads the result: the task's own cost); generate
 *             then poll /api/generator/query every 500 ms (the plain API); generate with `Prefer: wait=30` (held);
 *             MCP generate with wait_seconds 30. Each includes the job runner's work on the task (same process), so
 *             the differences are the cost of getting the result.
 *
 *   bun run bench:mcp [reads per round, default 1000] [tasks per round, default 60]
 */
import { readFileSync } from "node:fs";
import { Client, uniqueEmail } from "../support/client";
import { startServer } from "../support/server";

const READS = Number(process.argv[2] ?? 1000);
const TASKS = Number(process.argv[3] ?? 60);
const ROUNDS = 3;
const CONCURRENCY = 8;
const TICK_US = 1_000_000 / 100; // USER_HZ: /proc reports CPU in 1/100 s on Linux

const server = await startServer({
  env: {
    SIGNUP_CREDITS: "1000000",
    RATE_LIMIT_STANDARD: "10000000",
    SIMULATOR_DELAY_MS: "1000",
    LOG_LEVEL: "warn",
  },
});
const pid = server.proc.pid;
const cpuUs = () => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * TICK_US; // utime, stime
};

try {
  const api = new Client(server.url);
  const { cookie } = await api.signUp(uniqueEmail("bench-mcp"));
  const key: string = (await api.post("/api/keys/create", { name: "bench" }, { cookie })).body.data.key;
  const KLING = { ai_type: "image", provider: "kling", model: "kling-v1" };
  const mcpHeaders = {
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    Authorization: `Bearer ${key}`,
  };
  let rpcId = 0;
  const mcp = async (method: string, params: unknown) => {
    const r = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: mcpHeaders,
      body: JSON.stringify({ jsonrpc: "2.0", id: ++rpcId, method, params }),
    });
    const body = (await r.json()) as { result?: { content?: { text: string }[]; isError?: boolean } };
    if (r.status !== 200 || body.result?.isError) throw new Error(`MCP ${method}: ${r.status} ${JSON.stringify(body)}`);
    return body.result!;
  };
  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const r = await fetch(server.url + path, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-API-Key": key, ...headers },
      body: JSON.stringify(body),
    });
    const env = (await r.json()) as { code: number; data: any; message: string };
    if (env.code !== 0) throw new Error(`${path}: ${env.message}`);
    return env.data;
  };

  interface Case {
    n: number;
    one: (i: number) => Promise<void>;
    /** The requests return before the work ends: the case ends when no task of the user is left running. */
    settle?: boolean;
  }
  const settled = async () => {
    for (;;) {
      const page = await post("/api/generator/history", { page_size: 100 });
      if (!page.generations.some((g: { status: string }) => g.status === "pending" || g.status === "processing"))
        return;
      await Bun.sleep(100);
    }
  };
  const cases: Record<string, Case> = {
    "reads: API get-user-credits": { n: READS, one: async () => void (await post("/api/get-user-credits", {})) },
    "reads: MCP get_credits": {
      n: READS,
      one: async () => void (await mcp("tools/call", { name: "get_credits", arguments: {} })),
    },
    "connect: MCP initialize": {
      n: READS,
      one: async () =>
        void (await mcp("initialize", {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "bench", version: "1" },
        })),
    },
    "tasks: API generate, result not read": {
      n: TASKS,
      one: async (i) => void (await post("/api/generator/generate", { ...KLING, prompt: `plain ${i}` })),
      settle: true,
    },
    "tasks: API generate + poll 500 ms": {
      n: TASKS,
      one: async (i) => {
        const { gen_id } = await post("/api/generator/generate", { ...KLING, prompt: `poll ${i}` });
        for (;;) {
          await Bun.sleep(500);
          const q = await post("/api/generator/query", { gen_id });
          if (q.status === "completed" || q.status === "failed") return;
        }
      },
    },
    "tasks: API generate, Prefer: wait=30": {
      n: TASKS,
      one: async (i) => {
        const d = await post("/api/generator/generate", { ...KLING, prompt: `held ${i}` }, { Prefer: "wait=30" });
        if (d.status !== "completed") throw new Error(`held generate ended ${d.status}`);
      },
    },
    "tasks: MCP generate wait_seconds=30": {
      n: TASKS,
      one: async (i) => {
        const r = await mcp("tools/call", {
          name: "generate",
          arguments: { ...KLING, prompt: `mcp ${i}`, wait_seconds: 30 },
        });
        if (JSON.parse(r.content![0]!.text).status !== "completed") throw new Error("MCP generate did not complete");
      },
    },
  };

  // Concurrency 8 for every case (below the 10 held waits a user may have), CPU read before and after.
  // The server's own background CPU per second (job runner ticks, timers), measured idle: the cases that hold
  // requests for seconds accrue it, so the table also shows each case with it taken out.
  const idleUsPerMs = async () => {
    const t0 = cpuUs();
    const w0 = performance.now();
    await Bun.sleep(3000);
    return (cpuUs() - t0) / (performance.now() - w0);
  };
  const walls: Record<string, number[]> = {};
  const runCase = async (c: Case, name?: string) => {
    let next = 0;
    const w0 = performance.now();
    const t0 = cpuUs();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < c.n) await c.one(next++);
      }),
    );
    if (c.settle) await settled();
    if (name) (walls[name] ??= []).push((performance.now() - w0) / c.n);
    return (cpuUs() - t0) / c.n;
  };
  for (const c of Object.values(cases)) await runCase({ ...c, n: Math.min(50, c.n) }); // warm-up
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  const idle: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    idle.push(await idleUsPerMs());
    for (const [name, c] of Object.entries(cases)) samples[name]!.push(await runCase(c, name));
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const idleRate = median(idle);
  const us = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)]));
  const busy = Object.fromEntries(
    Object.keys(samples).map((k) => [k, Math.max(0, us[k]! - idleRate * median(walls[k]!))]),
  );

  const load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  console.log(`\nServer CPU per request (median of ${ROUNDS} rounds; load average ${load})\n`);
  console.log(`Idle server: ${Math.round(idleRate * 1000)} µs CPU per second.\n`);
  console.log("| case | n per round | wall ms / request | CPU µs / request | CPU µs without idle |");
  console.log("| --- | ---: | ---: | ---: | ---: |");
  for (const [name, c] of Object.entries(cases))
    console.log(
      `| ${name} | ${c.n} | ${median(walls[name]!).toFixed(2)} | ${Math.round(us[name]!)} | ${Math.round(busy[name]!)} |`,
    );
  const ratio = (a: string, b: string) =>
    `${(us[a]! / us[b]!).toFixed(2)} (${(busy[a]! / busy[b]!).toFixed(2)} without idle)`;
  console.log("\n| ratio | value |");
  console.log("| --- | ---: |");
  console.log(
    `| MCP get_credits / API get-user-credits | ${ratio("reads: MCP get_credits", "reads: API get-user-credits")} |`,
  );
  console.log(
    `| MCP initialize / API get-user-credits | ${ratio("connect: MCP initialize", "reads: API get-user-credits")} |`,
  );
  console.log(
    `| held Prefer: wait / generate alone (per finished task) | ${ratio("tasks: API generate, Prefer: wait=30", "tasks: API generate, result not read")} |`,
  );
  console.log(
    `| held Prefer: wait / generate + polling (per finished task) | ${ratio("tasks: API generate, Prefer: wait=30", "tasks: API generate + poll 500 ms")} |`,
  );
  console.log(
    `| MCP generate wait / held Prefer: wait (per finished task) | ${ratio("tasks: MCP generate wait_seconds=30", "tasks: API generate, Prefer: wait=30")} |`,
  );
} finally {
  await server.dispose();
}
