/**
 * Who pays for a demo call (DESIGN §5): a call that reaches a live, paid
 * provider costs the catalog price — checked before the call, debited through
 * the ledger after the upstream answered; simulated calls are free. A live call
 * needs someone to pay, so an anonymous one is refused.
 *
 * The check and the debit are two short transactions (the upstream call sits
 * between them and never runs inside one): concurrent live calls of one user may
 * each pass the check, and the debit then takes what is left, never below zero.
 */
import { randomUUID } from "node:crypto";
import type { Db } from "#db/client";
import { CATALOG } from "~/domain/catalog";
import { assertCanReserve, debitForGeneration } from "~/domain/credits/ledger.server";
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
    if (!p || !p.models.includes(input.model)) return 0;
    return textProviderMode(config, p.name) === "live" ? DEMO_TEXT_CREDITS : 0;
  }
  const p = findImageProvider(input.provider);
  if (!p || !p.models.includes(input.model) || imageProviderMode(config, p.name) !== "live") return 0;
  const entry = CATALOG.find((o) => o.aiType === "image" && o.provider === p.name && o.model === input.model);
  if (!entry) throw new Error(`demo: no catalog price for image ${p.name}:${input.model}`);
  return entry.credits;
}

/**
 * Checks that the caller can pay for the call (before the upstream is called)
 * and returns `settle`, which debits it once the upstream answered.
 */
export async function chargeDemoCall(
  deps: { db: Db; clock: Clock; config: Config },
  kind: DemoKind,
  input: Pick<DemoRequest, "provider" | "model">,
  payer: string | null,
): Promise<() => Promise<void>> {
  const price = demoPrice(deps.config, kind, input);
  if (price === 0) return async () => {};
  if (!payer) throw new AppError("UNAUTHENTICATED");
  const { db, clock } = deps;
  await db.tx(function* (t) {
    yield* assertCanReserve(t, payer, price, clock);
  });
  let settled = false;
  return async () => {
    if (settled) return;
    settled = true;
    await db.tx(function* (t) {
      yield* debitForGeneration(t, { genId: `demo:${randomUUID()}`, userId: payer, amount: price }, clock);
    });
  };
}
