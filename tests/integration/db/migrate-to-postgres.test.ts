/**
 * `atelier migrate-to-postgres` as a real process (docs/decisions/058-migrate-to-postgres.md): a SQLite
 * database built through the domain (better-auth sign-ups, keys, grants,
 * check-ins, reservations, completed and failed tasks with their debits and
 * webhook events, checkouts, payments with a referral, subscriptions, feedback,
 * limiter rows) plus 10,000 tasks in mixed states, moved into a throwaway
 * PostgreSQL cluster while another connection keeps writing to the source.
 * Then: every row of every table reads back the same through the schema on
 * both engines, every balance is equal, a key made on SQLite authenticates on
 * PostgreSQL, and a second run refuses the target and changes nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { getTableConfig, type SQLiteTable } from "drizzle-orm/sqlite-core";
import { type Db, openDatabase, openPostgres } from "#db/client";
import {
  account,
  collectionItems,
  collections,
  deletedEmails,
  feedback,
  generations,
  passkey,
  rateLimit,
  redemptionCodes,
  redemptionUses,
  reports,
  requestJoins,
  safetyEvents,
  safetyTerms,
  signupBonusAccounts,
  takedowns,
  twoFactor,
  user,
  verification,
} from "#db/schema";
import { adminCreateSubscription } from "~/domain/admin/admin.server";
import { authenticateApiKey } from "~/domain/api-keys/authenticate.server";
import { createApiKey, revokeApiKey } from "~/domain/api-keys/keys.server";
import { beginSignIn } from "~/domain/auth/sign-in-throttle.server";
import { startCheckout } from "~/domain/billing/checkout.server";
import { processBillingEvent } from "~/domain/billing/fulfil.server";
import { seedProducts } from "~/domain/billing/products.server";
import { findOffering } from "~/domain/catalog";
import { seedCatalog } from "~/domain/catalog/store.server";
import { checkIn } from "~/domain/credits/checkin.server";
import { balanceOf, grantCredits } from "~/domain/credits/ledger.server";
import { addFeedback } from "~/domain/feedback/feedback.server";
import { storeFile } from "~/domain/files/files.server";
import { claimDue } from "~/domain/generations/claim.server";
import { createGeneration, createOrReplay } from "~/domain/generations/create.server";
import { completeGeneration, failGeneration } from "~/domain/generations/transitions.server";
import { recordStripeSignatureFailure } from "~/domain/ops/alerts.server";
import { take } from "~/domain/rate-limits/limiter.server";
import { claimDeliveries, recordAttempt } from "~/domain/webhooks/delivery.server";
import { createWebhook } from "~/domain/webhooks/webhooks.server";
import { createAuth } from "~/http/auth.server";
import { systemClock } from "~/lib/clock";
import { parseConfig } from "~/lib/config.server";
import { copyOrder } from "~/server/migrate-to-postgres.server";
import { localFileStore } from "~/storage/files.server";
import { png } from "../../support/images";
import { type Postgres, skipWithoutPostgres, startPostgres } from "../../support/postgres";
import { requireBuild, runAtelier } from "../../support/server";
import { insertUser } from "../../support/services";

const TASKS = 10_000;
const clock = systemClock;
const flux = findOffering("image", "replicate", "black-forest-labs/flux-schnell")!; // 3 credits
const tables = copyOrder();
const nameOf = (t: SQLiteTable) => getTableConfig(t).name;

async function runCli(args: string[]) {
  const t0 = performance.now();
  const r = await runAtelier(["migrate-to-postgres", ...args], {
    env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? "/tmp", LOG_LEVEL: "silent" },
  });
  return { ...r, ms: performance.now() - t0 };
}

/** Every row of a table as the schema reads it (Dates, booleans, numbers), in a stable order. */
/** A counter row at zero reads as no row (db/schema/generations.ts): the source keeps such rows, the target's triggers never make them. */
const meaningful = (table: string, row: Record<string, unknown>) =>
  table !== "user_task_counts" || Number(row.tasks) !== 0 || Number(row.hidden) !== 0;

async function rowsOf(db: Db, table: SQLiteTable): Promise<string[]> {
  return (await db.many(db.select().from(table as typeof user)))
    .filter((r) => meaningful(nameOf(table), r as Record<string, unknown>))
    .map((r) => JSON.stringify(r))
    .sort();
}

async function countsOf(db: Db): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of tables) {
    const where = nameOf(t) === "user_task_counts" ? " WHERE tasks <> 0 OR hidden <> 0" : "";
    out[nameOf(t)] = Number((await db.raw<{ n: number }>(`SELECT count(*) AS n FROM "${nameOf(t)}"${where}`).one())!.n);
  }
  return out;
}

