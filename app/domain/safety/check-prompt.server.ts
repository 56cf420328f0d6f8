/**
 * A prompt is checked before anything is created or reserved (docs/safety.md "What is checked where"): the operator's
 * blocked terms always, then the moderation service when one is configured. A refusal is CONTENT_POLICY (code 1,
 * `content policy: …`, HTTP 400) naming the rule, never the matched term or a score; it is recorded in the audit trail.
 */
import type { Db } from "#db/client";
import type { Clock } from "~/lib/clock";
import type { Config } from "~/lib/config.server";
import { AppError } from "~/lib/errors";
import { log } from "~/lib/log.server";
import { type ModerationClient, ModerationUnavailable, openAIModeration } from "~/providers/moderation.server";
import { findBlockedTerm } from "./matcher";
import { normalizedTerms, recordSafetyEvent } from "./terms.server";

export interface SafetyDeps {
  db: Db;
  clock: Clock;
  config: SafetyConfig;
}

/** The settings the safety checks read (a job runner's context carries only these). */
export type SafetyConfig = Partial<
  Pick<
    Config,
    | "MODERATION_PROVIDER"
    | "MODERATION_FAIL"
    | "MODERATION_TIMEOUT_MS"
    | "OPENAI_API_KEY"
    | "OPENAI_BASE_URL"
    | "OUTBOUND_ALLOW_PRIVATE"
  >
>;

const clients = new WeakMap<SafetyConfig, ModerationClient | null>();

/** The configured moderation service (MODERATION_PROVIDER), or null; one client per configuration. */
export function moderationFor(config: SafetyConfig): ModerationClient | null {
  let client = clients.get(config);
  if (client === undefined) {
    client =
      config.MODERATION_PROVIDER === "openai" && config.OPENAI_API_KEY
        ? openAIModeration({
            apiKey: config.OPENAI_API_KEY,
            baseUrl: config.OPENAI_BASE_URL ?? "https://api.openai.com/v1",
            timeoutMs: config.MODERATION_TIMEOUT_MS ?? 5_000,
            allowPrivate: config.OUTBOUND_ALLOW_PRIVATE ?? false,
          })
        : null;
    clients.set(config, client);
  }
  return client;
}

/** How a flagged category reads to the user (`sexual/minors` → `sexual content involving minors`). */
export function categoryWords(categories: readonly string[]): string {
  const first = categories[0];
  if (!first) return "content the policy refuses";
  const words: Record<string, string> = {
    "sexual/minors": "sexual content involving minors",
    sexual: "sexual content",
    "violence/graphic": "graphic violence",
    violence: "violence",
    hate: "hate",
    "hate/threatening": "hate",
    harassment: "harassment",
    "harassment/threatening": "harassment",
    "self-harm": "self-harm",
    "self-harm/intent": "self-harm",
    "self-harm/instructions": "self-harm",
    illicit: "illegal acts",
    "illicit/violent": "illegal acts",
    nsfw: "sexual content",
  };
  // The always-refused category names itself first when it is among them.
  const pick = categories.includes("sexual/minors") ? "sexual/minors" : first;
  return words[pick] ?? pick.replace(/[^a-z/ -]/gi, "").slice(0, 40);
}

async function refuse(deps: SafetyDeps, userId: string | null, category: string, what: string): Promise<never> {
  await recordSafetyEvent(deps.db, { kind: "prompt_refused", category, userId }, deps.clock).catch((error) =>
    log.warn("recording a refused prompt failed", { error }),
  );
  throw new AppError("CONTENT_POLICY", { what });
}

/** Throws CONTENT_POLICY (or MODERATION_UNAVAILABLE, fail closed) for a prompt the policy refuses. */
export async function checkPrompt(deps: SafetyDeps, userId: string | null, prompt: string): Promise<void> {
  if (!prompt) return;
  const term = findBlockedTerm(prompt, await normalizedTerms(deps.db));
  if (term) await refuse(deps, userId, "blocked_term", "the prompt contains a blocked term");
  const moderation = moderationFor(deps.config);
  if (!moderation) return;
  let verdict;
  try {
    verdict = await moderation.moderate(prompt);
  } catch (error) {
    if (!(error instanceof ModerationUnavailable)) throw error;
    if (deps.config.MODERATION_FAIL === "open") {
      log.warn("moderation unavailable: the prompt was let through (MODERATION_FAIL=open)", { error: error.message });
      return;
    }
    log.warn("moderation unavailable: the prompt was refused (MODERATION_FAIL=closed)", { error: error.message });
    throw new AppError("MODERATION_UNAVAILABLE");
  }
  if (verdict.flagged)
    await refuse(
      deps,
      userId,
      verdict.categories[0] ?? "flagged",
      `the prompt was flagged as ${categoryWords(verdict.categories)}`,
    );
}

/**
 * An uploaded (or fetched) input picture, before it is stored: the moderation service judges it when one is
 * configured (MODERATION_FAIL as for prompts). Throws CONTENT_POLICY for a flagged picture.
 */
export async function checkPicture(
  deps: SafetyDeps,
  userId: string,
  bytes: Uint8Array,
  contentType: string,
): Promise<void> {
  const moderation = moderationFor(deps.config);
  if (!moderation) return;
  const url = `data:${contentType};base64,${Buffer.from(bytes).toString("base64")}`;
  let verdict;
  try {
    verdict = await moderation.moderate([{ type: "image_url", image_url: { url } }]);
  } catch (error) {
    if (!(error instanceof ModerationUnavailable)) throw error;
    if (deps.config.MODERATION_FAIL === "open") {
      log.warn("moderation unavailable: the picture was let through (MODERATION_FAIL=open)", { error: error.message });
      return;
    }
    log.warn("moderation unavailable: the picture was refused (MODERATION_FAIL=closed)", { error: error.message });
    throw new AppError("MODERATION_UNAVAILABLE");
  }
  if (!verdict.flagged) return;
  await recordSafetyEvent(
    deps.db,
    { kind: "upload_refused", category: verdict.categories[0] ?? "flagged", userId },
    deps.clock,
  ).catch((error) => log.warn("recording a refused picture failed", { error }));
  throw new AppError("CONTENT_POLICY", { what: `the picture was flagged as ${categoryWords(verdict.categories)}` });
}
