/**
 * Collections (docs/api.md "Collections", ADR 165): a user's named sets of their own tasks. Every change is one
 * transaction under the user's row lock and names only the caller's own collections and tasks (anyone else's answers
 * as if it did not exist). Counts are counted, not kept: a task removed from the gallery or deleted leaves every
 * count right without a second write.
 */
import { randomBytes } from "node:crypto";
import { and, asc, desc, eq, inArray, isNull, sql } from "drizzle-orm";
import { z } from "zod";
import { type Db, lockRow, many, one, run, type Tx } from "#db/client";
import { collectionItems, collections, generations } from "#db/schema";
import type { Clock } from "~/lib/clock";
import { AppError } from "~/lib/errors";

/** At most this many collections per user. */
export const MAX_COLLECTIONS = 200;
/** At most this many characters in a name (after trimming). */
export const MAX_NAME = 80;
/** At most this many tasks in one add or remove. */
export const MAX_BATCH = 100;
/** At most this many entries in one collection. */
export const MAX_ITEMS = 10_000;

const Name = z
  .string()
  .transform((s) => s.replace(/\s+/g, " ").trim())
  .pipe(z.string().min(1, "name required").max(MAX_NAME, `name must be at most ${MAX_NAME} characters`));
const CollectionId = z.string().min(1).max(100);
const GenIds = z
  .array(z.string().min(1).max(100))
  .min(1, "gen_ids required")
  .max(MAX_BATCH, `gen_ids: at most ${MAX_BATCH} at once`);

export const CreateCollectionSchema = z.strictObject({ name: Name });
export const RenameCollectionSchema = z.strictObject({ collection_id: CollectionId, name: Name });
export const CollectionIdSchema = z.strictObject({ collection_id: CollectionId });
export const CollectionItemsSchema = z.strictObject({ collection_id: CollectionId, gen_ids: GenIds });
export const CollectionPageSchema = z.strictObject({
  collection_id: CollectionId,
  page: z.int().min(1).max(1_000_000).optional(),
  page_size: z.int().min(1).max(100).optional(),
});

/** The first problem of a refused body, as `invalid params: <reason>`. */
export function collectionParamsError(error: z.ZodError): AppError {
  const issue = error.issues[0];
  const field = issue?.path[0];
  const reason =
    issue?.code === "unrecognized_keys"
      ? `unknown field ${issue.keys.join(", ")}`
      : issue?.code === "too_small" || issue?.code === "too_big" || issue?.code === "custom"
        ? issue.message
        : field
          ? `${String(field)} invalid`
          : "a JSON object required";
  return new AppError("INVALID_PARAMS", { reason });
}

const nameKey = (name: string) => name.toLowerCase();
const newId = () => `col_${randomBytes(16).toString("base64url").slice(0, 22)}`;

export interface CollectionView {
  collection_id: string;
  name: string;
  count: number;
  created_at: string;
  updated_at: string;
}

type Row = typeof collections.$inferSelect;
const view = (r: Row, count: number): CollectionView => ({
  collection_id: r.id,
  name: r.name,
  count,
  created_at: r.createdAt.toISOString(),
  updated_at: r.updatedAt.toISOString(),
});

function* ownCollection(tx: Tx, userId: string, id: string) {
  const row = yield* one(
    tx
      .select()
      .from(collections)
      .where(and(eq(collections.id, id), eq(collections.userId, userId))),
  );
  if (!row) throw new AppError("COLLECTION_NOT_FOUND");
  return row;
}

/** The entries of a collection whose task is still in its owner's gallery. */
function* countOf(tx: Tx, id: string) {
  const r = yield* one(
    tx
      .select({ n: sql<number>`count(*)` })
      .from(collectionItems)
      .innerJoin(generations, eq(generations.id, collectionItems.genId))
      .where(and(eq(collectionItems.collectionId, id), isNull(generations.hiddenAt))),
  );
  return Number(r?.n ?? 0);
}

