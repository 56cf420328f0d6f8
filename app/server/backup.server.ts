/**
 * A consistent online copy of the database (`VACUUM INTO`): safe while the
 * server runs, because SQLite copies from one read transaction. The copy is
 * then opened and checked before we call it done.
 */
import { Database } from "bun:sqlite";
import { chmodSync, existsSync, mkdirSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { Db } from "#db/client";
import { CliError } from "./cli-error";

export interface BackupResult {
  file: string;
  bytes: number;
  ms: number;
  tables: number;
}

export function backupDatabase(db: Db, target: string): BackupResult {
  const file = resolve(target);
  if (existsSync(file)) throw new CliError(`backup: ${file} already exists; choose a new file name`);
  mkdirSync(dirname(file), { recursive: true });
  const t0 = performance.now();
  if (!db.sqlite) throw new CliError("backup: this database is PostgreSQL; use pg_dump");
  db.sqlite.query("VACUUM INTO ?").run(file);
  chmodSync(file, 0o600); // a copy of sessions and key hashes, like the database itself
  const ms = performance.now() - t0;
  const copy = new Database(file, { readonly: true });
  try {
    const check = copy.query("PRAGMA integrity_check").get() as { integrity_check: string };
    if (check.integrity_check !== "ok") throw new CliError(`backup: integrity check of the copy failed: ${check.integrity_check}`);
    const { n } = copy.query("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'").get() as { n: number };
    return { file, bytes: statSync(file).size, ms, tables: n };
  } finally {
    copy.close();
  }
}
