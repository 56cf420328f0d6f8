/**
 * The person's own data as one JSON archive (docs/privacy.md "Export"): what an account holds, read with explicit
 * column lists so that no secret can ever be part of it — no password hash, session or OAuth token, API key hash or
 * prefix, webhook signing secret.
 */
import { asc, eq, getTableColumns } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
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

type Row = Record<string, unknown>;

/**
 * One section of the archive: the owner's rows of a table, only the columns named (under the archive's field names),
 * in `order`; `times` are written as ISO dates, `shape` makes anything else of a row.
 */
interface Section {
  table: SQLiteTable;
  owner: SQLiteColumn;
  fields: Record<string, SQLiteColumn>;
  order: SQLiteColumn[];
  times?: string[];
  shape?: (row: Row) => unknown;
}

const SECTIONS = {
  sign_in_methods: {
    table: account,
    owner: account.userId,
    // The credential method's account id is the user's own id; a provider's is its id of the person.
    fields: { provider: account.providerId, account_id: account.accountId, created_at: account.createdAt },
    order: [account.createdAt],
    times: ["created_at"],
  },
  grants: {
    table: creditGrants,
    owner: creditGrants.userId,
    fields: {
      id: creditGrants.id,
      amount: creditGrants.amount,
      remaining: creditGrants.remaining,
      source: creditGrants.source,
      note: creditGrants.note,
      expires_at: creditGrants.expiresAt,
      created_at: creditGrants.createdAt,
    },
    order: [creditGrants.createdAt, creditGrants.id],
    times: ["expires_at", "created_at"],
  },
  debits: {
    table: creditDebits,
    owner: creditDebits.userId,
    fields: {
      gen_id: creditDebits.genId,
      amount: creditDebits.amount,
      charged: creditDebits.charged,
      created_at: creditDebits.createdAt,
    },
    order: [creditDebits.createdAt],
    times: ["created_at"],
  },
  checkins: {
    table: checkins,
    owner: checkins.userId,
    fields: { day: checkins.day },
    order: [checkins.day],
    shape: (row) => row.day,
  },
  generations: {
    table: generations,
    owner: generations.userId,
    fields: {
      gen_id: generations.id,
      ai_type: generations.aiType,
      provider: generations.provider,
      model: generations.model,
      prompt: generations.prompt,
      options: generations.options,
      status: generations.status,
      result_urls: generations.resultUrls,
      error: generations.errorMessage,
      credits_cost: generations.creditsCost,
      mode: generations.mode,
      created_at: generations.createdAt,
      completed_at: generations.completedAt,
      removed_at: generations.hiddenAt,
    },
    order: [generations.createdAt, generations.id],
    times: ["created_at", "completed_at", "removed_at"],
    shape: (row) => ({
      ...row,
      options: parseJson(row.options as string | null, {}),
      result_urls: parseJson(row.result_urls as string | null, []),
    }),
  },
  // Uploaded input files (and images fetched for a task's inputs): what they are and where the owner opens them.
  files: {
    table: files,
    owner: files.userId,
    fields: getTableColumns(files),
    order: [files.createdAt],
    shape: (row) => ({ ...toFileView(row as typeof files.$inferSelect), source: row.source }),
  },
  api_keys: {
    table: apiKeys,
    owner: apiKeys.userId,
    fields: {
      id: apiKeys.id,
      name: apiKeys.name,
      status: apiKeys.status,
      scopes: apiKeys.scopes,
      credit_limit: apiKeys.creditLimit,
      credit_period: apiKeys.creditPeriod,
      created_at: apiKeys.createdAt,
      last_used_at: apiKeys.lastUsedAt,
      revoked_at: apiKeys.revokedAt,
    },
    order: [apiKeys.createdAt],
    times: ["created_at", "last_used_at", "revoked_at"],
    shape: ({ credit_period, ...row }) => ({
      ...row,
      scopes: parseScopes(row.scopes as string | null),
      credit_limit: row.credit_limit === null ? null : { credits: row.credit_limit, period: credit_period },
    }),
  },
  webhooks: {
    table: webhookEndpoints,
    owner: webhookEndpoints.userId,
    fields: {
      id: webhookEndpoints.id,
      url: webhookEndpoints.url,
      description: webhookEndpoints.description,
      events: webhookEndpoints.events,
      status: webhookEndpoints.status,
      disabled_reason: webhookEndpoints.disabledReason,
      created_at: webhookEndpoints.createdAt,
    },
    order: [webhookEndpoints.createdAt],
    times: ["created_at"],
    shape: (row) => ({ ...row, events: parseJson(row.events as string | null, []) }),
  },
  orders: {
    table: orders,
    owner: orders.userId,
    fields: {
      order_no: orders.orderNo,
      kind: orders.kind,
      product_id: orders.productId,
      product_name: orders.productName,
      interval: orders.interval,
      amount: orders.amount,
      currency: orders.currency,
      status: orders.status,
      provider: orders.provider,
      period_end: orders.periodEnd,
      created_at: orders.createdAt,
    },
    order: [orders.createdAt],
    times: ["period_end", "created_at"],
  },
  payments: {
    table: orderPayments,
    owner: orderPayments.userId,
    fields: {
      order_no: orderPayments.orderNo,
      amount: orderPayments.amount,
      currency: orderPayments.currency,
      credits: orderPayments.credits,
      refunded_amount: orderPayments.refundedAmount,
      created_at: orderPayments.createdAt,
    },
    order: [orderPayments.createdAt],
    times: ["created_at"],
  },
  feedback: {
    table: feedback,
    owner: feedback.userId,
    fields: { content: feedback.content, rating: feedback.rating, created_at: feedback.createdAt },
    order: [feedback.createdAt],
    times: ["created_at"],
  },
} satisfies Record<string, Section>;

async function readSection(db: Db, userId: string, section: Section): Promise<unknown[]> {
  const rows = (await db.many(
    db
      .select(section.fields)
      .from(section.table)
      .where(eq(section.owner, userId))
      .orderBy(...section.order.map((column) => asc(column))),
  )) as Row[];
  return rows.map((row) => {
    const dated = { ...row };
    for (const name of section.times ?? []) dated[name] = iso(row[name] as number | Date | null);
    return section.shape ? section.shape(dated) : dated;
  });
}

export async function exportAccount(deps: { db: Db; clock: Clock }, u: UserRow) {
  const { db, clock } = deps;
  const read = (section: Section) => readSection(db, u.id, section);
  return {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    exported_at: iso(clock.now())!,
    profile: { ...toUserInfo(u), email_verified: u.emailVerified },
    sign_in_methods: await read(SECTIONS.sign_in_methods),
    credits: {
      ...(await db.exec(getCredits(db, u.id, clock))),
      grants: await read(SECTIONS.grants),
      debits: await read(SECTIONS.debits),
      checkins: await read(SECTIONS.checkins),
    },
    generations: await read(SECTIONS.generations),
    files: await read(SECTIONS.files),
    api_keys: await read(SECTIONS.api_keys),
    webhooks: await read(SECTIONS.webhooks),
    orders: await read(SECTIONS.orders),
    payments: await read(SECTIONS.payments),
    feedback: await read(SECTIONS.feedback),
  };
}

export type AccountExport = Awaited<ReturnType<typeof exportAccount>>;