/** Every entry of a collection (the MAX_ITEMS bound). */
function* entriesOf(tx: Tx, id: string) {
  const r = yield* one(
    tx.select({ n: sql<number>`count(*)` }).from(collectionItems).where(eq(collectionItems.collectionId, id)),
  );
  return Number(r?.n ?? 0);
}

function* nameFree(tx: Tx, userId: string, name: string, except?: string) {
  const same = yield* one(
    tx
      .select({ id: collections.id })
      .from(collections)
      .where(and(eq(collections.userId, userId), eq(collections.nameKey, nameKey(name)))),
  );
  if (same && same.id !== except) throw new AppError("COLLECTION_NAME_TAKEN");
}

export async function createCollection(db: Db, clock: Clock, userId: string, name: string): Promise<CollectionView> {
  const at = new Date(clock.now());
  return db.tx(function* (tx) {
    yield* lockRow("user", userId);
    const n = yield* one(
      tx.select({ n: sql<number>`count(*)` }).from(collections).where(eq(collections.userId, userId)),
    );
    if (Number(n?.n ?? 0) >= MAX_COLLECTIONS) throw new AppError("COLLECTION_LIMIT", { max: MAX_COLLECTIONS });
    yield* nameFree(tx, userId, name);
    const row = { id: newId(), userId, name, nameKey: nameKey(name), createdAt: at, updatedAt: at };
    yield* run(tx.insert(collections).values(row));
    return view(row, 0);
  });
}

export async function renameCollection(db: Db, clock: Clock, userId: string, id: string, name: string) {
  const at = new Date(clock.now());
  return db.tx(function* (tx) {
    yield* lockRow("user", userId);
    const row = yield* ownCollection(tx, userId, id);
    yield* nameFree(tx, userId, name, id);
    yield* run(
      tx
        .update(collections)
        .set({ name, nameKey: nameKey(name), updatedAt: at })
        .where(eq(collections.id, row.id)),
    );
    return view({ ...row, name, nameKey: nameKey(name), updatedAt: at }, yield* countOf(tx, row.id));
  });
}

export async function deleteCollection(db: Db, userId: string, id: string) {
  return db.tx(function* (tx) {
    yield* lockRow("user", userId);
    const row = yield* ownCollection(tx, userId, id);
    yield* run(tx.delete(collectionItems).where(eq(collectionItems.collectionId, row.id)));
    yield* run(tx.delete(collections).where(eq(collections.id, row.id)));
    return { collection_id: row.id, deleted: true as const };
  });
}

/** The caller's collections, newest first (at most MAX_COLLECTIONS: one page). */
export async function listCollections(db: Db, userId: string): Promise<CollectionView[]> {
  const rows = await db.many(
    db
      .select()
      .from(collections)
      .where(eq(collections.userId, userId))
      .orderBy(desc(collections.createdAt), asc(collections.id)),
  );
  if (!rows.length) return [];
  const counts = await db.many(
    db
      .select({ id: collectionItems.collectionId, n: sql<number>`count(*)` })
      .from(collectionItems)
      .innerJoin(generations, eq(generations.id, collectionItems.genId))
      .where(
        and(
          inArray(
            collectionItems.collectionId,
            rows.map((r) => r.id),
          ),
          isNull(generations.hiddenAt),
        ),
      )
      .groupBy(collectionItems.collectionId),
  );
  const byId = new Map(counts.map((c) => [c.id, Number(c.n)]));
  return rows.map((r) => view(r, byId.get(r.id) ?? 0));
}

/** The distinct ids of a batch, each the caller's own task still in their gallery; else GENERATION_NOT_FOUND. */
function* ownTasks(tx: Tx, userId: string, genIds: readonly string[]) {
  const ids = [...new Set(genIds)];
  const found = yield* many(
    tx
      .select({ id: generations.id })
      .from(generations)
      .where(and(inArray(generations.id, ids), eq(generations.userId, userId), isNull(generations.hiddenAt))),
  );
  if (found.length !== ids.length) throw new AppError("GENERATION_NOT_FOUND");
  return ids;
}

