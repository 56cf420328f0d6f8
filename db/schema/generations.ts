/** Generation tasks, the per-user figures kept about them, and generate's Idempotency-Key records. */
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { user } from "./auth";
import { ms } from "./columns";

export const generations = sqliteTable(
  "generations",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    aiType: text("ai_type").notNull(),
    provider: text("provider").notNull(),
    model: text("model").notNull(),
    prompt: text("prompt").notNull(),
    /** JSON object. */
    options: text("options").notNull().default("{}"),
    /** pending | processing | completed | failed */
    status: text("status").notNull(),
    /** JSON array of absolute URLs, when completed. */
    resultUrls: text("result_urls"),
    errorMessage: text("error_message"),
    /** The price at creation; reserved while unfinished, debited on completion. */
    creditsCost: integer("credits_cost").notNull(),
    /** live | simulated: how the provider ran this task. */
    mode: text("mode").notNull().default("simulated"),
    upstreamTaskId: text("upstream_task_id"),
    leaseOwner: text("lease_owner"),
    leaseUntil: integer("lease_until"),
    nextPollAt: integer("next_poll_at"),
    pollCount: integer("poll_count").notNull().default(0),
    attempts: integer("attempts").notNull().default(0),
    deadlineAt: integer("deadline_at").notNull(),
    createdAt: ms("created_at").notNull(),
    startedAt: ms("started_at"),
    completedAt: ms("completed_at"),
    /** Set when the owner removes it from their studio gallery (the task, its cost and the ledger stay). */
    hiddenAt: ms("hidden_at"),
    /**
     * The task's place in its owner's history, oldest first: 1 … the owner's task count, with no gap, in
     * (created_at, id) order. Kept by database triggers on every insert, delete and change of owner (the migration
     * that added it backfills it; docs/data-layer.md), so a history page is a range of it instead of an offset.
     */
    userSeq: integer("user_seq"),
    /** The API key that created the task (its spending cap and usage by key); null for a session. */
    apiKeyId: text("api_key_id"),
    /** The task's input pictures, JSON `{option name: file id}` (image, image_end, mask); null when it has none. */
    inputs: text("inputs"),
    /** Tasks made together by the studio's Compare (one prompt, several models) share this id; null otherwise. */
    compareId: text("compare_id"),
    /** A ThumbHash (base64) of the first result picture, drawn blurred until the picture loads; null for videos. */
    placeholder: text("placeholder"),
    /**
     * JSON array, one entry per result URL: `{width, height, widths}` once its WebP renditions are stored beside it
     * (app/domain/media/renditions.ts), null where it has none (a video); null until the derivative has run.
     */
    renditions: text("renditions"),
  },
  (t) => [
    index("generations_user_created_idx").on(t.userId, t.createdAt, t.id),
    // The job claim: due polls by next_poll_at, expired leases, and new tasks oldest first (created_at, id), none sorted.
    index("generations_claim_idx").on(t.status, t.nextPollAt, t.createdAt, t.id),
    // Site-wide windows by time (the admin dashboard's ranges, the provider error-rate alert's last 10 minutes).
    index("generations_created_idx").on(t.createdAt),
    // A key's spending in a period; partial, so tasks made in a session never touch it.
    index("generations_key_created_idx").on(t.apiKeyId, t.createdAt).where(sql`api_key_id IS NOT NULL`),
    // No (user_id, status) index: the credits a user's unfinished tasks hold are user_generation_stats.held.
    // A history page: a range of the owner's ordinals.
    index("generations_user_seq_idx").on(t.userId, t.userSeq),
    // The header's live summary: the few unfinished tasks, and the latest finished ones, without the rest.
    index("generations_user_unfinished_idx")
      .on(t.userId, t.createdAt, t.id)
      .where(sql`status IN ('pending', 'processing')`),
    index("generations_user_finished_idx").on(t.userId, t.completedAt).where(sql`status IN ('completed', 'failed')`),
    // The removed tasks alone (a small set; the gallery's totals are user_task_counts).
    index("generations_user_hidden_idx").on(t.userId).where(sql`hidden_at IS NOT NULL`),
  ],
);

/**
 * Per-user figures about generation tasks, one row per user who has ever had a task (general: other per-user
 * generation bookkeeping belongs here too). `tasks` = the user's rows in `generations`, kept by database
 * triggers on every insert, delete and change of owner (the migration that made this table creates them and
 * backfills the figures; docs/data-layer.md), so the history's total needs no count(*) per request, and
 * `tasks_version` tells a process whether a history page it built is still the page (a page of finished tasks).
 * No row means 0.
 */
