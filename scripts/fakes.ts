#!/usr/bin/env bun
/**
 * Starts the four provider fakes (and an S3-compatible bucket) on fixed ports
 * and prints the environment that points Atelier at them, so you can watch
 * "live" providers work without any upstream account:
 *
 *   bun run fakes                       # in one terminal
 *   <paste the printed env> bun run start   # in another
 *
 * FAKES_PORT (default 4010) is the first port; the others follow. The Stripe
 * fake's checkout page pays and delivers signed events to ATELIER_URL's
 * webhook (default http://localhost:3000).
 * Every task succeeds here; the failure modes are driven by the tests.
 */
import { startAllFakes } from "../tests/fakes";

const first = Number(process.env.FAKES_PORT ?? 4010);
const atelier = (process.env.ATELIER_URL ?? "http://localhost:3000").replace(/\/+$/, "");
const fakes = await startAllFakes({
  firstPort: first,
  s3: !process.argv.includes("--no-s3"),
  stripe: { webhookUrl: `${atelier}/api/billing/webhook/stripe` },
});
const { openai, replicate, kling, runway, s3, stripe, env } = fakes;

console.log("Provider fakes are running:");
console.log(`  OpenAI     ${openai.baseUrl}`);
console.log(`  Replicate  ${replicate.baseUrl}`);
console.log(`  Kling      ${kling.baseUrl}`);
console.log(`  Runway     ${runway.baseUrl}`);
if (stripe) console.log(`  Stripe     ${stripe.origin}  (checkout pages pay and deliver to ${stripe.webhookUrl})`);
if (s3) console.log(`  S3         ${s3.endpoint}/${s3.bucket}  (s3rver behind a SigV4 check)`);
console.log("\nPoint Atelier at them (e.g. save as .env, or prefix `bun run start`):\n");
for (const [k, v] of Object.entries(env)) console.log(`${k}=${v}`);
console.log("\nCtrl-C to stop.");

const stop = async () => {
  await fakes.stop();
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
