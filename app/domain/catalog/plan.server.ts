/** Plan-only models (docs/catalog.md): a task of one needs a current paid subscription. */
import { and, eq, gt, isNull, or } from "drizzle-orm";
import { one, type Steps, type Tx } from "#db/client";
import { orders } from "#db/schema";
import { AppError } from "~/lib/errors";

/** Inside the create transaction: PLAN_REQUIRED unless the user has a paid, current subscription. */
export function* assertActivePlan(tx: Tx, userId: string, model: string, nowMs: number): Steps<void> {
  const plan = yield* one(
    tx
      .select({ orderNo: orders.orderNo })
      .from(orders)
      .where(
        and(
          eq(orders.userId, userId),
          eq(orders.kind, "subscription"),
          eq(orders.status, "paid"),
          or(isNull(orders.periodEnd), gt(orders.periodEnd, new Date(nowMs))),
        ),
      )
      .limit(1),
  );
  if (!plan) throw new AppError("PLAN_REQUIRED", { model });
}
