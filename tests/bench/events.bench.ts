/**
 * Event latency (docs/design.md §10), against the production build on this machine:
 *
 * 1. Webhooks: TASKS tasks (default 1000, simulated, SIMULATOR_DELAY_MS=100),
 *    each completion → the receiver. Latency = arrival at the receiver −
 *    the task's completed_at (from the signed payload; same clock). Median,
 *    p90, p99, max, and every event verified with the standardwebhooks library.
 * 2. Time to visible result for a client (the studio): the status stream
 *    (SSE) against the studio's polling (every 2.5 s), same run, same tasks
 *    shape: completed_at → the moment the client knows.
 *
 *   bun run build && bun tests/bench/events.bench.ts [TASKS]
 */
import { loadavg } from "node:os";
import { Client, uniqueEmail } from "../support/client";
import { startServer } from "../support/server";
import { startReceiver } from "../support/webhook-receiver";

const TASKS = Number(process.argv[2] ?? process.env.TASKS ?? 1000);
const STREAM_TASKS = Number(process.env.STREAM_TASKS ?? 40);
const POLL_MS = 2500;
const IMAGE = { ai_type: "image", provider: "replicate", model: "black-forest-labs/flux-schnell" };

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
};
const summary = (xs: number[]) =>
  `n=${xs.length} median ${pct(xs, 50).toFixed(1)} ms · p90 ${pct(xs, 90).toFixed(1)} ms · p99 ${pct(xs, 99).toFixed(1)} ms · max ${Math.max(...xs).toFixed(1)} ms`;

const server = await startServer({
  env: { SIMULATOR_DELAY_MS: "100", WEBHOOK_ALLOW_PRIVATE: "true", SIGNUP_CREDITS: "1000000", LOG_LEVEL: "error" },
});
const receiver = startReceiver();
try {
  const api = new Client(server.url);
  const { cookie } = await api.signUp(uniqueEmail("bench"));
  const wh = (await api.post("/api/webhooks/create", { url: receiver.url }, { cookie })).body.data;
  console.log(
    `load before: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}`,
  );

  // ---- 1. webhook delivery latency
  const t0 = performance.now();
  const ids = new Set<string>();
  for (let i = 0; i < TASKS; i += 20) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(20, TASKS - i) }, (_, k) =>
        api.post("/api/generator/generate", { ...IMAGE, prompt: `bench ${i + k}` }, { cookie }),
      ),
    );
    for (const r of batch) ids.add(r.body.data.gen_id);
  }
  const got = await receiver.waitFor(TASKS, 300_000);
  const wall = performance.now() - t0;
  const latencies: number[] = [];
  const seen = new Set<string>();
  for (const r of got) {
    const p = receiver.verify(r, wh.secret) as { type: string; data: { gen_id: string; completed_at: string } };
    if (!ids.has(p.data.gen_id) || seen.has(p.data.gen_id)) throw new Error(`unexpected event ${p.data.gen_id}`);
    seen.add(p.data.gen_id);
    latencies.push(r.at - Date.parse(p.data.completed_at));
  }
  console.log(
    `webhooks: ${TASKS} tasks created and delivered in ${(wall / 1000).toFixed(1)} s; all ${got.length} signatures verified`,
  );
  console.log(`webhook latency (completed_at → receiver): ${summary(latencies)}`);

  // ---- 2. time to visible: SSE vs polling every 2.5 s (the studio today)
  const sse: number[] = [];
  const poll: number[] = [];
  const viaStream = async () => {
    const gen = (await api.post("/api/generator/generate", { ...IMAGE, prompt: "stream [simulate:slow]" }, { cookie }))
      .body.data.gen_id;
    const res = await fetch(`${server.url}/api/generator/stream?gen_id=${gen}`, { headers: { cookie } });
    const reader = res.body!.getReader();
    const dec = new TextDecoder();
    let buf = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buf += dec.decode(value, { stream: true });
      const m = /data: (\{[^\n]*"status":"completed"[^\n]*\})/.exec(buf);
      if (m) {
        sse.push(Date.now() - Date.parse(JSON.parse(m[1]!).completed_at));
        await reader.cancel();
        break;
      }
    }
  };
  const viaPolling = async () => {
    const gen = (await api.post("/api/generator/generate", { ...IMAGE, prompt: "poll [simulate:slow]" }, { cookie }))
      .body.data.gen_id;
    await Bun.sleep(Math.random() * POLL_MS); // the page loaded at a random moment of its cycle
    for (;;) {
      const q = await api.post("/api/generator/query", { gen_id: gen }, { cookie });
      if (q.body.data.status === "completed") {
        poll.push(Date.now() - Date.parse(q.body.data.completed_at));
        return;
      }
      await Bun.sleep(POLL_MS);
    }
  };
  await Promise.all([
    ...Array.from({ length: STREAM_TASKS }, viaStream),
    ...Array.from({ length: STREAM_TASKS }, viaPolling),
  ]);
  console.log(`time to visible, status stream (SSE): ${summary(sse)}`);
  console.log(`time to visible, polling every ${POLL_MS} ms (baseline): ${summary(poll)}`);
  console.log(`ratio (median polling / median SSE): ${(pct(poll, 50) / Math.max(0.1, pct(sse, 50))).toFixed(0)}×`);
  console.log(
    `load after: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}`,
  );
} finally {
  await server.dispose();
  await receiver.stop();
}
