/**
 * The take-back rule covers every credential type, present and future (docs/decisions/138-taking-an-account-back-everything.md):
 * each table that belongs to a user is classified here as a way into the account — then take-back.server.ts removes
 * it, and account-take-back.security.test.ts shows it — or as the account's own data. A new table with a user_id
 * fails this test until someone decides which it is.
 */
import { describe, expect, test } from "bun:test";
import { is } from "drizzle-orm";
import { getTableConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import * as schema from "#db/schema";

/** Ways in (or out: a webhook sends the account's events elsewhere) that a take-back revokes. */
const WAYS_IN = ["account", "apiKeys", "passkey", "session", "twoFactor", "webhookEndpoints"];

/** The account's own records: what it made, paid, used. The owner keeps them. */
const ACCOUNT_DATA = [
  "checkins",
  "checkouts",
  "collections",
  "creditDebits",
  "creditGrants",
  "feedback",
  "files",
  "galleryEntries",
  "generations",
  "idempotencyKeys",
  "orderPayments",
  "orders",
  "redemptionUses",
  // A /v1 request's tasks, to answer a retry with them: the account's own (a key revoked by take-back cannot retry).
  "requestJoins",
  // The audit trail of refused prompts and results: kept for the operator, not a way in.
  "safetyEvents",
  "userCreditStats",
  "userGenerationStats",
  "userTaskCounts",
  "webhookEvents",
];

const userTables = Object.entries(schema)
  .filter(([, table]) => is(table, SQLiteTable))
  .filter(([, table]) => getTableConfig(table as SQLiteTable).columns.some((c) => c.name === "user_id"))
  .map(([name]) => name)
  .sort();

describe("every table of a user is classified for the take-back", () => {
  test("no table with a user_id is left undecided", () => {
    expect(userTables).toEqual([...WAYS_IN, ...ACCOUNT_DATA].sort());
  });

  test("take-back.server.ts touches every way in", async () => {
    const source = await Bun.file(new URL("../../../app/domain/users/take-back.server.ts", import.meta.url)).text();
    const imported =
      /import \{([^}]+)\} from "#db\/schema"/
        .exec(source)?.[1]
        ?.split(",")
        .map((s) => s.trim()) ?? [];
    for (const table of WAYS_IN) expect(imported).toContain(table);
  });
});
