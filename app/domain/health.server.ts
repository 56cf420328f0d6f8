/** What /api/health reports: version, database, and each provider live or simulated. */
import type { Db } from "#db/client";
import { PROVIDERS, type ProviderName } from "~/domain/catalog";
import type { Config } from "~/lib/config.server";
import { APP_VERSION } from "~/lib/version";
import { hasCredentials, LIVE_FACTORIES } from "~/providers/live.server";

export type ProviderMode = "live" | "simulated";

/** A provider is live when its credentials are configured and an adapter exists (docs/design.md §2). */
export function providerModes(config: Config): Record<ProviderName, ProviderMode> {
  const modes = {} as Record<ProviderName, ProviderMode>;
  for (const p of PROVIDERS) modes[p] = hasCredentials(config, p) && LIVE_FACTORIES[p] ? "live" : "simulated";
  return modes;
}

export async function checkHealth(db: Db, config: Config) {
  let database: "ok" | "error" = "ok";
  try {
    await db.ping();
  } catch {
    database = "error";
  }
  const { pool } = db.info();
  return {
    status: database === "ok" ? "ok" : "degraded",
    version: APP_VERSION,
    database,
    engine: db.engine,
    ...(pool ? { pool } : {}),
    providers: providerModes(config),
  };
}