/** A database through the domain, then 10,000 tasks in bulk. Returns a raw key made on SQLite. */
async function buildSource(db: Db, dataDir: string): Promise<{ key: string; keyOwner: string; busyUser: string }> {
  const config = {
    ...parseConfig({ DATA_DIR: dataDir, LOG_LEVEL: "silent", PUBLIC_URL: "http://127.0.0.1:3000" }),
    authSecret: "migrate-test-secret-0123456789abcdef",
  };
  const auth = createAuth(config, db, clock);
  const ids: string[] = [];
  // better-auth: user, account, session.
  for (let i = 0; i < 3; i++) {
    const r = await auth.api.signUpEmail({
      body: {
        email: `signup${i}-${randomUUID().slice(0, 6)}@example.test`,
        password: "correct horse battery staple",
        name: `S${i}`,
      },
    });
    ids.push(r.user.id);
  }
  for (let i = 0; i < 40; i++) ids.push(insertUser(db).id);
  const now = clock.now();
  // better-auth's own rows that need a mailbox or an IP to appear: fixtures.
  await db.run(
    db.insert(verification).values({
      id: randomUUID(),
      identifier: "reset-password:x",
      value: ids[0]!,
      expiresAt: new Date(now + 3_600_000),
      createdAt: new Date(now),
      updatedAt: new Date(now),
    }),
  );
  await db.run(
    db.insert(rateLimit).values({ id: randomUUID(), key: "127.0.0.1/sign-in/email", count: 3, lastRequest: now }),
  );
  // A deleted account's address, kept as a keyed hash only (no second sign-up bonus).
  await db.run(db.insert(deletedEmails).values({ emailHash: "hash-of-a-deleted-address", deletedAt: now }));
  // A provider account that came with a sign-up bonus, kept as a hash (no second bonus for it).
  await db.run(db.insert(signupBonusAccounts).values({ accountHash: "hash-of-oidc-subject", claimedAt: now }));
  // Sign-in beyond the password: a provider link, an authenticator app (two-factor on) and a passkey.
  await db.run(
    db.insert(account).values({
      id: randomUUID(),
      accountId: "oidc-subject-1",
      providerId: "oidc",
      userId: ids[1]!,
      idToken: "header.payload.signature",
      createdAt: new Date(now),
      updatedAt: new Date(now),
    }),
  );
  await db.run(db.update(user).set({ twoFactorEnabled: true }).where(eq(user.id, ids[1]!)));
  await db.run(
    db.insert(twoFactor).values({
      id: randomUUID(),
      secret: "encrypted-secret",
      backupCodes: "encrypted-backup-codes",
      userId: ids[1]!,
      verified: true,
      failedVerificationCount: 1,
      lockedUntil: new Date(now + 60_000),
    }),
  );
  await db.run(
    db.insert(passkey).values({
      id: randomUUID(),
      name: "laptop",
      publicKey: "cHVibGljLWtleQ",
      userId: ids[2]!,
      credentialID: "Y3JlZGVudGlhbA",
      counter: 7,
      deviceType: "singleDevice",
      backedUp: false,
      transports: "internal",
      createdAt: new Date(now),
      aaguid: "00000000-0000-0000-0000-000000000000",
    }),
  );
  await db.tx((t) => seedProducts(t, clock));
  await db.tx((t) => seedCatalog(t, clock));
  // The operator's alert state (ops_alerts): a Stripe signature failure counted through the domain.
  await recordStripeSignatureFailure({ db, clock });
  // An uploaded input file (files), through the domain.
  await storeFile(
    { db, clock, store: localFileStore(join(dataDir, "files")), config },
    { userId: ids[0]!, bytes: png(8, 8), source: "upload" },
  );

  let key = "";
  for (const [i, id] of ids.entries()) {
    await db.exec(
      grantCredits(
        db,
        { userId: id, amount: 30 + i, source: "admin", expiresAt: i % 3 === 0 ? now + 30 * 86_400_000 : null },
        clock,
      ),
    );
    await checkIn(db, id, clock);
    await beginSignIn(db, `someone${i}@example.test`, now);
    await take(db, `user:${id}`, { limit: 100, windowMs: 60_000 }, now);
    if (i < 10) {
      const k = await createApiKey(db, { userId: id, name: `key ${i}` }, clock);
      if (i === 0) key = k.key;
      if (i === 9) await revokeApiKey(db, { userId: id, keyId: k.key_id }, clock);
      await addFeedback(db, id, { content: `feedback from ${i}`, rating: 1 + (i % 5) }, clock);
    }
  }
  // Webhooks: an endpoint, and the events that the tasks' final transitions queue for it.
  await createWebhook(db, { userId: ids[0]!, url: "http://127.0.0.1:9/hook" }, { allowPrivate: true }, clock);
  // Reservations and the lifecycle: 5 tasks each for 20 users (one by Idempotency-Key).
  const CONFIG = { IMAGE_DEADLINE_MS: 600_000, VIDEO_DEADLINE_MS: 1_200_000 };
  for (const id of ids.slice(0, 20)) {
    for (let j = 0; j < 5; j++) {
      const input = { offering: flux, prompt: `domain task ${j}`, options: {} };
      if (j === 0)
        await createOrReplay(
          db,
          { userId: id, input, mode: "simulated", config: CONFIG, idempotency: { key: `idem-${j}`, requestHash: "h" } },
          clock,
        );
      else await createGeneration(db, { userId: id, input, mode: "simulated", config: CONFIG }, clock);
    }
  }
  const claimed = await claimDue(db, { owner: "test-runner", limit: 80, leaseMs: 600_000 }, clock);
  for (const [n, c] of claimed.entries()) {
    if (n % 3 === 0)
      await completeGeneration(
        db,
        { id: c.row.id, owner: "test-runner", resultUrls: [`https://cdn.example.test/${c.row.id}.png`] },
        clock,
      );
    else if (n % 3 === 1)
      await failGeneration(
        db,
        { id: c.row.id, owner: "test-runner", message: "generation failed: upstream said no" },
        clock,
      );
    // else: still processing, holding its credits
  }
  const policy = { timeoutMs: 1000, schedule: [5000, 60_000], disableAfterMs: 86_400_000, allowPrivate: true };
  for (const d of await claimDeliveries(db, { owner: "test-runner", limit: 5, leaseMs: 60_000 }, clock)) {
    await recordAttempt(
      db,
      "test-runner",
      d,
      { ok: false, statusCode: 500, error: "HTTP 500", durationMs: 12, at: clock.now() },
      policy,
      clock,
    );
  }
  // Billing: a simulated checkout, a paid pack for an invitee of an affiliate (referral), an admin subscription.
  const billing = { ...config, isProduction: false };
  await startCheckout({ db, clock, config: billing }, { id: ids[5]!, email: "x@example.test" }, "pack-100");
  await db.run(db.update(user).set({ isAffiliate: true }).where(eq(user.id, ids[1]!)));
  await db.run(db.update(user).set({ invitedBy: ids[1]! }).where(eq(user.id, ids[6]!)));
  await processBillingEvent(
    { db, clock, config: billing },
    { id: "evt_1", type: "checkout.session.completed", payload: "{}" },
    {
      type: "payment",
      provider: "simulated",
      userId: ids[6]!,
      productId: "pack-100",
      orderRef: "cs_1",
      paymentRef: "cs_1",
      amount: 500,
      currency: "usd",
      credits: 100,
      at: Math.floor(now / 1000),
    },
  );
  const sub = await db.one(db.select({ email: user.email }).from(user).where(eq(user.id, ids[7]!)));
  await adminCreateSubscription({ db, clock, config }, {
    email: sub!.email,
    product_id: "pro-monthly",
    product_name: "Pro monthly",
    interval: "month",
    amount: 1900,
  } as never);

  // 10,000 more tasks, as the runner leaves them: mostly finished, some pending or processing (holding credits).
  const busyUser = ids[2]!;
  const insert = db.sqlite!.prepare(
    `INSERT INTO generations (id, user_id, ai_type, provider, model, prompt, options, status, result_urls, error_message, credits_cost, mode,
       upstream_task_id, lease_owner, lease_until, next_poll_at, poll_count, attempts, deadline_at, created_at, started_at, completed_at, hidden_at)
     VALUES (?, ?, 'image', 'replicate', 'black-forest-labs/flux-schnell', ?, ?, ?, ?, ?, 3, 'simulated', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  db.sqlite!.transaction(() => {
    for (let i = 0; i < TASKS; i++) {
      const status = i % 10 === 0 ? "failed" : i % 97 === 0 ? "pending" : i % 89 === 0 ? "processing" : "completed";
      const owner = status === "pending" || status === "processing" ? busyUser : ids[i % ids.length]!;
      const created = now - (TASKS - i) * 1000;
      insert.run(
        randomUUID(),
        owner,
        `a bulk prompt ${i} with "quotes", 'apostrophes' and ünïcödé ✓`,
        JSON.stringify({ aspect_ratio: "1:1", seed: i }),
        status,
        status === "completed" ? JSON.stringify([`https://cdn.example.test/${i}.png`]) : null,
        status === "failed" ? "generation failed: upstream said no" : null,
        status === "processing" ? `up-${i}` : null,
        status === "processing" ? "node-a" : null,
        status === "processing" ? now + 60_000 : null,
        status === "processing" ? now + 2_000 : null,
        status === "processing" ? 2 : 0,
        status === "pending" ? 0 : 1,
        created + 600_000,
        created,
        status === "pending" ? null : created + 100,
        status === "completed" || status === "failed" ? created + 2_500 : null,
        i % 501 === 0 ? now : null,
      );
    }
  })();
  // Some tasks made together by the studio's Compare (their shared id copies with them).
  db.sqlite!.run("UPDATE generations SET compare_id = 'cmp_fixture_' || (rowid / 3) WHERE rowid % 7 < 3");
  // Finished pictures keep a ThumbHash placeholder.
  db.sqlite!.run(
    "UPDATE generations SET placeholder = '2ZkGJwqAiIjgeYiGp4iXuFd2BAuuTw8E' WHERE status = 'completed' AND rowid % 5 = 0",
  );
  // This round's tables: a row each (collections, codes, reports and takedowns, /v1 joins, safety).
  const someTask = (await db.one(db.select({ id: generations.id, userId: generations.userId }).from(generations)))!;
  const at = new Date(now);
  await db.run(
    db.insert(collections).values({
      id: "col_fixture",
      userId: someTask.userId,
      name: "Fixture",
      nameKey: "fixture",
      createdAt: at,
      updatedAt: at,
    }),
  );
  await db.run(db.insert(collectionItems).values({ collectionId: "col_fixture", genId: someTask.id, addedAt: at }));
  await db.run(
    db.insert(redemptionCodes).values({
      id: "code_fixture",
      codeHash: "hash-of-a-code",
      prefix: "ATL-FIXT",
      credits: 5,
      maxUses: 3,
      uses: 1,
    }),
  );
  await db.run(
    db.insert(redemptionUses).values({
      id: "use_fixture",
      codeId: "code_fixture",
      userId: ids[1]!,
      emailHash: "hash-of-an-address",
    }),
  );
  await db.run(
    db.insert(reports).values({
      id: "rep_fixture",
      genId: someTask.id,
      reporterId: someTask.userId,
      ownerId: someTask.userId,
      reason: "other",
      status: "open",
      createdAt: at,
      dueAt: new Date(now + 48 * 3_600_000),
    }),
  );
  await db.run(
    db.insert(takedowns).values({
      genId: someTask.id,
      reportId: "rep_fixture",
      reason: "other",
      resultUrls: "[]",
      removedBy: ids[0]!,
      removedAt: at,
    }),
  );
  await db.run(
    db.insert(requestJoins).values({
      userId: someTask.userId,
      scope: "v1/images/generations",
      key: "fixture-key",
      requestHash: "hash-of-a-request",
      genIds: JSON.stringify([someTask.id]),
      createdAt: now,
    }),
  );
  await db.run(db.insert(safetyTerms).values({ normalized: "grimwort", term: "Grimwort" }));
  await db.run(
    db.insert(safetyEvents).values({ id: "sev_fixture", kind: "prompt", userId: someTask.userId, detail: "term" }),
  );
  return { key, keyOwner: ids[0]!, busyUser };
}

