/**
 * What the HTTP benchmarks share (bench:keys and `bun run bench`): the bare
 * `Bun.serve` baseline process, wrk driven through a Lua script that builds
 * its requests in `init()` (one request per line of a file: header value and
 * body), wrk's output parsed into numbers, and RSS read from /proc.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { freePort, ROOT } from "../support/server";

export const WRK = process.env.WRK ?? "/usr/bin/wrk";

/** One request shape per line: `<header value>\t<body>`; wrk sends them in rotation. */
const LUA = `local reqs = {}
local i = 0
init = function(args)
  local header = os.getenv("BENCH_HEADER")
  for line in io.lines(os.getenv("BENCH_FILE")) do
    local tab = string.find(line, "\\t", 1, true)
    local value = string.sub(line, 1, tab - 1)
    local body = string.sub(line, tab + 1)
    local headers = { ["Host"] = wrk.host .. ":" .. wrk.port, ["Content-Type"] = "application/json", ["Content-Length"] = tostring(#body) }
    if header ~= "" then headers[header] = value end
    reqs[#reqs + 1] = wrk.format("POST", os.getenv("BENCH_PATH"), headers, body)
  end
end
request = function()
  i = i % #reqs + 1
  return reqs[i]
end
`;

export interface WrkTarget {
  /** Full URL of the endpoint. */
  url: string;
  /** Auth header name ("" for none). */
  header: string;
  /** Requests in rotation: header value and JSON body. */
  requests: { value: string; body: string }[];
}

export interface WrkResult {
  rps: number;
  /** Milliseconds. */
  p50: number;
  p99: number;
  non2xx: number;
  socketErrors: string;
  /** Requests completed in the run. */
  requests: number;
  /** Peak RSS (MiB) of the watched process during the run. */
  rssMaxMiB?: number;
  /** CPU time (user + system) the watched process spent per request, in µs: robust to a busy machine. */
  cpuUsPerReq?: number;
}

/** wrk prints latencies as `812.00us`, `1.23ms`, `1.02s`. */
export function parseLatencyMs(s: string | undefined): number {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(s ?? "");
  if (!m) return NaN;
  const v = Number(m[1]);
  return m[2] === "us" ? v / 1000 : m[2] === "ms" ? v : m[2] === "s" ? v * 1000 : v * 60_000;
}

export function parseWrk(out: string): Omit<WrkResult, "rssMaxMiB" | "cpuUsPerReq"> {
  return {
    requests: Number(/(\d+) requests in/.exec(out)?.[1] ?? 0),
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? NaN),
    p50: parseLatencyMs(/\s50%\s+(\S+)/.exec(out)?.[1]),
    p99: parseLatencyMs(/\s99%\s+(\S+)/.exec(out)?.[1]),
    non2xx: Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0),
    socketErrors: /Socket errors:([^\n]+)/.exec(out)?.[1]?.trim() ?? "",
  };
}

let fileSeq = 0;
/** Runs wrk once against a target; samples the RSS of `watchPid` meanwhile. */
export async function runWrk(
  dir: string,
  target: WrkTarget,
  opts: { connections: number; seconds: number; watchPid?: number },
): Promise<WrkResult> {
  const lua = join(dir, "bench.lua");
  writeFileSync(lua, LUA);
  const file = join(dir, `requests-${fileSeq++}.txt`);
  writeFileSync(file, `${target.requests.map((r) => `${r.value}\t${r.body}`).join("\n")}\n`);
  const u = new URL(target.url);
  // A connection per client, one wrk thread: the server gets the other core.
  const proc = Bun.spawn(
    [
      WRK,
      "-t1",
      `-c${opts.connections}`,
      `-d${opts.seconds}s`,
      "--timeout",
      "10s",
      "--latency",
      "-s",
      lua,
      `${u.protocol}//${u.host}`,
    ],
    {
      env: { ...process.env, BENCH_HEADER: target.header, BENCH_FILE: file, BENCH_PATH: u.pathname },
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  let rssMax = 0;
  const cpu0 = opts.watchPid ? cpuMs(opts.watchPid) : undefined;
  const sampler = opts.watchPid
    ? setInterval(() => {
        rssMax = Math.max(rssMax, rssMiB(opts.watchPid!) ?? 0);
      }, 200)
    : undefined;
  const out = await new Response(proc.stdout).text();
  const err = await new Response(proc.stderr).text();
  await proc.exited;
  if (sampler) clearInterval(sampler);
  if (opts.watchPid) rssMax = Math.max(rssMax, rssMiB(opts.watchPid) ?? 0);
  const cpu1 = opts.watchPid ? cpuMs(opts.watchPid) : undefined;
  const r = parseWrk(out);
  if (!(r.rps > 0)) throw new Error(`wrk gave no figures for ${target.url}:\n${out}\n${err}`);
  const cpuUsPerReq =
    cpu0 !== undefined && cpu1 !== undefined && r.requests > 0 ? ((cpu1 - cpu0) * 1000) / r.requests : undefined;
  return { ...r, rssMaxMiB: opts.watchPid ? rssMax : undefined, cpuUsPerReq };
}

/** Resident memory of a process in MiB (VmRSS), or its peak (VmHWM). */
export function rssMiB(pid: number, field: "VmRSS" | "VmHWM" = "VmRSS"): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1]);
    return Number.isFinite(kb) ? kb / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** CPU time (user + system) a process has used so far, in ms (/proc/<pid>/stat, clock ticks of 10 ms). */
