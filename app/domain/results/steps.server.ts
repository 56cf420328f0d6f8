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
import type { ResultStorage } from "~/storage/types";
import { checkBytes } from "./check-bytes.server";
import type { DerivativeStep, ResultPipeline, ResultStep } from "./pipeline.server";
import { placeholderStep } from "./placeholder-step.server";
import { renditionsStep } from "./renditions-step.server";

export interface PipelineDeps {
  db: Db;
  /** Where the renditions go (beside the originals); without it, or with `renditions: false`, none are made. */
  storage?: ResultStorage;
  renditions?: boolean;
}

export function resultPipeline(deps: PipelineDeps): ResultPipeline {
  const steps: ResultStep[] = [checkBytes];
  const derivatives: DerivativeStep[] = [placeholderStep(deps.db)];
  if (deps.storage && deps.renditions !== false)
    derivatives.push(renditionsStep({ db: deps.db, storage: deps.storage }));
  return { steps, derivatives };
}
