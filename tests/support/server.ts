/**
 * Starts the real Atelier server process (the production build) on a free port
 * with a temporary DATA_DIR, for integration tests that talk HTTP to it.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { createTestDatabase, dropTestDatabase, onPostgres } from "./engine";

export const ROOT = join(import.meta.dir, "../..");

export async function freePort(): Promise<number> {
  const s = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = s.port!;
  await s.stop(true);
  return port;
}

export interface TestServer {
  url: string;
  port: number;
  dataDir: string;
  proc: Subprocess;
  env: Record<string, string>;
  /** The server's PostgreSQL database (the ATELIER_TEST_PG run), or undefined on SQLite. */
  databaseUrl: string | undefined;
  logs: () => string;
  stop: (signal?: NodeJS.Signals) => Promise<number>;
  /** Stops and removes the data directory. */
  dispose: () => Promise<void>;
}

export interface StartOptions {
  env?: Record<string, string>;
  dataDir?: string;
  port?: number;
  /** Extra CLI args after `serve`. */
  args?: string[];
  /**
   * How long the server may take to answer /api/health (default 45 s). Generous on purpose: CI runs three test files
   * at once on two cores, and a start (plus, on PostgreSQL, a new database and its migrations) has been seen to take
   * over 15 s at load 18. A server that fails to start exits, and that is reported at once.
   */
  timeoutMs?: number;
  /** Another built checkout to run (the before/after benchmark); default this one. */
  root?: string;
  /**
   * Run on PostgreSQL: sets DATABASE_URL (e.g. a tests/support/postgres.ts cluster's `url`) and, unless
   * `env` gives one, a fixed BETTER_AUTH_SECRET (nodes of one database share it). Default: the SQLite file,
   * or on the ATELIER_TEST_PG run (tests/support/engine.ts) a fresh database per data dir in the shared cluster.
   */
  databaseUrl?: string;
  /** Force an engine whatever the run (a test of one engine's behaviour). */
  engine?: "sqlite" | "postgres";
}

/** The BETTER_AUTH_SECRET test servers on PostgreSQL share (several nodes on one database need the same one). */
export const TEST_AUTH_SECRET = "atelier-test-secret-shared-by-every-node-0123456789";

/** The PostgreSQL database of each data dir (a restart on the same data dir finds the same database). */
const databases = new Map<string, string>();

/**
 * What a CLI command run beside a test server needs to reach the same database (nothing on SQLite: DATA_DIR does).
 * Not BETTER_AUTH_SECRET: only serving needs it, so every CLI test of the PostgreSQL run shows the CLI runs without it.
 */
export const databaseEnv = (s: Pick<TestServer, "env">): Record<string, string> =>
  s.env.DATABASE_URL ? { DATABASE_URL: s.env.DATABASE_URL } : {};

/** The database URL of the server that ran on this data dir, if it ran on PostgreSQL. */
export const databaseUrlOf = (dataDir: string) => databases.get(dataDir);

/**
 * The command that runs a built checkout's Atelier executable: `bun build/atelier.js`, what `bun run start` runs (the
 * server build bundled with the CLI as bytecode by `bun run build`). It starts on ~0.15 s of CPU where `bun app/cli.ts`
 * transpiles the 780 KB server build at every start (~0.7 s, five times that at load 10) — and the suite starts
 * hundreds of servers, workers and CLI commands. `app/cli.ts` only for a checkout built before build/atelier.js existed.
 */
export function atelierCommand(root = ROOT): string[] {
  const built = join(root, "build/atelier.js");
  return ["bun", existsSync(built) ? built : join(root, "app/cli.ts")];
}

/**
 * The time zone of every server and command the tests start (UTC+8, no daylight saving): `bun test` itself runs in
 * UTC, where local-time mistakes go unseen (tests/unit/credits/day-boundaries.test.ts runs the unit side in it too).
 */
