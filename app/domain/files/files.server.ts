/**
 * Input files (docs/api.md "Files"): a user's uploaded pictures, judged by their bytes (image.server.ts), kept in the
 * file store (app/storage/files.server.ts) with one row each in `files`. Another user's file id is "file not found"
 * everywhere. A file no task uses expires after FILE_RETENTION_DAYS; once a task uses it, it lives as long as the task.
 */

import { createHash, randomBytes } from "node:crypto";
import { and, desc, eq, inArray, isNotNull, lt, sql } from "drizzle-orm";
import { type Db, lockRow, one, run, type Steps } from "#db/client";
import { files } from "#db/schema";
import { SWEEP_BATCH } from "~/domain/maintenance/retention.server";
import { checkPicture, type SafetyConfig } from "~/domain/safety/check-prompt.server";
import { type Clock, DAY_MS, iso } from "~/lib/clock";
import type { Config } from "~/lib/config.server";
import { AppError } from "~/lib/errors";
import { log } from "~/lib/log.server";
import type { FileStore } from "~/storage/files.server";
import { extensionOf, ImageRefused, type ImageType, type InspectedImage, judgeImage } from "./image.server";
import { fileUrl } from "./links.server";

export type FileRow = typeof files.$inferSelect;
export type FileConfig = Pick<Config, "FILE_MAX_BYTES" | "FILE_QUOTA_MB" | "FILE_RETENTION_DAYS"> & SafetyConfig;

export interface FileDeps {
  db: Db;
  clock: Clock;
  store: FileStore;
  config: FileConfig;
}

/** What the API shows of a file. */
export function toFileView(row: FileRow) {
  return {
    file_id: row.id,
    url: fileUrl(row.id),
    content_type: row.contentType,
    width: row.width,
    height: row.height,
    bytes: row.bytes,
    created_at: iso(row.createdAt)!,
    expires_at: row.expiresAt === null ? null : iso(row.expiresAt)!,
  };
}
export type FileView = ReturnType<typeof toFileView>;

export const quotaBytes = (config: Pick<Config, "FILE_QUOTA_MB">) => config.FILE_QUOTA_MB * 1024 * 1024;

const usedBytes = (db: Pick<Db, "select">, userId: string) =>
  db
    .select({ n: sql<number>`coalesce(sum(${files.bytes}), 0)` })
    .from(files)
    .where(eq(files.userId, userId));

/** A stored file, and whether it was already the user's (the same picture stored before: nothing new was kept). */
export type StoredFile = FileRow & { reused: boolean };

/**
 * Judges the bytes, stores the cleaned picture and records it. Every refusal (not an image, too large, malformed,
 * over the quota) throws before anything is kept: the quota is checked again under the user's row lock with the
 * insert, and the stored object is removed when that check refuses.
 *
 * The same picture again (the same cleaned bytes: an upload repeated, a result used twice for Edit or Animate, a URL
 * fetched again) is the user's existing file, not a copy: no second object, the quota counts it once, and an unused
 * one's expiry moves to a full FILE_RETENTION_DAYS from now. The lookup runs under the user's row lock (so two
 * uploads of one picture at once make one row) and the unique (user_id, sha256) index refuses a second row anyway;
 * the expiry moves by a guarded update, so the retention sweep cannot remove the file it hands back
 * (docs/decisions/130-same-picture-one-file.md).
 */
