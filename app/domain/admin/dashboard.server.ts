/**
 * The admin dashboard's figures over the last 7, 30 or 90 days (UTC days): generations per day by model, success
 * rate and p50/p95 time per provider, revenue, provider cost and margin by model and by month, credits outstanding
 * and expiring, sign-ups and active users per day. Read with a few grouped statements; a figure is kept for a
 * minute per range in this process, so reloading the page does not rescan the tables.
 */
import { and, desc, eq, gt, gte, isNull, lte, or, sql } from "drizzle-orm";
import type { Db } from "#db/client";
import { creditGrants, generations, orderPayments, user } from "#db/schema";
import type { Clock } from "~/lib/clock";
import { CANCELED } from "../generations/status";

export const DASHBOARD_RANGES = [7, 30, 90] as const;
export type DashboardRange = (typeof DASHBOARD_RANGES)[number];
export const parseRange = (v: string | null): DashboardRange =>
  (DASHBOARD_RANGES as readonly number[]).includes(Number(v)) ? (Number(v) as DashboardRange) : 30;

const DAY_MS = 86_400_000;
/** Completed tasks read for the time percentiles (the newest of the range). */
const DURATION_SAMPLE = 20_000;
const CACHE_MS = 60_000;
export const EXPIRING_SOON_DAYS = 30;

export interface DashboardDeps {
  db: Db;
  clock: Clock;
  /** What the provider charges for one task of this model, in cents; null when the operator has not set it. */
  costOf: (provider: string, model: string) => number | null;
}

export interface ProviderHealth {
  provider: string;
  total: number;
  completed: number;
  failed: number;
  canceled: number;
  /** completed ÷ (completed + failed), canceled tasks aside; null when none ended. */
  successRate: number | null;
  p50Seconds: number | null;
  p95Seconds: number | null;
}

export interface ModelMoney {
  model: string;
  completed: number;
  creditsCharged: number;
  /** Credits charged × the range's revenue per credit sold. */
  revenueCents: number;
  costCents: number | null;
  marginCents: number | null;
}

export interface MonthMoney {
  month: string;
  revenueCents: number;
  costCents: number;
  marginCents: number;
}

export interface Dashboard {
  range: DashboardRange;
  from: string;
  to: string;
  days: string[];
  /** Series names of generationsByDay: `provider/model`. */
  models: string[];
  generationsByDay: { day: string; counts: Record<string, number> }[];
  providers: ProviderHealth[];
  byModel: ModelMoney[];
  byMonth: MonthMoney[];
  /** Net revenue (payments less refunds) ÷ credits sold, over the range; 0 when nothing was sold. */
  revenuePerCreditCents: number;
  currency: string;
  /** Models that ran in the range without a provider cost set: their margin is unknown. */
  modelsWithoutCost: string[];
  credits: { outstanding: number; expiringSoon: number };
  usersByDay: { day: string; signups: number; active: number }[];
}

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const monthOf = (ms: number) => new Date(ms).toISOString().slice(0, 7);
const num = (v: unknown) => Number(v ?? 0);

function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
  return Math.round(sorted[i]! * 10) / 10;
}

const cache = new Map<DashboardRange, { at: number; value: Dashboard }>();

/** The dashboard for the last `range` days, from this process's cache when it is less than a minute old. */
export async function loadDashboard(deps: DashboardDeps, range: DashboardRange): Promise<Dashboard> {
  const now = deps.clock.now();
  const hit = cache.get(range);
  if (hit && now - hit.at < CACHE_MS) return hit.value;
  const value = await computeDashboard(deps, range);
  cache.set(range, { at: now, value });
  return value;
}

export function clearDashboardCache(): void {
  cache.clear();
}

