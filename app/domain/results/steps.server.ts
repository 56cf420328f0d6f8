/**
 * The order of the result pipeline, in one place (docs/design.md §4.1): the steps every result passes before it is
 * stored and its task completes, then the derivatives made from the stored file once the task is visible.
 *
 *   check-bytes → safety → provenance → [store, publish] → placeholder → renditions
 *
 * Safety comes before provenance (a refused result is never signed), provenance before the store (what is stored
 * and downloaded is the signed original), derivatives after the publish (renditions are made from the signed file
 * and never hold the task back).
 */
import type { Db } from "#db/client";
import type { SafetyConfig } from "~/domain/safety/check-prompt.server";
import { type Clock, systemClock } from "~/lib/clock";
import type { ResultStorage } from "~/storage/types";
import { checkBytes } from "./check-bytes.server";
import type { DerivativeStep, ResultPipeline, ResultStep } from "./pipeline.server";
import { placeholderStep } from "./placeholder-step.server";
import { type ProvenanceDeps, provenanceStep } from "./provenance-step.server";
import { renditionsStep } from "./renditions-step.server";
import { safetyStep } from "./safety-step.server";

export interface PipelineDeps {
  db: Db;
  clock?: Clock;
  config?: SafetyConfig;
  /** Where the renditions go (beside the originals); without it, or with `renditions: false`, none are made. */
  storage?: ResultStorage;
  renditions?: boolean;
  /** Where and with what results are signed (the `provenance` step); absent: results are not signed. */
  provenance?: ProvenanceDeps;
}

/** The provenance step's settings from the configuration: none when C2PA=false or no data folder is known. */
export function provenanceOf(config: {
  C2PA?: boolean;
  DATA_DIR?: string;
  C2PA_SIGNING_KEY?: string;
  C2PA_CERT_CHAIN?: string;
}): ProvenanceDeps | undefined {
  if (config.C2PA === false || !config.DATA_DIR) return undefined;
  return { dataDir: config.DATA_DIR, key: config.C2PA_SIGNING_KEY, chain: config.C2PA_CERT_CHAIN };
}

export function resultPipeline(deps: PipelineDeps): ResultPipeline {
  const config = deps.config ?? {};
  const safety = safetyStep({
    db: deps.db,
    clock: deps.clock ?? systemClock,
    config,
  });
  const steps: ResultStep[] = [checkBytes, safety];
  if (deps.provenance) steps.push(provenanceStep(deps.provenance));
  const derivatives: DerivativeStep[] = [placeholderStep(deps.db)];
  if (deps.storage && deps.renditions !== false)
    derivatives.push(renditionsStep({ db: deps.db, storage: deps.storage }));
  return { steps, derivatives };
}
