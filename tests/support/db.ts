/** Direct access to a test server's database file (fixtures and assertions). */
import { join } from "node:path";
import { openDatabase, type Db } from "#db/client";
import { createApiKey, revokeApiKey } from "~/domain/api-keys/keys.server";
import { systemClock } from "~/lib/clock";

export function openServerDb(dataDir: string): Db {
  return openDatabase(join(dataDir, "atelier.db"), { migrate: false, busyTimeoutMs: 10_000 });
}

/** Creates an API key for a user through the key domain (revoked on request) and returns the raw key. */
export function insertApiKey(db: Db, userId: string, status: "active" | "revoked" = "active"): string {
  const created = createApiKey(db, { userId, name: "test" }, systemClock);
  if (status === "revoked") revokeApiKey(db, { userId, keyId: created.key_id }, systemClock);
  return created.key;
}
