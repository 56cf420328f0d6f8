/**
 * The catalog in the database (docs/catalog.md). A fresh install (and an upgrade) gets every seed model of
 * app/domain/catalog.ts it lacks, and the seed's options on rows no admin changed; an admin's changes are kept. Every process holds the catalog in memory for the
 * synchronous readers (validation, adapters, pages) and checks the table's signature — row count and the sum of
 * the rows' revisions, which every change bumps — every CATALOG_REFRESH_MS, so a change made by any process or
 * node is seen everywhere within a second (in the changing process at once), as key revocation is.
 */
import { and, asc, eq, ne } from "drizzle-orm";
import { type Db, run, type Steps, type Tx } from "#db/client";
import { catalogModels } from "#db/schema";
import { CATALOG, type Offering, type OptionSpec, setActiveCatalog, type UpstreamCost } from "~/domain/catalog";
import type { Clock } from "~/lib/clock";
import { log } from "~/lib/log.server";
import { isFlat, type PriceRule, quoteCredits } from "./pricing";

export type CatalogRow = typeof catalogModels.$inferSelect;

/** How often each process checks for a change made elsewhere. */
export const CATALOG_REFRESH_MS = 500;

const MICROS = 1_000_000;

export function toCatalogRow(o: Offering, sortOrder: number, now: Date, source = "seed") {
  return {
    aiType: o.aiType,
    provider: o.provider,
    model: o.model,
    label: o.label,
    credits: o.pricing ? o.pricing.base : o.credits,
    pricing: o.pricing && !isFlat(o.pricing) ? JSON.stringify(o.pricing) : null,
    enabled: o.enabled !== false,
    requiresPlan: o.requiresPlan === true,
    upstreamModel: o.upstreamModel ?? null,
    options: JSON.stringify(o.options),
    lifecycle: o.lifecycle,
    typicalSeconds: Math.max(1, Math.round(o.typicalSeconds)),
    sample: o.sample,
    costMicros: o.cost ? Math.round(o.cost.usd * MICROS) : null,
    costPer: o.cost ? o.cost.per : null,
    sortOrder,
    source,
    revision: 1,
    createdAt: now,
    updatedAt: now,
  } satisfies typeof catalogModels.$inferInsert;
}

function parseOptions(text: string): Record<string, OptionSpec> {
  try {
    const v = JSON.parse(text);
    return v && typeof v === "object" && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
}

function parsePricing(text: string | null, base: number): PriceRule | null {
  if (!text) return null;
  try {
    const v = JSON.parse(text);
    return v && typeof v === "object" && !Array.isArray(v) ? { ...v, base } : null;
  } catch {
    return null;
  }
}

export function toOffering(r: CatalogRow): Offering {
  const options = parseOptions(r.options);
  const pricing = parsePricing(r.pricing ?? null, Number(r.credits));
  const cost: UpstreamCost | null =
    r.costMicros === null || r.costMicros === undefined
      ? null
      : { usd: Number(r.costMicros) / MICROS, per: r.costPer === "second" ? "second" : "task" };
  return {
    aiType: r.aiType === "video" ? "video" : "image",
    provider: r.provider as Offering["provider"],
    model: r.model,
    label: r.label,
    credits: pricing ? quoteCredits(pricing, options, {}) : Number(r.credits),
    ...(pricing ? { pricing } : {}),
    lifecycle: r.lifecycle === "sync" ? "sync" : "async",
    options,
    typicalSeconds: Number(r.typicalSeconds),
    sample: r.sample,
    enabled: Boolean(r.enabled),
    requiresPlan: Boolean(r.requiresPlan),
    ...(r.upstreamModel ? { upstreamModel: r.upstreamModel } : {}),
    cost,
  };
}

/**
 * Inserts the seed models the table lacks, and gives a seed row no admin has changed (still at revision 1) the
 * seed's options when they differ (a model that gained inputs in an upgrade). Idempotent; every node may run it at
 * start. An admin's change bumps the revision, so it is never overwritten.
 */
export function* seedCatalog(t: Tx, clock: Clock): Steps<void> {
  const now = new Date(clock.now());
  const rows = CATALOG.map((o, i) => toCatalogRow(o, (i + 1) * 10, now));
  yield* run(t.insert(catalogModels).values(rows).onConflictDoNothing());
  for (const r of rows) {
    yield* run(
      t
        .update(catalogModels)
        .set({ options: r.options, updatedAt: now })
        .where(
          and(
            eq(catalogModels.aiType, r.aiType),
            eq(catalogModels.provider, r.provider),
            eq(catalogModels.model, r.model),
            eq(catalogModels.source, "seed"),
            eq(catalogModels.revision, 1),
            ne(catalogModels.options, r.options),
          ),
        ),
    );
  }
}

export async function loadCatalog(db: Db): Promise<Offering[]> {
  const rows = await db.many(
    db
      .select()
      .from(catalogModels)
      .orderBy(asc(catalogModels.sortOrder), asc(catalogModels.aiType), asc(catalogModels.model)),
  );
  return rows.map(toOffering);
}

const signatures = new WeakMap<Db, string>();
const SIGNATURE_SQL = "SELECT count(*) AS n, coalesce(sum(revision), 0) AS r FROM catalog_models";

/**
 * Reads the catalog again when its signature changed (or when forced). An empty table (a database that was
 * never seeded) leaves the seed in place.
 */
export async function refreshCatalog(db: Db, opts: { force?: boolean } = {}): Promise<void> {
  const sig = await db.raw<{ n: number | string; r: number | string }>(SIGNATURE_SQL).one();
  const signature = `${Number(sig?.n ?? 0)}:${Number(sig?.r ?? 0)}`;
  if (!opts.force && signatures.get(db) === signature) return;
  const offerings = Number(sig?.n ?? 0) > 0 ? await loadCatalog(db) : CATALOG;
  setActiveCatalog(offerings);
  signatures.set(db, signature);
}

/** Keeps this process's catalog current (CATALOG_REFRESH_MS); the timer does not hold the process open. */
export function watchCatalog(db: Db): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    refreshCatalog(db)
      .catch((error) => log.warn("reading the catalog failed; keeping the last one", { error }))
      .finally(() => {
        running = false;
      });
  }, CATALOG_REFRESH_MS);
  timer.unref?.();
  return () => clearInterval(timer);
}
