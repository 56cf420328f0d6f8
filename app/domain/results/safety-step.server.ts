/**
 * The pipeline's safety step (docs/safety.md "Results"): a result is refused when the provider's own verdict flags it
 * (fal's `has_nsfw_concepts`, the simulator's `[simulate:unsafe]`), when the moderation service flags the picture
 * (MODERATION_PROVIDER=openai, the image sent as a data URL), or when a local classifier it is given does.
 * A refused task fails with `content policy: …`, uncharged, its bytes never stored. A moderation outage follows
 * MODERATION_FAIL: closed throws (the pipeline fails the task safe, uncharged), open keeps the result, logged.
 */
import type { Db } from "#db/client";
import { categoryWords, moderationFor, type SafetyConfig } from "~/domain/safety/check-prompt.server";
import type { PictureClassifier } from "~/domain/safety/classifier.server";
import { recordSafetyEvent } from "~/domain/safety/terms.server";
import type { Clock } from "~/lib/clock";
import { log } from "~/lib/log.server";
import { ModerationUnavailable } from "~/providers/moderation.server";
import type { ResultStep, StepOutcome } from "./pipeline.server";

/** OpenAI's moderation takes pictures up to 20 MB; larger ones are judged by the other checks only. */
const MODERATION_MAX_BYTES = 20 * 1024 * 1024;

export const resultRefusedMessage = (what: string) =>
  `content policy: the result was flagged as ${what} (see /content-policy); no credits were charged`;

export interface SafetyStepDeps {
  db: Db;
  clock: Clock;
  config: SafetyConfig;
  classifier?: PictureClassifier | null;
}

export function safetyStep(deps: SafetyStepDeps): ResultStep {
  return {
    name: "safety",
    timeoutMs: 20_000,
    async run(file, task, signal) {
      const refuse = async (source: string, categories: string[]): Promise<StepOutcome> => {
        await recordSafetyEvent(
          deps.db,
          {
            kind: "result_refused",
            category: `${source}:${categories[0] ?? "flagged"}`,
            userId: task.userId,
            detail: task.id,
          },
          deps.clock,
        ).catch((error) => log.warn("recording a refused result failed", { gen_id: task.id, error }));
        return {
          kind: "refuse",
          message: resultRefusedMessage(categoryWords(categories)),
          reason: `${source} flagged ${categories.join(",") || "the result"}`,
          byRequest: true,
        };
      };
      if (file.providerVerdict?.flagged) return refuse("provider", [file.providerVerdict.category ?? "nsfw"]);
      const picture = file.contentType.startsWith("image/");
      const moderation = moderationFor(deps.config);
      if (moderation && picture && file.bytes.byteLength <= MODERATION_MAX_BYTES) {
        const url = `data:${file.contentType};base64,${Buffer.from(file.bytes).toString("base64")}`;
        try {
          const verdict = await moderation.moderate([{ type: "image_url", image_url: { url } }], signal);
          if (verdict.flagged) return refuse("moderation", verdict.categories);
        } catch (error) {
          if (!(error instanceof ModerationUnavailable) || deps.config.MODERATION_FAIL !== "open") throw error;
          log.warn("moderation unavailable: the result was kept (MODERATION_FAIL=open)", {
            gen_id: task.id,
            error: error.message,
          });
        }
      }
      if (deps.classifier && picture) {
        const verdict = await deps.classifier.classify(file.bytes, signal);
        if (verdict.flagged) return refuse("classifier", [verdict.category]);
      }
      return { kind: "keep", note: { checked: true } };
    },
  };
}
