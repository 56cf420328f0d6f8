#!/usr/bin/env bun
/**
 * Starts the four provider fakes (and an S3-compatible bucket) on fixed ports
 * and prints the environment that points Atelier at them, so you can watch
 * "live" providers work without any upstream account:
 *
 *   bun run fakes                       # in one terminal
 *   <paste the printed env> bun run start   # in another
 *
 * FAKES_PORT (default 4010) is the first port; the others follow.
 * Every task succeeds here; the failure modes are driven by the tests.
 */
import { startKlingFake } from "../tests/fakes/kling";
import { startOpenAIFake } from "../tests/fakes/openai";
import { startReplicateFake } from "../tests/fakes/replicate";
import { startRunwayFake } from "../tests/fakes/runway";
import { startS3Fake } from "../tests/fakes/s3";

const first = Number(process.env.FAKES_PORT ?? 4010);
const withS3 = !process.argv.includes("--no-s3");

const openai = startOpenAIFake({ port: first });
const replicate = startReplicateFake({ port: first + 1 });
const kling = startKlingFake({ port: first + 2 });
const runway = startRunwayFake({ port: first + 3 });
const s3 = withS3 ? await startS3Fake({ port: first + 4 }) : undefined;

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
  ...(s3?.env ?? {}),
};

console.log("Provider fakes are running:");
console.log(`  OpenAI     ${openai.baseUrl}`);
console.log(`  Replicate  ${replicate.baseUrl}`);
console.log(`  Kling      ${kling.baseUrl}`);
console.log(`  Runway     ${runway.baseUrl}`);
if (s3) console.log(`  S3         ${s3.endpoint}/${s3.bucket}  (s3rver behind a SigV4 check)`);
console.log("\nPoint Atelier at them (e.g. save as .env, or prefix `bun run start`):\n");
for (const [k, v] of Object.entries(env)) console.log(`${k}=${v}`);
console.log("\nCtrl-C to stop.");

const stop = async () => {
  await Promise.all([openai.stop(), replicate.stop(), kling.stop(), runway.stop(), s3?.stop()]);
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
