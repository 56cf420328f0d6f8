/**
 * The whole service on PostgreSQL (docs/design.md §8): the built server started with
 * DATABASE_URL on a throwaway cluster (tests/support/postgres.ts) — sign-up and
 * sessions through better-auth's PostgreSQL tables, API keys, check-in, a
 * generation claimed by the runner (FOR UPDATE SKIP LOCKED) and completed on
 * the simulator, health, the CLI, no SQLite file anywhere, and the database
 * going away (503 `service busy, please try again`) and coming back.
 * Skipped, saying so, without PostgreSQL's binaries.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, uniqueEmail } from "../../support/client";
import { hasPostgres, type Postgres, startPostgres } from "../../support/postgres";
import { atelierCommand, runAtelier, startServer, type TestServer } from "../../support/server";
import { until } from "../../support/until";

const IMAGE = { ai_type: "image", provider: "replicate", model: "black-forest-labs/flux-schnell" } as const; // 3 credits
const SYNC = { ai_type: "image", provider: "openai", model: "dall-e-3" } as const; // one call, the runner holding a lease

/** Every file under a folder (relative paths). */
function filesUnder(dir: string, prefix = ""): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    return statSync(full).isDirectory() ? filesUnder(full, `${prefix}${name}/`) : [`${prefix}${name}`];
  });
}

