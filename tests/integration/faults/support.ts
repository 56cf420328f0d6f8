/** Shared by the fault tests: waiting, final states through the API, and the ledger checked in the database. */
import { expect } from "bun:test";
import type { Auth, Client } from "../../support/client";
import { countIn, serverSql } from "../../support/db";

export async function waitUntil(fn: () => boolean | Promise<boolean>, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  while (!(await fn())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await Bun.sleep(50);
  }
}

/** Polls generator/query until the task is completed or failed; returns its data. */
export async function finalState(
  c: Client,
  auth: Auth,
  genId: string,
  timeoutMs = 15_000,
): Promise<{ status: string; error_message?: string; result_urls?: string[] }> {
  let last: any;
  await waitUntil(
    async () => {
      const r = await c.post("/api/generator/query", { gen_id: genId }, auth);
      expect(r.status).toBeLessThan(500);
      last = r.body.data;
      return last?.status === "completed" || last?.status === "failed";
    },
    timeoutMs,
    `task ${genId} to finish (last: ${JSON.stringify(last)})`,
  );
  return last;
}

/** `SELECT count(*) AS n …` on the server's database (SQLite file or PostgreSQL). */
export const count = countIn;

/**
 * Every user's ledger balances: Σ grants − Σ charged = Σ remaining; one debit per
 * completed task for its cost; none for any other task; nothing left unfinished.
 */
export async function expectLedgerBalanced(dataDir: string) {
  const d = await serverSql(dataDir);
  try {
    expect(
      ((await d.get("SELECT count(*) AS n FROM generations WHERE status IN ('pending','processing')")) as any).n,
    ).toBe(0);
    for (const { id } of (await d.all('SELECT id FROM "user"')) as { id: string }[]) {
      const g = (await d.get(
        "SELECT coalesce(sum(amount),0) AS total, coalesce(sum(remaining),0) AS remaining FROM credit_grants WHERE user_id = ?",
        id,
      )) as any;
      const charged = (
        (await d.get("SELECT coalesce(sum(charged),0) AS n FROM credit_debits WHERE user_id = ?", id)) as any
      ).n;
      const spent = (
        (await d.get(
          "SELECT coalesce(sum(credits_cost),0) AS n FROM generations WHERE user_id = ? AND status = 'completed'",
          id,
        )) as any
      ).n;
      expect({ user: id, left: g.remaining, charged }).toEqual({ user: id, left: g.total - charged, charged: spent });
    }
    const bad = (await d.get(`SELECT count(*) AS n FROM generations g WHERE
           (status = 'completed' AND (SELECT count(*) FROM credit_debits c WHERE c.gen_id = g.id AND c.amount = g.credits_cost) != 1)
        OR (status != 'completed' AND EXISTS (SELECT 1 FROM credit_debits c WHERE c.gen_id = g.id))`)) as any;
    expect(bad.n).toBe(0);
  } finally {
    await d.close();
  }
}

export async function expectHealthy(url: string) {
  const r = await fetch(`${url}/api/health`);
  expect(r.status).toBe(200);
}
