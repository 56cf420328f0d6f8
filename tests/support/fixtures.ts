/**
 * The fixtures test files share instead of copying them: rows for domain tests (a user, an order, an API key) on
 * either engine, the admin CLI beside a test server, and — re-exported so one import serves a test file — one server
 * per file, sign-up e-mails and verification.
 *
 *   const id = await createUser(db, { at: T0 });          // unit tests: a user row, no sign-up flow
 *   const key = await createKey(db, id);                   // an active API key of that user
 *   const s = serverForFile({ env: { JOBS: "off" } });     // integration tests: one server for the file
 *   const r = await runAdmin(s.server, ["grant", email, "10"], { ADMIN_EMAILS: email });
 */
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import type { Db } from "#db/client";
import { orders, user } from "#db/schema";
import { upsertProduct } from "~/domain/billing/products.server";
import type { Clock } from "~/lib/clock";
import { Client } from "./client";
import { markVerified, openServerDb } from "./db";
import { databaseEnv, runAtelier, type TestServer } from "./server";

export { uniqueEmail } from "./client";
export { insertApiKey as createKey, makePremiumIn, markVerified, markVerifiedIn } from "./db";
export { serverForFile } from "./file-server";

export interface UserRowOptions {
  /** Creation time (ms since the epoch); now when omitted. */
  at?: number;
  id?: string;
  name?: string;
  email?: string;
  invitedBy?: string | null;
  affiliate?: boolean;
  emailVerified?: boolean;
}

function userRow(o: UserRowOptions) {
  const id = o.id ?? randomUUID();
  const at = new Date(o.at ?? Date.now());
  return {
    id,
    name: o.name ?? "u",
    email: o.email ?? `${id}@example.test`,
    createdAt: at,
    updatedAt: at,
    inviteCode: id.slice(0, 8),
    ...(o.invitedBy !== undefined ? { invitedBy: o.invitedBy } : {}),
    ...(o.affiliate !== undefined ? { isAffiliate: o.affiliate } : {}),
    ...(o.emailVerified !== undefined ? { emailVerified: o.emailVerified } : {}),
  };
}

/** A user row straight in the database (no sign-up flow), on either engine; returns its id. */
export async function createUser(db: Db, o: UserRowOptions = {}): Promise<string> {
  const row = userRow(o);
  await db.run(db.insert(user).values(row));
  return row.id;
}

/** The same row written synchronously, for SQLite tests that seed outside an async function. */
export function createUserSync(db: Db, o: UserRowOptions = {}): string {
  const row = userRow(o);
  db.insert(user).values(row).run();
  return row.id;
}

/** An order of the user: by default a paid monthly "pro" subscription with no period end (premium). */
export async function createOrder(
  db: Db,
  userId: string,
  over: Partial<typeof orders.$inferInsert> = {},
): Promise<void> {
  await db.run(
    db.insert(orders).values({
      orderNo: randomUUID(),
      userId,
      productId: "pro",
      productName: "Pro",
      interval: "month",
      amount: 900,
      status: "paid",
      subId: randomUUID(),
      ...over,
    }),
  );
}

/** The products unit tests of payments price against: "p40", a 40-credit pack at $10, and "plan", 300 credits a month at $9. */
export async function createTestProducts(db: Db, clock: Clock): Promise<void> {
  await upsertProduct(
    db,
    {
      product_id: "p40",
      name: "40 credits",
      kind: "pack",
      credits: 40,
      interval: null,
      amount: 1000,
      currency: "usd",
      active: true,
      sort_order: 0,
    },
    clock,
  );
  await upsertProduct(
    db,
    {
      product_id: "plan",
      name: "Plan",
      kind: "subscription",
      credits: 300,
      interval: "month",
      amount: 900,
      currency: "usd",
      active: true,
      sort_order: 0,
    },
    clock,
  );
}

/** Runs `atelier admin <args>` against a test server's DATA_DIR and database (another process, as an operator does). */
export function runAdmin(server: TestServer, args: string[], env: Record<string, string> = {}, stdin?: string) {
  return runAtelier(["admin", ...args], {
    // promote asks for the account's password: by default the one Client.signUp gives every account.
    stdin: stdin ?? (args[0] === "promote" ? "correct-horse-battery\n" : undefined),
    cwd: server.dataDir,
    env: {
      PATH: process.env.PATH!,
      HOME: process.env.HOME ?? "/tmp",
      DATA_DIR: server.dataDir,
      LOG_LEVEL: "warn",
      ...env,
      ...databaseEnv(server),
    },
  });
}

/**
 * An `ADMIN_EMAILS` admin (docs/decisions/113-taking-an-account-back.md): sign-up stores the account but opens no
 * session before the address is proven (HTTP 403 `ADMIN_EMAIL_NOT_VERIFIED`); then either `atelier admin promote`
 * with the account's password (the README's first-admin path, `via: "promote"`) or the mailbox confirms it (what
 * the verification link stores, `via: "mailbox"`: admin by ADMIN_EMAILS, role unchanged); then it signs in.
 */
export async function signUpAdmin(
  server: TestServer,
  email: string,
  opts: { via?: "promote" | "mailbox"; password?: string } = {},
) {
  const password = opts.password ?? "correct-horse-battery";
  const up = await fetch(`${server.url}/api/auth/sign-up/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: server.url },
    body: JSON.stringify({ email, password, name: email.split("@")[0] }),
  });
  const code = ((await up.json().catch(() => ({}))) as { code?: string }).code;
  if (up.status !== 403 || code !== "ADMIN_EMAIL_NOT_VERIFIED")
    throw new Error(`sign-up ${email}: expected HTTP 403 ADMIN_EMAIL_NOT_VERIFIED, got ${up.status} ${code}`);
  let userId: string;
  if ((opts.via ?? "promote") === "promote") {
    const promoted = await runAdmin(server, ["promote", "--email", email, "--json"], {}, `${password}\n`);
    if (promoted.code !== 0) throw new Error(`admin promote ${email}: ${promoted.stderr || promoted.stdout}`);
    userId = (JSON.parse(promoted.stdout) as { uuid: string }).uuid;
  } else {
    const db = await openServerDb(server.dataDir);
    try {
      const row = await db.one(db.select({ id: user.id }).from(user).where(eq(user.email, email.toLowerCase())));
      if (!row) throw new Error(`sign-up ${email}: no account stored`);
      userId = row.id;
      await markVerified(db, userId);
    } finally {
      await db.close();
    }
  }
  const cookie = await new Client(server.url).signIn(email, password);
  return { cookie, userId };
}

/** A form post from one of our pages to `url` (same origin, urlencoded, redirects not followed), as a browser sends it. */
export function postPageForm(url: string, cookie: string, fields: [string, string][]) {
  return fetch(url, {
    method: "POST",
    redirect: "manual",
    headers: { cookie, origin: new URL(url).origin, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
  });
}
