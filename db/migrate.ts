/**
 * Migrations on both engines: the embedded SQLite migrations (db/migrations.gen.ts) and PostgreSQL ones
 * (db/migrations-pg.gen.ts), and the refusal of a database a newer Atelier migrated.
 */
import { migrations } from "./migrations.gen";
import type { Db } from "./query";

/**
 * The database was last migrated by a newer Atelier than this executable (a rollback to the old binary, or an old
 * node started after a newer one migrated): its schema may hold what this version cannot read or keep right, so
 * nothing starts on it. Printed as one line by the CLI (exit status 1).
 */
export class NewerDatabaseError extends Error {}

/** Refuses a database whose newest applied migration is newer than every migration this executable embeds. */
export function refuseNewerDatabase(
  appliedNewest: number | null,
  embedded: readonly { folderMillis: number }[],
  where: string,
): void {
  const ours = Math.max(...embedded.map((m) => m.folderMillis));
  if (appliedNewest === null || !(appliedNewest > ours)) return;
  const day = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, "Z");
  throw new NewerDatabaseError(
    `${where} was migrated by a newer version of Atelier (its newest migration is from ${day(appliedNewest)}, this executable's from ${day(ours)}): ` +
      "run that newer version, or restore the backup taken before the upgrade (docs/self-hosting.md §7)",
  );
}

export function applyMigrations(db: Db): number {
  const d = db.drizzle as any;
  refuseNewerDatabase(newestApplied(db), migrations, `database ${db.sqlite!.filename}`);
  const before = countApplied(db);
  // drizzle's dialect runs the pending ones inside one transaction.
  d.dialect.migrate(migrations, d.session, { migrationsFolder: "(embedded)" });
  return countApplied(db) - before;
}

function newestApplied(db: Db): number | null {
  try {
    const row = db.sqlite!.query("SELECT max(created_at) AS t FROM __drizzle_migrations").get() as {
      t: number | null;
    } | null;
    return row?.t == null ? null : Number(row.t);
  } catch {
    return null; // a new database: no migrations table yet
  }
}

export function countApplied(db: Db): number {
  try {
    const row = db.sqlite!.query("SELECT count(*) AS n FROM __drizzle_migrations").get() as { n: number } | null;
    return row?.n ?? 0;
  } catch {
    return 0;
  }
}

/**
 * Applies the embedded PostgreSQL migrations in one transaction, on one reserved
 * connection holding an advisory lock, so nodes starting together migrate once.
 */
export async function applyPgMigrations(db: Db): Promise<number> {
  return (await migratePg(db)).applied;
}

export async function migratePg(db: Db): Promise<{ applied: number; before: number }> {
  const { pgMigrations } = await import("./migrations-pg.gen");
  const client = (db.drizzle as unknown as { $client: { reserve(): Promise<any> } }).$client;
  const conn = await client.reserve();
  const applied = async () => {
    const [row] = await conn`select count(*)::int as n from drizzle.__drizzle_migrations`.catch(() => [{ n: 0 }]);
    return Number(row?.n ?? 0);
  };
  try {
    await conn`select pg_advisory_lock(7230114)`;
    const [newest] = await conn`select max(created_at)::text as t from drizzle.__drizzle_migrations`.catch(() => [
      { t: null },
    ]);
    refuseNewerDatabase(newest?.t == null ? null : Number(newest.t), pgMigrations, "the PostgreSQL database");
    const before = await applied();
    const d = db.drizzle as any;
    await d.dialect.migrate(pgMigrations, d.session, { migrationsFolder: "(embedded)" });
    return { applied: (await applied()) - before, before };
  } finally {
    await conn`select pg_advisory_unlock(7230114)`.catch(() => {});
    conn.release();
  }
}
