/** Direct access to a test server's database file (fixtures and assertions). */
import { eq } from "drizzle-orm";
import { join } from "node:path";
import { openDatabase, type Db } from "#db/client";
import { user } from "#db/schema";
import { createApiKey, revokeApiKey } from "~/domain/api-keys/keys.server";
import { systemClock } from "~/lib/clock";

export function openServerDb(dataDir: string): Db {
  return openDatabase(join(dataDir, "atelier.db"), { migrate: false, busyTimeoutMs: 10_000 });
}

/** Creates an API key for a user through the key domain (revoked on request) and returns the raw key. */
export async function insertApiKey(db: Db, userId: string, status: "active" | "revoked" = "active"): Promise<string> {
  const created = await createApiKey(db, { userId, name: "test" }, systemClock);
  if (status === "revoked") await revokeApiKey(db, { userId, keyId: created.key_id }, systemClock);
  return created.key;
}

/** Marks an account's e-mail verified, as the verification link would (fixture for ADMIN_EMAILS admins). */
export function markVerified(db: Db, userId: string): void {
  db.update(user).set({ emailVerified: true }).where(eq(user.id, userId)).run();
}

/** markVerified on a server's database file, for tests that hold no handle of their own. */
export function markVerifiedIn(dataDir: string, userId: string): void {
  const db = openServerDb(dataDir);
  try {
    markVerified(db, userId);
  } finally {
    void db.close();
  }
}
