/** The admin queue of reports (docs/safety.md "Reports and takedowns"): earliest due first, each with its task. */
import { asc, eq, inArray } from "drizzle-orm";
import type { Db } from "#db/client";
import { generations, reports, takedowns, user } from "#db/schema";
import { parseResultUrls } from "~/domain/generations/views.server";
import { iso } from "~/lib/clock";
import type { ReportStatus } from "./reasons";
import { toReportView } from "./views";

export async function listReports(
  deps: { db: Db; clock: { now(): number } },
  opts: { status?: ReportStatus | "all"; limit?: number },
) {
  const { db } = deps;
  const status = opts.status ?? "open";
  const base = db
    .select({
      report: reports,
      prompt: generations.prompt,
      model: generations.model,
      resultUrls: generations.resultUrls,
      removedAt: takedowns.removedAt,
      quarantined: takedowns.quarantined,
      takenDownUrls: takedowns.resultUrls,
    })
    .from(reports)
    .leftJoin(generations, eq(generations.id, reports.genId))
    .leftJoin(takedowns, eq(takedowns.genId, reports.genId));
  const rows = await db.many(
    (status === "all" ? base : base.where(eq(reports.status, status)))
      .orderBy(asc(reports.dueAt), asc(reports.id))
      .limit(opts.limit ?? 100),
  );
  const ids = [...new Set(rows.flatMap((r) => [r.report.reporterId, r.report.ownerId]))];
  const emails = new Map(
    ids.length === 0
      ? []
      : (await db.many(db.select({ id: user.id, email: user.email }).from(user).where(inArray(user.id, ids)))).map(
          (u) => [u.id, u.email] as const,
        ),
  );
  const now = deps.clock.now();
  return rows.map((r) => ({
    ...toReportView(r.report),
    details: r.report.details,
    overdue: r.report.status === "open" && new Date(r.report.dueAt).getTime() <= now,
    reporter_email: emails.get(r.report.reporterId) ?? null,
    owner_id: r.report.ownerId,
    owner_email: emails.get(r.report.ownerId) ?? null,
    prompt: r.prompt ?? null,
    model: r.model ?? null,
    result_urls:
      r.removedAt !== null && r.takenDownUrls
        ? parseResultUrls({ resultUrls: r.takenDownUrls })
        : parseResultUrls({ resultUrls: r.resultUrls ?? null }),
    removed_at: iso(r.removedAt),
    quarantined: r.quarantined === 1,
    resolved_at: iso(r.report.resolvedAt),
    resolution_note: r.report.resolutionNote,
  }));
}
