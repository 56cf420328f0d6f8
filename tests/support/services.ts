/**
 * In-process services for unit tests of the request plumbing: an in-memory
 * database, a real better-auth instance and a hand-moved clock, installed as
 * the process-wide services that `api()` routes reach for.
 */
import { randomUUID } from "node:crypto";
import { type Db, openDatabase } from "#db/client";
import { orders, user } from "#db/schema";
import { createAuth } from "~/http/auth.server";
import type { Services } from "~/http/services.server";
import { manualClock } from "~/lib/clock";
import { parseConfig } from "~/lib/config.server";

const KEY = Symbol.for("atelier.services");

export function installTestServices(env: Record<string, string> = {}) {
  const config = {
    ...parseConfig({ DATA_DIR: "/tmp/atelier-unit-unused", LOG_LEVEL: "silent", ...env }),
    authSecret: "unit-test-secret-unit-test-secret-0123",
  };
  const db = openDatabase(":memory:");
  const clock = manualClock();
  const services: Services = { config, db, clock, auth: createAuth(config, db, clock) };
  (globalThis as Record<symbol, unknown>)[KEY] = services;
  return { services, config, db, clock };
}

export function uninstallTestServices() {
  const g = globalThis as Record<symbol, Services | undefined>;
  void g[KEY]?.db.close();
  delete g[KEY];
}

let n = 0;
/** A user row straight in the database (no sign-up flow). */
export function insertUser(
  db: Db,
  email = `u${n++}-${randomUUID().slice(0, 8)}@example.test`,
  opts: { emailVerified?: boolean } = {},
) {
  const id = randomUUID();
  const now = new Date();
  db.insert(user)
    .values({
      id,
      name: email.split("@")[0]!,
      email,
      emailVerified: opts.emailVerified ?? false,
      createdAt: now,
      updatedAt: now,
      inviteCode: randomUUID().slice(0, 8).toUpperCase(),
    })
    .run();
  return { id, email };
}

/** Makes the user premium: a paid order with no period end. */
export function makePremium(db: Db, userId: string) {
  db.insert(orders)
    .values({
      orderNo: randomUUID(),
      userId,
      productId: "pro",
      productName: "Pro",
      interval: "month",
      amount: 900,
      status: "paid",
      subId: randomUUID(),
    })
    .run();
}

/**
 * A user row straight in the database, on either engine (unit tests of domain code).
 * `at` is its creation time; invite code from the id.
 */
export async function addUserRow(
  db: Db,
  at: number,
  opts: { invitedBy?: string; affiliate?: boolean } = {},
): Promise<string> {
  const id = randomUUID();
  // Plain SQL naming only these columns: tests of migrations write it into a database made before later columns.
  await db
    .raw(
      `INSERT INTO "user" (id, name, email, email_verified, created_at, updated_at, invite_code, invited_by, is_affiliate, role)
       VALUES (?, 'u', ?, 0, ?, ?, ?, ?, ?, 'user')`,
    )
    .run(
      id,
      `${id}@example.test`,
      at,
      at,
      id.slice(0, 8).toUpperCase(),
      opts.invitedBy ?? null,
      opts.affiliate ? 1 : 0,
    );
  return id;
}
