/** Trust and safety (docs/safety.md): the operator's blocked terms and the audit trail of policy changes and refusals. */
import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { createdAt } from "./columns";

/** A blocked term as the operator typed it; `normalized` is what the matcher compares (app/domain/safety/matcher.ts). */
export const safetyTerms = sqliteTable("safety_terms", {
  normalized: text("normalized").primaryKey(),
  term: text("term").notNull(),
  createdAt: createdAt(),
});

/**
 * The audit trail: policy changes (`term_blocked`, `term_unblocked`) and refusals (`prompt_refused`,
 * `result_refused`) with their category, never the matched term of a refusal.
 */
export const safetyEvents = sqliteTable(
  "safety_events",
  {
    id: text("id").primaryKey(),
    kind: text("kind").notNull(),
    category: text("category"),
    userId: text("user_id"),
    detail: text("detail"),
    createdAt: createdAt(),
  },
  (t) => [index("safety_events_created_idx").on(t.createdAt)],
);
