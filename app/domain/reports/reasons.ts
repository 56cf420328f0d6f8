/**
 * What a report may say (docs/decisions/145-report-reasons-and-bounds.md). Shared by the API's schema, the studio's
 * form and the admin queue, so the three never disagree.
 */
import { z } from "zod";

export const REPORT_REASONS = [
  "sexual_minors",
  "non_consensual_intimate",
  "sexual",
  "violence",
  "hate",
  "harassment",
  "copyright",
  "other",
] as const;
export type ReportReason = (typeof REPORT_REASONS)[number];

export const REASON_LABELS: Record<ReportReason, string> = {
  sexual_minors: "Sexual content involving minors",
  non_consensual_intimate: "Intimate image of a real person without consent",
  sexual: "Sexual content",
  violence: "Graphic violence",
  hate: "Hate",
  harassment: "Harassment or bullying",
  copyright: "Copyright or trademark",
  other: "Something else",
};

/** Apparent child sexual abuse material: removal keeps the bytes as evidence (18 U.S.C. §2258A). */
export const EVIDENCE_REASON: ReportReason = "sexual_minors";

/** At most this many characters (code points) of details. */
export const REPORT_DETAILS_MAX = 2000;
/** New reports a user may file in an hour (a repeat of one already filed does not count). */
export const REPORTS_PER_HOUR = 20;
/** The TAKE IT DOWN Act's window: a valid removal request is acted on within 48 hours. */
export const REPORT_DUE_MS = 48 * 3_600_000;

export const REPORT_STATUSES = ["open", "removed", "dismissed"] as const;
export type ReportStatus = (typeof REPORT_STATUSES)[number];

const chars = (s: string) => [...s].length;

export const CreateReportSchema = z.object({
  gen_id: z.string({ error: "gen_id required" }).trim().min(1, "gen_id required").max(200, "gen_id required"),
  reason: z.enum(REPORT_REASONS, { error: `reason must be one of ${REPORT_REASONS.join(", ")}` }),
  details: z
    .string({ error: "details must be a string" })
    .refine((s) => chars(s) <= REPORT_DETAILS_MAX, `details must be at most ${REPORT_DETAILS_MAX} characters`)
    .refine((s) => !s.includes("\u0000"), "text must not contain NUL characters")
    .optional(),
});
export type CreateReportInput = z.infer<typeof CreateReportSchema>;

export const ListReportsSchema = z.object({
  status: z
    .enum(["open", "removed", "dismissed", "all"], { error: "status must be open, removed, dismissed or all" })
    .optional(),
  limit: z
    .number({ error: "limit must be an integer from 1 to 500" })
    .int("limit must be an integer from 1 to 500")
    .min(1, "limit must be an integer from 1 to 500")
    .max(500, "limit must be an integer from 1 to 500")
    .optional(),
});

export const REPORT_NOTE_MAX = 2000;
export const ResolveReportSchema = z.object({
  report_id: z
    .string({ error: "report_id required" })
    .trim()
    .min(1, "report_id required")
    .max(200, "report_id required"),
  action: z.enum(["remove", "dismiss"], { error: "action must be remove or dismiss" }),
  note: z
    .string({ error: "note must be a string" })
    .refine((s) => chars(s) <= REPORT_NOTE_MAX, `note must be at most ${REPORT_NOTE_MAX} characters`)
    .optional(),
});
export type ResolveReportInput = z.infer<typeof ResolveReportSchema>;
