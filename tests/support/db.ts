/**
 * Direct access to a test server's database (fixtures and assertions): its SQLite
 * file, or its PostgreSQL database on the ATELIER_TEST_PG run. Plain SQL goes
 * through `db.raw(text)` (`?` parameters, SQL both engines accept).
 */

import { join } from "node:path";
import { eq } from "drizzle-orm";
import { type Db, openDatabase, openPostgres } from "#db/client";
import { orders, user } from "#db/schema";
import { createApiKey, revokeApiKey } from "~/domain/api-keys/keys.server";
import { systemClock } from "~/lib/clock";
import { databaseUrlOf } from "./server";

export async function openServerDb(dataDir: string): Promise<Db> {
  const url = databaseUrlOf(dataDir);
  if (url) return await openPostgres(url, { migrate: false, poolMax: 4 });
  return openDatabase(join(dataDir, "atelier.db"), { migrate: false, busyTimeoutMs: 10_000 });
}

/** Plain SQL on a server's database (`?` parameters; quote "user", PostgreSQL reserves it). */
export interface ServerSql {
  get<R = any>(text: string, ...params: unknown[]): Promise<R | undefined>;
  all<R = any>(text: string, ...params: unknown[]): Promise<R[]>;
  close(): Promise<void>;
}

export async function serverSql(dataDir: string): Promise<ServerSql> {
  const db = await openServerDb(dataDir);
  return {
    get: (text, ...p) => db.raw(text).one(...p),
    all: (text, ...p) => db.raw(text).many(...p),
    close: () => db.close(),
  } as ServerSql;
}

/** One plain-SQL query on a server's database, connection closed after: rows. */
export async function queryServerDb<R = Record<string, any>>(
  dataDir: string,
  text: string,
  ...params: unknown[]
): Promise<R[]> {
  const db = await openServerDb(dataDir);
  try {
    return await db.raw<R>(text).many(...params);
  } finally {
    await db.close();
  }
}

/** `SELECT count(*) AS n …` on a server's database. */
export async function countIn(dataDir: string, text: string, ...params: unknown[]): Promise<number> {
  const [row] = await queryServerDb<{ n: number }>(dataDir, text, ...params);
  return Number(row?.n ?? 0);
}

/** Creates an API key for a user through the key domain (revoked on request) and returns the raw key. */
export async function insertApiKey(db: Db, userId: string, status: "active" | "revoked" = "active"): Promise<string> {
  const created = await createApiKey(db, { userId, name: "test" }, systemClock);
  if (status === "revoked") await revokeApiKey(db, { userId, keyId: created.key_id }, systemClock);
  return created.key;
}

/** Makes the user premium: a paid order with no period end (tests/support/services.ts's makePremium, on any engine). */
export async function makePremiumIn(db: Db, userId: string): Promise<void> {
  const id = crypto.randomUUID();
  await db.run(
    db.insert(orders).values({
      orderNo: id,
      userId,
      productId: "pro",
      productName: "Pro",
      interval: "month",
      amount: 900,
      status: "paid",
      subId: id,
    }),
  );
}

/** Marks an account's e-mail verified, as the verification link would (fixture for ADMIN_EMAILS admins). */
export async function markVerified(db: Db, userId: string): Promise<void> {
  await db.run(db.update(user).set({ emailVerified: true }).where(eq(user.id, userId)));
}

/** markVerified on a server's database file, for tests that hold no handle of their own. */
export async function markVerifiedIn(dataDir: string, userId: string): Promise<void> {
  const db = await openServerDb(dataDir);
  try {
    await markVerified(db, userId);
  } finally {
    await db.close();
  }
}
