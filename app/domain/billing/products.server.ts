/**
 * Products (docs/design.md §9): credit packs (one-time) and subscription plans
 * (credits each month or year), stored in the database, seeded on a fresh
 * install, edited by admins (admin page and CLI). Prices in cents.
 */
import { asc, count, eq } from "drizzle-orm";
import { z } from "zod";
import { type Db, one, run, type Steps, type Tx } from "#db/client";
import { products } from "#db/schema";
import type { Clock } from "~/lib/clock";
import { AppError } from "~/lib/errors";

export type ProductRow = typeof products.$inferSelect;
export const PRODUCT_KINDS = ["pack", "subscription"] as const;
export const PLAN_INTERVALS = ["month", "year"] as const;

/** The public shape (`POST /api/billing/products`). */
export interface ProductInfo {
  product_id: string;
  name: string;
  kind: "pack" | "subscription";
  credits: number;
  interval: "month" | "year" | null;
  amount: number;
  currency: string;
}

export const toProductInfo = (p: ProductRow): ProductInfo => ({
  product_id: p.id,
  name: p.name,
  kind: p.kind as ProductInfo["kind"],
  credits: p.credits,
  interval: (p.interval as ProductInfo["interval"]) ?? null,
  amount: p.amount,
  currency: p.currency,
});

/** What a fresh install sells until an admin changes it. */
export const DEFAULT_PRODUCTS: Omit<ProductRow, "createdAt" | "updatedAt" | "active">[] = [
  {
    id: "pack-100",
    name: "100 credits",
    kind: "pack",
    credits: 100,
    interval: null,
    amount: 500,
    currency: "usd",
    sortOrder: 10,
  },
  {
    id: "pack-500",
    name: "500 credits",
    kind: "pack",
    credits: 500,
    interval: null,
    amount: 2000,
    currency: "usd",
    sortOrder: 20,
  },
  {
    id: "pack-2000",
    name: "2,000 credits",
    kind: "pack",
    credits: 2000,
    interval: null,
    amount: 6000,
    currency: "usd",
    sortOrder: 30,
  },
  {
    id: "pro-monthly",
    name: "Pro monthly",
    kind: "subscription",
    credits: 600,
    interval: "month",
    amount: 1900,
    currency: "usd",
    sortOrder: 40,
  },
  {
    id: "pro-yearly",
    name: "Pro yearly",
    kind: "subscription",
    credits: 7200,
    interval: "year",
    amount: 19000,
    currency: "usd",
    sortOrder: 50,
  },
];

/**
 * Seeds the defaults when the table is empty (a fresh install). Products are
 * never deleted (orders name them), so an emptied table cannot happen later;
 * concurrent starts insert each default at most once (primary key).
 */
export function* seedProducts(t: Tx, clock: Clock): Steps<number> {
  const n = Number((yield* one(t.select({ n: count() }).from(products)))?.n ?? 0);
  if (n > 0) return 0;
  const now = new Date(clock.now());
  const rows = DEFAULT_PRODUCTS.map((p) => ({ ...p, active: true, createdAt: now, updatedAt: now }));
  yield* run(t.insert(products).values(rows).onConflictDoNothing({ target: products.id }));
  return rows.length;
}

/** Active products in display order (the pricing page, the public list). */
export function listProducts(db: Db, opts: { includeInactive?: boolean } = {}): Promise<ProductRow[]> {
  const q = db.select().from(products);
  return db.many(
    (opts.includeInactive ? q : q.where(eq(products.active, true))).orderBy(asc(products.sortOrder), asc(products.id)),
  );
}

/** One product, inside a transaction body. */
export const productStep = (t: Tx, id: string): Steps<ProductRow | undefined> =>
  one(t.select().from(products).where(eq(products.id, id)));

export function getProduct(db: Db, id: string): Promise<ProductRow | undefined> {
  return db.one(db.select().from(products).where(eq(products.id, id)));
}

/** A product a user may buy now; unknown or inactive → `product not found`. */
export async function requireBuyableProduct(db: Db, id: string): Promise<ProductRow> {
  const p = await getProduct(db, id);
  if (!p?.active) throw new AppError("PRODUCT_NOT_FOUND");
  return p;
}

const reason = (name: string, rule: string) => `${name} must be ${rule}`;
const cents = z
  .number({ error: reason("amount", "an integer number of cents from 50 to 100000000") })
  .int(reason("amount", "an integer number of cents from 50 to 100000000"))
  .min(50, reason("amount", "an integer number of cents from 50 to 100000000"))
  .max(100_000_000, reason("amount", "an integer number of cents from 50 to 100000000"));

/** Create or change a product (admin page and CLI). */
export const ProductInputSchema = z
  .object({
    product_id: z
      .string({ error: reason("product_id", "a string") })
      .trim()
      .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, reason("product_id", "lowercase letters, digits and dashes (max 63)")),
    name: z
      .string({ error: reason("name", "a string") })
      .trim()
      .min(1, "name is required")
      .max(100, "name too long (max 100)"),
    kind: z.enum(PRODUCT_KINDS, { error: reason("kind", "pack or subscription") }),
    credits: z
      .number({ error: reason("credits", "an integer from 1 to 10000000") })
      .int(reason("credits", "an integer from 1 to 10000000"))
      .min(1, reason("credits", "an integer from 1 to 10000000"))
      .max(10_000_000, reason("credits", "an integer from 1 to 10000000")),
    interval: z.enum(PLAN_INTERVALS, { error: reason("interval", "month or year") }).nullish(),
    amount: cents,
    currency: z
      .string({ error: reason("currency", "a 3-letter ISO code") })
      .trim()
      .toLowerCase()
      .regex(/^[a-z]{3}$/, reason("currency", "a 3-letter ISO code"))
      .default("usd"),
    active: z.boolean({ error: reason("active", "true or false") }).default(true),
    sort_order: z
      .number({ error: reason("sort_order", "an integer") })
      .int(reason("sort_order", "an integer"))
      .default(0),
  })
  .refine((p) => (p.kind === "subscription") === Boolean(p.interval), {
    message: "interval (month or year) is required for a subscription and not allowed for a pack",
  });
export type ProductInput = z.output<typeof ProductInputSchema>;

export async function upsertProduct(db: Db, input: ProductInput, clock: Clock): Promise<ProductRow> {
  const now = new Date(clock.now());
  const row = {
    id: input.product_id,
    name: input.name,
    kind: input.kind,
    credits: input.credits,
    interval: input.kind === "subscription" ? (input.interval ?? null) : null,
    amount: input.amount,
    currency: input.currency,
    active: input.active,
    sortOrder: input.sort_order,
    updatedAt: now,
  };
  return (await db.one(
    db
      .insert(products)
      .values({ ...row, createdAt: now })
      .onConflictDoUpdate({ target: products.id, set: row })
      .returning(),
  ))!;
}
