/** Uploaded input pictures (docs/api.md "Files"): the rows behind `file_…` ids; the bytes live in the file store. */
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { user } from "./auth";
import { ms } from "./columns";

export const files = sqliteTable(
  "files",
  {
    /** `file_` + 22 random base64url characters: the id clients send as an image option. */
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    /** Where the bytes are in the file store (app/storage/files.server.ts): `files/<random>.<ext>`, never a client's name. */
    storageKey: text("storage_key").notNull(),
    /** Judged from the bytes: image/png | image/jpeg | image/webp. */
    contentType: text("content_type").notNull(),
    width: integer("width").notNull(),
    height: integer("height").notNull(),
    /** Stored size (after metadata was stripped): what the quota counts. */
    bytes: integer("bytes").notNull(),
    /** upload | url (fetched from an image option's https URL when a task was created) */
    source: text("source").notNull(),
    /**
     * SHA-256 of the stored bytes (hex): the same picture stored again by its owner is this row, not a copy
     * (docs/api.md §4.17). Null on rows stored before it was recorded.
     */
    sha256: text("sha256"),
    createdAt: ms("created_at").notNull(),
    /** When the retention sweep removes it (ms); null once a task uses it: it then lives as long as that task. */
    expiresAt: integer("expires_at"),
  },
  (t) => [
    // A user's list (newest first) and quota sum.
    index("files_user_created_idx").on(t.userId, t.createdAt),
    // The retention sweep's batches; files in use (null) are not in it.
    index("files_expires_idx").on(t.expiresAt).where(sql`expires_at IS NOT NULL`),
    // One row per picture per user: the lookup before storing, and what makes a second copy impossible.
    uniqueIndex("files_user_sha256_idx").on(t.userId, t.sha256),
  ],
);