export const userGenerationStats = sqliteTable("user_generation_stats", {
  userId: text("user_id")
    .primaryKey()
    .references(() => user.id, { onDelete: "cascade" }),
  tasks: integer("tasks").notNull().default(0),
  /** Goes up by one on every insert, delete or move of the user's tasks: the same value means the same list of tasks. */
  tasksVersion: integer("tasks_version").notNull().default(0),
  /**
   * Σ credits_cost of the user's unfinished (pending or processing) tasks: what the reservation check subtracts
   * from the balance. Kept by the same triggers on every insert, delete, status change, change of cost or owner
   * (the migration that added it backfills it), so the check reads one row instead of an index of the user's tasks.
   */
  held: integer("held").notNull().default(0),
  /** The number of the user's unfinished tasks (the studio's "still running?" and the header's live list). */
  unfinished: integer("unfinished").notNull().default(0),
});

/**
 * Per-user task counts by type and status, one row per (user, ai_type, status) that ever had a task: `tasks` = the
 * user's rows of that type in that status, `hidden` = those of them removed from the studio gallery. Kept by database
 * triggers on every insert, delete and change of owner, type, status or removal (docs/data-layer.md), so the gallery's
 * total under any filter is a sum of at most eight rows instead of a count of the user's history.
 */
export const userTaskCounts = sqliteTable(
  "user_task_counts",
  {
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    aiType: text("ai_type").notNull(),
    status: text("status").notNull(),
    tasks: integer("tasks").notNull().default(0),
    hidden: integer("hidden").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.userId, t.aiType, t.status] })],
);

/**
 * The studio gallery's orders: each task the owner has not removed has one entry per gallery list it belongs to
 * (`grp`: '' every such task, its type, and once finished its status and "type status"), with `seq` its place in that
 * list, oldest first, 1 … the list's length with no gap in (created_at, gen_id) order. Kept by database triggers
 * (docs/data-layer.md), so a gallery page under any filter is a range of `seq`, whatever the page.
 */
export const galleryEntries = sqliteTable(
  "gallery_entries",
  {
    genId: text("gen_id").notNull(),
    grp: text("grp").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    createdAt: integer("created_at").notNull(),
    seq: integer("seq").notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.genId, t.grp] }),
    // A new entry's place: its predecessor in the list, and the newer ones it moves up (usually none).
    index("gallery_entries_place_idx").on(t.userId, t.grp, t.createdAt, t.genId),
    // A page: a range of places.
    index("gallery_entries_seq_idx").on(t.userId, t.grp, t.seq),
  ],
);

/** Idempotency-Key of generate: one row per (user, key); the primary key decides concurrent duplicates. */
export const idempotencyKeys = sqliteTable(
  "idempotency_keys",
  {
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    key: text("key").notNull(),
    /** SHA-256 of the canonical request body: another body with the same key is a 409. */
    requestHash: text("request_hash").notNull(),
    genId: text("gen_id").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.key] }), index("idempotency_keys_created_idx").on(t.createdAt)],
);

/**
 * Requests joined by their fingerprint (docs/decisions/158-retry-joins-request.md): the tasks an images request (or
 * a generate) made, so that the same request again — a client's retry — waits for and answers those tasks instead of
 * paying again. `key` is `auto:<fingerprint>` (joinable while running and 10 minutes after its answer) or
 * `key:<Idempotency-Key>` (24 hours); `scope` is the endpoint and the API key. The user's row lock of the create
 * transaction decides concurrent duplicates.
 */
export const requestJoins = sqliteTable(
  "request_joins",
  {
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    scope: text("scope").notNull(),
    key: text("key").notNull(),
    /** SHA-256 of the canonical request: an Idempotency-Key with another request is refused. */
    requestHash: text("request_hash").notNull(),
    /** JSON array of the task ids, in the request's order. */
    genIds: text("gen_ids").notNull(),
    createdAt: integer("created_at").notNull(),
    /** When the first request answered (null while it is held). */
    answeredAt: integer("answered_at"),
  },
  (t) => [primaryKey({ columns: [t.userId, t.scope, t.key] }), index("request_joins_created_idx").on(t.createdAt)],
);