export async function storeFile(
  deps: FileDeps,
  args: { userId: string; bytes: Uint8Array; source: "upload" | "url" },
): Promise<StoredFile> {
  const { db, clock, store, config } = deps;
  if (args.bytes.byteLength > config.FILE_MAX_BYTES)
    throw new AppError("FILE_TOO_LARGE", { max: config.FILE_MAX_BYTES });
  let image: InspectedImage;
  try {
    image = await judgeImage(args.bytes);
  } catch (error) {
    if (error instanceof ImageRefused) throw new AppError("FILE_REFUSED", { reason: error.reason });
    throw error;
  }
  // Before anything is kept: a picture the moderation flags is never stored (docs/safety.md).
  await checkPicture(deps, args.userId, image.bytes, image.contentType);
  const quota = quotaBytes(config);
  const size = image.bytes.byteLength;
  const sha256 = createHash("sha256").update(image.bytes).digest("hex");
  const now = clock.now();
  const expiresAt = now + config.FILE_RETENTION_DAYS * DAY_MS;
  const row: FileRow = {
    id: `file_${randomBytes(16).toString("base64url")}`,
    userId: args.userId,
    storageKey: `files/${randomBytes(18).toString("base64url")}.${extensionOf(image.contentType as ImageType)}`,
    contentType: image.contentType,
    width: image.width,
    height: image.height,
    bytes: size,
    source: args.source,
    sha256,
    createdAt: new Date(now),
    expiresAt,
  };
  // First without the bytes in the store: a picture the user already has needs no upload. Only when it is new are
  // the bytes put, then the row inserted by a second pass (which may still find a twin stored meanwhile).
  let stored = false;
  try {
    for (;;) {
      const outcome = await db.tx(function* (tx): Steps<StoredFile | null> {
        yield* lockRow("user", args.userId);
        const twin = yield* one(
          tx
            .select()
            .from(files)
            .where(and(eq(files.userId, args.userId), eq(files.sha256, sha256))),
        );
        if (twin) {
          if (twin.expiresAt === null || twin.expiresAt >= expiresAt) return { ...twin, reused: true };
          const moved = yield* run(
            tx
              .update(files)
              .set({ expiresAt })
              .where(and(eq(files.id, twin.id), isNotNull(files.expiresAt))),
          );
          if (moved === 1) return { ...twin, expiresAt, reused: true };
          // Pinned by a task meanwhile (it now lives as long as the task), or gone: look once more.
          const again = yield* one(tx.select().from(files).where(eq(files.id, twin.id)));
          if (again) return { ...again, reused: true };
        }
        const inUse = Number((yield* one(usedBytes(tx, args.userId)))?.n ?? 0);
        if (inUse + size > quota) throw new AppError("FILE_QUOTA", { quotaMb: config.FILE_QUOTA_MB });
        if (!stored) return null;
        yield* run(tx.insert(files).values(row));
        return { ...row, reused: false };
      });
      if (outcome) {
        if (outcome.reused && stored) await discardObject(store, row.storageKey);
        return outcome;
      }
      await store.put(row.storageKey, image.bytes, row.contentType);
      stored = true;
    }
  } catch (error) {
    if (stored) await discardObject(store, row.storageKey);
    throw error;
  }
}

const discardObject = (store: FileStore, key: string) =>
  store.delete(key).catch((e) => log.warn("removing an unneeded file object failed", { error: e }));

/** A file of this user, or "file not found" (also for another user's id). */
export async function getOwnFile(db: Db, userId: string, fileId: string): Promise<FileRow> {
  const row = await db.one(
    db
      .select()
      .from(files)
      .where(and(eq(files.id, fileId), eq(files.userId, userId))),
  );
  if (!row) throw new AppError("FILE_NOT_FOUND");
  return row;
}

export async function listFiles(db: Db, userId: string, paging: { page: number; pageSize: number }) {
  const rows = await db.many(
    db
      .select()
      .from(files)
      .where(eq(files.userId, userId))
      .orderBy(desc(files.createdAt), desc(files.id))
      .limit(paging.pageSize)
      .offset((paging.page - 1) * paging.pageSize),
  );
  const total = await db.one(db.select({ n: sql<number>`count(*)` }).from(files).where(eq(files.userId, userId)));
  return { files: rows.map(toFileView), total: Number(total?.n ?? 0), page: paging.page, page_size: paging.pageSize };
}

/** Deletes the row (guarded by owner), then the bytes. A task that used it keeps its record; its input link stops working. */
export async function deleteFile(deps: Pick<FileDeps, "db" | "store">, userId: string, fileId: string) {
  const row = await getOwnFile(deps.db, userId, fileId);
  const changed = await deps.db.run(deps.db.delete(files).where(and(eq(files.id, row.id), eq(files.userId, userId))));
  if (changed === 0) throw new AppError("FILE_NOT_FOUND");
  await deps.store
    .delete(row.storageKey)
    .catch((error) => log.warn("removing a deleted file's bytes failed", { file_id: row.id, error }));
  return { file_id: row.id, deleted: true as const };
}

/**
 * The retention sweep's part for files: rows whose `expires_at` passed (no task uses them), in batches of
 * SWEEP_BATCH through files_expires_idx. The rows go first (a task pinning a file at the same moment then finds it
 * gone and is refused), then their bytes. Returns the files removed.
 */
export async function sweepExpiredFiles(db: Db, store: FileStore, now: number): Promise<number> {
  let total = 0;
  for (;;) {
    const due = db
      .select({ id: files.id })
      .from(files)
      .where(and(isNotNull(files.expiresAt), lt(files.expiresAt, now)))
      .limit(SWEEP_BATCH);
    const gone = await db.many(
      db
        .delete(files)
        .where(and(inArray(files.id, due), isNotNull(files.expiresAt), lt(files.expiresAt, now)))
        .returning({ storageKey: files.storageKey }),
    );
    for (const f of gone)
      await store.delete(f.storageKey).catch((error) => log.warn("removing an expired file failed", { error }));
    total += gone.length;
    if (gone.length < SWEEP_BATCH) return total;
    await Bun.sleep(0);
  }
}
