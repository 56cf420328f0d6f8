/**
 * `atelier migrate-to-postgres --from data/atelier.db --to postgres://…`: moves
 * a (possibly live) SQLite database into an empty PostgreSQL database.
 *
 * 1. A consistent snapshot of the source (`VACUUM INTO`, one read transaction:
 *    safe while the server keeps serving), brought up to this version's schema.
 * 2. PostgreSQL's migrations are applied to the target.
 * 3. One PostgreSQL transaction: lock every table, refuse if any row exists,
 *    copy every table of db/schema.ts parents first in multi-row inserts, reset
 *    sequences, then verify row counts per table and every user's balance
 *    (the ledger's `balanceOf`, on both engines at one instant). A refusal, a
 *    failed insert or a mismatch rolls everything back.
 *
 * Values are copied as SQLite stores them: the PostgreSQL schema keeps the
 * SQLite representation (db/schema.pg.ts: times as bigint milliseconds, flags
 * as integer 0/1, JSON as text), so no value changes on the way.
 */
import { Database } from "bun:sqlite";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { getTableColumns, is, type SQL, sql } from "drizzle-orm";
import { getTableConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import { applyPgMigrations, type Db, openDatabase, openPostgres, type Steps, type Tx } from "#db/client";
import * as schema from "#db/schema";
import { balanceOf } from "~/domain/credits/ledger.server";
import type { Clock } from "~/lib/clock";
import { CliError } from "./cli-error";

export const MIGRATE_TO_POSTGRES_HELP = `Usage: atelier migrate-to-postgres --from <sqlite file> [--to <postgres://…>]

Copies an Atelier SQLite database (it may be in use) into an EMPTY PostgreSQL database
in one transaction, then checks row counts and every user's balance on both sides.
Nothing is written to the target unless everything copies and checks out.

  --from <file>     the SQLite database, e.g. data/atelier.db
  --to <url>        postgres://user:password@host:5432/database (default: DATABASE_URL)
  --json            print the summary as JSON

See docs/self-hosting.md, "Moving from SQLite to PostgreSQL".`;

/** Every table of db/schema.ts, each after the tables its foreign keys point to. */
export function copyOrder(): SQLiteTable[] {
  const all = (Object.values(schema) as unknown[]).filter((v): v is SQLiteTable => is(v, SQLiteTable));
  const out: SQLiteTable[] = [];
  const state = new Map<SQLiteTable, "visiting" | "done">();
  const visit = (t: SQLiteTable) => {
    if (state.get(t) === "done") return;
    if (state.get(t) === "visiting")
      throw new Error(`migrate-to-postgres: foreign-key cycle at ${getTableConfig(t).name}`);
    state.set(t, "visiting");
    for (const fk of getTableConfig(t).foreignKeys) {
      const parent = fk.reference().foreignTable;
      if (parent !== t) visit(parent);
    }
    state.set(t, "done");
    out.push(t);
  };
  all.forEach(visit);
  return out;
}

export interface TableSummary {
  table: string;
  rows: number;
  ms: number;
}

export interface MoveResult {
  tables: TableSummary[];
  rows: number;
  /** Users whose balance was compared on both engines. */
  users: number;
  snapshotMs: number;
  copyMs: number;
  verifyMs: number;
  totalMs: number;
}

export interface MoveOptions {
  from: string;
  to: string;
  /** Rows per INSERT (default 500). */
  batchRows?: number;
  /** What to copy (default copyOrder()); verification still counts every table of the source. */
  tables?: SQLiteTable[];
  /** How long to wait for the target's table locks before calling it in use (default 10 s). */
  lockTimeoutMs?: number;
  /** Progress lines (stderr in the CLI). */
  progress?: (line: string) => void;
}

const INTERNAL_TABLE = /^(sqlite_|__drizzle)/;

/**
 * Tables the target's own triggers fill while the others are copied: not copied (a copy would count every task twice),
 * then checked against the source's rows (user_generation_stats.tasks = the user's rows in generations).
 * user_credit_stats is filled so from the grants, user_task_counts and gallery_entries from the tasks; generations.user_seq,
 * a copied column, is set again by the target's trigger as each task arrives.
 */
const DERIVED = new Set<SQLiteTable>([
  schema.userGenerationStats,
  schema.userCreditStats,
  schema.userTaskCounts,
  schema.galleryEntries,
]);
/**
 * Rows that mean something in a derived table, for the row counts compared after the copy: a counter row left at zero
 * by a task that moved on (pending → completed) reads as "no row" (db/schema/generations.ts), and the target's triggers,
 * which see each task arrive already finished, never make one.
 */
const MEANINGFUL_ROWS: Record<string, string> = { user_task_counts: "tasks <> 0 OR hidden <> 0" };
const countRows = (table: string) =>
  `SELECT count(*) AS n FROM ${qi(table)}${MEANINGFUL_ROWS[table] ? ` WHERE ${MEANINGFUL_ROWS[table]}` : ""}`;
const TASKS_BY_USER = `SELECT user_id, count(*) AS n FROM generations GROUP BY user_id ORDER BY user_id`;

/** The URL without its password, for messages. */
function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "(unparseable URL)";
  }
}

