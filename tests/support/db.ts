/** Direct access to a test server's database file (fixtures and assertions). */
import { randomBytes, randomUUID } from "node:crypto";
import { join } from "node:path";
import { openDatabase, type Db } from "#db/client";
import { apiKeys } from "#db/schema";
import { hashApiKey } from "~/domain/api-keys/authenticate.server";

export function openServerDb(dataDir: string): Db {
  return openDatabase(join(dataDir, "atelier.db"), { migrate: false, busyTimeoutMs: 10_000 });
}

/** Inserts an API key row for a user and returns the raw key (the key-management UI is elsewhere). */
export function insertApiKey(db: Db, userId: string, status: "active" | "revoked" = "active"): string {
  const key = `atl_${randomBytes(24).toString("base64url")}`;
  db.insert(apiKeys)
    .values({ id: randomUUID(), userId, name: "test", start: key.slice(0, 8), keyHash: hashApiKey(key), status, createdAt: new Date() })
    .run();
  return key;
}
