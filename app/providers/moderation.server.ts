/**
 * OpenAI's moderation endpoint (`POST {OPENAI_BASE_URL}/moderations`, API reference "Create moderation"): text and
 * pictures judged by `omni-moderation-latest`, free. A pure translation of the API: the policy (what a flag means,
 * what an outage means) is app/domain/safety/.
 */
import { readCapped, safeFetch } from "~/lib/outbound.server";

export const MODERATION_MODEL = "omni-moderation-latest";

export type ModerationInput =
  | string
  | ({ type: "text"; text: string } | { type: "image_url"; image_url: { url: string } })[];

export interface ModerationVerdict {
  flagged: boolean;
  /** The categories the model flagged (`sexual`, `violence/graphic`…), never the scores. */
  categories: string[];
}

/** The service did not give a verdict (unreachable, timed out, an error status, an unreadable answer). */
export class ModerationUnavailable extends Error {
  override name = "ModerationUnavailable";
}

export interface ModerationClient {
  moderate(input: ModerationInput, signal?: AbortSignal): Promise<ModerationVerdict>;
}

export function openAIModeration(opts: {
  apiKey: string;
  baseUrl: string;
  timeoutMs: number;
  allowPrivate: boolean;
}): ModerationClient {
  const url = `${opts.baseUrl.replace(/\/+$/, "")}/moderations`;
  return {
    async moderate(input, signal) {
      const timeout = AbortSignal.timeout(opts.timeoutMs);
      let res: Response;
      try {
        res = await safeFetch(url, {
          method: "POST",
          headers: { authorization: `Bearer ${opts.apiKey}`, "content-type": "application/json" },
          body: JSON.stringify({ model: MODERATION_MODEL, input }),
          signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
          maxRedirects: 0,
          allowPrivate: opts.allowPrivate,
        });
      } catch (error) {
        throw new ModerationUnavailable(`POST ${url}: ${(error as Error)?.message ?? String(error)}`);
      }
      let json: any;
      try {
        const text = new TextDecoder().decode(await readCapped(res, 1024 * 1024));
        json = JSON.parse(text);
      } catch (error) {
        throw new ModerationUnavailable(`POST ${url}: HTTP ${res.status}, unreadable answer (${String(error)})`);
      }
      if (!res.ok)
        throw new ModerationUnavailable(
          `POST ${url}: HTTP ${res.status} ${String(json?.error?.message ?? "").slice(0, 200)}`,
        );
      const result = Array.isArray(json?.results) ? json.results[0] : undefined;
      if (!result || typeof result.flagged !== "boolean")
        throw new ModerationUnavailable(`POST ${url}: the answer has no results[0].flagged`);
      const cats = result.categories && typeof result.categories === "object" ? result.categories : {};
      return {
        flagged: result.flagged,
        categories: Object.entries(cats)
          .filter(([, v]) => v === true)
          .map(([k]) => k),
      };
    },
  };
}
