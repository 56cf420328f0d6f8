/**
 * Collections (docs/api.md "Collections"): a user's named sets of their own tasks. A task may be in several; removing
 * a collection removes its entries, never the tasks.
 */
import { index, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { user } from "./auth";
import { ms } from "./columns";
import { generations } from "./generations";

export const collections = sqliteTable(
  "collections",
  {
    /** `col_` + 22 random base64url characters. */
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => user.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** The name folded for uniqueness (trimmed, lower case): "Trips" and "trips " are one collection. */
    nameKey: text("name_key").notNull(),
    createdAt: ms("created_at").notNull(),
    updatedAt: ms("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("collections_user_name_idx").on(t.userId, t.nameKey),
    index("collections_user_created_idx").on(t.userId, t.createdAt),
  ],
);

export const collectionItems = sqliteTable(
  "collection_items",
  {
    collectionId: text("collection_id")
      .notNull()
      .references(() => collections.id, { onDelete: "cascade" }),
    genId: text("gen_id")
      .notNull()
      .references(() => generations.id, { onDelete: "cascade" }),
    addedAt: ms("added_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.collectionId, t.genId] }),
    // A collection's page, newest entries first; and a task's collections (when it is deleted).
    index("collection_items_added_idx").on(t.collectionId, t.addedAt),
    index("collection_items_gen_idx").on(t.genId),
  ],
);