function checkUrl(to: string | undefined): string {
  if (!to) throw new CliError("migrate-to-postgres: --to <postgres://…> is required (or set DATABASE_URL)");
  let u: URL;
  try {
    u = new URL(to);
  } catch {
    throw new CliError("migrate-to-postgres: --to is not a URL; expected postgres://user:password@host:5432/database");
  }
  if (u.protocol !== "postgres:" && u.protocol !== "postgresql:") {
    throw new CliError(`migrate-to-postgres: --to must be a postgres:// URL, not ${u.protocol}//…`);
  }
  if (!u.hostname && !u.searchParams.get("host"))
    throw new CliError("migrate-to-postgres: --to has no host; expected postgres://user:password@host:5432/database");
  return to;
}

/** A consistent copy of the live database, at this version's schema. The caller removes `dir`. */
function snapshot(from: string): { db: Db; dir: string } {
  const file = resolve(from);
  if (!existsSync(file)) throw new CliError(`migrate-to-postgres: --from ${from}: no such file`);
  if (!statSync(file).isFile()) throw new CliError(`migrate-to-postgres: --from ${from}: not a file`);
  let source: Database;
  try {
    source = new Database(file, { readwrite: true, create: false });
    source.exec("PRAGMA busy_timeout = 10000");
    const hasUsers = source.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'user'").get();
    if (!hasUsers) throw new CliError(`migrate-to-postgres: --from ${from}: not an Atelier database (no user table)`);
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw new CliError(`migrate-to-postgres: --from ${from}: cannot open as SQLite: ${(e as Error).message}`);
  }
  // Beside the source (same disk, which already holds one copy), else the temp folder.
  let dir: string;
  try {
    dir = mkdtempSync(join(dirname(file), ".atelier-move-"));
  } catch {
    dir = mkdtempSync(join(tmpdir(), "atelier-move-"));
  }
  try {
    // One read transaction: a consistent snapshot while the server keeps writing.
    source.query("VACUUM INTO ?").run(join(dir, "snapshot.db"));
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw new CliError(`migrate-to-postgres: reading ${from} failed: ${(e as Error).message}`);
  } finally {
    source.close();
  }
  // An older install's database gets this version's migrations (the copy only; the source is untouched).
  try {
    return { db: openDatabase(join(dir, "snapshot.db")), dir };
  } catch (e) {
    rmSync(dir, { recursive: true, force: true }); // e.g. a database from a newer Atelier (NewerDatabaseError)
    throw e;
  }
}

const qi = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** Runs one PostgreSQL statement inside the transaction body. */
function* pg(q: SQL): Steps<Record<string, unknown>[]> {
  return yield { k: "sql", mode: "many", postgres: q };
}

