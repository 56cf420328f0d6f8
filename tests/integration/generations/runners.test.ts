/**
 * The job runner across processes (docs/design.md §4): two servers on one database
 * file run each task once and debit it once; a server killed with SIGKILL in
 * the middle of work is restarted and every task ends completed or failed with
 * the credits right; SIGTERM stops gracefully.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, uniqueEmail } from "../../support/client";
import { serverSql } from "../../support/db";
import { atelierCommand, startServer, type TestServer } from "../../support/server";

const ASYNC = { ai_type: "image", provider: "replicate", model: "black-forest-labs/flux-schnell" } as const; // 3
const SYNC = { ai_type: "image", provider: "openai", model: "dall-e-3" } as const; // 5
const COST: Record<string, number> = { replicate: 3, openai: 5 };

async function waitUntil(fn: () => boolean | Promise<boolean>, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  while (!(await fn())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await Bun.sleep(100);
  }
}

const unfinished = async (dataDir: string) => {
  const d = await serverSql(dataDir);
  try {
    return ((await d.get("SELECT count(*) AS n FROM generations WHERE status IN ('pending','processing')")) as any)
      .n as number;
  } finally {
    await d.close();
  }
};

/** Every user's balance equals grants − Σ cost of their completed tasks; one debit per completed task, none for failed. */
async function checkLedger(dataDir: string, signupCredits: number) {
  const d = await serverSql(dataDir);
  try {
    const users = (await d.all('SELECT id FROM "user"')) as { id: string }[];
    for (const { id } of users) {
      const spent = (
        (await d.get(
          "SELECT coalesce(sum(credits_cost),0) AS n FROM generations WHERE user_id = ? AND status = 'completed'",
          id,
        )) as any
      ).n;
      const left = ((await d.get("SELECT sum(remaining) AS n FROM credit_grants WHERE user_id = ?", id)) as any).n;
      expect(left).toBe(signupCredits - spent);
    }
    const completedWithoutDebit = (await d.get(
      "SELECT count(*) AS n FROM generations g WHERE status = 'completed' AND (SELECT count(*) FROM credit_debits c WHERE c.gen_id = g.id) != 1",
    )) as any;
    expect(completedWithoutDebit.n).toBe(0);
    const debitsOfOthers = (await d.get(
      "SELECT count(*) AS n FROM credit_debits c JOIN generations g ON g.id = c.gen_id WHERE g.status != 'completed'",
    )) as any;
    expect(debitsOfOthers.n).toBe(0);
    const wrongAmount = (await d.get(
      "SELECT count(*) AS n FROM credit_debits c JOIN generations g ON g.id = c.gen_id WHERE c.amount != g.credits_cost OR c.charged != g.credits_cost",
    )) as any;
    expect(wrongAmount.n).toBe(0);
  } finally {
    await d.close();
  }
}

