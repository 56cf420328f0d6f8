import { eq } from "drizzle-orm";
import type { Db } from "#db/client";
import { user } from "#db/schema";
import type { Language } from "~/lib/languages";

/** The account's language (its e-mails'): the language menu's choice when signed in (docs/languages.md). */
export async function setUserLanguage(db: Db, userId: string, language: Language): Promise<void> {
  await db.run(db.update(user).set({ language }).where(eq(user.id, userId)));
}
