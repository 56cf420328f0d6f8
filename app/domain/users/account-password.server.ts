/**
 * Whether a password is the one an account signs in with (better-auth's credential account, its scrypt hash).
 * `atelier admin promote` asks for it: the person at the server's command line must hold the account, or whoever
 * registered the address first would be handed the role (docs/design.md §5).
 */
import { verifyPassword } from "better-auth/crypto";
import { and, eq } from "drizzle-orm";
import type { Db } from "#db/client";
import { account } from "#db/schema";

export async function isAccountPassword(db: Db, userId: string, password: string): Promise<boolean> {
  const row = await db.one(
    db
      .select({ hash: account.password })
      .from(account)
      .where(and(eq(account.userId, userId), eq(account.providerId, "credential"))),
  );
  if (!row?.hash || !password) return false;
  return verifyPassword({ hash: row.hash, password }).catch(() => false);
}
