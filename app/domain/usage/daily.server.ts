/**
 * The account page's usage: the last `days` UTC days (today included) from usageReport grouped by day, with the days
 * without tasks filled in as zeros so a chart has one bar per day.
 */
import type { Db } from "#db/client";
import { DAY_MS } from "~/lib/clock";
import { type UsageCounts, usageReport } from "./usage.server";

export interface DailyUsage {
  from: string;
  to: string;
  days: (UsageCounts & { day: string })[];
  total: UsageCounts;
}

export async function dailyUsage(deps: { db: Db; now: number }, userId: string, days = 30): Promise<DailyUsage> {
  const firstDay = Math.floor(deps.now / DAY_MS) - (days - 1);
  const report = await usageReport(deps, userId, {
    from: new Date(firstDay * DAY_MS).toISOString(),
    to: new Date(deps.now + 1).toISOString(),
    group_by: "day",
  });
  const byDay = new Map(report.rows.flatMap((r) => ("day" in r ? [[r.day, r] as const] : [])));
  const list = Array.from({ length: days }, (_, i) => {
    const day = new Date((firstDay + i) * DAY_MS).toISOString().slice(0, 10);
    const row = byDay.get(day);
    return {
      day,
      credits: row?.credits ?? 0,
      completed: row?.completed ?? 0,
      failed: row?.failed ?? 0,
      canceled: row?.canceled ?? 0,
    };
  });
  return { from: report.from, to: report.to, days: list, total: report.total };
}
