/**
 * An admin's decision on a report (docs/safety.md "Reports and takedowns", ADR 149).
 *
 * `dismiss` closes the report. `remove` takes the task's results down, in this order:
 * 1. for the always-refused reason (apparent CSAM), the bytes are copied to the quarantine area first (evidence);
 * 2. one transaction: the report open → removed (a guarded write: a second decision loses and is told so), the
 *    task's other open reports with it, a `takedowns` row (from here on every node's /media answers 410 Gone for the
 *    task's files), the task's result_urls emptied, its placeholder cleared, and it leaves the owner's gallery
 *    (hidden_at) with the owner's tasks_version moved so remembered history pages are rebuilt;
 * 3. the stored files (originals and derivatives, local disk or the bucket) are deleted.
 */
import { and, eq, sql } from "drizzle-orm";
import { type Db, many, one, run } from "#db/client";
import { generations, reports, takedowns, userGenerationStats } from "#db/schema";
import { forgetHistoryEntry } from "~/domain/generations/history.server";
import { parseResultUrls } from "~/domain/generations/views.server";
import type { Clock } from "~/lib/clock";
import { AppError } from "~/lib/errors";
import { log } from "~/lib/log.server";
import type { ResultStorage } from "~/storage/types";
import { quarantineResults } from "./quarantine.server";
import { EVIDENCE_REASON, type ResolveReportInput } from "./reasons";
import { type ReportRow, toReportView } from "./views";

export interface ResolveDeps {
  db: Db;
  clock: Clock;
  storage: Pick<ResultStorage, "read" | "deletePrefix">;
  dataDir: string;
}

export async function resolveReport(deps: ResolveDeps, adminId: string, input: ResolveReportInput) {
  const { db, clock } = deps;
  const report = (await db.one(db.select().from(reports).where(eq(reports.id, input.report_id)))) as
    | ReportRow
    | undefined;
  if (!report) throw new AppError("REPORT_NOT_FOUND");
  if (report.status !== "open") throw new AppError("REPORT_RESOLVED");
  const note = input.note?.trim() || null;
  const now = clock.now();
  const decided = { resolvedAt: new Date(now), resolvedBy: adminId, resolutionNote: note };

  if (input.action === "dismiss") {
    const changed = await db.run(
      db
        .update(reports)
        .set({ status: "dismissed", ...decided })
        .where(and(eq(reports.id, report.id), eq(reports.status, "open"))),
    );
    if (changed === 0) throw new AppError("REPORT_RESOLVED");
    return { report: { ...toReportView({ ...report, status: "dismissed" }) }, removed_files: 0, quarantined: false };
  }

  const task = await db.one(db.select().from(generations).where(eq(generations.id, report.genId)));
  const urls = task ? parseResultUrls(task) : [];
  const alreadyDown = await db.one(db.select().from(takedowns).where(eq(takedowns.genId, report.genId)));
  const keepEvidence = report.reason === EVIDENCE_REASON && urls.length > 0;
  const evidence =
    keepEvidence && deps.storage.read
      ? await quarantineResults(deps.dataDir, report.genId, urls, (u) => deps.storage.read!(u), {
          report_id: report.id,
          reason: report.reason,
          owner_id: report.ownerId,
          reporter_id: report.reporterId,
          prompt: task?.prompt ?? null,
          created_at: task ? new Date(task.createdAt).toISOString() : null,
          removed_by: adminId,
          removed_at: new Date(now).toISOString(),
        })
      : [];

  const won = await db.tx(function* (t) {
    const changed = yield* run(
      t
        .update(reports)
        .set({ status: "removed", ...decided })
        .where(and(eq(reports.id, report.id), eq(reports.status, "open"))),
    );
    if (changed === 0) return false;
    // The task's other open reports are answered by the same removal.
    yield* run(
      t
        .update(reports)
        .set({ status: "removed", ...decided })
        .where(and(eq(reports.genId, report.genId), eq(reports.status, "open"))),
    );
    if (!alreadyDown) {
      yield* run(
        t
          .insert(takedowns)
          .values({
            genId: report.genId,
            reportId: report.id,
            reason: report.reason,
            resultUrls: JSON.stringify(urls),
            quarantined: evidence.length > 0 ? 1 : 0,
            evidence: evidence.length > 0 ? JSON.stringify(evidence) : null,
            removedBy: adminId,
            note,
            removedAt: new Date(now),
          })
          .onConflictDoNothing(),
      );
    } else if (evidence.length > 0) {
      yield* run(
        t
          .update(takedowns)
          .set({ quarantined: 1, evidence: JSON.stringify(evidence) })
          .where(eq(takedowns.genId, report.genId)),
      );
    }
    const owners = yield* many(
      t
        .update(generations)
        .set({
          resultUrls: "[]",
          placeholder: null,
          renditions: null,
          hiddenAt: sql`coalesce(${generations.hiddenAt}, ${now})`,
        })
        .where(eq(generations.id, report.genId))
        .returning({ userId: generations.userId }),
    );
    for (const o of owners)
      yield* run(
        t
          .update(userGenerationStats)
          .set({ tasksVersion: sql`${userGenerationStats.tasksVersion} + 1` })
          .where(eq(userGenerationStats.userId, o.userId)),
      );
    yield* one(t.select({ id: reports.id }).from(reports).where(eq(reports.id, report.id)));
    return true;
  });
  if (!won) throw new AppError("REPORT_RESOLVED");
  forgetHistoryEntry(db, report.genId);

  let removedFiles = 0;
  if (deps.storage.deletePrefix) {
    try {
      await deps.storage.deletePrefix(`${report.genId}/`);
      removedFiles = urls.length;
    } catch (error) {
      // The takedown row already answers 410 for every file; the bytes go on the next try (the admin page's retry).
      log.warn("deleting a removed task's files failed", { gen_id: report.genId, error });
    }
  }
  log.info("result taken down", {
    gen_id: report.genId,
    report_id: report.id,
    reason: report.reason,
    quarantined: evidence.length,
  });
  return {
    report: toReportView({ ...report, status: "removed" }),
    removed_files: removedFiles,
    quarantined: evidence.length > 0,
  };
}
