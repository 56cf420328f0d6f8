/**
 * The process's long-lived dependencies, built once from configuration.
 * Domain functions take what they need as arguments; only routes, the job
 * runner and the CLI reach for this.
 */
import { openDatabase, type Db } from "#db/client";
import { seedProducts } from "~/domain/billing/products.server";
import { createAuth, type Auth } from "./auth.server";
import { log } from "./log.server";
import { systemClock, type Clock } from "./clock";
import { getConfig, type Config } from "./config.server";

export interface Services {
  config: Config;
  db: Db;
  auth: Auth;
  clock: Clock;
}

const KEY = Symbol.for("atelier.services");
type G = typeof globalThis & { [KEY]?: Services };

export function getServices(): Services {
  const g = globalThis as G;
  if (!g[KEY]) {
    const config = getConfig();
    const db = openDatabase(config.databasePath);
    const clock = systemClock;
    // A fresh install sells the default products. On SQLite this transaction runs to its end right here.
    db.tx((t) => seedProducts(t, clock)).catch((error) => log.error("seeding the default products failed", { error }));
    g[KEY] = { config, db, clock, auth: createAuth(config, db, clock) };
  }
  return g[KEY]!;
}

/** Closes the database (graceful shutdown, CLI commands). */
export async function closeServices(): Promise<void> {
  const g = globalThis as G;
  const s = g[KEY];
  delete g[KEY];
  await s?.db.close();
}
