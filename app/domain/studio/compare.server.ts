/**
 * Starting a comparison (docs/studio.md "Compare"): each model's task is its own task, charged at its own price
 * when delivered, exactly as if it were generated alone; the tasks are created together or not at all. One write
 * transaction under the user's row lock checks the total against what is available, then inserts every task with
 * the comparison's id, so a shortfall for the third model leaves no first or second task behind.
 */
import { type Db, lockRow } from "#db/client";
import { assertActivePlan } from "~/domain/catalog/plan.server";
import { assertCanReserve } from "~/domain/credits/ledger.server";
import { tasksQueued } from "~/domain/generations/changes.server";
import { assertNotSuspended, insertPendingTask } from "~/domain/generations/create.server";
import type { ProviderRegistry } from "~/domain/generations/registry.server";
import { assertUnpaidAllowance } from "~/domain/generations/unpaid.server";
import { taskPrice, validateGenerateInput } from "~/domain/generations/validate.server";
import type { GenerationRow } from "~/domain/generations/views.server";
import type { Clock } from "~/lib/clock";
import type { Config } from "~/lib/config.server";
import { rememberTaskOrigin } from "~/lib/tracing.server";
import { compareTotal, planComparison } from "./compare";

export interface CompareDeps {
  db: Db;
  clock: Clock;
  config: Config;
  providers: Pick<ProviderRegistry, "mode">;
}

export interface Comparison {
  compareId: string;
  /** The tasks in the order the models were chosen. */
  rows: GenerationRow[];
  total: number;
}

/** One prompt on each model (`ai_type|provider|model`), with each model's default options. */
export async function startComparison(
  deps: CompareDeps,
  args: { userId: string; prompt: string; models: readonly string[] },
): Promise<Comparison> {
  const offerings = planComparison(args.models);
  // The same checks as a single generate (prompt length, a disabled model), before anything is written.
  const inputs = offerings.map((o) =>
    validateGenerateInput({
      ai_type: o.aiType,
      provider: o.provider,
      model: o.model,
      prompt: args.prompt,
      options: {},
    }),
  );
  const total = compareTotal(inputs.map((input) => ({ credits: taskPrice(input) })));
  const compareId = `cmp_${Bun.randomUUIDv7()}`;
  const { db, clock, config } = deps;
  const rows = await db.tx(function* (tx) {
    yield* lockRow("user", args.userId);
    yield* assertNotSuspended(tx, args.userId);
    const now = clock.now();
    for (const o of offerings) if (o.requiresPlan) yield* assertActivePlan(tx, args.userId, o.model, now);
    yield* assertUnpaidAllowance(tx, args.userId, now);
    // The whole comparison at once: INSUFFICIENT_CREDITS names the total, and nothing is created.
    yield* assertCanReserve(tx, args.userId, total, clock);
    const made: GenerationRow[] = [];
    for (const input of inputs)
      made.push(
        yield* insertPendingTask(
          tx,
          { userId: args.userId, input, mode: deps.providers.mode(input.offering.provider), config, compareId },
          now,
        ),
      );
    return made;
  });
  for (const row of rows) rememberTaskOrigin(row.id);
  tasksQueued();
  return { compareId, rows, total };
}
