/**
 * The process's long-lived dependencies, built once from configuration.
 * Domain functions take what they need as arguments; only routes, the job
 * runner and the CLI reach for this.
 *
 * The engine is chosen once, at start: `DATABASE_URL` → PostgreSQL, else the
 * SQLite file. PostgreSQL opens asynchronously (connect, migrate), so every
 * entry point (server, worker, CLI, dev server) awaits `initServices()` before
 * the first request; routes then call the synchronous `getServices()`. On
 * SQLite `getServices()` still opens the file on first use, as it always did.
 */
import { type Db, openDatabase, openPostgres } from "#db/client";
import { seedProducts } from "~/domain/billing/products.server";
import { refreshCatalog, seedCatalog, watchCatalog } from "~/domain/catalog/store.server";
import { setLinkBase } from "~/domain/generations/links";
import { stopPlaceholderPool } from "~/domain/generations/placeholder-pool.server";
import { type Clock, systemClock } from "~/lib/clock";
import { type Config, describeDatabase, getConfig } from "~/lib/config.server";
import { log } from "~/lib/log.server";
import { initTracing, shutdownTracing, tracedDb } from "~/lib/tracing.server";
import { type Auth, createAuth } from "./auth.server";

export interface Services {
  config: Config;
  db: Db;
  auth: Auth;
  clock: Clock;
}

const KEY = Symbol.for("atelier.services");
const OPENING = Symbol.for("atelier.services.opening");
const UNWATCH = Symbol.for("atelier.services.unwatchCatalog");
type G = typeof globalThis & { [KEY]?: Services; [OPENING]?: Promise<Services>; [UNWATCH]?: () => void };

/** An upgrade says what it did: the migrations this process applied to an existing database (a new one says nothing). */
function logMigrated(config: Config): (applied: number, before: number) => void {
  return (applied, before) => {
    if (applied > 0 && before > 0)
      log.info("database migrated", { applied, before, database: describeDatabase(config) });
  };
}

function assemble(config: Config, untraced: Db): Services {
  const clock = systemClock;
  const db = tracedDb(untraced);
  setLinkBase(config.publicUrl);
  let auth: Auth | undefined;
  // Built on first use: the worker and the CLI never sign anything, so they run without BETTER_AUTH_SECRET on PostgreSQL.
  return {
    config,
    db,
    clock,
    get auth() {
      return (auth ??= createAuth(config, db, clock));
    },
  };
}

/** A fresh install sells the default products and models (idempotent; every node may run it). */
async function seed(s: Services): Promise<void> {
  await s.db.tx(function* (t) {
    yield* seedProducts(t, s.clock);
    yield* seedCatalog(t, s.clock);
  });
}

/** This process reads the catalog from the database now and keeps it current (docs/catalog.md). */
async function startCatalog(s: Services): Promise<void> {
  await refreshCatalog(s.db, { force: true });
  const g = globalThis as G;
  g[UNWATCH]?.();
  g[UNWATCH] = watchCatalog(s.db);
}

/**
 * Opens the database of the configured engine (migrations applied, products
 * seeded). Call it once before serving; later calls return the same services.
 */
export async function initServices(): Promise<Services> {
  const g = globalThis as G;
  if (g[KEY]) return g[KEY];
  const config = getConfig();
  await initTracing(config);
  if (config.engine === "sqlite") {
    const s = getServices();
    await startCatalog(s);
    return s;
  }
  g[OPENING] ??= (async () => {
    const db = await openPostgres(config.DATABASE_URL!, {
      poolMax: config.DATABASE_POOL_MAX,
      onMigrated: logMigrated(config),
    });
    const s = assemble(config, db);
    await seed(s);
    await startCatalog(s);
    return (g[KEY] = s);
  })().finally(() => delete g[OPENING]);
  return g[OPENING];
}

export function getServices(): Services {
  const g = globalThis as G;
  if (!g[KEY]) {
    const config = getConfig();
    if (config.engine !== "sqlite")
      throw new Error("services: DATABASE_URL is set but initServices() was not awaited at start");
    // WAL checkpoints on a worker thread, not inside a request's commit (db/checkpointer.ts).
    const checkpointer = { onError: (message: string) => log.warn("SQLite checkpoint failed", { error: message }) };
    const s = assemble(config, openDatabase(config.databasePath, { checkpointer, onMigrated: logMigrated(config) }));
    // On SQLite this transaction runs to its end right here.
    seed(s).catch((error) => log.error("seeding the default products and models failed", { error }));
    g[KEY] = s;
  }
  return g[KEY]!;
}

/** Closes the database (graceful shutdown, CLI commands). */
export async function closeServices(): Promise<void> {
  const g = globalThis as G;
  const s = g[KEY];
  delete g[KEY];
  g[UNWATCH]?.();
  delete g[UNWATCH];
  stopPlaceholderPool();
  await s?.db.close();
  // What the tracer still buffers leaves before the process exits.
  await shutdownTracing();
}
