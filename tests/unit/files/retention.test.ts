/**
 * Input files' lifetime (docs/api.md §4.17): an unused file is swept once FILE_RETENTION_DAYS pass (row and bytes);
 * a file a task pinned (expires_at null) stays whatever its age.
 */
import { expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { openDatabase } from "#db/client";
import { files } from "#db/schema";
import { storeFile, sweepExpiredFiles } from "~/domain/files/files.server";
import { pinInputs } from "~/domain/files/inputs.server";
import { DAY_MS } from "~/lib/clock";
import { localFileStore } from "~/storage/files.server";
import { createUser } from "../../support/fixtures";
import { png } from "../../support/images";

test("unused files are swept after FILE_RETENTION_DAYS; pinned ones stay", async () => {
  const db = openDatabase(":memory:");
  const dir = mkdtempSync(join(tmpdir(), "atelier-files-"));
  try {
    let now = Date.UTC(2026, 10, 1);
    const clock = { now: () => now };
    const store = localFileStore(dir);
    const config = { FILE_MAX_BYTES: 1_000_000, FILE_QUOTA_MB: 10, FILE_RETENTION_DAYS: 7 };
    const userId = await createUser(db);
    const deps = { db, clock, store, config };
    const unused = await storeFile(deps, { userId, bytes: png(4, 4), source: "upload" });
    const used = await storeFile(deps, { userId, bytes: png(5, 5), source: "upload" });
    await db.tx((tx) => pinInputs(tx, userId, { image: used.id }));
    now += 6 * DAY_MS;
    expect(await sweepExpiredFiles(db, store, now)).toBe(0);
    now += 2 * DAY_MS;
    expect(await sweepExpiredFiles(db, store, now)).toBe(1);
    const left = await db.many(db.select({ id: files.id }).from(files));
    expect(left.map((f) => f.id)).toEqual([used.id]);
    expect(left.map((f) => f.id)).not.toContain(unused.id);
    expect(readdirSync(join(dir, "files"))).toEqual([used.storageKey.slice("files/".length)]);
    // A pin of a file that is gone refuses (the create then fails with "file not found").
    await db.run(db.delete(files).where(eq(files.id, used.id)));
    await expect(db.tx((tx) => pinInputs(tx, userId, { image: used.id }))).rejects.toThrow("file not found");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
