/**
 * Usage (docs/usage.md): for the caller's tasks created in [from, to), the credits charged — the ledger's debits of
 * those tasks (`credit_debits.charged`), so the sums equal the ledger — and how many completed, failed and were
 * canceled, grouped by UTC day, by model or by the API key that created them. One grouped statement, the same SQL
 * on both engines (the day is `created_at / 86400000`, integer division on both).
 */
import type { Db } from "#db/client";
import { DAY_MS } from "~/lib/clock";
import { AppError } from "~/lib/errors";

export type UsageGroup = "day" | "model" | "key";
export const MAX_USAGE_DAYS = 366;
export const DEFAULT_USAGE_DAYS = 30;

export interface UsageCounts {
  credits: number;
  completed: number;
  failed: number;
  canceled: number;
}

export type UsageRow = UsageCounts &
  (
    | { day: string }
    | { ai_type: string; provider: string; model: string }
    | { key_id: string | null; key_name: string | null }
  );

export interface UsageReport {
  from: string;
  to: string;
  group_by: UsageGroup;
  rows: UsageRow[];
  total: UsageCounts;
}

const GROUP_SQL: Record<UsageGroup, string> = {
  day: "g.created_at / 86400000",
  model: "g.ai_type || '|' || g.provider || '|' || g.model",
  key: "COALESCE(g.api_key_id, '')",
};

const statement = (group: UsageGroup) => `SELECT ${GROUP_SQL[group]} AS grp,
  CASE WHEN g.status = 'failed' AND g.error_message = 'canceled' THEN 'canceled' ELSE g.status END AS st,
  COUNT(*) AS n, COALESCE(SUM(d.charged), 0) AS credits
  FROM generations g LEFT JOIN credit_debits d ON d.gen_id = g.id
  WHERE g.user_id = ? AND g.created_at >= ? AND g.created_at < ?
  GROUP BY ${GROUP_SQL[group]}, CASE WHEN g.status = 'failed' AND g.error_message = 'canceled' THEN 'canceled' ELSE g.status END`;

const KEY_NAMES = `SELECT id, name FROM api_keys WHERE user_id = ?`;

/** The window: `to` defaults to now, `from` to DEFAULT_USAGE_DAYS before `to`; at most MAX_USAGE_DAYS. */
export function usageWindow(input: { from?: string; to?: string }, now: number): { from: number; to: number } {
  const to = input.to ? Date.parse(input.to) : now;
  const from = input.from ? Date.parse(input.from) : to - DEFAULT_USAGE_DAYS * DAY_MS;
  if (!(from < to)) throw new AppError("INVALID_PARAMS", { reason: "from must be before to" });
  if (to - from > MAX_USAGE_DAYS * DAY_MS) {
    throw new AppError("INVALID_PARAMS", { reason: `at most ${MAX_USAGE_DAYS} days per request` });
  }
  return { from, to };
}

export async function usageReport(
  deps: { db: Db; now: number },
  userId: string,
  input: { from?: string; to?: string; group_by?: UsageGroup },
): Promise<UsageReport> {
  const group = input.group_by ?? "day";
  const { from, to } = usageWindow(input, deps.now);
  const raw = await deps.db
    .raw<{ grp: string | number; st: string; n: number | string; credits: number | string }>(statement(group))
    .many(userId, from, to);
  const names =
    group === "key"
      ? new Map(
          (await deps.db.raw<{ id: string; name: string }>(KEY_NAMES).many(userId)).map((k) => [k.id, k.name] as const),
        )
      : undefined;
  const byGroup = new Map<string, UsageCounts>();
  const total: UsageCounts = { credits: 0, completed: 0, failed: 0, canceled: 0 };
  for (const r of raw) {
    const k = String(r.grp);
    let c = byGroup.get(k);
    if (!c) byGroup.set(k, (c = { credits: 0, completed: 0, failed: 0, canceled: 0 }));
    const n = Number(r.n);
    c.credits += Number(r.credits);
    total.credits += Number(r.credits);
    if (r.st === "completed" || r.st === "failed" || r.st === "canceled") {
      c[r.st] += n;
      total[r.st] += n;
    }
  }
  const rows: UsageRow[] = [...byGroup.entries()].map(([k, counts]) => {
    if (group === "day") return { day: new Date(Number(k) * DAY_MS).toISOString().slice(0, 10), ...counts };
    if (group === "model") {
      const [ai_type, provider, ...model] = k.split("|");
      return { ai_type: ai_type!, provider: provider!, model: model.join("|"), ...counts };
    }
    return { key_id: k || null, key_name: k ? (names?.get(k) ?? null) : null, ...counts };
  });
  rows.sort((a, b) =>
    "day" in a && "day" in b
      ? a.day.localeCompare(b.day)
      : b.credits - a.credits || JSON.stringify(a).localeCompare(JSON.stringify(b)),
  );
  return { from: new Date(from).toISOString(), to: new Date(to).toISOString(), group_by: group, rows, total };
}
