/**
 * Filing a report about a result (docs/safety.md "Reports and takedowns"). A signed-in user reports a task they can
 * see — their own (the owner can report a problem with their own result); admins any — and another user's task reads
 * as `generation not found`, as everywhere else. A second report of the same task by the same user returns the first
 * (idempotent, and it does not count against the hourly bound); new reports past REPORTS_PER_HOUR answer 429.
 */
import { randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import type { Db } from "#db/client";
import { generations, reports } from "#db/schema";
import { takeOrRefuse } from "~/domain/rate-limits/limiter.server";
import type { Clock } from "~/lib/clock";
import { AppError } from "~/lib/errors";
import { type CreateReportInput, REPORT_DUE_MS, REPORTS_PER_HOUR } from "./reasons";
import { type ReportRow, toReportView } from "./views";

const REPORT_POLICY = { limit: REPORTS_PER_HOUR, windowMs: 3_600_000 };

export async function createReport(
  deps: { db: Db; clock: Clock },
  reporter: { id: string; isAdmin: boolean },
  input: CreateReportInput,
) {
  const { db, clock } = deps;
  const task = await db.one(
    db
      .select({ id: generations.id, userId: generations.userId })
      .from(generations)
      .where(
        reporter.isAdmin
          ? eq(generations.id, input.gen_id)
          : and(eq(generations.id, input.gen_id), eq(generations.userId, reporter.id)),
      ),
  );
  if (!task) throw new AppError("GENERATION_NOT_FOUND");

  const existing = () =>
    db.one(
      db
        .select()
        .from(reports)
        .where(and(eq(reports.reporterId, reporter.id), eq(reports.genId, task.id))),
    );
  const before = await existing();
  if (before) return { created: false, report: toReportView(before as ReportRow) };

  await takeOrRefuse(db, `reports:${reporter.id}`, REPORT_POLICY, clock.now());
  const now = clock.now();
  const details = input.details?.trim();
  await db.run(
    db
      .insert(reports)
      .values({
        id: randomUUID(),
        genId: task.id,
        reporterId: reporter.id,
        ownerId: task.userId,
        reason: input.reason,
        details: details ? details : null,
        status: "open",
        createdAt: new Date(now),
        dueAt: new Date(now + REPORT_DUE_MS),
      })
      .onConflictDoNothing(),
  );
  // A concurrent duplicate lost the unique index: either way the stored row is the answer.
  const row = await existing();
  if (!row) throw new AppError("INTERNAL");
  return { created: true, report: toReportView(row as ReportRow) };
}