export const TEST_SERVER_TZ = "Asia/Shanghai";

/** Runs an Atelier command (`admin …`, `migrate`, `backup …`) to its end: its exit code and output. */
export async function runAtelier(
  args: string[],
  opts: { cwd?: string; env: Record<string, string | undefined>; stdin?: string },
) {
  const proc = Bun.spawn([...atelierCommand(), ...args], {
    cwd: opts.cwd,
    env: { TZ: TEST_SERVER_TZ, ...opts.env },
    stdin: opts.stdin === undefined ? "ignore" : new TextEncoder().encode(opts.stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, stdout, stderr };
}

export function requireBuild() {
  if (!existsSync(join(ROOT, "build/server/index.js"))) {
    throw new Error("No production build: run `bun run build` before the integration tests (bun run test does it).");
  }
}

export async function startServer(opts: StartOptions = {}): Promise<TestServer> {
  requireBuild();
  const port = opts.port ?? (await freePort());
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), "atelier-it-"));
  const url = `http://127.0.0.1:${port}`;
  let databaseUrl = opts.databaseUrl ?? opts.env?.DATABASE_URL;
  if (!databaseUrl && (opts.engine ?? (onPostgres ? "postgres" : "sqlite")) === "postgres") {
    databaseUrl = databases.get(dataDir) ?? (await createTestDatabase());
  }
  if (databaseUrl) databases.set(dataDir, databaseUrl);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "/tmp",
    NODE_ENV: "test",
    PORT: String(port),
    HOST: "127.0.0.1",
    PUBLIC_URL: url,
    DATA_DIR: dataDir,
    SIMULATOR_DELAY_MS: "50",
    JOB_TICK_MS: "50",
    LOG_LEVEL: "warn",
    // Not UTC: a day computed at the server's local midnight instead of UTC's fails the tests that cross one.
    TZ: TEST_SERVER_TZ,
    // better-auth's per-IP limiter would hold a suite's many sign-ups from 127.0.0.1 to 3 per 10 s; its own test turns it on.
    AUTH_RATE_LIMIT: "off",
    ...(databaseUrl ? { DATABASE_URL: databaseUrl, BETTER_AUTH_SECRET: TEST_AUTH_SECRET } : {}),
    ...opts.env,
  };
  let output = "";
  const proc = Bun.spawn([...atelierCommand(opts.root), "serve", ...(opts.args ?? [])], {
    cwd: dataDir,
    env,
    stdout: "pipe",
    stderr: "pipe",
  });
  const drain = async (stream: ReadableStream<Uint8Array>) => {
    const dec = new TextDecoder();
    const reader = stream.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      output += dec.decode(value, { stream: true });
    }
  };
  void drain(proc.stdout as ReadableStream<Uint8Array>);
  void drain(proc.stderr as ReadableStream<Uint8Array>);

  const deadline = Date.now() + (opts.timeoutMs ?? 45_000);
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`server exited with ${proc.exitCode}:\n${output}`);
    try {
      const r = await fetch(`${url}/api/health`);
      if (r.ok) break;
    } catch {}
    if (Date.now() > deadline) {
      proc.kill("SIGKILL");
      throw new Error(`server did not become healthy in time:\n${output}`);
    }
    await Bun.sleep(25);
  }
  const stop = async (signal: NodeJS.Signals = "SIGTERM") => {
    if (proc.exitCode === null) proc.kill(signal);
    return await proc.exited;
  };
  return {
    url,
    port,
    dataDir,
    proc,
    env,
    databaseUrl,
    logs: () => output,
    stop,
    dispose: async () => {
      await stop();
      if (opts.dataDir) return;
      rmSync(dataDir, { recursive: true, force: true });
      if (databaseUrl && !opts.databaseUrl && !opts.env?.DATABASE_URL) {
        databases.delete(dataDir);
        await dropTestDatabase(databaseUrl).catch(() => {});
      }
    },
  };
}