describe.skipIf(skipWithoutPostgres())("atelier migrate-to-postgres", () => {
  let pg: Postgres;
  let dir: string;
  let file: string;
  let src: Db;
  let made: Awaited<ReturnType<typeof buildSource>>;

  beforeAll(async () => {
    requireBuild();
    pg = await startPostgres();
    dir = mkdtempSync(join(tmpdir(), "atelier-move-it-"));
    file = join(dir, "atelier.db");
    src = openDatabase(file);
    made = await buildSource(src, dir);
  }, 120_000);
  afterAll(async () => {
    await src?.close();
    await pg?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test("the fixture puts rows in every table of the schema (a new table needs a row here, so its copy is exercised)", async () => {
    const counts = await countsOf(src);
    expect(
      Object.entries(counts)
        .filter(([, n]) => n === 0)
        .map(([t]) => t),
    ).toEqual([]);
    expect(counts.generations).toBeGreaterThanOrEqual(TASKS + 100);
  });

  test("copies a live database: exit 0, every row equal through the schema, balances equal, keys work; a second run refuses", async () => {
    // Another writer keeps adding feedback while the move reads the source: the copy is one snapshot.
    const writer = insertUser(src).id;
    const before = await countsOf(src);
    let writes = 0;
    // Plain rows: addFeedback allows one user 10 an hour (docs/decisions/069-feedback-limit.md), and this writer is one user.
    const timer = setInterval(
      () =>
        void src.run(
          src
            .insert(feedback)
            .values({ id: crypto.randomUUID(), userId: writer, content: `live ${writes++}`, rating: 5 }),
        ),
      5,
    );
    const r = await runCli(["--from", file, "--to", pg.url]).finally(() => clearInterval(timer));
    const after = await countsOf(src);
    const load = (await Bun.$`uptime`.text()).trim();
    console.log(
      `migrate-to-postgres: ${before.generations} tasks, ${Object.values(before).reduce((a, b) => a + b, 0)} rows: ${(r.ms / 1000).toFixed(2)} s wall (process start included); ${writes} writes to the source meanwhile; ${load}`,
    );
    console.log(r.stdout);
    // What the command said when it failed: the message is the diagnosis.
    if (r.code !== 0) console.log(r.stderr);
    expect(r.stderr).not.toContain("Error");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/generations\s+\d+/);
    expect(r.stdout).toContain("verified: row counts of every table and the balances of");
    // Each table's count is printed once, in the summary on stdout; the progress on stderr only names the table under way.
    const lines = `${r.stdout}\n${r.stderr}`.split("\n");
    for (const t of tables.map(nameOf))
      expect(`${t}: ${lines.filter((l) => new RegExp(`\\b${t}\\b.*\\d`).test(l)).length}`).toBe(`${t}: 1`);
    expect(r.stderr).toContain("copying generations…");
    expect(writes).toBeGreaterThan(0);

    const target = await openPostgres(pg.url, { migrate: false });
    try {
      const copied = await countsOf(target);
      // Everything but the table being written to is unchanged since `before`; feedback is one snapshot in between.
      for (const t of tables.map(nameOf).filter((n) => n !== "feedback"))
        expect(`${t}: ${copied[t]}`).toBe(`${t}: ${after[t]}`);
      expect(copied.feedback!).toBeGreaterThanOrEqual(before.feedback!);
      expect(copied.feedback!).toBeLessThanOrEqual(after.feedback!);

      // Every row of every other table reads back the same through the schema on both engines.
      for (const t of tables.filter((t) => nameOf(t) !== "feedback")) {
        const [a, b] = [await rowsOf(src, t), await rowsOf(target, t)];
        expect(`${nameOf(t)}: ${b.length}`).toBe(`${nameOf(t)}: ${a.length}`);
        expect(b).toEqual(a);
      }

      // Every user's balance (available and held) is the same on both engines at one instant.
      const at = { now: () => clock.now() };
      const users = await src.many(src.select({ id: user.id }).from(user));
      let compared = 0;
      for (const { id } of users) {
        const [a, b] = [await src.exec(balanceOf(src, id, at)), await target.exec(balanceOf(target, id, at))];
        expect({ id, ...b }).toEqual({ id, ...a });
        compared++;
      }
      expect(compared).toBe(users.length);
      expect((await target.exec(balanceOf(target, made.busyUser, at))).held).toBeGreaterThan(0);

      // A key made on SQLite authenticates on PostgreSQL (the hash lookup).
      const who = await authenticateApiKey(target, made.key, clock);
      expect(who.userId).toBe(made.keyOwner);

      // A second run finds rows: refused, exit ≠ 0, nothing written.
      const again = await runCli(["--from", file, "--to", pg.url]);
      expect(again.code).not.toBe(0);
      expect(again.stderr).toContain("the target database is not empty");
      expect(await countsOf(target)).toEqual(copied);
    } finally {
      await target.close();
    }
  }, 180_000);

  test("clear errors: missing file, bad URL, unreachable server", async () => {
    const missing = await runCli(["--from", join(dir, "missing.db"), "--to", pg.url]);
    expect([missing.code, missing.stderr.trim()]).toEqual([
      1,
      `migrate-to-postgres: --from ${join(dir, "missing.db")}: no such file`,
    ]);
    const bad = await runCli(["--from", file, "--to", "mysql://root@127.0.0.1/atelier"]);
    expect([bad.code, bad.stderr.trim()]).toEqual([
      1,
      "migrate-to-postgres: --to must be a postgres:// URL, not mysql://…",
    ]);
    const down = await runCli(["--from", file, "--to", "postgres://postgres:pw@127.0.0.1:1/atelier"]);
    expect(down.code).toBe(1);
    expect(down.stderr).toContain("cannot reach PostgreSQL at postgres://postgres:***@127.0.0.1:1/atelier");
  }, 60_000);
});
