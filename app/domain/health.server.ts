/** What /api/health reports: version, database, and each provider live or simulated. */
import type { Db } from "#db/client";
import type { Config } from "~/lib/config.server";
import { APP_VERSION } from "~/lib/version";

export type ProviderMode = "live" | "simulated";

/** A provider is live when its credentials are configured (DESIGN §2). */
export function providerModes(config: Config): Record<string, ProviderMode> {
  const mode = (on: boolean): ProviderMode => (on ? "live" : "simulated");
  return {
    openai: mode(Boolean(config.OPENAI_API_KEY)),
    replicate: mode(Boolean(config.REPLICATE_API_TOKEN)),
    kling: mode(Boolean(config.KLING_ACCESS_KEY && config.KLING_SECRET_KEY)),
    runway: mode(Boolean(config.RUNWAY_API_KEY)),
  };
}

export function checkHealth(db: Db, config: Config) {
  let database: "ok" | "error" = "ok";
  try {
    db.$client.query("SELECT 1").get();
  } catch {
    database = "error";
  }
  return {
    status: database === "ok" ? "ok" : "degraded",
    version: APP_VERSION,
    database,
    providers: providerModes(config),
  };
}
