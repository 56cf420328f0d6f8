/**
 * The whole Atelier schema, one file per area under db/schema/. drizzle-kit (drizzle.config.ts) and
 * db/schema.pg.ts read the tables from this module, so a new area's file is re-exported here.
 * Timestamps are stored as integer milliseconds since the epoch (UTC).
 * Keep SQL portable to libSQL (docs/design.md §8): no bun-only features here.
 */
export * from "./schema/auth";
export * from "./schema/billing";
export * from "./schema/catalog";
export * from "./schema/collections";
export * from "./schema/credits";
export * from "./schema/feedback";
export * from "./schema/files";
export * from "./schema/generations";
export * from "./schema/keys";
export * from "./schema/ops";
export * from "./schema/webhooks";
