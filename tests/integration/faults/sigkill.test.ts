/**
 * SIGKILL of the server in the middle of load (clients creating and polling
 * tasks), then a restart on the same database: every task the API accepted
 * ends completed or failed, none is stuck, and each user's ledger balances.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, uniqueEmail } from "../../support/client";
import { serverSql } from "../../support/db";
import { startServer } from "../../support/server";
import { count, expectHealthy, expectLedgerBalanced, waitUntil } from "./support";

const KINDS = [
  { ai_type: "image", provider: "replicate", model: "black-forest-labs/flux-schnell" },
  { ai_type: "image", provider: "openai", model: "dall-e-3" },
  { ai_type: "video", provider: "runway", model: "gen4.5" },
] as const;

describe("SIGKILL under load", () => {
  test("killed while 12 clients create and poll; after a restart no accepted task is lost or stuck, credits right", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "atelier-kill-load-"));
    const env = { SIMULATOR_DELAY_MS: "300", JOB_LEASE_MS: "1000", SIGNUP_CREDITS: "1000", JOB_CONCURRENCY: "8" };
    let s = await startServer({ dataDir, env });
    const port = s.port;
    try {
      const c = new Client(s.url);
      const users = await Promise.all(Array.from({ length: 3 }, () => c.signUp(uniqueEmail("kill"))));
      const accepted = new Set<string>();
      const doomed = new Set<string>();
      let serverErrors = 0;
      let killed = false;
      const client = async (n: number) => {
        const { cookie } = users[n % users.length]!;
        for (let i = 0; !killed; i++) {
          try {
            const fail = i % 6 === 5;
            const r = await c.post(
              "/api/generator/generate",
              { ...KINDS[(n + i) % KINDS.length], prompt: `load ${n}/${i}${fail ? " [simulate:fail]" : ""}` },
              { cookie },
            );
            if (r.status >= 500) serverErrors++;
            if (r.body.code === 0) {
              accepted.add(r.body.data.gen_id);
              if (fail) doomed.add(r.body.data.gen_id);
              const q = await c.post("/api/generator/query", { gen_id: r.body.data.gen_id }, { cookie });
              if (q.status >= 500) serverErrors++;
            }
          } catch {
            // The server died under this request: expected once killed.
            if (!killed) await Bun.sleep(10);
          }
        }
      };
      const clients = Array.from({ length: 12 }, (_, n) => client(n));
      await waitUntil(
        async () =>
          (await count(dataDir, "SELECT count(*) AS n FROM generations WHERE status = 'processing'")) >= 4 &&
          accepted.size >= 30,
        15_000,
        "work under way",
      );
      expect(await s.stop("SIGKILL")).not.toBe(0);
      killed = true;
      await Promise.all(clients);
      expect(serverErrors).toBe(0);
      expect(
        await count(dataDir, "SELECT count(*) AS n FROM generations WHERE status IN ('pending','processing')"),
      ).toBeGreaterThan(0);

      s = await startServer({ dataDir, env, port });
      await waitUntil(
        async () =>
          (await count(dataDir, "SELECT count(*) AS n FROM generations WHERE status IN ('pending','processing')")) ===
          0,
        40_000,
        "every task finished after the restart",
      );
      const d = await serverSql(dataDir);
      try {
        const rows = new Map(
          (
            (await d.all("SELECT id, status, error_message AS err FROM generations")) as {
              id: string;
              status: string;
              err: string | null;
            }[]
          ).map((r) => [r.id, r]),
        );
        for (const id of accepted) {
          const r = rows.get(id);
          expect(r).toBeDefined();
          // Simulated work is safe to resubmit, so the crash costs no task; only the doomed ones fail.
          expect(r!.status).toBe(doomed.has(id) ? "failed" : "completed");
        }
        // A task created by a request whose answer the kill swallowed may exist beyond `accepted`: it ended too.
        for (const r of rows.values()) expect(["completed", "failed"]).toContain(r.status);
      } finally {
        await d.close();
      }
      await expectLedgerBalanced(dataDir);
      await expectHealthy(s.url);
    } finally {
      await s.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 90_000);
});
