/**
 * A consistent online copy of the database (`VACUUM INTO`): safe while the
 * server runs, because SQLite copies from one read transaction. The copy is
 * then opened and checked before we call it done.
 */
import { Database } from "bun:sqlite";
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { Db } from "#db/client";
import { CliError } from "./cli-error";

export interface BackupResult {
  file: string;
  bytes: number;
  ms: number;
  tables: number;
}

/**
 * A copy holds sessions and key hashes, like the database itself: nobody else may read it at any moment. The process
 * umask is 077 while it is written (files the copier creates itself: SQLite's journal, pg_dump's output), the file
 * exists empty with mode 0600 before the first byte, and folders made for it are 0700.
 */
function privately<T>(fn: () => T): T {
  const before = process.umask(0o077);
  try {
    return fn();
  } finally {
    process.umask(before);
  }
}

/** The target, created empty and private (refused when it exists: a backup never overwrites one). */
function createPrivateFile(file: string) {
  if (existsSync(file)) throw new CliError(`backup: ${file} already exists; choose a new file name`);
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  try {
    closeSync(openSync(file, "wx", 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST")
      throw new CliError(`backup: ${file} already exists; choose a new file name`);
    throw error;
  }
  chmodSync(file, 0o600);
}

export function backupDatabase(db: Db, target: string): BackupResult {
  const file = resolve(target);
  if (!db.sqlite) throw new CliError("backup: this database is PostgreSQL; use pg_dump");
  const sqlite = db.sqlite;
  const t0 = performance.now();
  privately(() => {
    createPrivateFile(file);
    // VACUUM INTO refuses a file that is not empty, and writes into the empty one that is there, keeping its mode.
    sqlite.query("VACUUM INTO ?").run(file);
  });
  chmodSync(file, 0o600);
  const ms = performance.now() - t0;
  const copy = new Database(file, { readonly: true });
  try {
    const check = copy.query("PRAGMA integrity_check").get() as { integrity_check: string };
    if (check.integrity_check !== "ok")
      throw new CliError(`backup: integrity check of the copy failed: ${check.integrity_check}`);
    const { n } = copy.query("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'").get() as { n: number };
    return { file, bytes: statSync(file).size, ms, tables: n };
  } finally {
    copy.close();
  }
}

/** The command that backs up a PostgreSQL database (custom format, restorable with pg_restore); the password goes through PGPASSWORD. */
export function pgDumpCommand(databaseUrl: string, target: string): { argv: string[]; env: Record<string, string> } {
  const u = new URL(databaseUrl);
  const password = decodeURIComponent(u.password);
  u.password = "";
  return {
    argv: ["pg_dump", "--format=custom", "--no-owner", `--file=${target}`, `--dbname=${u.toString()}`],
    env: password ? { PGPASSWORD: password } : {},
  };
}

/**
 * `atelier backup <file>` on PostgreSQL: pg_dump (a consistent snapshot, safe
 * while serving) when it is on PATH; otherwise the command to run, as an error.
 * Never VACUUM INTO: that is SQLite's.
 */
export async function backupPostgres(databaseUrl: string, target: string): Promise<BackupResult> {
  const file = resolve(target);
  if (existsSync(file)) throw new CliError(`backup: ${file} already exists; choose a new file name`);
  const { argv, env } = pgDumpCommand(databaseUrl, file);
  const shown = argv.map((a) => (/\s/.test(a) ? `'${a}'` : a)).join(" ");
  const bin = Bun.which("pg_dump", { PATH: process.env.PATH ?? "" });
  if (!bin) {
    throw new CliError(
      `backup: the database is PostgreSQL and pg_dump is not on PATH. Install the PostgreSQL client (same major version as the server or newer) and run:\n  ${shown}\n(with PGPASSWORD set when the URL has a password); restore with pg_restore --dbname=<url> ${file}`,
    );
  }
  const t0 = performance.now();
  // pg_dump opens its --file with O_TRUNC (keeping the private mode) and inherits the umask.
  const p = privately(() => {
    createPrivateFile(file);
    return Bun.spawn([bin, ...argv.slice(1)], { env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  });
  const [err, code] = await Promise.all([new Response(p.stderr).text(), p.exited]);
  if (code !== 0) throw new CliError(`backup: pg_dump failed (exit ${code}): ${err.trim()}\ncommand: ${shown}`);
  chmodSync(file, 0o600);
  const list = Bun.spawnSync(["pg_restore", "--list", file], { stdout: "pipe", stderr: "pipe" });
  const tables =
    list.exitCode === 0
      ? list.stdout
          .toString()
          .split("\n")
          .filter((l) => / TABLE DATA /.test(l)).length
      : 0;
  return { file, bytes: statSync(file).size, ms: performance.now() - t0, tables };
}
