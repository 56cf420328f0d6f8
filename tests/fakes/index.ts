/**
 * All six provider fakes (and optionally an S3-compatible bucket) at once,
 * with the environment that points Atelier at them. Used by `bun run fakes`
 * and by the whole-service tests.
 */
import { type FalFake, startFalFake } from "./fal";
import { type GoogleFake, startGoogleFake } from "./google";
import { type KlingFake, startKlingFake } from "./kling";
import { type OpenAIFake, startOpenAIFake } from "./openai";
import { type ReplicateFake, startReplicateFake } from "./replicate";
import { type RunwayFake, startRunwayFake } from "./runway";
import { type S3Fake, startS3Fake } from "./s3";
import { type StripeFake, startStripeFake } from "./stripe";

export interface AllFakes {
  openai: OpenAIFake;
  replicate: ReplicateFake;
  kling: KlingFake;
  runway: RunwayFake;
  fal: FalFake;
  google: GoogleFake;
  s3?: S3Fake;
  stripe?: StripeFake;
  /** Provider credentials and base URLs (plus the S3 variables when a bucket runs). */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/** `firstPort` 0 (default) picks free ports; otherwise the fakes take consecutive ports from it. */
export async function startAllFakes(
  opts: { firstPort?: number; s3?: boolean; stripe?: { webhookUrl?: string } } = {},
): Promise<AllFakes> {
  const at = (i: number) => (opts.firstPort ? opts.firstPort + i : undefined);
  const openai = startOpenAIFake({ port: at(0) });
  const replicate = startReplicateFake({ port: at(1) });
  const kling = startKlingFake({ port: at(2) });
  const runway = startRunwayFake({ port: at(3) });
  const s3 = opts.s3 ? await startS3Fake({ port: at(4) }) : undefined;
  const stripe = opts.stripe ? startStripeFake({ port: at(5), webhookUrl: opts.stripe.webhookUrl }) : undefined;
  const fal = startFalFake({ port: at(6) });
  const google = startGoogleFake({ port: at(7) });
  const env: Record<string, string> = {
    OPENAI_API_KEY: openai.apiKey,
    OPENAI_BASE_URL: openai.baseUrl,
    REPLICATE_API_TOKEN: replicate.token,
    REPLICATE_BASE_URL: replicate.baseUrl,
    KLING_ACCESS_KEY: kling.accessKey,
    KLING_SECRET_KEY: kling.secretKey,
    KLING_BASE_URL: kling.baseUrl,
    RUNWAY_API_KEY: runway.apiKey,
    RUNWAY_BASE_URL: runway.baseUrl,
    FAL_KEY: fal.key,
    FAL_QUEUE_URL: fal.baseUrl,
    FAL_API_URL: fal.baseUrl,
    GEMINI_API_KEY: google.apiKey,
    GEMINI_BASE_URL: google.baseUrl,
    // The fakes serve result files from 127.0.0.1, which result downloads refuse by default (SSRF guard).
    OUTBOUND_ALLOW_PRIVATE: "true",
    ...(s3?.env ?? {}),
    ...(stripe?.env ?? {}),
  };
  return {
    openai,
    replicate,
    kling,
    runway,
    fal,
    google,
    s3,
    stripe,
    env,
    stop: async () => {
      await Promise.all([
        openai.stop(),
        replicate.stop(),
        kling.stop(),
        runway.stop(),
        fal.stop(),
        google.stop(),
        s3?.stop(),
        stripe?.stop(),
      ]);
    },
  };
}
