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
export async function markVerified(db: Db, userId: string): Promise<void> {
  await db.run(db.update(user).set({ emailVerified: true }).where(eq(user.id, userId)));
}

/** markVerified on a server's database file, for tests that hold no handle of their own. */
export async function markVerifiedIn(dataDir: string, userId: string): Promise<void> {
  const db = openServerDb(dataDir);
  try {
    await markVerified(db, userId);
  } finally {
    await db.close();
  }
}