describe.skipIf(!hasPostgres())("the server on PostgreSQL (DATABASE_URL)", () => {
  let pg: Postgres;
  let server: TestServer;
  let api: Client;

  beforeAll(async () => {
    pg = await startPostgres();
    // 200 ms: a `[simulate:slow]` call takes 2 s, so a task can be caught in the middle of one by an outage.
    server = await startServer({ databaseUrl: pg.url, timeoutMs: 30_000, env: { SIMULATOR_DELAY_MS: "200" } });
    api = new Client(server.url);
  }, 90_000);
  afterAll(async () => {
    await server?.dispose();
    await pg?.stop();
  });

  /** A CLI command beside the server, on its database: without BETTER_AUTH_SECRET, which only serving needs. */
  async function cli(...args: string[]) {
    const { BETTER_AUTH_SECRET: _, ...env } = server.env;
    // promote asks for the account's password: the one api.signUp gives every account.
    const stdin = args[1] === "promote" ? "correct-horse-battery\n" : undefined;
    const { stdout: out, stderr: err, code } = await runAtelier(args, { cwd: server.dataDir, env, stdin });
    return { out, err, code };
  }

  async function waitFor(auth: { cookie?: string; apiKey?: string }, genId: string, timeoutMs = 20_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const r = await api.post("/api/generator/query", { gen_id: genId }, auth);
      if (r.body.code === 0 && ["completed", "failed"].includes(r.body.data.status)) return r.body.data;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${genId}: ${JSON.stringify(r.body)}`);
      await Bun.sleep(50);
    }
  }

  test("health names the engine and this process's pool", async () => {
    const res = await fetch(`${server.url}/api/health`);
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data).toMatchObject({ status: "ok", database: "ok", engine: "postgres", pool: { max: 10 } });
    expect(data.pool.in_flight).toBeGreaterThanOrEqual(0);
  });

  test("sign-up, session, sign-in and sign-out through better-auth's PostgreSQL tables", async () => {
    const email = uniqueEmail("pg");
    const { cookie, userId } = await api.signUp(email, { name: "Grace" });
    const info = await api.post("/api/get-user-info", undefined, { cookie });
    expect(info.body.data).toMatchObject({ uuid: userId, email, nickname: "Grace" });
    const again = await api.signIn(email);
    expect((await api.post("/api/get-user-info", undefined, { cookie: again })).body.data.uuid).toBe(userId);
    const wrong = await fetch(`${server.url}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.url },
      body: JSON.stringify({ email, password: "not-the-password" }),
    });
    expect(wrong.status).toBe(401);
    const out = await fetch(`${server.url}/api/auth/sign-out`, {
      method: "POST",
      headers: { cookie: again, origin: server.url, "content-type": "application/json" },
      body: "{}",
    });
    expect(out.status).toBe(200);
    expect((await api.post("/api/get-user-info", undefined, { cookie: again })).body.code).toBe(1);
  });

  test("check-in, an API key, and a generation the runner claims and completes", async () => {
    const { cookie } = await api.signUp(uniqueEmail("pg-gen"));
    const key = await api.post("/api/keys/create", { name: "pg" }, { cookie });
    expect(key.body.code).toBe(0);
    const apiKey = key.body.data.key as string;
    const before = (await api.post("/api/get-user-credits", undefined, { apiKey })).body.data;
    expect((await api.post("/api/ping", undefined, { cookie })).body.code).toBe(0);
    expect((await api.post("/api/ping", undefined, { cookie })).body.code).toBe(0);
    const after = (await api.post("/api/get-user-credits", undefined, { apiKey })).body.data;
    expect(after.left_credits).toBe(before.left_credits + 1);

    const gen = await api.post(
      "/api/generator/generate",
      { ...IMAGE, prompt: "a lighthouse on PostgreSQL" },
      { apiKey },
    );
    expect(gen.body.code).toBe(0);
    const done = await waitFor({ apiKey }, gen.body.data.gen_id);
    expect(done.status).toBe("completed");
    expect(done.result_urls.length).toBeGreaterThan(0);
    const media = await fetch(done.result_urls[0]);
    expect(media.status).toBe(200);
    const charged = (await api.post("/api/get-user-credits", undefined, { apiKey })).body.data;
    expect(charged.left_credits).toBe(after.left_credits - 3);
    const history = await api.post("/api/generator/history", {}, { apiKey });
    expect(history.body.data.generations.map((g: { gen_id: string }) => g.gen_id)).toEqual([gen.body.data.gen_id]);
  });

  test("nothing is written to a SQLite file; a warning says media stay on this node", () => {
    const files = filesUnder(server.dataDir);
    expect(files.filter((f) => /\.db(-wal|-shm)?$/.test(f) || f.endsWith(".auth-secret"))).toEqual([]);
    expect(server.logs()).toContain("other nodes cannot serve them");
  });

  test("BETTER_AUTH_SECRET is needed to serve, not to run the worker or the CLI", async () => {
    const serve = await cli("serve");
    expect([serve.code, serve.err.trim()]).toEqual([
      1,
      "invalid configuration: BETTER_AUTH_SECRET: required when DATABASE_URL is set (every node shares it; 32+ random characters)",
    ]);
    const { BETTER_AUTH_SECRET: _, ...env } = server.env;
    const worker = Bun.spawn([...atelierCommand(), "worker"], {
      cwd: server.dataDir,
      env: { ...env, LOG_LEVEL: "info" },
      stdout: "pipe",
      stderr: "pipe",
    });
    let out = "";
    const reader = (worker.stdout as ReadableStream<Uint8Array>).getReader();
    const deadline = Date.now() + 20_000;
    while (!out.includes('"msg":"worker started"') && Date.now() < deadline) {
      const { done, value } = await reader.read();
      if (done) break;
      out += new TextDecoder().decode(value);
    }
    worker.kill("SIGTERM");
    expect(await worker.exited).toBe(0);
    expect(out).toContain('"msg":"worker started"');
    // No secret was made up for this node alone (nodes on one database must share theirs).
    expect(existsSync(join(server.dataDir, ".auth-secret"))).toBe(false);
  }, 60_000);

  test("the CLI runs on PostgreSQL without BETTER_AUTH_SECRET: migrate, admin promote/demote and products, backup with pg_dump", async () => {
    const migrate = await cli("migrate");
    expect(migrate.err).toBe("");
    expect(migrate.out).toMatch(/^database postgres:\/\/postgres@127\.0\.0\.1:\d+\/atelier: 0 migration\(s\) applied/);
    const email = uniqueEmail("pg-admin");
    await api.signUp(email);
    expect((await cli("admin", "promote", "--email", email)).code).toBe(0);
    const users = await cli("admin", "list-users", "--json");
    expect(users.code).toBe(0);
    expect(JSON.parse(users.out).users.find((u: { email: string }) => u.email === email)).toBeDefined();
    expect((await cli("admin", "demote", "--email", email)).code).toBe(0);
    const products = await cli("admin", "list-products", "--json");
    expect(products.code).toBe(0);
    expect(JSON.parse(products.out).length).toBeGreaterThan(0);

    const dir = mkdtempSync(join(tmpdir(), "atelier-pgdump-"));
    try {
      const file = join(dir, "atelier.dump");
      const backup = await cli("backup", file);
      if (Bun.which("pg_dump")) {
        expect(backup.code).toBe(0);
        expect(backup.out).toContain("backup written with pg_dump");
        expect(statSync(file).size).toBeGreaterThan(1000);
        expect((statSync(file).mode & 0o777).toString(8)).toBe("600");
      } else {
        expect(backup.code).toBe(1);
        expect(backup.err).toContain("pg_dump --format=custom");
      }
      // A PATH with bun and nothing else: no pg_dump.
      mkdirSync(join(dir, "bin"));
      symlinkSync(Bun.which("bun")!, join(dir, "bin", "bun"));
      const noPath = Bun.spawn([join(dir, "bin", "bun"), atelierCommand()[1]!, "backup", join(dir, "other.dump")], {
        cwd: server.dataDir,
        env: { ...server.env, PATH: join(dir, "bin") },
        stdout: "pipe",
        stderr: "pipe",
      });
      const [err, code] = await Promise.all([new Response(noPath.stderr).text(), noPath.exited]);
      expect(code).toBe(1);
      expect(err).toContain("pg_dump is not on PATH");
      expect(err).toContain(
        `pg_dump --format=custom --no-owner --file=${join(dir, "other.dump")} --dbname=postgres://postgres@127.0.0.1:${pg.port}/atelier`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  test("PostgreSQL going away: 503 service busy for the requests that hit it, then the service recovers by itself; no task lost", async () => {
    const { cookie } = await api.signUp(uniqueEmail("pg-restart"));
    // A sync call in flight (2 s) whose result comes back while the database is down: recorded once it is back, within
    // the wait below, not left "processing" until its lease (JOB_LEASE_MS, 60 s) expires (the old behaviour).
    const inFlight = await api.post(
      "/api/generator/generate",
      { ...SYNC, prompt: "in flight [simulate:slow]" },
      { cookie },
    );
    expect(inFlight.body.code).toBe(0);
    await until(
      "the sync call in flight",
      async () =>
        (await api.post("/api/generator/query", { gen_id: inFlight.body.data.gen_id }, { cookie })).body.data.status ===
        "processing"
          ? true
          : undefined,
      10_000,
    );
    // And a task waiting for the runner while the database is down.
    const gen = await api.post("/api/generator/generate", { ...IMAGE, prompt: "survives a restart" }, { cookie });
    expect(gen.body.code).toBe(0);
    await pg.stopServer();
    try {
      const r = await api.post("/api/get-user-credits", undefined, { cookie });
      expect(r.status).toBe(503);
      expect(r.body).toEqual({ code: 1, message: "service busy, please try again", data: null });
      expect(r.headers.get("retry-after")).toBe("1");
      const health = await fetch(`${server.url}/api/health`);
      expect(health.status).toBe(503);
      expect((await health.json()).data).toMatchObject({ database: "error", engine: "postgres" });
      // The outage lasts a few seconds while the runner keeps trying every tick.
      await Bun.sleep(3000);
    } finally {
      await pg.startServer();
    }
    // Back by itself (reconnect attempts back off to at most 1 s: typically under a second here). The bound is loose:
    // under heavy load a connection attempt made during the shutdown can wait out the 10 s connect timeout.
    const back = Date.now();
    while ((await fetch(`${server.url}/api/health`)).status !== 200) {
      if (Date.now() - back > 30_000)
        throw new Error("the server did not recover within 30 s after PostgreSQL came back");
      await Bun.sleep(100);
    }
    const recoveredMs = Date.now() - back; // one health request can itself wait for the reconnect
    console.log(`recovered ${recoveredMs} ms after PostgreSQL was back`);
    expect(recoveredMs).toBeLessThan(30_000);
    const credits = await api.post("/api/get-user-credits", undefined, { cookie });
    expect([credits.status, credits.body.code]).toEqual([200, 0]);
    expect((await waitFor({ cookie }, gen.body.data.gen_id)).status).toBe("completed");
    expect((await waitFor({ cookie }, inFlight.body.data.gen_id)).status).toBe("completed");
    expect(server.logs()).toContain("database unavailable during a step: trying again until it answers");
    expect(server.proc.exitCode).toBeNull();
  }, 60_000);
});
