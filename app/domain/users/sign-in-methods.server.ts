/** The ways an account signs in: its password and the providers linked to it (better-auth's `account` rows). */
import { asc, eq } from "drizzle-orm";
import type { Db } from "#db/client";
import { account, passkey } from "#db/schema";

export interface SignInMethod {
  /** better-auth's id of the link (what unlinking names). */
  id: string;
  /** `credential` for the password, else the provider's id (`google`, `github`, `oidc`). */
  providerId: string;
  linkedAt: Date;
}

export async function listSignInMethods(db: Db, userId: string): Promise<SignInMethod[]> {
  return db.many(
    db
      .select({ id: account.id, providerId: account.providerId, linkedAt: account.createdAt })
      .from(account)
      .where(eq(account.userId, userId))
      .orderBy(asc(account.createdAt)),
  );
}

export interface PasskeyView {
  id: string;
  name: string | null;
  createdAt: Date | null;
}

/** The account's passkeys (better-auth's passkey plugin rows), oldest first. */
export async function listPasskeys(db: Db, userId: string): Promise<PasskeyView[]> {
  return db.many(
    db
      .select({ id: passkey.id, name: passkey.name, createdAt: passkey.createdAt })
      .from(passkey)
      .where(eq(passkey.userId, userId))
      .orderBy(asc(passkey.createdAt)),
  );
}