interface Plan {
  table: SQLiteTable;
  name: string;
  columns: string[];
  /** Integer-typed columns (integers, times, flags), by position. */
  integer: boolean[];
}

function planOf(table: SQLiteTable): Plan {
  const cfg = getTableConfig(table);
  const columns = Object.values(getTableColumns(table));
  return {
    table,
    name: cfg.name,
    columns: columns.map((c) => c.name),
    integer: columns.map((c) => c.getSQLType() === "integer"),
  };
}

/** A stored value as PostgreSQL takes it for its column. */
function convert(v: unknown, integer: boolean, where: () => string): unknown {
  if (v === null || !integer) return v;
  if (typeof v === "bigint") return v;
  if (typeof v === "number") return Number.isInteger(v) ? v : Math.round(v); // `unixepoch('subsec') * 1000` can store 1.7e12 + a float's noise
  throw new CliError(
    `migrate-to-postgres: ${where()} holds ${JSON.stringify(v)} in an integer column; fix the row in SQLite and run again`,
  );
}

export async function migrateToPostgres(opts: MoveOptions): Promise<MoveResult> {
  const t0 = performance.now();
  const progress = opts.progress ?? (() => {});
  const to = checkUrl(opts.to);
  const snap = snapshot(opts.from);
  const src = snap.db;
  let target: Db | undefined;
  try {
    const source = src.sqlite!;
    const snapshotMs = performance.now() - t0;
    progress(`snapshot of ${opts.from} taken (${snapshotMs.toFixed(0)} ms)`);

    // What the source holds: every table in the file, not only the ones we mean to copy.
    const plans = (opts.tables ?? copyOrder()).filter((t) => !DERIVED.has(t)).map(planOf);
    const known = new Set(copyOrder().map((t) => getTableConfig(t).name));
    const sourceTables = (
      source.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]
    )
      .map((r) => r.name)
      .filter((n) => !INTERNAL_TABLE.test(n));
    const unknown = sourceTables.filter((n) => !known.has(n));
    if (unknown.length) {
      throw new CliError(
        `migrate-to-postgres: the source has tables this version of Atelier does not know (${unknown.join(", ")}); run the Atelier version that wrote it`,
      );
    }
    const sourceCounts = new Map(sourceTables.map((n) => [n, (source.query(countRows(n)).get() as { n: number }).n]));
    const at = Date.now();
    const clock: Clock = { now: () => at };
    const userIds = (source.query("SELECT id FROM user ORDER BY id").all() as { id: string }[]).map((r) => r.id);
    const sourceTasks = new Map(
      (source.query(TASKS_BY_USER).all() as { user_id: string; n: number }[]).map((r) => [r.user_id, r.n]),
    );
    const sourceBalances = new Map<string, { available: number; held: number }>();
    for (const id of userIds) sourceBalances.set(id, await src.exec(balanceOf(src, id, clock)));

    // The target: reachable, migrated.
    try {
      target = await openPostgres(to, { migrate: false, poolMax: 2 });
      await target.ping();
    } catch (e) {
      throw new CliError(`migrate-to-postgres: cannot reach PostgreSQL at ${redact(to)}: ${(e as Error).message}`);
    }
    await applyPgMigrations(target);
    progress("PostgreSQL migrations applied");

    const batchRows = opts.batchRows ?? 500;
    const lockTimeoutMs = Math.round(opts.lockTimeoutMs ?? 10_000);
    const summary: TableSummary[] = [];
    let copyMs = 0;
    let verifyMs = 0;
    await target.tx(function* (t) {
      const names = [...known].map(qi).join(", ");
      // Nobody writes to the target while we copy (a node started too early would otherwise race the checks).
      yield* pg(sql.raw(`SET LOCAL lock_timeout = ${lockTimeoutMs}`));
      try {
        yield* pg(sql.raw(`LOCK TABLE ${names} IN EXCLUSIVE MODE`));
      } catch (e) {
        throw new CliError(
          `migrate-to-postgres: the target database is in use (no table lock within ${lockTimeoutMs / 1000} s: ${(e as Error).message}); stop whatever runs on it and try again`,
        );
      }
      yield* pg(sql.raw("SET LOCAL lock_timeout = 0"));
      const nonEmpty = yield* pg(
        sql.raw([...known].map((n) => `SELECT '${n}' AS t WHERE EXISTS (SELECT 1 FROM ${qi(n)})`).join(" UNION ALL ")),
      );
      if (nonEmpty.length) {
        throw new CliError(
          `migrate-to-postgres: the target database is not empty (rows in ${nonEmpty.map((r) => r.t).join(", ")}); ` +
            "copy into a new, empty database (createdb), and start Atelier on it only after the move",
        );
      }

      const c0 = performance.now();
      for (const p of plans) {
        // Which table is under way (a big one takes seconds); its count is printed once, in the summary.
        progress(`copying ${p.name}…`);
        const s0 = performance.now();
        const read = source.query(
          `SELECT rowid, ${p.columns.map(qi).join(", ")} FROM ${qi(p.name)} WHERE rowid > ? ORDER BY rowid LIMIT ${batchRows}`,
        );
        // A batch travels as one JSON parameter that PostgreSQL expands into rows of the table's own type.
        const cols = p.columns.map(qi).join(", ");
        const insert = (json: string) =>
          sql
            .raw(
              `INSERT INTO ${qi(p.name)} (${cols}) SELECT ${cols} FROM json_populate_recordset(NULL::${qi(p.name)}, `,
            )
            .append(sql`${json}::json)`);
        let last: unknown = -1;
        let rows = 0;
        for (;;) {
          const batch = read.values(last as number) as unknown[][];
          if (batch.length === 0) break;
          last = batch[batch.length - 1]![0];
          const objects = batch.map((r, i) => {
            const o: Record<string, unknown> = {};
            for (let j = 0; j < p.columns.length; j++)
              o[p.columns[j]!] = convert(
                r[j + 1],
                p.integer[j]!,
                () => `${p.name}.${p.columns[j]} (row ${rows + i + 1})`,
              );
            return o;
          });
          try {
            yield* pg(insert(JSON.stringify(objects, (_, v) => (typeof v === "bigint" ? String(v) : v))));
          } catch (e) {
            throw new CliError(`migrate-to-postgres: copying ${p.name} failed: ${(e as Error).message}`);
          }
          rows += batch.length;
        }
        summary.push({ table: p.name, rows, ms: performance.now() - s0 });
      }
      for (const t of (opts.tables ?? copyOrder()).filter((t) => DERIVED.has(t))) {
        const name = getTableConfig(t).name;
        const [c] = yield* pg(sql.raw(`SELECT count(*) AS n FROM ${qi(name)}`));
        summary.push({ table: name, rows: Number(c?.n ?? 0), ms: 0 }); // filled by the triggers meanwhile
      }
      // Serial and identity columns continue after the copied ids (none in today's schema; kept generic).
      const seqs = yield* pg(sql`
        SELECT table_name AS t, column_name AS c, pg_get_serial_sequence(quote_ident(table_name), column_name) AS s
        FROM information_schema.columns
        WHERE table_schema = current_schema() AND (column_default LIKE 'nextval(%' OR is_identity = 'YES')`);
      for (const s of seqs) {
        if (!s.s) continue;
        yield* pg(
          sql.raw(
            `SELECT setval('${String(s.s).replaceAll("'", "''")}', coalesce((SELECT max(${qi(String(s.c))}) FROM ${qi(String(s.t))}), 0) + 1, false)`,
          ),
        );
      }
      copyMs = performance.now() - c0;

      // Verify inside the transaction: a mismatch throws, and the throw rolls the copy back.
      const v0 = performance.now();
      const problems: string[] = [];
      const counted = yield* pg(
        sql.raw(sourceTables.map((n) => `SELECT '${n}' AS t, n FROM (${countRows(n)}) AS c`).join(" UNION ALL ")),
      );
      const targetCounts = new Map(counted.map((r) => [String(r.t), Number(r.n)]));
      for (const n of sourceTables) {
        if (targetCounts.get(n) !== sourceCounts.get(n))
          problems.push(`${n}: ${sourceCounts.get(n)} rows in SQLite, ${targetCounts.get(n)} in PostgreSQL`);
      }
      const counters = yield* pg(sql.raw(`SELECT user_id, tasks FROM "user_generation_stats" WHERE tasks <> 0`));
      const targetTasks = new Map(counters.map((r) => [String(r.user_id), Number(r.tasks)]));
      let taskProblems = 0;
      for (const id of new Set([...sourceTasks.keys(), ...targetTasks.keys()])) {
        const want = sourceTasks.get(id) ?? 0;
        const got = targetTasks.get(id) ?? 0;
        if (got !== want && ++taskProblems <= 10)
          problems.push(`user ${id}: ${want} tasks in SQLite, task counter ${got} in PostgreSQL`);
      }
      let balanceProblems = 0;
      for (const id of userIds) {
        const want = sourceBalances.get(id)!;
        const got = yield* balanceOf(t as Tx, id, clock);
        if (got.available !== want.available || got.held !== want.held) {
          if (++balanceProblems <= 10)
            problems.push(
              `user ${id}: balance ${want.available} (held ${want.held}) in SQLite, ${got.available} (held ${got.held}) in PostgreSQL`,
            );
        }
      }
      if (balanceProblems > 10) problems.push(`… and ${balanceProblems - 10} more users whose balance differs`);
      verifyMs = performance.now() - v0;
      if (problems.length) {
        throw new CliError(
          `migrate-to-postgres: verification failed, nothing was written:\n  ${problems.join("\n  ")}`,
        );
      }
    });
    const rows = summary.reduce((a, s) => a + s.rows, 0);
    return {
      tables: summary,
      rows,
      users: userIds.length,
      snapshotMs,
      copyMs,
      verifyMs,
      totalMs: performance.now() - t0,
    };
  } finally {
    await target?.close().catch(() => {});
    await src.close();
    rmSync(snap.dir, { recursive: true, force: true });
  }
}