/**
 * Adds tasks to a collection: all or none (one id that is not the caller's visible task refuses the whole batch);
 * a task already in it is not added twice. Answers how many were added and the new count.
 */
export async function addToCollection(db: Db, clock: Clock, userId: string, id: string, genIds: readonly string[]) {
  const at = new Date(clock.now());
  return db.tx(function* (tx) {
    yield* lockRow("user", userId);
    const row = yield* ownCollection(tx, userId, id);
    const ids = yield* ownTasks(tx, userId, genIds);
    const present = new Set(
      (yield* many(
        tx
          .select({ genId: collectionItems.genId })
          .from(collectionItems)
          .where(and(eq(collectionItems.collectionId, row.id), inArray(collectionItems.genId, ids))),
      )).map((r) => r.genId),
    );
    const fresh = ids.filter((g) => !present.has(g));
    if ((yield* entriesOf(tx, row.id)) + fresh.length > MAX_ITEMS)
      throw new AppError("COLLECTION_FULL", { max: MAX_ITEMS });
    if (fresh.length) {
      yield* run(
        tx.insert(collectionItems).values(fresh.map((genId) => ({ collectionId: row.id, genId, addedAt: at }))),
      );
      yield* run(tx.update(collections).set({ updatedAt: at }).where(eq(collections.id, row.id)));
    }
    return { collection_id: row.id, added: fresh.length, count: yield* countOf(tx, row.id) };
  });
}

/** Removes tasks from a collection (ids not in it are ignored; ids not the caller's refuse the batch). */
export async function removeFromCollection(
  db: Db,
  clock: Clock,
  userId: string,
  id: string,
  genIds: readonly string[],
) {
  const at = new Date(clock.now());
  return db.tx(function* (tx) {
    yield* lockRow("user", userId);
    const row = yield* ownCollection(tx, userId, id);
    const ids = [...new Set(genIds)];
    const mine = yield* many(
      tx
        .select({ id: generations.id })
        .from(generations)
        .where(and(inArray(generations.id, ids), eq(generations.userId, userId))),
    );
    if (mine.length !== ids.length) throw new AppError("GENERATION_NOT_FOUND");
    const removed = yield* run(
      tx
        .delete(collectionItems)
        .where(and(eq(collectionItems.collectionId, row.id), inArray(collectionItems.genId, ids))),
    );
    if (removed) yield* run(tx.update(collections).set({ updatedAt: at }).where(eq(collections.id, row.id)));
    return { collection_id: row.id, removed, count: yield* countOf(tx, row.id) };
  });
}

/** One page of a collection's tasks (ids, newest entries first), for the gallery and clients. */
export async function collectionPage(
  db: Db,
  userId: string,
  args: { collectionId: string; page?: number; pageSize?: number },
) {
  const row = await db.exec(ownCollection(db, userId, args.collectionId));
  const page = args.page ?? 1;
  const pageSize = args.pageSize ?? 20;
  const total = await db.exec(countOf(db, row.id));
  const items = await db.many(
    db
      .select({ genId: collectionItems.genId, addedAt: collectionItems.addedAt })
      .from(collectionItems)
      .innerJoin(generations, eq(generations.id, collectionItems.genId))
      .where(and(eq(collectionItems.collectionId, row.id), isNull(generations.hiddenAt)))
      .orderBy(desc(collectionItems.addedAt), asc(collectionItems.genId))
      .limit(pageSize)
      .offset((page - 1) * pageSize),
  );
  return {
    collection: view(row, total),
    items: items.map((i) => ({ gen_id: i.genId, added_at: i.addedAt.toISOString() })),
    total,
    page,
    page_size: pageSize,
  };
}