export async function computeDashboard(deps: DashboardDeps, range: DashboardRange): Promise<Dashboard> {
  const { db, clock } = deps;
  const now = clock.now();
  const firstDay = Math.floor(now / DAY_MS) - (range - 1);
  const from = firstDay * DAY_MS;
  const days = Array.from({ length: range }, (_, i) => dayOf((firstDay + i) * DAY_MS));
  const dayIndex = sql<number>`${generations.createdAt} / ${sql.raw(String(DAY_MS))}`;
  const canceled = sql<number>`sum(case when ${generations.status} = 'failed' and ${generations.errorMessage} = ${CANCELED} then 1 else 0 end)`;

  const grouped = await db.many(
    db
      .select({
        day: dayIndex,
        provider: generations.provider,
        model: generations.model,
        status: generations.status,
        n: sql<number>`count(*)`,
        canceled,
        credits: sql<number>`sum(${generations.creditsCost})`,
      })
      .from(generations)
      .where(gte(generations.createdAt, new Date(from)))
      .groupBy(dayIndex, generations.provider, generations.model, generations.status),
  );

  const durations = await db.many(
    db
      .select({
        provider: generations.provider,
        ms: sql<number>`${generations.completedAt} - ${generations.createdAt}`,
      })
      .from(generations)
      .where(and(gte(generations.createdAt, new Date(from)), eq(generations.status, "completed")))
      .orderBy(desc(generations.createdAt))
      .limit(DURATION_SAMPLE),
  );

  const signupDay = sql<number>`${user.createdAt} / ${sql.raw(String(DAY_MS))}`;
  const signups = await db.many(
    db
      .select({ day: signupDay, n: sql<number>`count(*)` })
      .from(user)
      .where(gte(user.createdAt, new Date(from)))
      .groupBy(signupDay),
  );
  const active = await db.many(
    db
      .select({ day: dayIndex, n: sql<number>`count(distinct ${generations.userId})` })
      .from(generations)
      .where(gte(generations.createdAt, new Date(from)))
      .groupBy(dayIndex),
  );

  const unexpired = or(isNull(creditGrants.expiresAt), gt(creditGrants.expiresAt, new Date(now)));
  const outstanding = await db.one(
    db
      .select({ n: sql<number>`coalesce(sum(${creditGrants.remaining}), 0)` })
      .from(creditGrants)
      .where(and(gt(creditGrants.remaining, 0), unexpired)),
  );
  const expiring = await db.one(
    db
      .select({ n: sql<number>`coalesce(sum(${creditGrants.remaining}), 0)` })
      .from(creditGrants)
      .where(
        and(
          gt(creditGrants.remaining, 0),
          gt(creditGrants.expiresAt, new Date(now)),
          lte(creditGrants.expiresAt, new Date(now + EXPIRING_SOON_DAYS * DAY_MS)),
        ),
      ),
  );

  // Whole calendar months: the first month of the range is counted from its first day.
  const firstMonth = Date.UTC(new Date(from).getUTCFullYear(), new Date(from).getUTCMonth(), 1);
  const payments = await db.many(
    db
      .select({
        amount: orderPayments.amount,
        refunded: orderPayments.refundedAmount,
        credits: orderPayments.credits,
        currency: orderPayments.currency,
        createdAt: orderPayments.createdAt,
      })
      .from(orderPayments)
      .where(gte(orderPayments.createdAt, new Date(firstMonth))),
  );
  const completedDay = sql<number>`${generations.completedAt} / ${sql.raw(String(DAY_MS))}`;
  const completedByDay = await db.many(
    db
      .select({
        day: completedDay,
        provider: generations.provider,
        model: generations.model,
        n: sql<number>`count(*)`,
      })
      .from(generations)
      .where(and(gte(generations.createdAt, new Date(firstMonth)), eq(generations.status, "completed")))
      .groupBy(completedDay, generations.provider, generations.model),
  );

  // ---- generations per day by model, and per provider
  const byDay = new Map<string, Record<string, number>>(days.map((d) => [d, {}]));
  const models = new Set<string>();
  const providers = new Map<string, ProviderHealth>();
  const money = new Map<string, { completed: number; credits: number; provider: string; model: string }>();
  for (const g of grouped) {
    const key = `${g.provider}/${g.model}`;
    const n = num(g.n);
    const c = num(g.canceled);
    models.add(key);
    const counts = byDay.get(dayOf(num(g.day) * DAY_MS));
    if (counts) counts[key] = (counts[key] ?? 0) + n;
    const p = providers.get(g.provider) ?? {
      provider: g.provider,
      total: 0,
      completed: 0,
      failed: 0,
      canceled: 0,
      successRate: null,
      p50Seconds: null,
      p95Seconds: null,
    };
    p.total += n;
    if (g.status === "completed") p.completed += n;
    if (g.status === "failed") {
      p.failed += n - c;
      p.canceled += c;
    }
    providers.set(g.provider, p);
    if (g.status === "completed") {
      const m = money.get(key) ?? { completed: 0, credits: 0, provider: g.provider, model: g.model };
      m.completed += n;
      m.credits += num(g.credits);
      money.set(key, m);
    }
  }
  const times = new Map<string, number[]>();
  for (const d of durations) {
    const list = times.get(d.provider) ?? [];
    list.push(num(d.ms) / 1000);
    times.set(d.provider, list);
  }
  for (const p of providers.values()) {
    const ended = p.completed + p.failed;
    p.successRate = ended > 0 ? p.completed / ended : null;
    const sorted = (times.get(p.provider) ?? []).sort((a, b) => a - b);
    p.p50Seconds = percentile(sorted, 0.5);
    p.p95Seconds = percentile(sorted, 0.95);
  }

  // ---- money
  let netCents = 0;
  let creditsSold = 0;
  const currencies = new Map<string, number>();
  const revenueByMonth = new Map<string, number>();
  for (const pay of payments) {
    const net = num(pay.amount) - num(pay.refunded);
    const at = (pay.createdAt as Date).getTime();
    revenueByMonth.set(monthOf(at), (revenueByMonth.get(monthOf(at)) ?? 0) + net);
    currencies.set(pay.currency, (currencies.get(pay.currency) ?? 0) + 1);
    if (at >= from) {
      netCents += net;
      creditsSold += num(pay.credits);
    }
  }
  const revenuePerCredit = creditsSold > 0 ? netCents / creditsSold : 0;
  const withoutCost = new Set<string>();
  const byModel: ModelMoney[] = [...money.entries()]
    .map(([key, m]) => {
      const unit = deps.costOf(m.provider, m.model);
      if (unit === null) withoutCost.add(key);
      const revenueCents = Math.round(m.credits * revenuePerCredit);
      const costCents = unit === null ? null : unit * m.completed;
      return {
        model: key,
        completed: m.completed,
        creditsCharged: m.credits,
        revenueCents,
        costCents,
        marginCents: costCents === null ? null : revenueCents - costCents,
      };
    })
    .sort((a, b) => b.creditsCharged - a.creditsCharged || a.model.localeCompare(b.model));

  const costByMonth = new Map<string, number>();
  for (const t of completedByDay) {
    const unit = deps.costOf(t.provider, t.model);
    if (unit === null) continue;
    const month = monthOf(num(t.day) * DAY_MS);
    costByMonth.set(month, (costByMonth.get(month) ?? 0) + unit * num(t.n));
  }
  const months: string[] = [];
  for (
    let m = new Date(firstMonth);
    m.getTime() <= now;
    m = new Date(Date.UTC(m.getUTCFullYear(), m.getUTCMonth() + 1, 1))
  )
    months.push(monthOf(m.getTime()));
  const byMonth = months.map((month) => {
    const revenueCents = revenueByMonth.get(month) ?? 0;
    const costCents = costByMonth.get(month) ?? 0;
    return { month, revenueCents, costCents, marginCents: revenueCents - costCents };
  });

  // ---- people
  const signupsByDay = new Map(signups.map((s) => [dayOf(num(s.day) * DAY_MS), num(s.n)]));
  const activeByDay = new Map(active.map((a) => [dayOf(num(a.day) * DAY_MS), num(a.n)]));

  return {
    range,
    from: new Date(from).toISOString(),
    to: new Date(now).toISOString(),
    days,
    models: [...models].sort(),
    generationsByDay: days.map((day) => ({ day, counts: byDay.get(day) ?? {} })),
    providers: [...providers.values()].sort((a, b) => b.total - a.total || a.provider.localeCompare(b.provider)),
    byModel,
    byMonth,
    revenuePerCreditCents: Math.round(revenuePerCredit * 100) / 100,
    currency: [...currencies.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? "usd",
    modelsWithoutCost: [...withoutCost].sort(),
    credits: { outstanding: num(outstanding?.n), expiringSoon: num(expiring?.n) },
    usersByDay: days.map((day) => ({
      day,
      signups: signupsByDay.get(day) ?? 0,
      active: activeByDay.get(day) ?? 0,
    })),
  };
}

/** The dashboard as CSV: one section per table, for a spreadsheet. */
export function dashboardCsv(d: Dashboard): string {
  const cell = (v: unknown) => {
    const s = v === null || v === undefined ? "" : String(v);
    // Formula injection: a cell a spreadsheet would evaluate starts with a quote instead.
    const safe = /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
    return /[",\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
  };
  const rows: unknown[][] = [];
  rows.push(["generations per day", ...d.models]);
  for (const g of d.generationsByDay) rows.push([g.day, ...d.models.map((m) => g.counts[m] ?? 0)]);
  rows.push([]);
  rows.push(["provider", "tasks", "completed", "failed", "canceled", "success rate", "p50 s", "p95 s"]);
  for (const p of d.providers)
    rows.push([p.provider, p.total, p.completed, p.failed, p.canceled, p.successRate, p.p50Seconds, p.p95Seconds]);
  rows.push([]);
  rows.push(["model", "completed", "credits charged", "revenue (cents)", "provider cost (cents)", "margin (cents)"]);
  for (const m of d.byModel)
    rows.push([m.model, m.completed, m.creditsCharged, m.revenueCents, m.costCents, m.marginCents]);
  rows.push([]);
  rows.push(["month", "revenue (cents)", "provider cost (cents)", "margin (cents)"]);
  for (const m of d.byMonth) rows.push([m.month, m.revenueCents, m.costCents, m.marginCents]);
  rows.push([]);
  rows.push(["day", "sign-ups", "active users"]);
  for (const u of d.usersByDay) rows.push([u.day, u.signups, u.active]);
  rows.push([]);
  rows.push(["credits outstanding", d.credits.outstanding]);
  rows.push([`credits expiring within ${EXPIRING_SOON_DAYS} days`, d.credits.expiringSoon]);
  return `${rows.map((r) => r.map(cell).join(",")).join("\n")}\n`;
}