describe("two runner processes on one database", () => {
  test("200 tasks: each run once, debited once, and both processes took part", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "atelier-2runners-"));
    const env = {
      SIMULATOR_DELAY_MS: "20",
      SIGNUP_CREDITS: "1000",
      JOB_CONCURRENCY: "4",
      JOB_TICK_MS: "20",
      LOG_LEVEL: "debug",
    };
    const a = await startServer({ dataDir, env });
    const b = await startServer({ dataDir, env });
    try {
      const ca = new Client(a.url);
      const cb = new Client(b.url);
      const users = await Promise.all(Array.from({ length: 4 }, () => ca.signUp(uniqueEmail("two"))));
      const ids: string[] = [];
      // 200 creates, alternating servers, 20 at a time.
      for (let batch = 0; batch < 10; batch++) {
        const res = await Promise.all(
          Array.from({ length: 20 }, (_, i) => {
            const n = batch * 20 + i;
            const c = n % 2 ? cb : ca;
            const kind = n % 5 === 0 ? SYNC : ASYNC;
            return c.post(
              "/api/generator/generate",
              { ...kind, prompt: `task ${n}` },
              { cookie: users[n % 4]!.cookie },
            );
          }),
        );
        for (const r of res) {
          // A refusal names itself, and the servers' first error lines go with it (a PostgreSQL deadlock was an HTTP 500 here).
          if (r.body.code !== 0)
            console.log(
              [a.logs(), b.logs()]
                .join("\n")
                .split("\n")
                .filter((l) => l.includes('"level":"error"'))
                .slice(0, 3)
                .join("\n"),
            );
          expect(r.body.code === 0 ? "created" : `${r.status} ${r.body.message}`).toBe("created");
          ids.push(r.body.data.gen_id);
        }
      }
      await waitUntil(async () => (await unfinished(dataDir)) === 0, 60_000, "all 200 tasks finished");

      const d = await serverSql(dataDir);
      try {
        const rows = (await d.all("SELECT id, status, attempts, provider FROM generations")) as any[];
        expect(rows.length).toBe(200);
        expect(rows.every((r) => r.status === "completed")).toBe(true);
        // attempts counts submits (or sync generate calls): exactly one per task.
        expect(rows.filter((r) => r.attempts !== 1)).toEqual([]);
        const debits = (await d.all("SELECT gen_id, count(*) AS n FROM credit_debits GROUP BY gen_id")) as any[];
        expect(debits.length).toBe(200);
        expect(debits.every((x) => x.n === 1)).toBe(true);
      } finally {
        await d.close();
      }
      await checkLedger(dataDir, 1000);
      expect(readdirSync(join(dataDir, "media")).length).toBe(200);

      // Each completion is logged once by the process that did it: no task twice, both processes worked.
      const done = (s: TestServer) =>
        s
          .logs()
          .split("\n")
          .filter((l) => l.includes('"msg":"generation completed"'))
          .map((l) => JSON.parse(l).gen_id as string);
      // A completion's log line reaches us through the process's stdout pipe a moment after its commit.
      await waitUntil(() => done(a).length + done(b).length >= 200, 10_000, "200 completion log lines");
      await Bun.sleep(200); // a duplicate line, if any, would arrive now
      const byA = done(a);
      const byB = done(b);
      expect(byA.length + byB.length).toBe(200);
      expect(new Set([...byA, ...byB]).size).toBe(200);
      expect(byA.length).toBeGreaterThan(0);
      expect(byB.length).toBeGreaterThan(0);
    } finally {
      await a.stop();
      await b.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe("atelier worker", () => {
  test("a web process with JOBS=off and a separate worker process: tasks complete; SIGTERM stops the worker", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "atelier-worker-"));
    const web = await startServer({ dataDir, env: { JOBS: "off", SIMULATOR_DELAY_MS: "30" } });
    let worker: ReturnType<typeof Bun.spawn> | undefined;
    try {
      const c = new Client(web.url);
      const { cookie } = await c.signUp(uniqueEmail("worker"));
      const id = (await c.post("/api/generator/generate", { ...ASYNC, prompt: "by the worker" }, { cookie })).body.data
        .gen_id;
      await Bun.sleep(300);
      expect((await c.post("/api/generator/query", { gen_id: id }, { cookie })).body.data.status).toBe("pending");
      worker = Bun.spawn([...atelierCommand(), "worker"], {
        cwd: dataDir,
        env: { ...web.env, JOBS: "on" },
        stdout: "ignore",
        stderr: "ignore",
      });
      await waitUntil(async () => (await unfinished(dataDir)) === 0, 15_000, "worker finished the task");
      const r = await c.post("/api/generator/query", { gen_id: id }, { cookie });
      expect(r.body.data.status).toBe("completed");
      expect(r.body.data.result_urls[0]).toStartWith(`${web.url}/media/${id}/`);
      expect((await fetch(r.body.data.result_urls[0])).status).toBe(200);
      worker.kill("SIGTERM");
      expect(await worker.exited).toBe(0);
    } finally {
      if (worker && worker.exitCode === null) worker.kill("SIGKILL");
      await web.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 30_000);

  test("the worker announces 'worker started' only once SIGTERM stops it gracefully (a supervisor may stop it at once)", async () => {
    // Logged before the handlers exist, the line would let a SIGTERM sent on reading it meet the default
    // disposition (exit 143, no "shutting down"): about one time in three.
    const run = Bun.spawnSync(["bun", join(import.meta.dir, "../../support/stop-worker-at-once.ts"), "15"], {
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(run.exitCode).toBe(0);
    expect(JSON.parse(run.stdout.toString())).toEqual({ rounds: 15, failures: [] });
  }, 60_000);
});

describe("crash and restart", () => {
  test("SIGKILL in the middle of processing: after a restart every task ends completed or failed, credits right", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "atelier-kill-"));
    const env = { SIMULATOR_DELAY_MS: "600", SIGNUP_CREDITS: "1000", JOB_LEASE_MS: "1000", JOB_CONCURRENCY: "8" };
    let s = await startServer({ dataDir, env });
    try {
      const c = new Client(s.url);
      const { cookie } = await c.signUp(uniqueEmail("kill"));
      for (let i = 0; i < 16; i++) {
        const kind = i % 2 ? SYNC : ASYNC;
        const prompt = i % 7 === 3 ? `doomed ${i} [simulate:fail]` : `task ${i}`;
        expect((await c.post("/api/generator/generate", { ...kind, prompt }, { cookie })).body.code).toBe(0);
      }
      // Wait until work is under way: sync calls in flight (leased), async ones submitted.
      await waitUntil(
        async () => {
          const d = await serverSql(dataDir);
          try {
            return ((await d.get("SELECT count(*) AS n FROM generations WHERE status = 'processing'")) as any).n >= 8;
          } finally {
            await d.close();
          }
        },
        10_000,
        "tasks processing",
      );
      expect(await s.stop("SIGKILL")).not.toBe(0);
      {
        const d = await serverSql(dataDir);
        const stuck = (
          (await d.get(
            "SELECT count(*) AS n FROM generations WHERE status = 'processing' AND lease_owner IS NOT NULL",
          )) as any
        ).n;
        await d.close();
        expect(stuck).toBeGreaterThan(0); // leases of the dead process remain until they expire
      }

      s = await startServer({ dataDir, env });
      await waitUntil(async () => (await unfinished(dataDir)) === 0, 30_000, "all tasks finished after restart");
      const d = await serverSql(dataDir);
      try {
        const rows = (await d.all("SELECT status, provider, prompt, error_message FROM generations")) as any[];
        expect(rows.length).toBe(16);
        for (const r of rows) {
          expect(["completed", "failed"]).toContain(r.status);
          if (r.prompt.includes("[simulate:fail]")) expect(r.status).toBe("failed");
          // Simulated tasks are safe to resubmit, so none is lost to the crash.
          else expect(r.status).toBe("completed");
        }
        const spent = rows.filter((r) => r.status === "completed").reduce((a, r) => a + COST[r.provider]!, 0);
        expect(spent).toBeGreaterThan(0);
      } finally {
        await d.close();
      }
      await checkLedger(dataDir, 1000);
    } finally {
      await s.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 90_000);

  test("SIGTERM: in-flight calls finish, leases are released, a restart finishes the rest", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "atelier-term-"));
    const env = { SIMULATOR_DELAY_MS: "1200", SIGNUP_CREDITS: "1000", LOG_LEVEL: "info" };
    let s = await startServer({ dataDir, env });
    try {
      const c = new Client(s.url);
      const { cookie } = await c.signUp(uniqueEmail("term"));
      const syncIds: string[] = [];
      for (let i = 0; i < 3; i++)
        syncIds.push(
          (await c.post("/api/generator/generate", { ...SYNC, prompt: `in flight ${i}` }, { cookie })).body.data.gen_id,
        );
      for (let i = 0; i < 3; i++)
        await c.post("/api/generator/generate", { ...ASYNC, prompt: `slow ${i} [simulate:slow]` }, { cookie });
      await Bun.sleep(500); // the sync calls are in flight (1.2 s each), the async ones wait between polls
      const t0 = Date.now();
      expect(await s.stop("SIGTERM")).toBe(0);
      expect(Date.now() - t0).toBeLessThan(8000);
      expect(s.logs()).toContain('"msg":"job runner stopped"');
      const d = await serverSql(dataDir);
      const leased = ((await d.get("SELECT count(*) AS n FROM generations WHERE lease_owner IS NOT NULL")) as any).n;
      const finished = (await d.all(
        `SELECT status FROM generations WHERE id IN (${syncIds.map(() => "?").join(",")})`,
        ...syncIds,
      )) as any[];
      await d.close();
      expect(leased).toBe(0);
      expect(finished.map((r) => r.status)).toEqual(["completed", "completed", "completed"]);
      s = await startServer({ dataDir, env });
      await waitUntil(async () => (await unfinished(dataDir)) === 0, 30_000, "tasks finished after restart");
      await checkLedger(dataDir, 1000);
    } finally {
      await s.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
