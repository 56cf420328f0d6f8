/** A report as the API shows it (POST /api/reports, /api/admin/reports/list). */
import type { reports } from "#db/schema";
import { iso } from "~/lib/clock";
import type { ReportReason, ReportStatus } from "./reasons";

export type ReportRow = typeof reports.$inferSelect;

export function toReportView(row: ReportRow) {
  return {
    report_id: row.id,
    gen_id: row.genId,
    reason: row.reason as ReportReason,
    status: row.status as ReportStatus,
    created_at: iso(row.createdAt)!,
    due_at: iso(row.dueAt)!,
  };
}
