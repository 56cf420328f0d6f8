/**
 * The data interface every module imports (docs/data-layer.md), one job per file:
 * - db/query.ts: the query style (`db.one/many/run`, `db.tx(function* …)`, the statement helpers, the `Db` type);
 * - db/prepared.ts: hot statements built once, and statements prepared once for any number of ids;
 * - db/sqlite.ts: the SQLite driver (db/file-modes.ts: its file readable by its owner only);
 * - db/postgres.ts: the PostgreSQL driver;
 * - db/migrate.ts: migrations on both engines.
 */
export { applyMigrations, applyPgMigrations, NewerDatabaseError, refuseNewerDatabase } from "./migrate";
export { openPostgres, type PostgresOptions, toDollarParams } from "./postgres";
export { inJsonArray } from "./prepared";
export * from "./query";
export { type OpenOptions, openDatabase, sqliteDb } from "./sqlite";
