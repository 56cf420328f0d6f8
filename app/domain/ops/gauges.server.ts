/** Figures Prometheus reads at scrape time from the database: each one statement on an index that answers it. */
import { eq, sql } from "drizzle-orm";
import type { Db } from "#db/client";
import { generations, webhookDeliveries } from "#db/schema";
import type { Clock } from "~/lib/clock";
import type { ScrapeGauges } from "~/lib/metrics.server";

export function scrapeGauges(deps: { db: Db; clock: Clock }): ScrapeGauges {
  const { db, clock } = deps;
  return {
    async queue() {
      // generations_claim_idx leads with status: the count walks only the pending entries.
      const row = await db.one(
        db
          .select({
            depth: sql<number | string>`count(*)`,
            oldest: sql<number | string | null>`min(${generations.createdAt})`,
          })
          .from(generations)
          .where(eq(generations.status, "pending")),
      );
      const depth = Number(row?.depth ?? 0);
      const oldest = row?.oldest == null ? null : Number(row.oldest);
      return { depth, oldestSeconds: oldest === null ? 0 : Math.max(0, (clock.now() - oldest) / 1000) };
    },
    async webhookBacklog() {
      const row = await db.one(
        db
          .select({ n: sql<number | string>`count(*)` })
          .from(webhookDeliveries)
          .where(eq(webhookDeliveries.status, "pending")),
      );
      return Number(row?.n ?? 0);
    },
  };
}
