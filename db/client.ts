import { Database } from "bun:sqlite";
import { drizzle, type BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { migrations } from "./migrations.gen";
import * as schema from "./schema";

export type Db = BunSQLiteDatabase<typeof schema> & { $client: Database };

export interface OpenOptions {
  /** Apply pending migrations (default true). */
  migrate?: boolean;
  /** How long a writer waits for a lock held by another process (ms). */
  busyTimeoutMs?: number;
}

/**
 * Opens (creating if needed) the SQLite file, sets the pragmas Atelier relies
 * on and applies the embedded migrations. `:memory:` works for unit tests.
 */
export function openDatabase(path: string, opts: OpenOptions = {}): Db {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const sqlite = new Database(path, { create: true, strict: true });
  sqlite.exec("PRAGMA journal_mode = WAL");
  sqlite.exec("PRAGMA synchronous = NORMAL");
  sqlite.exec("PRAGMA foreign_keys = ON");
  sqlite.exec(`PRAGMA busy_timeout = ${opts.busyTimeoutMs ?? 5000}`);
  const db = drizzle({ client: sqlite, schema }) as Db;
  if (opts.migrate !== false) applyMigrations(db);
  return db;
}

export function applyMigrations(db: Db): number {
  const before = countApplied(db);
  // drizzle's dialect runs the pending ones inside one transaction.
  (db as any).dialect.migrate(migrations, (db as any).session, { migrationsFolder: "(embedded)" });
  return countApplied(db) - before;
}

function countApplied(db: Db): number {
  try {
    const row = db.$client.query("SELECT count(*) AS n FROM __drizzle_migrations").get() as { n: number } | null;
    return row?.n ?? 0;
  } catch {
    return 0;
  }
}

export { schema };
