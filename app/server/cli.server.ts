/** Subcommands of the Atelier executable. `serve` keeps running (returns -1). */
import type { ServerBuild } from "react-router";
import { applyMigrations, applyPgMigrations, NewerDatabaseError, openDatabase, openPostgres } from "#db/client";
import { installJobRunner, startRunnerFromServices } from "#jobs/index";
import { closeServices, initServices } from "~/http/services.server";
import { ConfigError, describeDatabase, getConfig } from "~/lib/config.server";
import { log } from "~/lib/log.server";
import { APP_VERSION } from "~/lib/version";
import { runAdminCli } from "./admin-cli.server";
import { backupDatabase, backupPostgres } from "./backup.server";
import { CliError } from "./cli-error";
import { serve } from "./http.server";
import { runMigrateToPostgresCli } from "./migrate-to-postgres.server";

const HELP = `Atelier ${APP_VERSION} — AI images and videos paid with credits.

Usage: atelier [command] [options]

Commands:
  serve              Start the web server and job runner (default)
  worker             Run only the job runner and webhook dispatcher (another process serves HTTP with JOBS=off)
  migrate            Create the database and apply pending migrations
  backup <file>      Write a consistent copy of the database to <file> (safe while serving)
  admin <action>     Grant credits, record subscriptions, list users (admin --help)
  migrate-to-postgres --from <file> --to <url>
                     Copy this SQLite database into an empty PostgreSQL one and verify it (--help)
  version            Print the version
  help               Show this help

Configuration comes from environment variables, or a .env file in the working directory. Every variable with its
default: the configuration table of README.md; running it in production (proxy, backups, upgrades, PostgreSQL):
docs/self-hosting.md.`;

export async function runCli(argv: string[], build: ServerBuild, opts: { clientDir: string }): Promise<number> {
  const [command = "serve", ...rest] = argv;
  try {
    switch (command) {
      case "serve":
        if (rest.includes("--help"))
          return print(
            "Usage: atelier serve\n\nStarts the HTTP server on HOST:PORT and the job runner (JOBS=off disables it).",
          );
        await initServices();
        installJobRunner();
        await serve(build, opts);
        return -1;
      case "worker": {
        if (rest.includes("--help"))
          return print(
            "Usage: atelier worker\n\nRuns the job runner without the HTTP server, on the same DATABASE_PATH and DATA_DIR.",
          );
        await initServices();
        const runner = startRunnerFromServices();
        let stopping = false;
        const stop = async (signal: string) => {
          if (stopping) return;
          stopping = true;
          log.info("shutting down", { signal });
          await runner.stop();
          await closeServices();
          process.exit(0);
        };
        process.on("SIGTERM", () => void stop("SIGTERM"));
        process.on("SIGINT", () => void stop("SIGINT"));
        // Announced only once the signal handlers exist: a supervisor that stops the worker as soon as it reads this
        // line must get the graceful stop, not the default SIGTERM disposition (exit 143, leases left to expire).
        log.info("worker started", { owner: runner.owner, database: describeDatabase(getConfig()) });
        return -1;
      }
      case "migrate": {
        if (rest.includes("--help"))
          return print("Usage: atelier migrate\n\nCreates the database file if needed and applies pending migrations.");
        const config = getConfig();
        const db = config.DATABASE_URL
          ? await openPostgres(config.DATABASE_URL, { migrate: false, poolMax: 2 })
          : openDatabase(config.databasePath, { migrate: false });
        try {
          const n = db.engine === "postgres" ? await applyPgMigrations(db) : applyMigrations(db);
          return print(`database ${describeDatabase(config)}: ${n} migration(s) applied`);
        } finally {
          await db.close();
        }
      }
      case "backup": {
        const target = rest.find((a) => !a.startsWith("-"));
        if (rest.includes("--help") || !target) {
          print(
            "Usage: atelier backup <file>\n\nWrites a consistent online copy of the database (VACUUM INTO), then opens it and runs an integrity check.\nRestore: stop the server and put the copy in place of DATABASE_PATH (remove the old -wal/-shm files).\nWith DATABASE_URL (PostgreSQL): runs pg_dump --format=custom into <file> (restore with pg_restore), or prints the command when pg_dump is not on PATH.",
          );
          return rest.includes("--help") ? 0 : 2;
        }
        const config = getConfig();
        if (config.DATABASE_URL) {
          const r = await backupPostgres(config.DATABASE_URL, target);
          return print(
            `backup written with pg_dump: ${r.file} (${(r.bytes / 1024 / 1024).toFixed(2)} MiB, ${r.tables} tables, ${r.ms.toFixed(0)} ms); restore with pg_restore`,
          );
        }
        const db = openDatabase(config.databasePath);
        try {
          const r = backupDatabase(db, target);
          return print(
            `backup written: ${r.file} (${(r.bytes / 1024 / 1024).toFixed(2)} MiB, ${r.tables} tables, ${r.ms.toFixed(0)} ms, integrity ok)`,
          );
        } finally {
          await db.close();
        }
      }
      case "admin":
        return await runAdminCli(rest);
      case "migrate-to-postgres":
        return await runMigrateToPostgresCli(rest);
      case "version":
      case "--version":
        return print(APP_VERSION);
      case "help":
      case "--help":
      case "-h":
        return print(HELP);
      default:
        process.stderr.write(`unknown command: ${command}\n\n${HELP}\n`);
        return 2;
    }
  } catch (e) {
    if (e instanceof ConfigError || e instanceof CliError || e instanceof NewerDatabaseError) {
      process.stderr.write(`${e.message}\n`);
      return 1;
    }
    throw e;
  }
}

function print(s: string): number {
  process.stdout.write(`${s}\n`);
  return 0;
}
