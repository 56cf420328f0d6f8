/**
 * Who pays for a demo call (docs/design.md §5): a call that reaches a live, paid
 * provider costs the catalog price — debited through the ledger before the
 * call (check and debit in one transaction) and given back if the upstream
 * fails; simulated calls are free. A live call needs someone to pay, so an
 * anonymous one is refused.
 */
import { randomUUID } from "node:crypto";
import { type Db, lockRow } from "#db/client";
import { CATALOG } from "~/domain/catalog";
import { assertCanReserve, debitForGeneration, voidDebit } from "~/domain/credits/ledger.server";
import type { Clock } from "~/lib/clock";
import type { Config } from "~/lib/config.server";
import { AppError } from "~/lib/errors";
import { DEMO_TEXT_CREDITS, findImageProvider, findTextProvider } from "./catalog";
import { imageProviderMode, textProviderMode } from "./models.server";
import type { DemoRequest } from "./schema";

export type DemoKind = "text" | "image";

/**
 * What this call costs: the catalog price when the offering is valid and its
 * provider is live, else 0 (simulated; or unknown, which the call itself refuses
 * with its own message).
 */
export function demoPrice(config: Config, kind: DemoKind, input: Pick<DemoRequest, "provider" | "model">): number {
  if (kind === "text") {
    const p = findTextProvider(input.provider);
    if (!p?.models.includes(input.model)) return 0;
    return textProviderMode(config, p.name) === "live" ? DEMO_TEXT_CREDITS : 0;
  }
  const p = findImageProvider(input.provider);
  if (!p?.models.includes(input.model) || imageProviderMode(config, p.name) !== "live") return 0;
  const entry = CATALOG.find((o) => o.aiType === "image" && o.provider === p.name && o.model === input.model);
  if (!entry) throw new Error(`demo: no catalog price for image ${p.name}:${input.model}`);
  return entry.credits;
}

/** A demo call's payment: taken before the upstream is called, given back if it never answers. */
export interface DemoCharge {
  /** Runs the upstream call; if it throws, the charge is undone and the error passes on. */
  run<T>(call: () => Promise<T>): Promise<T>;
}

const FREE: DemoCharge = { run: (call) => call() };

/**
 * Charges a live call before the upstream is called, in one transaction with
 * the user's row locked: the balance check (spendable = left − held by running
 * tasks) and the debit together, so concurrent calls of one user can never
 * spend more than the balance. If the upstream call then fails, the debit is
 * voided (its credits go back to their grants) — unless the caller went away
 * (`clientSignal` aborted): the upstream was reached and bills the operator
 * whether or not anyone waits for the answer, so a disconnect keeps the charge.
 */
export async function chargeDemoCall(
  deps: { db: Db; clock: Clock; config: Config },
  kind: DemoKind,
  input: Pick<DemoRequest, "provider" | "model">,
  payer: string | null,
  clientSignal?: AbortSignal,
): Promise<DemoCharge> {
  const price = demoPrice(deps.config, kind, input);
  if (price === 0) return FREE;
  if (!payer) throw new AppError("UNAUTHENTICATED");
  const { db, clock } = deps;
  const genId = `demo:${randomUUID()}`;
  await db.tx(function* (t) {
    yield* lockRow("user", payer);
    yield* assertCanReserve(t, payer, price, clock);
    yield* debitForGeneration(t, { genId, userId: payer, amount: price }, clock);
  });
  return {
    async run(call) {
      const goneBefore = clientSignal?.aborted === true; // then the upstream is never reached
      try {
        return await call();
      } catch (error) {
        if (goneBefore || !clientSignal?.aborted) await db.tx((t) => voidDebit(t, genId));
        throw error;
      }
    },
  };
}
