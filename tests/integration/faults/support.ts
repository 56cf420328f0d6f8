/** Shared by the fault tests: waiting, final states through the API, and the ledger checked in the database. */
import { Database } from "bun:sqlite";
import { expect } from "bun:test";
import { join } from "node:path";
import type { Auth, Client } from "../../support/client";

export async function waitUntil(fn: () => boolean | Promise<boolean>, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  while (!(await fn())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await Bun.sleep(50);
  }
}

/** Polls generator/query until the task is completed or failed; returns its data. */
export async function finalState(c: Client, auth: Auth, genId: string, timeoutMs = 15_000): Promise<{ status: string; error_message?: string; result_urls?: string[] }> {
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

export const readDb = (dataDir: string) => new Database(join(dataDir, "atelier.db"), { readonly: true });

export function count(dataDir: string, sql: string, ...args: string[]): number {
  const d = readDb(dataDir);
  try {
    return (d.query(sql).get(...args) as { n: number }).n;
  } finally {
    d.close();
  }
}

/**
 * Every user's ledger balances: Σ grants − Σ charged = Σ remaining; one debit per
 * completed task for its cost; none for any other task; nothing left unfinished.
 */
export function expectLedgerBalanced(dataDir: string) {
  const d = readDb(dataDir);
  try {
    expect((d.query("SELECT count(*) AS n FROM generations WHERE status IN ('pending','processing')").get() as any).n).toBe(0);
    for (const { id } of d.query("SELECT id FROM user").all() as { id: string }[]) {
      const g = d.query("SELECT coalesce(sum(amount),0) AS total, coalesce(sum(remaining),0) AS left FROM credit_grants WHERE user_id = ?").get(id) as any;
      const charged = (d.query("SELECT coalesce(sum(charged),0) AS n FROM credit_debits WHERE user_id = ?").get(id) as any).n;
      const spent = (d.query("SELECT coalesce(sum(credits_cost),0) AS n FROM generations WHERE user_id = ? AND status = 'completed'").get(id) as any).n;
      expect({ user: id, left: g.left, charged }).toEqual({ user: id, left: g.total - charged, charged: spent });
    }
    const bad = d
      .query(
        `SELECT count(*) AS n FROM generations g WHERE
           (status = 'completed' AND (SELECT count(*) FROM credit_debits c WHERE c.gen_id = g.id AND c.amount = g.credits_cost) != 1)
        OR (status != 'completed' AND EXISTS (SELECT 1 FROM credit_debits c WHERE c.gen_id = g.id))`,
      )
      .get() as any;
    expect(bad.n).toBe(0);
  } finally {
    d.close();
  }
}

export async function expectHealthy(url: string) {
  const r = await fetch(url + "/api/health");
  expect(r.status).toBe(200);
}
