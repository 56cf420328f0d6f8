/** The report rows of the endpoint table: filing a report, the admin queue and its decisions (docs/safety.md). */
import { z } from "zod";
import {
  CreateReportSchema,
  ListReportsSchema,
  REPORT_DETAILS_MAX,
  REPORT_REASONS,
  REPORT_STATUSES,
  REPORTS_PER_HOUR,
  ResolveReportSchema,
} from "~/domain/reports/reasons";
import { AUTH_ERRORS, COMMON, type EndpointDef, isoTime } from "./def.server";

const ReportSchema = z.strictObject({
  report_id: z.string(),
  gen_id: z.string(),
  reason: z.enum(REPORT_REASONS),
  status: z.enum(REPORT_STATUSES),
  created_at: isoTime(),
  due_at: isoTime().describe("created_at + 48 hours: the TAKE IT DOWN Act's deadline"),
});

const QueueEntrySchema = ReportSchema.extend({
  details: z.string().nullable(),
  overdue: z.boolean().describe("still open at or past due_at"),
  reporter_email: z.string().nullable(),
  owner_id: z.string(),
  owner_email: z.string().nullable(),
  prompt: z.string().nullable(),
  model: z.string().nullable(),
  result_urls: z.array(z.string()).describe("the task's results (after a removal: the URLs it had, now 410 Gone)"),
  removed_at: isoTime().nullable(),
  quarantined: z.boolean().describe("the bytes were kept as evidence (sexual_minors) instead of deleted"),
  resolved_at: isoTime().nullable(),
  resolution_note: z.string().nullable(),
});

export const REPORT_ENDPOINTS = {
  "/api/reports": {
    method: "POST",
    tag: "Generation",
    summary: "Report a result",
    description: `Report a task you can see (your own; admins: any) for review. \`reason\` one of ${REPORT_REASONS.join(", ")}; \`details\` at most ${REPORT_DETAILS_MAX} characters. Another user's task answers \`generation not found\`. Reporting the same task again returns the first report (nothing new is stored). At most ${REPORTS_PER_HOUR} new reports an hour per user: one more answers HTTP 429 (RATE_LIMITED). docs/safety.md "Reports and takedowns".`,
    auth: "user",
    source: "docs/safety.md",
    body: CreateReportSchema,
    docBody: z.object({
      gen_id: z.string().min(1).max(200),
      reason: z.enum(REPORT_REASONS),
      details: z.string().max(REPORT_DETAILS_MAX).optional(),
    }),
    response: ReportSchema,
    successMessage: "report received",
    errors: [...AUTH_ERRORS, "INVALID_PARAMS", "GENERATION_NOT_FOUND", ...COMMON],
    example: { gen_id: "<gen_id>", reason: "non_consensual_intimate", details: "This is a photo of me." },
  },
  "/api/admin/reports/list": {
    method: "POST",
    tag: "Admin",
    summary: "List reports",
    description:
      "Admins only. Reports earliest due first (`status` open by default; removed, dismissed or all), at most `limit` (1–500, default 100), each with its task's prompt, results and the reporter.",
    auth: "admin",
    source: "docs/safety.md",
    body: ListReportsSchema,
    response: z.strictObject({ reports: z.array(QueueEntrySchema) }),
    errors: [...AUTH_ERRORS, "FORBIDDEN", "INVALID_PARAMS", ...COMMON],
    example: { status: "open" },
  },
  "/api/admin/reports/resolve": {
    method: "POST",
    tag: "Admin",
    summary: "Resolve a report",
    description:
      "Admins only. `dismiss` closes the report. `remove` takes the task's results down: every result URL answers 410 Gone from the next request on, the files and their derivatives are deleted from storage, the task leaves its owner's gallery and its history entry shows no results; the task's other open reports are closed with it. For `sexual_minors` the bytes are kept in the restricted quarantine area as evidence instead. A decided report answers `report already resolved`.",
    auth: "admin",
    source: "docs/safety.md",
    body: ResolveReportSchema,
    response: z.strictObject({
      report: ReportSchema,
      removed_files: z.int().describe("result files deleted from storage"),
      quarantined: z.boolean(),
    }),
    errors: [...AUTH_ERRORS, "FORBIDDEN", "INVALID_PARAMS", "REPORT_NOT_FOUND", "REPORT_RESOLVED", ...COMMON],
    example: { report_id: "<report_id>", action: "remove", note: "non-consensual image" },
  },
} as const satisfies Record<string, EndpointDef>;
