/**
 * Reports of results and the takedowns they lead to (docs/safety.md "Reports and takedowns", ADR 145, 149).
 * No foreign keys on purpose: a report and a takedown are records the operator must keep (the TAKE IT DOWN Act's
 * 48-hour clock, 18 U.S.C. §2258A's preservation duty), and neither a task's deletion nor an account's may erase them.
 */
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { ms } from "./columns";

export const reports = sqliteTable(
  "reports",
  {
    id: text("id").primaryKey(),
    genId: text("gen_id").notNull(),
    reporterId: text("reporter_id").notNull(),
    /** The task's owner when the report was made. */
    ownerId: text("owner_id").notNull(),
    /** One of REPORT_REASONS (app/domain/reports/reasons.ts). */
    reason: text("reason").notNull(),
    details: text("details"),
    /** open | removed | dismissed */
    status: text("status").notNull(),
    createdAt: ms("created_at").notNull(),
    /** created_at + 48 h: when the TAKE IT DOWN Act wants a valid request acted on. */
    dueAt: ms("due_at").notNull(),
    resolvedAt: ms("resolved_at"),
    resolvedBy: text("resolved_by"),
    resolutionNote: text("resolution_note"),
  },
  (t) => [
    // One report per reporter and task: a second one returns the first (idempotent).
    uniqueIndex("reports_reporter_gen_idx").on(t.reporterId, t.genId),
    // The admin queue: open reports by due time.
    index("reports_status_due_idx").on(t.status, t.dueAt),
    index("reports_gen_idx").on(t.genId),
  ],
);

/** A task whose results were taken down: its files answer 410 Gone from here on (app/routes/media.ts). */
export const takedowns = sqliteTable("takedowns", {
  genId: text("gen_id").primaryKey(),
  reportId: text("report_id"),
  reason: text("reason").notNull(),
  /** JSON array of the result URLs the task had. */
  resultUrls: text("result_urls").notNull(),
  /** 1 when the bytes were kept in the quarantine area as evidence (apparent CSAM) instead of deleted. */
  quarantined: integer("quarantined").notNull().default(0),
  /** JSON manifest of the quarantined files: key, bytes, sha256 (null when nothing was kept). */
  evidence: text("evidence"),
  removedBy: text("removed_by").notNull(),
  note: text("note"),
  removedAt: ms("removed_at").notNull().default(sql`(unixepoch('subsec') * 1000)`),
});