export async function runMigrateToPostgresCli(argv: string[]): Promise<number> {
  let v;
  try {
    v = parseArgs({
      args: argv,
      options: {
        from: { type: "string" },
        to: { type: "string" },
        json: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
    }).values;
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n\n${MIGRATE_TO_POSTGRES_HELP}\n`);
    return 2;
  }
  if (v.help) {
    process.stdout.write(`${MIGRATE_TO_POSTGRES_HELP}\n`);
    return 0;
  }
  if (!v.from) {
    process.stderr.write(`migrate-to-postgres: --from <sqlite file> is required\n\n${MIGRATE_TO_POSTGRES_HELP}\n`);
    return 2;
  }
  const r = await migrateToPostgres({
    from: v.from,
    to: v.to ?? process.env.DATABASE_URL ?? "",
    progress: (l) => process.stderr.write(`${l}\n`),
  });
  if (v.json) {
    process.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
    return 0;
  }
  const w = Math.max(...r.tables.map((s) => s.table.length));
  const lines = [
    `${"table".padEnd(w)}  ${"rows".padStart(9)}  ${"ms".padStart(7)}`,
    ...r.tables.map((s) => `${s.table.padEnd(w)}  ${String(s.rows).padStart(9)}  ${s.ms.toFixed(0).padStart(7)}`),
    `copied ${r.rows} rows in ${r.tables.length} tables to ${redact(v.to ?? process.env.DATABASE_URL ?? "")} and committed; ` +
      `verified: row counts of every table and the balances of ${r.users} user${r.users === 1 ? "" : "s"} are equal on both databases ` +
      `(snapshot ${r.snapshotMs.toFixed(0)} ms, copy ${r.copyMs.toFixed(0)} ms, verify ${r.verifyMs.toFixed(0)} ms, total ${(r.totalMs / 1000).toFixed(1)} s)`,
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
  return 0;
}
