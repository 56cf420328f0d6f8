#!/usr/bin/env bun
/**
 * Demo endpoints: what the ai SDK path costs per request, against a baseline
 * measured in the same run on the same server (the machine may be shared, so
 * read the ratios, not the absolute numbers).
 *
 * - baseline: POST /api/get-user-info without a session (React Router + envelope, no SDK)
 * - gen-text: generateText on the simulated model (no word delay)
 * - gen-stream-text: streamText → toTextStreamResponse, body read to the end (no word delay)
 * - time to first chunk vs whole reply of a streamed simulated reply at the default 40 ms per word
 *
 * Usage: bun run build && bun tests/bench/demo.ts [requests=2000] [concurrency=8]
 */
import { startServer } from "../support/server";

const total = Number(process.argv[2] ?? 2000);
const concurrency = Number(process.argv[3] ?? 8);
const body = JSON.stringify({ provider: "openrouter", model: "openai/gpt-4o-mini", prompt: "benchmark prompt" });

async function rate(url: string, withBody: boolean): Promise<number> {
  let next = 0;
  const worker = async () => {
    while (next++ < total) {
      const r = await fetch(url, {
        method: "POST",
        body: withBody ? body : undefined,
        headers: { "content-type": "application/json" },
      });
      await r.arrayBuffer();
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  return total / ((performance.now() - t0) / 1000);
}

const fast = await startServer({ env: { NODE_ENV: "development", DEMO_SIMULATOR_WORD_MS: "0" } });
try {
  await rate(`${fast.url}/api/get-user-info`, false); // warm-up
  await rate(`${fast.url}/api/demo/gen-text`, true);
  const base = await rate(`${fast.url}/api/get-user-info`, false);
  const text = await rate(`${fast.url}/api/demo/gen-text`, true);
  const stream = await rate(`${fast.url}/api/demo/gen-stream-text`, true);
  console.log(`requests=${total} concurrency=${concurrency} (shared machine: compare ratios)`);
  console.log(`baseline get-user-info  ${base.toFixed(0)} req/s  1.00`);
  console.log(`gen-text (simulated)    ${text.toFixed(0)} req/s  ${(text / base).toFixed(2)} of baseline`);
  console.log(`gen-stream-text (sim.)  ${stream.toFixed(0)} req/s  ${(stream / base).toFixed(2)} of baseline`);
} finally {
  await fast.dispose();
}

const paced = await startServer({ env: { NODE_ENV: "development" } });
try {
  const firsts: number[] = [];
  const wholes: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    const res = await fetch(`${paced.url}/api/demo/gen-stream-text`, { method: "POST", body });
    const reader = res.body!.getReader();
    let first = NaN;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (Number.isNaN(first) && value.byteLength) first = performance.now() - t0;
    }
    firsts.push(first);
    wholes.push(performance.now() - t0);
  }
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(
    `streamed reply at 40 ms/word: first chunk ${median(firsts).toFixed(0)} ms, whole ${median(wholes).toFixed(0)} ms (first/whole ${(median(firsts) / median(wholes)).toFixed(2)})`,
  );
} finally {
  await paced.dispose();
}
