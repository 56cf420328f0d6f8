/**
 * The person's own data as one JSON archive (docs/privacy.md "Export"): what an account holds, read with explicit
 * column lists so that no secret can ever be part of it — no password hash, session or OAuth token, API key hash or
 * prefix, webhook signing secret.
 */
import { asc, eq } from "drizzle-orm";
import type { Db } from "#db/client";
import {
  account,
  apiKeys,
  checkins,
  creditDebits,
  creditGrants,
  feedback,
  files,
  generations,
  orderPayments,
  orders,
  webhookEndpoints,
} from "#db/schema";
import { parseScopes } from "~/domain/api-keys/scopes";
import { getCredits } from "~/domain/credits/ledger.server";
import { toFileView } from "~/domain/files/files.server";
import { toUserInfo, type UserRow } from "~/domain/users/users.server";
import { type Clock, iso } from "~/lib/clock";

export const EXPORT_FORMAT = "atelier-account-export";
export const EXPORT_VERSION = 1;

const parseJson = (text: string | null, fallback: unknown) => {
  if (text === null) return fallback;
  try {
    return JSON.parse(text);
  } catch {
    return fallback;
  }
};

export async function exportAccount(deps: { db: Db; clock: Clock }, u: UserRow) {
  const { db, clock } = deps;
  const id = u.id;
  const methods = await db.many(
    db
      .select({ provider: account.providerId, accountId: account.accountId, createdAt: account.createdAt })
      .from(account)
      .where(eq(account.userId, id))
      .orderBy(asc(account.createdAt)),
  );
  const grants = await db.many(
    db
      .select({
        id: creditGrants.id,
        amount: creditGrants.amount,
        remaining: creditGrants.remaining,
        source: creditGrants.source,
        note: creditGrants.note,
        expiresAt: creditGrants.expiresAt,
        createdAt: creditGrants.createdAt,
      })
      .from(creditGrants)
      .where(eq(creditGrants.userId, id))
      .orderBy(asc(creditGrants.createdAt), asc(creditGrants.id)),
  );
  const debits = await db.many(
    db
      .select({
        genId: creditDebits.genId,
        amount: creditDebits.amount,
        charged: creditDebits.charged,
        createdAt: creditDebits.createdAt,
      })
      .from(creditDebits)
      .where(eq(creditDebits.userId, id))
      .orderBy(asc(creditDebits.createdAt)),
  );
  const days = await db.many(
    db.select({ day: checkins.day }).from(checkins).where(eq(checkins.userId, id)).orderBy(asc(checkins.day)),
  );
  const tasks = await db.many(
    db
      .select({
        id: generations.id,
        aiType: generations.aiType,
        provider: generations.provider,
        model: generations.model,
        prompt: generations.prompt,
        options: generations.options,
        status: generations.status,
        resultUrls: generations.resultUrls,
        errorMessage: generations.errorMessage,
        creditsCost: generations.creditsCost,
        mode: generations.mode,
        createdAt: generations.createdAt,
        completedAt: generations.completedAt,
        hiddenAt: generations.hiddenAt,
      })
      .from(generations)
      .where(eq(generations.userId, id))
      .orderBy(asc(generations.createdAt), asc(generations.id)),
  );
  const keys = await db.many(
    db
      .select({
        id: apiKeys.id,
        name: apiKeys.name,
        status: apiKeys.status,
        scopes: apiKeys.scopes,
        creditLimit: apiKeys.creditLimit,
        creditPeriod: apiKeys.creditPeriod,
        createdAt: apiKeys.createdAt,
        lastUsedAt: apiKeys.lastUsedAt,
        revokedAt: apiKeys.revokedAt,
      })
      .from(apiKeys)
      .where(eq(apiKeys.userId, id))
      .orderBy(asc(apiKeys.createdAt)),
  );
  const hooks = await db.many(
    db
      .select({
        id: webhookEndpoints.id,
        url: webhookEndpoints.url,
        description: webhookEndpoints.description,
        events: webhookEndpoints.events,
        status: webhookEndpoints.status,
        disabledReason: webhookEndpoints.disabledReason,
        createdAt: webhookEndpoints.createdAt,
      })
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.userId, id))
      .orderBy(asc(webhookEndpoints.createdAt)),
  );
  const bought = await db.many(
    db
      .select({
        orderNo: orders.orderNo,
        kind: orders.kind,
        productId: orders.productId,
        productName: orders.productName,
        interval: orders.interval,
        amount: orders.amount,
        currency: orders.currency,
        status: orders.status,
        provider: orders.provider,
        periodEnd: orders.periodEnd,
        createdAt: orders.createdAt,
      })
      .from(orders)
      .where(eq(orders.userId, id))
      .orderBy(asc(orders.createdAt)),
  );
  const inputFiles = await db.many(db.select().from(files).where(eq(files.userId, id)).orderBy(asc(files.createdAt)));
  const payments = await db.many(
    db
      .select({
        orderNo: orderPayments.orderNo,
        amount: orderPayments.amount,
        currency: orderPayments.currency,
        credits: orderPayments.credits,
        refundedAmount: orderPayments.refundedAmount,
        createdAt: orderPayments.createdAt,
      })
      .from(orderPayments)
      .where(eq(orderPayments.userId, id))
      .orderBy(asc(orderPayments.createdAt)),
  );
  const notes = await db.many(
    db
      .select({ content: feedback.content, rating: feedback.rating, createdAt: feedback.createdAt })
      .from(feedback)
      .where(eq(feedback.userId, id))
      .orderBy(asc(feedback.createdAt)),
  );
  return {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    exported_at: iso(clock.now())!,
    profile: { ...toUserInfo(u), email_verified: u.emailVerified },
    sign_in_methods: methods.map((m) => ({
      provider: m.provider,
      // The credential method's account id is the user's own id; a provider's is its id of the person.
      account_id: m.accountId,
      created_at: iso(m.createdAt),
    })),
    credits: {
      ...(await db.exec(getCredits(db, id, clock))),
      grants: grants.map((g) => ({
        id: g.id,
        amount: g.amount,
        remaining: g.remaining,
        source: g.source,
        note: g.note,
        expires_at: iso(g.expiresAt),
        created_at: iso(g.createdAt),
      })),
      debits: debits.map((d) => ({
        gen_id: d.genId,
        amount: d.amount,
        charged: d.charged,
        created_at: iso(d.createdAt),
      })),
      checkins: days.map((d) => d.day),
    },
    generations: tasks.map((t) => ({
      gen_id: t.id,
      ai_type: t.aiType,
      provider: t.provider,
      model: t.model,
      prompt: t.prompt,
      options: parseJson(t.options, {}),
      status: t.status,
      result_urls: parseJson(t.resultUrls, []),
      error: t.errorMessage,
      credits_cost: t.creditsCost,
      mode: t.mode,
      created_at: iso(t.createdAt),
      completed_at: iso(t.completedAt),
      removed_at: iso(t.hiddenAt),
    })),
    // Uploaded input files (and images fetched for a task's inputs): what they are and where the owner opens them.
    files: inputFiles.map((f) => ({ ...toFileView(f), source: f.source })),
    api_keys: keys.map((k) => ({
      id: k.id,
      name: k.name,
      status: k.status,
      scopes: parseScopes(k.scopes),
      credit_limit: k.creditLimit === null ? null : { credits: k.creditLimit, period: k.creditPeriod },
      created_at: iso(k.createdAt),
      last_used_at: iso(k.lastUsedAt),
      revoked_at: iso(k.revokedAt),
    })),
    webhooks: hooks.map((h) => ({
      id: h.id,
      url: h.url,
      description: h.description,
      events: parseJson(h.events, []),
      status: h.status,
      disabled_reason: h.disabledReason,
      created_at: iso(h.createdAt),
    })),
    orders: bought.map((o) => ({
      order_no: o.orderNo,
      kind: o.kind,
      product_id: o.productId,
      product_name: o.productName,
      interval: o.interval,
      amount: o.amount,
      currency: o.currency,
      status: o.status,
      provider: o.provider,
      period_end: iso(o.periodEnd),
      created_at: iso(o.createdAt),
    })),
    payments: payments.map((p) => ({
      order_no: p.orderNo,
      amount: p.amount,
      currency: p.currency,
      credits: p.credits,
      refunded_amount: p.refundedAmount,
      created_at: iso(p.createdAt),
    })),
    feedback: notes.map((f) => ({ content: f.content, rating: f.rating, created_at: iso(f.createdAt) })),
  };
}

export type AccountExport = Awaited<ReturnType<typeof exportAccount>>;