export function cpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // After the command: state(0) … utime(11) stime(12), in clock ticks (USER_HZ = 100 on Linux).
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return undefined;
  }
}

export const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(" ");

export interface BareServer {
  url: string;
  proc: Subprocess;
  stop(): Promise<void>;
}

/** The baseline: tests/bench/bare-server.ts on the same database file, same environment. */
export async function startBare(dataDir: string, env: Record<string, string>): Promise<BareServer> {
  const port = await freePort();
  const proc = Bun.spawn(["bun", join(ROOT, "tests/bench/bare-server.ts")], {
    cwd: ROOT,
    env: { ...process.env, ...env, DATA_DIR: dataDir, PORT: String(port) },
    stdout: "pipe",
    stderr: "inherit",
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${url}/none`)).status === 404) break;
    } catch {}
    if (i > 400) throw new Error("bare server did not start");
    await Bun.sleep(25);
  }
  return {
    url,
    proc,
    async stop() {
      proc.kill();
      await proc.exited;
    },
  };
}

export const fmtMs = (ms: number) => (ms < 1 ? `${(ms * 1000).toFixed(0)}µs` : `${ms.toFixed(2)}ms`);

/**
 * The in-process "pieces" benchmarks (history-pieces, generate-pieces, keypath-pieces): CPU per call of `f`
 * (`process.cpuUsage`, user + system) over `runs` runs of `n` calls after `warmup` calls; prints one line with the
 * runs' µs, lowest first, and returns them. `uncounted` runs between calls and after each run without being counted
 * (generate's settle of pending tasks).
 */
export async function cpuPerCall(
  name: string,
  n: number,
  f: (i: number) => unknown,
  opts: {
    warmup?: number;
    runs?: number;
    pad?: number;
    digits?: number;
    uncounted?: { every: number; fn: () => unknown };
  } = {},
): Promise<number[]> {
  const { warmup = 500, runs = 3, pad = 48, digits = 1, uncounted } = opts;
  for (let i = 0; i < warmup; i++) await f(i);
  await uncounted?.fn();
  const out: number[] = [];
  for (let r = 0; r < runs; r++) {
    const c0 = process.cpuUsage();
    for (let i = 0; i < n; i++) {
      await f(i);
      if (uncounted && i % uncounted.every === uncounted.every - 1) {
        const a = process.cpuUsage();
        await uncounted.fn();
        const b = process.cpuUsage(a);
        c0.user += b.user;
        c0.system += b.system;
      }
    }
    const d = process.cpuUsage(c0);
    out.push((d.user + d.system) / n);
    await uncounted?.fn();
  }
  out.sort((a, b) => a - b);
  console.log(`${name.padEnd(pad)} ${out.map((x) => x.toFixed(digits)).join(" / ")} µs`);
  return out;
}

/**
 * The pieces benchmarks' data, like the HTTP bench's: `users` users with 1,000,000 credits and an API key, each with
 * `tasks` finished tasks one minute apart (every `failedEvery`-th failed, when given). Returns the users in order.
 */
export async function seedBenchUsers(
  db: import("#db/client").Db,
  clock: import("~/lib/clock").Clock,
  opts: {
    users?: number;
    tasks?: number;
    prompt?: (j: number) => string;
    failedEvery?: number;
    mediaBase?: string;
  } = {},
): Promise<{ id: string; key: string; lastGenId: string }[]> {
  const { addUserRow } = await import("../support/services");
  const { grantCredits } = await import("~/domain/credits/ledger.server");
  const { createApiKey } = await import("~/domain/api-keys/keys.server");
  const { users = 20, tasks = 200, prompt = () => "seeded", failedEvery = 0, mediaBase = "http://x/media" } = opts;
  const insert = db.raw(
    "INSERT INTO generations (id, user_id, ai_type, provider, model, prompt, status, result_urls, error_message, credits_cost, deadline_at, created_at, completed_at) VALUES (?, ?, 'image','replicate','black-forest-labs/flux-schnell',?,?,?,?,3,?,?,?)",
  );
  const out: { id: string; key: string; lastGenId: string }[] = [];
  for (let i = 0; i < users; i++) {
    const id = await addUserRow(db, Date.now());
    await db.tx(function* (t) {
      yield* grantCredits(t, { userId: id, amount: 1_000_000, source: "signup" }, clock);
    });
    const k = await createApiKey(db, { userId: id, name: "k" }, clock);
    const base = Date.now() - tasks * 60_000;
    let gid = "";
    for (let j = 0; j < tasks; j++) {
      gid = crypto.randomUUID();
      const failed = failedEvery > 0 && j % failedEvery === failedEvery - 1;
      await insert.run(
        gid,
        id,
        prompt(j),
        failed ? "failed" : "completed",
        failed ? null : JSON.stringify([`${mediaBase}/${gid}/0.png`]),
        failed ? "Replicate failed the prediction: CUDA out of memory" : null,
        base + j * 60_000 + 600_000,
        base + j * 60_000,
        base + j * 60_000 + 2000,
      );
    }
    out.push({ id, key: k.key, lastGenId: gid });
  }
  return out;
}
